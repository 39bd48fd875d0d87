/**
 * `samsa topics`: create, list, describe, delete topics and add partitions, like Kafka's
 * kafka-topics tool, through the admin client.
 */
import { isKafkaTopicId, kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import type { Admin } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import type { TopicMetadata } from '../../protocol/cluster.js';
import { keyValues, type Args, type OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const MODES = ['create', 'list', 'describe', 'delete', 'alter'] as const;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'create', kind: 'flag', help: 'create a topic' },
  { name: 'list', kind: 'flag', help: 'list the topic names' },
  { name: 'describe', kind: 'flag', help: 'show partitions, leader, replicas, ISR, leader epoch and config overrides' },
  { name: 'delete', kind: 'flag', help: 'delete a topic and its data' },
  { name: 'alter', kind: 'flag', help: 'add partitions to a topic (with --partitions), and/or set (--config) or remove (--delete-config) its config overrides' },
  { name: 'topic', kind: 'string', value: 't', help: 'the topic (required by --create, --delete and --alter; --describe shows every topic without it)', modes: ['create', 'describe', 'delete', 'alter'] },
  { name: 'topic-id', kind: 'string', value: 'id', help: 'with --describe: the topic of this id (Kafka\'s form, as --describe prints it); used instead of --topic', modes: ['describe'] },
  { name: 'partitions', kind: 'int', value: 'n', min: 1, help: "partition count: of the new topic (default: the cluster's num.partitions), or the new total for --alter", modes: ['create', 'alter'] },
  { name: 'replication-factor', kind: 'int', value: 'n', min: 1, help: "replicas per partition (default: the cluster's default.replication.factor)", modes: ['create'] },
  { name: 'config', kind: 'list', value: 'key=value', help: 'a topic config override such as retention.ms=86400000 or cleanup.policy=compact (repeatable)', modes: ['create', 'alter'] },
  { name: 'delete-config', kind: 'list', value: 'key', help: 'with --alter: remove an override, back to the broker default (repeatable)', modes: ['alter'] },
  { name: 'if-not-exists', kind: 'flag', help: 'with --create: succeed if the topic already exists', modes: ['create'] },
  { name: 'if-exists', kind: 'flag', help: 'with --delete, --alter or --describe: succeed if the topic does not exist', modes: ['delete', 'alter', 'describe'] },
  { name: 'exclude-internal', kind: 'flag', help: 'leave out internal topics such as __consumer_offsets', modes: ['list', 'describe'] },
  { name: 'under-replicated-partitions', kind: 'flag', help: 'with --describe: only partitions whose ISR is smaller than their replica set', modes: ['describe'] },
  { name: 'unavailable-partitions', kind: 'flag', help: 'with --describe: only partitions without a leader', modes: ['describe'] },
  HELP_OPTION,
];

export function describeLines(t: TopicMetadata, filter: (p: TopicMetadata['partitions'][number]) => boolean): string[] {
  const configs = Object.entries(t.config)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  // during a reassignment the replication factor is the target's (the replicas not being removed)
  const p0 = t.partitions[0];
  const rf = p0 ? p0.replicas.length - (p0.removingReplicas?.length ?? 0) : 0;
  const parts = [...t.partitions].sort((a, b) => a.partition - b.partition).filter(filter);
  const head = `Topic: ${t.name}\tTopicId: ${kafkaTopicId(t.topicId)}\tPartitionCount: ${t.partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${configs}`;
  return [
    head,
    ...parts.map(
      (p) =>
        `\tTopic: ${t.name}\tPartition: ${p.partition}\tLeader: ${p.leader >= 0 ? p.leader : 'none'}\tLeaderEpoch: ${p.leaderEpoch}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}` +
        (p.addingReplicas?.length ? `\tAdding Replicas: ${p.addingReplicas.join(',')}` : '') +
        (p.removingReplicas?.length ? `\tRemoving Replicas: ${p.removingReplicas.join(',')}` : '') +
        // as kafka-topics prints what DescribeTopicPartitions answers (KIP-966): empty when none
        `\tElr: ${(p.elr ?? []).join(',')}\tLastKnownElr: ${(p.lastKnownElr ?? []).join(',')}`,
    ),
  ];
}

function unknownTopic(e: unknown): boolean {
  return e instanceof SamsaError && e.errorName === 'UNKNOWN_TOPIC_OR_PARTITION';
}

async function create(admin: Admin, args: Args, topic: string, config: Record<string, string>): Promise<void> {
  const entries = Object.entries(config).map(([name, value]) => ({ name, value }));
  const created = await admin.createTopics({
    topics: [
      {
        topic,
        ...(args.has('partitions') ? { numPartitions: args.int('partitions')! } : {}),
        ...(args.has('replication-factor') ? { replicationFactor: args.int('replication-factor')! } : {}),
        ...(entries.length ? { configEntries: entries } : {}),
      },
    ],
  });
  if (created) out(`Created topic ${topic}.`);
  else if (args.has('if-not-exists')) err(`Topic ${topic} already exists.`);
  else throw new CliError(`topic '${topic}' already exists — add --if-not-exists to accept that, or see it with \`samsa topics --describe --topic ${topic}\``);
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES);
  const topic = args.string('topic');
  if ((mode === 'create' || mode === 'delete' || mode === 'alter') && topic === undefined) throw new UsageError(`--${mode} needs --topic`);
  const config = keyValues('config', args.list('config'));
  const deleteConfig = args.list('delete-config');
  if (mode === 'alter' && !args.has('partitions') && Object.keys(config).length === 0 && deleteConfig.length === 0) {
    throw new UsageError('--alter needs --partitions n (the new partition count), --config key=value or --delete-config key');
  }

  await withCluster(args, 'samsa-topics', (conn) =>
    withAdmin(conn, async (admin) => {
      switch (mode) {
        case 'create':
          await create(admin, args, topic!, config);
          break;
        case 'list': {
          const internal = new Set((await conn.metadata()).topics.filter((t) => t.internal).map((t) => t.name));
          for (const name of await admin.listTopics()) if (!(args.has('exclude-internal') && internal.has(name))) out(name);
          break;
        }
        case 'describe': {
          let topics: TopicMetadata[];
          const topicId = args.string('topic-id');
          if (topicId !== undefined && topicId !== ZERO_TOPIC_ID) {
            if (!isKafkaTopicId(topicId)) throw new UsageError(`--topic-id: '${topicId}' is not a topic id (22 characters of base64url, as --describe prints them)`);
            // as Kafka's kafka-topics: the id wins over a name given beside it
            if (topic !== undefined) out('Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID');
            topics = (await admin.fetchTopicMetadata({})).topics.filter((t) => kafkaTopicId(t.topicId) === topicId);
            if (topics.length === 0) {
              if (args.has('if-exists')) return;
              throw new CliError(`topic id '${topicId}' does not exist — see the topics and their ids with \`samsa topics --describe\``);
            }
          } else {
            try {
              topics = (await admin.fetchTopicMetadata(topic !== undefined ? { topics: [topic] } : {})).topics;
            } catch (e) {
              if (unknownTopic(e) && args.has('if-exists')) return;
              if (unknownTopic(e)) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
              throw e;
            }
          }
          const under = args.has('under-replicated-partitions');
          const unavailable = args.has('unavailable-partitions');
          const filter = (p: TopicMetadata['partitions'][number]) => (!under || p.isr.length < p.replicas.length) && (!unavailable || p.leader < 0);
          for (const t of [...topics].sort((a, b) => a.name.localeCompare(b.name))) {
            if (args.has('exclude-internal') && t.internal) continue;
            const lines = describeLines(t, filter);
            if ((under || unavailable) && lines.length === 1) continue;
            for (const l of lines) out(l);
          }
          break;
        }
        case 'delete':
          try {
            await admin.deleteTopics({ topics: [topic!] });
            out(`Deleted topic ${topic}.`);
          } catch (e) {
            if (unknownTopic(e) && args.has('if-exists')) return;
            if (unknownTopic(e)) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
            throw e;
          }
          break;
        case 'alter':
          try {
            if (Object.keys(config).length > 0 || deleteConfig.length > 0) {
              await admin.alterTopicConfigs({ topics: [{ topic: topic!, set: config, delete: deleteConfig }] });
              out(`Updated the config of topic ${topic}.`);
            }
            if (args.has('partitions')) {
              await admin.createPartitions({ topicPartitions: [{ topic: topic!, count: args.int('partitions')! }] });
              out(`Topic ${topic} now has ${args.int('partitions')} partitions.`);
            }
          } catch (e) {
            if (unknownTopic(e) && args.has('if-exists')) return;
            if (unknownTopic(e)) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
            throw e;
          }
          break;
      }
    }),
  );
  return EXIT_OK;
}

export const topicsCommand: Command = {
  name: 'topics',
  summary: 'create, list, describe, delete topics and add partitions',
  usage: [
    '[--bootstrap-server host:port] --create --topic t [--partitions n] [--replication-factor n] [--config k=v ...] [--if-not-exists]',
    '[--bootstrap-server host:port] --list [--exclude-internal]',
    '[--bootstrap-server host:port] --describe [--topic t | --topic-id id] [--under-replicated-partitions] [--unavailable-partitions]',
    '[--bootstrap-server host:port] --alter --topic t [--partitions n] [--config k=v ...] [--delete-config k ...]',
    '[--bootstrap-server host:port] --delete --topic t [--if-exists]',
  ],
  description:
    'Manages topics like Kafka\'s kafka-topics. --describe prints one line per topic (id, partition count, replication factor, config overrides) and one per partition (leader, leader epoch, replicas, in-sync replicas, and the replicas being added and removed while a reassignment is in progress). --alter adds partitions (never removes them: records keep the partition they are in, so keyed records may land in a different partition from then on) and sets or removes a topic\'s config overrides.',
  options,
  examples: [
    'samsa topics --create --topic orders --partitions 3 --replication-factor 3 --config retention.ms=86400000',
    'samsa topics --describe --topic orders',
    'samsa topics --alter --topic orders --partitions 6',
    'samsa topics --alter --topic orders --config cleanup.policy=compact --delete-config retention.ms',
  ],
  run,
};
