/**
 * `samsa topics`: create, list, describe, delete topics and add partitions, like Kafka's
 * kafka-topics tool, through the admin client. As Kafka's, --topic is a regular expression a
 * whole topic name must match for everything but --create (commas separate alternatives); the
 * describe reports (--under-replicated-partitions, --under-min-isr-partitions,
 * --at-min-isr-partitions, --unavailable-partitions) print the partitions any of them names and
 * no topic lines, --topics-with-overrides only the topic lines of topics with overrides; and
 * --replica-assignment places a new topic's (or new partitions') replicas.
 */
import { isKafkaTopicId, kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import type { Admin } from '../../client/admin.js';
import type { ClusterMetadata, TopicMetadata } from '../../protocol/cluster.js';
import { keyValues, type Args, type OptionSpec } from '../args.js';
import { withAdmin, withCluster, type Connection } from '../cluster.js';
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
  {
    name: 'topic',
    kind: 'string',
    value: 't',
    help: "the topic (required by --create, --delete and --alter; --list and --describe show every topic without it); except with --create a regular expression the whole name must match, commas separating alternatives, as Kafka's ('orders\\..*', 'a,b')",
    modes: ['create', 'list', 'describe', 'delete', 'alter'],
  },
  { name: 'topic-id', kind: 'string', value: 'id', help: 'with --describe: the topic of this id (Kafka\'s form, as --describe prints it); used instead of --topic', modes: ['describe'] },
  { name: 'partitions', kind: 'int', value: 'n', min: 1, help: "partition count: of the new topic (default: the cluster's num.partitions), or the new total for --alter", modes: ['create', 'alter'] },
  { name: 'replication-factor', kind: 'int', value: 'n', min: 1, help: "replicas per partition (default: the cluster's default.replication.factor)", modes: ['create'] },
  {
    name: 'replica-assignment',
    kind: 'string',
    value: 'b1:b2,b3:b4,...',
    help: "with --create: each partition's replicas (partitions separated by ',', brokers by ':', preferred leader first), instead of --partitions and --replication-factor; with --alter --partitions: the same for every partition, the new ones' taken from it",
    modes: ['create', 'alter'],
  },
  { name: 'config', kind: 'list', value: 'key=value', help: 'a topic config override such as retention.ms=86400000 or cleanup.policy=compact (repeatable)', modes: ['create', 'alter'] },
  { name: 'delete-config', kind: 'list', value: 'key', help: 'with --alter: remove an override, back to the broker default (repeatable)', modes: ['alter'] },
  { name: 'if-not-exists', kind: 'flag', help: 'with --create: succeed if the topic already exists', modes: ['create'] },
  { name: 'if-exists', kind: 'flag', help: 'with --delete, --alter or --describe: succeed if the topic does not exist', modes: ['delete', 'alter', 'describe'] },
  { name: 'exclude-internal', kind: 'flag', help: 'leave out internal topics such as __consumer_offsets', modes: ['list', 'describe'] },
  { name: 'under-replicated-partitions', kind: 'flag', help: 'with --describe: only partitions whose ISR is smaller than their replica set', modes: ['describe'] },
  { name: 'under-min-isr-partitions', kind: 'flag', help: "with --describe: only partitions whose ISR is smaller than their topic's min.insync.replicas (or without a leader)", modes: ['describe'] },
  { name: 'at-min-isr-partitions', kind: 'flag', help: "with --describe: only partitions whose ISR is exactly their topic's min.insync.replicas", modes: ['describe'] },
  { name: 'unavailable-partitions', kind: 'flag', help: 'with --describe: only partitions without a leader, or whose leader is not live', modes: ['describe'] },
  { name: 'topics-with-overrides', kind: 'flag', help: 'with --describe: only topics with config overrides, without their partitions', modes: ['describe'] },
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

/**
 * Kafka's --topic filter (TopicFilter.IncludeList): trimmed, commas as alternatives, spaces and
 * surrounding quotes dropped; a name is taken when the whole of it matches.
 */
export function topicFilter(raw: string): RegExp {
  const cleaned = raw.trim().replace(/,/g, '|').replace(/ /g, '').replace(/^["']+/, '').replace(/["']+$/, '');
  try {
    return new RegExp(`^(?:${cleaned})$`);
  } catch {
    throw new UsageError(`${cleaned} is an invalid regex.`);
  }
}

/**
 * --replica-assignment as Kafka's tool reads it: partitions separated by ',', each its brokers
 * separated by ':'; no broker twice in a partition, every partition as many replicas as the first.
 */
export function parseReplicaAssignment(raw: string): number[][] {
  return raw.split(',').map((part, i, all) => {
    const brokers = part.split(':').map((b) => {
      if (!/^\s*\d+\s*$/.test(b)) throw new UsageError(`--replica-assignment: '${b.trim()}' in partition ${i} is not a broker id`);
      return Number(b.trim());
    });
    const twice = brokers.filter((b, j) => brokers.indexOf(b) !== j);
    if (twice.length > 0) throw new UsageError(`Partition replica lists may not contain duplicate entries: ${[...new Set(twice)].join(',')}`);
    const first = all[0]!.split(':').length;
    if (brokers.length !== first) throw new UsageError(`Partition ${i} has different replication factor: ${brokers.join(',')}`);
    return brokers;
  });
}

/** The describe reports given (Kafka prints the partitions any of them names, and no topic lines). */
const REPORTS = ['under-replicated-partitions', 'under-min-isr-partitions', 'at-min-isr-partitions', 'unavailable-partitions'] as const;

/** What a partition is, for the reports: its topic's min.insync.replicas and the live brokers. */
export function partitionReports(p: TopicMetadata['partitions'][number], minIsr: number, live: ReadonlySet<number>): Set<(typeof REPORTS)[number]> {
  const out = new Set<(typeof REPORTS)[number]>();
  const led = p.leader >= 0;
  if (p.isr.length < p.replicas.length - (p.addingReplicas?.length ?? 0)) out.add('under-replicated-partitions');
  if (!led || p.isr.length < minIsr) out.add('under-min-isr-partitions');
  if (p.isr.length === minIsr) out.add('at-min-isr-partitions');
  if (!led || !live.has(p.leader)) out.add('unavailable-partitions');
  return out;
}

async function create(admin: Admin, args: Args, topic: string, config: Record<string, string>): Promise<void> {
  const entries = Object.entries(config).map(([name, value]) => ({ name, value }));
  const assignment = args.has('replica-assignment') ? parseReplicaAssignment(args.string('replica-assignment')!) : null;
  const created = await admin.createTopics({
    topics: [
      {
        topic,
        ...(args.has('partitions') ? { numPartitions: args.int('partitions')! } : {}),
        ...(args.has('replication-factor') ? { replicationFactor: args.int('replication-factor')! } : {}),
        ...(assignment ? { replicaAssignment: assignment } : {}),
        ...(entries.length ? { configEntries: entries } : {}),
      },
    ],
  });
  if (created) out(`Created topic ${topic}.`);
  else if (args.has('if-not-exists')) err(`Topic ${topic} already exists.`);
  else throw new CliError(`topic '${topic}' already exists — add --if-not-exists to accept that, or see it with \`samsa topics --describe --topic ${topic}\``);
}

/**
 * The topics --topic matches (every topic without it), sorted, internal ones left out with
 * --exclude-internal; none matching is an error when `required` (Kafka's "does not exist as
 * expected", which --if-exists turns off).
 */
function matchingTopics(md: ClusterMetadata, args: Args, topic: string | undefined, required: boolean): TopicMetadata[] {
  const filter = topic !== undefined ? topicFilter(topic) : null;
  const found = md.topics.filter((t) => (!filter || filter.test(t.name)) && !(args.has('exclude-internal') && t.internal)).sort((a, b) => a.name.localeCompare(b.name));
  if (topic !== undefined && found.length === 0 && required) throw new CliError(`topic '${topic}' does not exist (no topic name matches it) — list the topics with \`samsa topics --list\``);
  return found;
}

async function describe(conn: Connection, admin: Admin, args: Args, topic: string | undefined): Promise<void> {
  const md = await conn.metadata();
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
    const names = matchingTopics(md, args, topic, !args.has('if-exists')).map((t) => t.name);
    topics = names.length === 0 ? [] : (await admin.fetchTopicMetadata({ topics: names })).topics;
  }
  const reports = REPORTS.filter((r) => args.has(r));
  const overridesOnly = args.has('topics-with-overrides');
  const live = new Set(md.brokers.filter((b) => !b.fenced).map((b) => b.brokerId));
  const minIsrNeeded = args.has('under-min-isr-partitions') || args.has('at-min-isr-partitions');
  for (const t of [...topics].sort((a, b) => a.name.localeCompare(b.name))) {
    if (args.has('exclude-internal') && t.internal) continue;
    if (reports.length === 0) {
      if (overridesOnly) {
        if (Object.keys(t.config).length > 0) out(describeLines(t, () => false)[0]!);
        continue;
      }
      for (const l of describeLines(t, () => true)) out(l);
      continue;
    }
    // the topic's min.insync.replicas in force: its override, else the broker default
    const minIsr = minIsrNeeded ? Number((await admin.describeConfigs({ topic: t.name })).configs.find((c) => c.name === 'min.insync.replicas')?.value ?? 1) : 1;
    const lines = describeLines(t, (p) => {
      const is = partitionReports(p, minIsr, live);
      return reports.some((r) => is.has(r));
    });
    for (const l of lines.slice(1)) out(l);
  }
}

async function alter(conn: Connection, admin: Admin, args: Args, topic: string, config: Record<string, string>, deleteConfig: string[]): Promise<void> {
  const assignment = args.has('replica-assignment') ? parseReplicaAssignment(args.string('replica-assignment')!) : null;
  for (const t of matchingTopics(await conn.metadata(), args, topic, !args.has('if-exists'))) {
    if (Object.keys(config).length > 0 || deleteConfig.length > 0) {
      await admin.alterTopicConfigs({ topics: [{ topic: t.name, set: config, delete: deleteConfig }] });
      out(`Updated the config of topic ${t.name}.`);
    }
    if (args.has('partitions')) {
      const count = args.int('partitions')!;
      // as Kafka's tool: the assignment lists every partition; the new ones' are taken from it
      const assignments = assignment ? assignment.slice(t.partitions.length) : undefined;
      if (assignment && assignment.length !== count) throw new CliError(`--replica-assignment lists ${assignment.length} partitions: it must list all ${count} of topic ${t.name}`);
      await admin.createPartitions({ topicPartitions: [{ topic: t.name, count, ...(assignments ? { assignments } : {}) }] });
      out(`Topic ${t.name} now has ${count} partitions.`);
    }
  }
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES);
  const topic = args.string('topic');
  if ((mode === 'create' || mode === 'delete' || mode === 'alter') && topic === undefined) throw new UsageError(`--${mode} needs --topic`);
  if (mode !== 'create' && topic !== undefined) topicFilter(topic);
  const config = keyValues('config', args.list('config'));
  const deleteConfig = args.list('delete-config');
  if (mode === 'alter' && !args.has('partitions') && Object.keys(config).length === 0 && deleteConfig.length === 0) {
    throw new UsageError('--alter needs --partitions n (the new partition count), --config key=value or --delete-config key');
  }
  if (args.has('replica-assignment')) {
    parseReplicaAssignment(args.string('replica-assignment')!);
    if (mode === 'create' && (args.has('partitions') || args.has('replication-factor'))) throw new UsageError('--replica-assignment gives the partitions and their replicas: leave out --partitions and --replication-factor');
    if (mode === 'alter' && !args.has('partitions')) throw new UsageError('--replica-assignment goes with --alter --partitions n');
  }
  if (args.has('topics-with-overrides') && REPORTS.some((r) => args.has(r))) throw new UsageError(`--topics-with-overrides does not go with ${REPORTS.filter((r) => args.has(r)).map((r) => `--${r}`).join(', ')}`);

  await withCluster(args, 'samsa-topics', (conn) =>
    withAdmin(conn, async (admin) => {
      switch (mode) {
        case 'create':
          await create(admin, args, topic!, config);
          break;
        case 'list':
          for (const t of matchingTopics(await conn.metadata(), args, topic, false)) out(t.name);
          break;
        case 'describe':
          await describe(conn, admin, args, topic);
          break;
        case 'delete': {
          const names = matchingTopics(await conn.metadata(), args, topic, !args.has('if-exists')).map((t) => t.name);
          if (names.length === 0) return;
          await admin.deleteTopics({ topics: names });
          for (const n of names) out(`Deleted topic ${n}.`);
          break;
        }
        case 'alter':
          await alter(conn, admin, args, topic!, config, deleteConfig);
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
    '[--bootstrap-server host:port] --create --topic t [--partitions n] [--replication-factor n | --replica-assignment b:b,b:b] [--config k=v ...] [--if-not-exists]',
    '[--bootstrap-server host:port] --list [--topic regex] [--exclude-internal]',
    '[--bootstrap-server host:port] --describe [--topic regex | --topic-id id] [--under-replicated-partitions] [--under-min-isr-partitions] [--at-min-isr-partitions] [--unavailable-partitions] [--topics-with-overrides]',
    '[--bootstrap-server host:port] --alter --topic regex [--partitions n [--replica-assignment b:b,b:b]] [--config k=v ...] [--delete-config k ...]',
    '[--bootstrap-server host:port] --delete --topic regex [--if-exists]',
  ],
  description:
    "Manages topics like Kafka's kafka-topics. --describe prints one line per topic (id, partition count, replication factor, config overrides) and one per partition (leader, leader epoch, replicas, in-sync replicas, and the replicas being added and removed while a reassignment is in progress). --alter adds partitions (never removes them: records keep the partition they are in, so keyed records may land in a different partition from then on) and sets or removes a topic's config overrides.\n\nAs in Kafka, --topic is a regular expression that must match a whole topic name for everything but --create (a '.' matches any character: escape it, 'orders\\.eu', to mean a dot; commas separate alternatives), so --list, --describe, --alter and --delete act on every topic it matches; none matching is an error unless --if-exists. The describe reports print only the partitions any of them names, without topic lines: --under-replicated-partitions (ISR smaller than the replicas), --under-min-isr-partitions (ISR smaller than the topic's min.insync.replicas, or no leader), --at-min-isr-partitions (ISR exactly at it), --unavailable-partitions (no live leader); --topics-with-overrides prints only the lines of topics with config overrides. --replica-assignment 1:2,2:3 places a new topic's partitions on those brokers (preferred leader first), or with --alter --partitions the new partitions (listing every partition, the new ones last).",
  options,
  examples: [
    'samsa topics --create --topic orders --partitions 3 --replication-factor 3 --config retention.ms=86400000',
    'samsa topics --describe --topic orders',
    'samsa topics --alter --topic orders --partitions 6',
    'samsa topics --alter --topic orders --config cleanup.policy=compact --delete-config retention.ms',
    'samsa topics --create --topic pinned --replica-assignment 1:2,2:3,3:1',
    'samsa topics --describe --under-min-isr-partitions',
    "samsa topics --delete --topic 'scratch-.*'",
  ],
  run,
};
