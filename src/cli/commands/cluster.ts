/**
 * `samsa cluster`: Kafka's kafka-cluster tool, through the admin client. `cluster-id` prints the
 * cluster id ("Cluster ID: ..."), `list-endpoints` a row per broker (its node, the endpoint samsa
 * clients dial, its Kafka listener, rack and whether it is fenced; with --include-fenced-brokers
 * the fenced ones too), and `unregister --id N` takes a decommissioned broker out of the cluster's
 * registrations ("Broker N is no longer registered.").
 */
import type { BrokerInfo } from '../../protocol/cluster.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { out, table } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'id', alias: 'i', kind: 'int', value: 'broker-id', min: 0, help: 'with unregister: the id of the broker to unregister (required)' },
  { name: 'include-fenced-brokers', kind: 'flag', help: 'with list-endpoints: the fenced brokers too (their session expired, or they shut down)' },
  HELP_OPTION,
];

const SUBCOMMANDS = ['cluster-id', 'list-endpoints', 'unregister'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

/** The options each subcommand takes besides --bootstrap-server (Kafka's subparsers). */
const TAKES: Readonly<Record<Sub, readonly string[]>> = {
  'cluster-id': [],
  'list-endpoints': ['include-fenced-brokers'],
  unregister: ['id'],
};

const positional: PositionalSpec = { name: 'cluster-id|list-endpoints|unregister', help: 'the subcommand', max: 1 };

/** The list-endpoints table: brokers by id, '-' where a broker has no such endpoint or rack. */
export function endpointLines(brokers: readonly BrokerInfo[]): string[] {
  const rows = [...brokers]
    .sort((a, b) => a.brokerId - b.brokerId)
    .map((b) => [b.brokerId, b.node, b.endpoint ?? '-', b.kafkaEndpoint ?? '-', b.rack ?? '-', b.fenced ? 'fenced' : 'unfenced']);
  return table(['ID', 'NODE', 'ENDPOINT', 'KAFKA_ENDPOINT', 'RACK', 'STATE'], rows);
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError('give the subcommand: cluster-id, list-endpoints or unregister');
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': give cluster-id, list-endpoints or unregister`);
  for (const name of ['id', 'include-fenced-brokers']) {
    if (args.has(name) && !TAKES[sub as Sub].includes(name)) throw new UsageError(`--${name} does not go with ${sub}`);
  }
  const id = args.int('id');
  if (sub === 'unregister' && id === undefined) throw new UsageError('unregister needs --id');
  await withCluster(args, 'samsa-cluster', async (conn) => {
    await withAdmin(conn, async (admin) => {
      if (sub === 'unregister') {
        await admin.unregisterBroker(id!);
        out(`Broker ${id} is no longer registered.`);
        return;
      }
      const cluster = await admin.describeCluster({ includeFencedBrokers: args.has('include-fenced-brokers') });
      if (sub === 'cluster-id') out(`Cluster ID: ${cluster.clusterId}`);
      else for (const l of endpointLines(cluster.brokers)) out(l);
    });
  });
  return EXIT_OK;
}

export const clusterCommand: Command = {
  name: 'cluster',
  summary: "print the cluster's id and its brokers' endpoints; unregister a decommissioned broker",
  usage: ['[--bootstrap-server host:port] cluster-id', '[--bootstrap-server host:port] list-endpoints [--include-fenced-brokers]', '[--bootstrap-server host:port] unregister --id broker-id'],
  description:
    "Like Kafka's kafka-cluster tool. cluster-id prints the cluster's id. list-endpoints prints each live broker: the node it runs on, the endpoint samsa's clients dial (when its node listens for them), its Kafka listener (when it has one), its rack and its state; --include-fenced-brokers adds the registered brokers that are fenced (their session expired or they shut down, until they register again).\n\nunregister takes a broker out of the cluster's registrations, for a machine that is gone for good (Kafka's UnregisterBroker): the partitions it led get new leaders, it leaves every ISR and eligible leader replica set, and it no longer appears in list-endpoints, even among the fenced. Its replicas stay assigned to it: move them first with reassign-partitions to keep their replication factor. A broker that is still running registers again on its next heartbeat, at a new broker epoch. An id not registered is BROKER_ID_NOT_REGISTERED.",
  options,
  positional,
  examples: ['samsa cluster cluster-id', 'samsa cluster list-endpoints --include-fenced-brokers', 'samsa cluster --bootstrap-server 127.0.0.1:9192 unregister --id 3'],
  run,
};
