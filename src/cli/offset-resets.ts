/**
 * What `samsa groups --reset-offsets` and `samsa share-groups --reset-offsets` share, as Kafka's
 * OffsetsUtils: the --topic forms (`t`, `t:0,1`), --to-datetime's and --by-duration's values,
 * the partitions a reset names (checked against the metadata), and the new offset of each for a
 * target, from the partitions' earliest, latest and by-time offsets (ListOffsets through the
 * admin) and, for --shift-by and --to-current, the offsets the group has committed.
 */
import type { Admin } from '../client/admin.js';
import { SamsaError } from '../client/errors.js';
import type { ClusterMetadata } from '../protocol/cluster.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Args } from './args.js';
import { CliError, UsageError } from './errors.js';
import { err } from './output.js';

/** A --topic of --reset-offsets or --delete-offsets: `t` (every partition) or `t:0,1,2` (Kafka's OffsetsUtils.parseTopicPartitionsToReset). */
export function parseTopicArg(arg: string): { topic: string; partitions: number[] | null } {
  if (!arg.includes(':')) {
    if (arg.trim() === '') throw new UsageError('--topic needs a topic name');
    return { topic: arg, partitions: null };
  }
  const parts = arg.split(':');
  if (parts.length !== 2 || parts[0] === '') throw new UsageError(`Invalid topic arg '${arg}', expected topic name and partitions`);
  const partitions = parts[1]!.split(',').map((p) => {
    if (!/^\d+$/.test(p.trim())) throw new UsageError(`Invalid partition '${p}' specified in topic arg '${arg}'`);
    return Number(p.trim());
  });
  return { topic: parts[0]!, partitions: [...new Set(partitions)] };
}

/**
 * --to-datetime's 'YYYY-MM-DDThh:mm:ss.sss' (Kafka's Utils.getDateTime): local time, or with a
 * zone (Z, +hh:mm, +hhmm, +hh). Milliseconds since the epoch.
 */
export function parseDateTime(raw: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(raw.trim());
  const bad = () => new UsageError(`--to-datetime: '${raw}' is not a time of the form YYYY-MM-DDThh:mm:ss.sss (optionally with Z or a zone offset such as +02:00)`);
  if (!m) throw bad();
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = frac ? Number(frac.padEnd(3, '0')) : 0;
  let t: number;
  if (zone === undefined) t = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms).getTime();
  else {
    const z = zone === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, '0')}${z}`);
  }
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (Number.isNaN(t) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw bad();
  return t;
}

/** --by-duration's ISO-8601 duration (Java's Duration.parse: PnDTnHnMn.nS), in ms; not negative. */
export function parseDuration(raw: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,9})?)S)?)?$/i.exec(raw.trim());
  if (!m || raw.trim().toUpperCase() === 'P' || /T$/i.test(raw.trim())) throw new UsageError(`--by-duration: '${raw}' is not an ISO-8601 duration such as PT1H, P1DT12H or PT30M (PnDTnHnMn.nS)`);
  const [, d, h, mi, s] = m;
  return Math.round(((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(mi ?? 0)) * 60_000 + Number((s ?? '0').replace(',', '.')) * 1000);
}

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export interface PlannedOffset extends TopicPartitionRef {
  offset: number;
}

/**
 * The partitions --topic names (every partition of a topic given bare), without repeats; a
 * topic that does not exist, a partition it does not have, or one without a leader, is a
 * CliError as Kafka's tool words it.
 */
export function partitionsNamed(md: ClusterMetadata, topicArgs: readonly string[]): TopicPartitionRef[] {
  const parts: TopicPartitionRef[] = [];
  for (const arg of topicArgs) {
    const { topic, partitions } = parseTopicArg(arg);
    const t = md.topics.find((x) => x.name === topic);
    if (!t) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
    for (const partition of partitions ?? t.partitions.map((p) => p.partition).sort((a, b) => a - b)) parts.push({ topic, partition });
  }
  return checkPartitions(md, parts);
}

/** `parts` without repeats, each checked to exist and have a leader (Kafka's "do not exist" / "have no leader"). */
export function checkPartitions(md: ClusterMetadata, parts: readonly TopicPartitionRef[]): TopicPartitionRef[] {
  const unique = parts.filter((p, i) => parts.findIndex((q) => q.topic === p.topic && q.partition === p.partition) === i);
  const info = (p: TopicPartitionRef) => md.topics.find((t) => t.name === p.topic)?.partitions.find((x) => x.partition === p.partition);
  const missing = unique.filter((p) => !info(p));
  if (missing.length > 0) throw new CliError(`The partitions "${missing.map((p) => `${p.topic}-${p.partition}`).join(',')}" do not exist`);
  const leaderless = unique.filter((p) => info(p)!.leader < 0);
  if (leaderless.length > 0) throw new CliError(`The partitions "${leaderless.map((p) => `${p.topic}-${p.partition}`).join(',')}" have no leader`);
  return unique;
}

/** A reset's target, as the command line gives it. */
export type ResetTarget =
  | { kind: 'to-earliest' }
  | { kind: 'to-latest' }
  | { kind: 'to-offset'; offset: number }
  | { kind: 'to-datetime'; timestamp: number }
  | { kind: 'by-duration'; ms: number }
  | { kind: 'shift-by'; by: number }
  | { kind: 'to-current' };

/** Every reset target option, in the order Kafka's tools list them. */
export const RESET_TARGETS = ['to-earliest', 'to-latest', 'to-offset', 'to-datetime', 'by-duration', 'shift-by', 'to-current'] as const;
export type ResetTargetOption = (typeof RESET_TARGETS)[number];

/**
 * The one target the command line gives among `allowed` (a UsageError for none or several, in
 * Kafka's words), its value checked.
 */
export function resetTarget(args: Args, allowed: readonly ResetTargetOption[]): ResetTarget {
  const given = allowed.filter((t) => args.has(t));
  if (given.length !== 1) throw new UsageError(`--reset-offsets takes exactly one of these options: ${allowed.map((t) => `--${t}`).join(', ')}`);
  switch (given[0]!) {
    case 'to-earliest':
      return { kind: 'to-earliest' };
    case 'to-latest':
      return { kind: 'to-latest' };
    case 'to-current':
      return { kind: 'to-current' };
    case 'to-offset':
      return { kind: 'to-offset', offset: args.int('to-offset')! };
    case 'shift-by':
      return { kind: 'shift-by', by: args.int('shift-by')! };
    case 'to-datetime':
      return { kind: 'to-datetime', timestamp: parseDateTime(args.string('to-datetime')!) };
    case 'by-duration':
      return { kind: 'by-duration', ms: parseDuration(args.string('by-duration')!) };
  }
}

const key = (p: TopicPartitionRef) => `${p.topic}\u0000${p.partition}`;

/**
 * The new offset of each partition for `target`, as Kafka's tool computes it: --to-offset and
 * --shift-by kept within earliest..latest (a warning on stderr for each moved); --to-datetime and
 * --by-duration the first offset at or after the time, or the latest when there is none;
 * --shift-by from the committed offset (a partition without one is an error, as Kafka's);
 * --to-current the committed offset, or the latest where none is committed. `now` is the
 * clock --by-duration counts back from; `warn` gets a line for each offset moved into range.
 */
export async function planResets(
  admin: Admin,
  parts: readonly TopicPartitionRef[],
  target: ResetTarget,
  committed: ReadonlyMap<string, number>,
  now: number,
  warn: (line: string) => void = err,
): Promise<PlannedOffset[]> {
  const offsets = async (spec: Parameters<Admin['listOffsets']>[0], which: string): Promise<Map<string, number>> => {
    if (parts.length === 0) return new Map();
    const listed = await admin.listOffsets(spec, [...parts]);
    const bad = listed.find((l) => l.errorCode !== ErrorCode.NONE);
    if (bad) throw new SamsaError(bad.errorCode, `getting the ${which} offset of ${bad.topic}-${bad.partition}`);
    return new Map(listed.map((l) => [key(l), l.offset]));
  };
  const clamped = async (wanted: (p: TopicPartitionRef) => number): Promise<PlannedOffset[]> => {
    const [lo, hi] = await Promise.all([offsets('earliest', 'earliest'), offsets('latest', 'latest')]);
    return parts.map((p) => {
      const [w, l, h] = [wanted(p), lo.get(key(p))!, hi.get(key(p))!];
      const offset = Math.min(Math.max(w, l), h);
      if (offset !== w) warn(`${p.topic}-${p.partition}: offset ${w} is ${w > h ? `past the latest offset ${h}` : `before the earliest offset ${l}`}; using ${offset}`);
      return { ...p, offset };
    });
  };
  switch (target.kind) {
    case 'to-earliest':
    case 'to-latest': {
      const at = await offsets(target.kind === 'to-earliest' ? 'earliest' : 'latest', target.kind.slice(3));
      return parts.map((p) => ({ ...p, offset: at.get(key(p))! }));
    }
    case 'to-offset':
      return clamped(() => target.offset);
    case 'shift-by': {
      const none = parts.filter((p) => (committed.get(key(p)) ?? -1) < 0);
      if (none.length > 0) throw new CliError(`--shift-by needs a committed offset to shift, and ${none.map((p) => `${p.topic}-${p.partition}`).join(', ')} has none (use --to-earliest, --to-latest or --to-offset for ${none.length === 1 ? 'it' : 'them'})`);
      return clamped((p) => committed.get(key(p))! + target.by);
    }
    case 'to-current': {
      const hi = await offsets('latest', 'latest');
      return parts.map((p) => ({ ...p, offset: (committed.get(key(p)) ?? -1) >= 0 ? committed.get(key(p))! : hi.get(key(p))! }));
    }
    case 'to-datetime':
    case 'by-duration': {
      const timestamp = target.kind === 'to-datetime' ? target.timestamp : now - target.ms;
      const [at, hi] = await Promise.all([offsets({ timestamp: Math.max(0, timestamp) }, 'timestamp'), offsets('latest', 'latest')]);
      // no record that late: the latest offset (Kafka's tool does the same)
      return parts.map((p) => ({ ...p, offset: (at.get(key(p)) ?? -1) >= 0 ? at.get(key(p))! : hi.get(key(p))! }));
    }
  }
}

/** `topic\0partition` -> offset, the key planResets reads committed offsets by. */
export function offsetKey(topic: string, partition: number): string {
  return key({ topic, partition });
}

/**
 * A reset plan from a file (Kafka's --from-file CSV): each line "topic,partition,offset" (the
 * group given with --group: `singleGroup`) or "group,topic,partition,offset"; blank lines
 * skipped. A UsageError names the first line that is neither.
 */
export function parseResetPlan(csv: string, singleGroup: string | null): Map<string, PlannedOffset[]> {
  const plan = new Map<string, PlannedOffset[]>();
  csv.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const f = line.split(',').map((x) => x.trim());
    const grouped = f.length === 4;
    if (!grouped && !(f.length === 3 && singleGroup !== null)) {
      throw new UsageError(`--from-file line ${i + 1}: '${line}' is not ${singleGroup !== null ? 'topic,partition,offset or ' : ''}group,topic,partition,offset`);
    }
    const [group, topic, partition, offset] = grouped ? f : [singleGroup!, ...f];
    if (group === '' || topic === '' || !/^\d+$/.test(partition!) || !/^\d+$/.test(offset!)) throw new UsageError(`--from-file line ${i + 1}: '${line}' has an empty name or a partition or offset that is not a number`);
    plan.set(group!, [...(plan.get(group!) ?? []), { topic: topic!, partition: Number(partition), offset: Number(offset) }]);
  });
  return plan;
}

/** A plan as Kafka's --export CSV lines: "topic,partition,offset", or with the group first when `withGroup`. */
export function resetPlanCsv(group: string, plan: readonly PlannedOffset[], withGroup: boolean): string[] {
  return plan.map((p) => `${withGroup ? `${group},` : ''}${p.topic},${p.partition},${p.offset}`);
}

