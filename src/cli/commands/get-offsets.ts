/**
 * `samsa get-offsets`: topic partitions' offsets like Kafka's kafka-get-offsets tool
 * (GetOffsetShell), through the admin client's listOffsets: the partitions of the topics matching
 * --topic (a regex) and --partitions, or Kafka's --topic-partitions patterns, each asked for the
 * offset of --time (latest by default). Prints `topic:partition:offset` lines sorted as Kafka's
 * tool sorts them (by `topic-partition` as a string); partitions without an offset for the time
 * are left out, and those whose leader refused are skipped with a line on stderr, as Kafka's.
 */
import type { OffsetSpec } from '../../client/admin.js';
import { errorName } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'topic', kind: 'string', value: 'regex', help: 'the topics to get the offsets of: a name or a regular expression matching whole names (default: every topic)' },
  { name: 'partitions', kind: 'string', value: 'id,id,...', help: 'the partition ids to get the offsets of (default: every partition of the topics)' },
  {
    name: 'topic-partitions',
    kind: 'string',
    value: 'pattern,...',
    help: "Kafka's topic-partition patterns, instead of --topic and --partitions: topic regex (any topic when left out), then optionally :N, :N-M (M excluded), :N- or :-M, such as orders:1,payments:0-3,audit:5-",
  },
  {
    name: 'time',
    kind: 'string',
    value: 'time',
    help: 'the offsets to get: latest or -1 (the default; the high watermark), earliest or -2 (the log start), max-timestamp or -3 (the record with the largest timestamp), earliest-local or -4, latest-tiered or -5, or a timestamp in ms (the first record at or after it)',
  },
  { name: 'exclude-internal-topics', kind: 'flag', help: 'leave out internal topics such as __consumer_offsets (included by default)' },
  HELP_OPTION,
];

/** What --time asks for; null is latest-tiered, which no partition has here (nothing is tiered). */
export type TimeSpec = OffsetSpec | null;

const TIME_HELP = 'Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp';

/** Kafka's --time: a name, its sentinel number, or a timestamp in ms. */
export function parseTime(raw: string): TimeSpec {
  switch (raw) {
    case 'latest':
    case '-1':
      return 'latest';
    case 'earliest':
    case '-2':
      return 'earliest';
    case 'max-timestamp':
    case '-3':
      return 'max-timestamp';
    // without tiered storage the local log starts where the log does, as Kafka's broker answers
    case 'earliest-local':
    case '-4':
      return 'earliest';
    case 'latest-tiered':
    case '-5':
      return null;
  }
  if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`Malformed time argument ${raw}. ${TIME_HELP}`);
  const timestamp = Number(raw);
  if (timestamp < 0) throw new UsageError(`--time ${raw}: not a timestamp (ms since the epoch) nor one of Kafka's sentinels. ${TIME_HELP}`);
  return { timestamp };
}

/** Which topics and partitions a command line asks for (Kafka's TopicPartitionFilter). */
export interface TopicPartitionFilter {
  topicAllowed(topic: string): boolean;
  partitionAllowed(topic: string, partition: number): boolean;
}

/** Kafka's TopicFilter regex: trimmed, commas as alternatives, spaces and surrounding quotes dropped; it matches whole names. */
export function topicRegex(raw: string): RegExp {
  const regex = raw.trim().replace(/,/g, '|').replace(/ /g, '').replace(/^["']+/, '').replace(/["']+$/, '');
  try {
    return new RegExp(`^(?:${regex})$`);
  } catch {
    throw new UsageError(`${regex} is an invalid regex.`);
  }
}

/** Kafka's --partitions: partition ids separated by commas (none: every partition). */
export function parsePartitionIds(raw: string | undefined): Set<number> {
  if (raw === undefined || raw === '') return new Set();
  const parts = raw.split(',');
  if (!parts.every((p) => /^[+-]?\d+$/.test(p))) throw new UsageError(`--partitions expects a comma separated list of numeric partition ids, but received: ${raw}`);
  return new Set(parts.map(Number));
}

const TOPIC_PARTITION_PATTERN = /^([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?$/;

/** Kafka's --topic-partitions: each rule a topic regex with a partition, a range [N, M), N- or -M; a partition matching any rule is asked. */
export function topicPartitionsFilter(raw: string): TopicPartitionFilter {
  // as Java's String.split: trailing empty rules are dropped
  const specs = raw.split(',');
  while (specs.length > 1 && specs[specs.length - 1] === '') specs.pop();
  const rules = specs.map((spec) => {
    const m = TOPIC_PARTITION_PATTERN.exec(spec);
    if (!m) throw new UsageError(`Invalid rule specification: ${spec}`);
    const group = (i: number) => (m[i] ? m[i] : null);
    const topic = topicRegex(group(1) ?? '.*');
    let partitionAllowed: (p: number) => boolean;
    if (group(2) !== null) {
      const only = Number(group(2));
      partitionAllowed = (p) => p === only;
    } else {
      const lower = group(3) !== null ? Number(group(3)) : 0;
      const upper = group(4) !== null ? Number(group(4)) : Number.MAX_SAFE_INTEGER;
      partitionAllowed = (p) => p >= lower && p < upper;
    }
    return { topic, partitionAllowed };
  });
  return {
    topicAllowed: (t) => rules.some((r) => r.topic.test(t)),
    partitionAllowed: (t, p) => rules.some((r) => r.topic.test(t) && r.partitionAllowed(p)),
  };
}

/** The filter of a command line: --topic-partitions, or --topic with --partitions (never both). */
export function filterOf(opts: { topic?: string; partitions?: string; topicPartitions?: string }): TopicPartitionFilter {
  if (opts.topicPartitions !== undefined) {
    if (opts.topic !== undefined || opts.partitions !== undefined) throw new UsageError('--topic-partitions cannot be used with --topic or --partitions');
    return topicPartitionsFilter(opts.topicPartitions);
  }
  const topic = topicRegex(opts.topic ?? '.*');
  const ids = parsePartitionIds(opts.partitions);
  return {
    topicAllowed: (t) => topic.test(t),
    partitionAllowed: (t, p) => topic.test(t) && (ids.size === 0 || ids.has(p)),
  };
}

/** Kafka's output: `topic:partition:offset`, sorted by `topic-partition` as a string; no offset (-1): left out. */
export function offsetLines(offsets: readonly { topic: string; partition: number; offset: number }[]): string[] {
  const key = (p: { topic: string; partition: number }) => `${p.topic}-${p.partition}`;
  return offsets
    .filter((p) => p.offset >= 0)
    .slice()
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map((p) => `${p.topic}:${p.partition}:${p.offset}`);
}

async function run(args: Args): Promise<number> {
  const spec = parseTime(args.string('time') ?? 'latest');
  const filter = filterOf({ topic: args.string('topic'), partitions: args.string('partitions'), topicPartitions: args.string('topic-partitions') });
  const excludeInternal = args.has('exclude-internal-topics');

  await withCluster(args, 'samsa-get-offsets', async (conn) =>
    withAdmin(conn, async (admin) => {
      const { topics } = await admin.fetchTopicMetadata();
      const partitions = topics
        .filter((t) => !(excludeInternal && t.internal) && filter.topicAllowed(t.name))
        .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })))
        .filter((p) => filter.partitionAllowed(p.topic, p.partition));
      if (partitions.length === 0) throw new CliError('Could not match any topic-partitions with the specified filters');
      if (spec === null) return;
      const listed = await admin.listOffsets(spec, partitions);
      for (const p of listed) {
        if (p.errorCode !== 0) err(`Skip getting offsets for topic-partition ${p.topic}-${p.partition} due to error: ${errorName(p.errorCode)}`);
      }
      for (const line of offsetLines(listed.filter((p) => p.errorCode === 0))) out(line);
    }),
  );
  return EXIT_OK;
}

export const getOffsetsCommand: Command = {
  name: 'get-offsets',
  summary: "print topic partitions' offsets: the latest, the earliest, the largest timestamp's or a time's",
  usage: ['[--bootstrap-server host:port] [--topic regex] [--partitions id,id,...] [--time time] [--exclude-internal-topics]', '[--bootstrap-server host:port] --topic-partitions pattern,... [--time time] [--exclude-internal-topics]'],
  description:
    "Asks each matching partition's leader for an offset, as Kafka's kafka-get-offsets does, and prints one `topic:partition:offset` line per partition, sorted by `topic-partition` as a string (so orders-10 comes before orders-2, as in Kafka's tool). --time latest (the default) is the high watermark, the offset the next record gets; earliest the log start; max-timestamp the record with the largest timestamp; a timestamp the first record whose timestamp is at least that. A partition with no such record (a timestamp after every record's, max-timestamp of an empty partition, latest-tiered since nothing is tiered) is left out; a partition whose leader refused is skipped with a line on stderr.\n\nExits 1 when no topic partition matches, 2 on a malformed --time, regex or pattern.",
  options,
  examples: ['samsa get-offsets --topic orders', 'samsa get-offsets --topic-partitions orders:0-2,payments --time earliest', "samsa get-offsets --topic 'orders|payments' --partitions 0,1 --time 1700000000000"],
  run,
};
