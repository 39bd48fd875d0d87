/**
 * The samsa command line without the process around it: the command registry (each command
 * lives in src/cli/commands and is loaded only when it runs), the top-level usage text, help
 * dispatch, and the mapping of errors to exit codes (0 ok, 1 runtime failure, 2 usage error).
 * src/cli/samsa.ts is the executable that calls main() and exits.
 */
import { parseArgs } from './args.js';
import { formatHelp, type Command } from './command.js';
import { EXIT_OK, EXIT_USAGE, exitCodeOf, explain, isUsageError } from './errors.js';
import { err } from './output.js';

export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'start', summary: 'run a cluster topology in the foreground (default: the embedded three-broker one)', load: async () => (await import('./commands/start.js')).startCommand },
  { name: 'topics', summary: 'create, list, describe, delete topics and add partitions', load: async () => (await import('./commands/topics.js')).topicsCommand },
  { name: 'produce', summary: 'send lines from stdin as records to a topic', load: async () => (await import('./commands/produce.js')).produceCommand },
  { name: 'consume', summary: 'print the records of a topic, one per line', load: async () => (await import('./commands/consume.js')).consumeCommand },
  { name: 'share-consume', summary: 'print the records of a topic as a member of a share group (KIP-932), acknowledging each', load: async () => (await import('./commands/share-consume.js')).shareConsumeCommand },
  { name: 'groups', summary: 'list, describe, delete consumer groups, reset and delete their offsets', load: async () => (await import('./commands/groups.js')).groupsCommand },
  { name: 'share-groups', summary: 'list, describe, delete share groups (KIP-932), delete and reset their offsets', load: async () => (await import('./commands/share-groups.js')).shareGroupsCommand },
  { name: 'leader-election', summary: 'move partition leadership to preferred replicas, or elect leaders for partitions without one', load: async () => (await import('./commands/leader-election.js')).leaderElectionCommand },
  { name: 'reassign-partitions', summary: 'move partitions to other brokers or change their replication factor, and follow or cancel the moves', load: async () => (await import('./commands/reassign-partitions.js')).reassignPartitionsCommand },
  { name: 'acls', summary: 'add, remove and list ACLs (who may do what to which topic, group, cluster or transactional id)', load: async () => (await import('./commands/acls.js')).aclsCommand },
  { name: 'configs', summary: 'describe and alter topic configs, dynamic broker configs (per broker or cluster-wide), brokers\' log levels, group configs, client quotas, IP connection rates, SCRAM credentials and client metrics subscriptions', load: async () => (await import('./commands/configs.js')).configsCommand },
  { name: 'client-metrics', summary: 'list, describe, alter and delete client metrics subscriptions (KIP-714: which metrics clients push, how often, which clients)', load: async () => (await import('./commands/client-metrics.js')).clientMetricsCommand },
  { name: 'delegation-tokens', summary: 'create, renew, expire and describe delegation tokens (SCRAM logins for clients without credentials of their own)', load: async () => (await import('./commands/delegation-tokens.js')).delegationTokensCommand },
  { name: 'transactions', summary: "list the transactions of the cluster, describe one transactional id, or a partition's producers", load: async () => (await import('./commands/transactions.js')).transactionsCommand },
  { name: 'cluster', summary: "print the cluster's id and its brokers' endpoints; unregister a decommissioned broker", load: async () => (await import('./commands/cluster.js')).clusterCommand },
  { name: 'metadata-quorum', summary: 'describe the quorum of controllers that replicates the cluster metadata (leader, epoch, voters and their lag)', load: async () => (await import('./commands/metadata-quorum.js')).metadataQuorumCommand },
  { name: 'features', summary: "describe the cluster's feature levels (metadata.version, group.version, ...); upgrade, downgrade or disable them", load: async () => (await import('./commands/features.js')).featuresCommand },
  { name: 'get-offsets', summary: "print topic partitions' offsets: the latest, the earliest, the largest timestamp's or a time's", load: async () => (await import('./commands/get-offsets.js')).getOffsetsCommand },
  { name: 'delete-records', summary: 'delete the records of partitions below an offset (their log start moves there)', load: async () => (await import('./commands/delete-records.js')).deleteRecordsCommand },
  { name: 'dump-log', summary: "print the record batches and records of samsa's segment files, and their offset and time indexes", load: async () => (await import('./commands/dump-log.js')).dumpLogCommand },
  { name: 'log-dirs', summary: "show the brokers' log dirs with each partition's size on disk and offset lag", load: async () => (await import('./commands/log-dirs.js')).logDirsCommand },
  { name: 'perf-produce', summary: 'producer throughput and latency, on a running cluster or a throw-away one (benchmarks/perf-produce.ts)', load: async () => (await import('./commands/perf.js')).perfProduceCommand },
  { name: 'perf-consume', summary: 'consumer throughput, on a running cluster or a throw-away one (benchmarks/perf-consume.ts)', load: async () => (await import('./commands/perf.js')).perfConsumeCommand },
  { name: 'perf-share-consume', summary: 'share consumer throughput (KIP-932 share groups), on a running cluster or a throw-away one (benchmarks/perf-share-consume.ts)', load: async () => (await import('./commands/perf.js')).perfShareConsumeCommand },
  { name: 'perf-e2e', summary: 'end-to-end latency at a fixed rate, or one record at a time (--sequential), on a running cluster or a throw-away one (benchmarks/perf-e2e.ts)', load: async () => (await import('./commands/perf.js')).perfE2eCommand },
  { name: 'demo', summary: 'run the actor runtime across two worker threads and print what happens', load: async () => (await import('./commands/demo.js')).demoCommand },
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'usage: samsa <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Run `samsa <command> --help` for the options of a command.',
    'Client commands connect to --bootstrap-server host:port (default 127.0.0.1:9192).',
    'Exit codes: 0 ok, 1 failure, 2 usage error. Logs: SAMSA_LOG_LEVEL=error|warn|info|debug|silent.',
    '',
  ].join('\n');
}

/** Whether argv asks for help before any `--` that ends the options. */
function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** Runs `samsa <argv>` and resolves with the exit code; output goes to stdout and stderr. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    process.stdout.write(usage());
    return EXIT_OK;
  }
  const wanted = name === 'help' ? rest[0]! : name;
  const entry = COMMANDS.find((c) => c.name === wanted);
  if (!entry) {
    err(`samsa: unknown command '${wanted}'`);
    err();
    process.stderr.write(usage());
    return EXIT_USAGE;
  }
  const cmd = await entry.load();
  if (cmd.runArgv) {
    try {
      return await cmd.runArgv(name === 'help' ? ['--help'] : rest);
    } catch (e) {
      err(`samsa ${cmd.name}: ${explain(e)}`);
      return exitCodeOf(e);
    }
  }
  if (name === 'help' || wantsHelp(rest)) {
    process.stdout.write(formatHelp(cmd));
    return EXIT_OK;
  }
  try {
    return await cmd.run(parseArgs(rest, cmd.options, cmd.positional));
  } catch (e) {
    if (isUsageError(e)) {
      err(`samsa ${cmd.name}: ${e.message}`);
      err(`run \`samsa ${cmd.name} --help\` for the options`);
      return EXIT_USAGE;
    }
    err(`samsa ${cmd.name}: ${explain(e)}`);
    return exitCodeOf(e);
  }
}
