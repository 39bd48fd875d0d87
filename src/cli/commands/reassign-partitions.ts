/**
 * `samsa reassign-partitions`: partition reassignment like Kafka's kafka-reassign-partitions tool,
 * through the admin client. --generate proposes a plan that moves topics onto a broker list,
 * --execute starts the reassignments of a JSON file (printing the current assignment for a
 * rollback first; with --disallow-replication-factor-change, KIP-860, not those that would change
 * a partition's replication factor), --verify tells which of them are complete, --cancel stops those in progress
 * and --list shows every reassignment in progress. --execute --throttle limits the copying as
 * Kafka's tool does (the moving replicas named in their topics' throttled-replicas configs, the
 * brokers involved given that rate), and --verify or --cancel remove the throttles once no
 * reassignment is left in progress, unless --preserve-throttles. The files are Kafka's:
 * {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]} and
 * {"version":1,"topics":[{"topic":"t"}]}. A partition's "log_dirs" (an absolute log dir per
 * replica, or "any") moves replicas between the log dirs of their brokers after the
 * reassignments (--execute, retried until --timeout for replicas not on their broker yet), and
 * --verify tells whether each is there, as Kafka's tool does; --replica-alter-log-dirs-throttle
 * limits those moves, and --verify removes it with the others.
 */
import fs from 'node:fs';
import { assignReplicas, defaultRandom, placementForNewTopic, type PlacementBroker, type PlacementRandom } from '../../../actors/controller/placement.js';
import type { Admin, BrokerLogDirs, DynamicBrokerConfigs, PartitionReassignment, ReassignmentResult, ReplicaLogDir } from '../../client/admin.js';
import type { ClusterMetadata, PartitionState } from '../../protocol/cluster.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { brokerIdList, type Args, type OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const MODES = ['generate', 'execute', 'verify', 'cancel', 'list'] as const;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'generate', kind: 'flag', help: 'propose a reassignment that moves the topics of --topics-to-move-json-file onto the brokers of --broker-list (nothing is changed)' },
  { name: 'execute', kind: 'flag', help: 'start the reassignments of --reassignment-json-file; prints the current assignment first, to keep for a rollback' },
  { name: 'verify', kind: 'flag', help: 'tell, for each partition of --reassignment-json-file, whether its reassignment is complete, in progress or not as the file asks' },
  { name: 'cancel', kind: 'flag', help: 'cancel the reassignments of --reassignment-json-file still in progress (each partition goes back to the replicas it had)' },
  { name: 'list', kind: 'flag', help: 'list the reassignments in progress, with the replicas being added and removed' },
  {
    name: 'reassignment-json-file',
    kind: 'string',
    value: 'file',
    help: 'the partitions and their target replicas, preferred leader first: {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}]} (as --generate proposes it); "log_dirs" may give each replica\'s log dir on its broker (an absolute path, or "any")',
    modes: ['execute', 'verify', 'cancel'],
  },
  { name: 'topics-to-move-json-file', kind: 'string', value: 'file', help: 'with --generate: the topics to move, {"version":1,"topics":[{"topic":"t"}]}', modes: ['generate'] },
  { name: 'broker-list', kind: 'string', value: 'id,id,...', help: 'with --generate: the brokers to place the replicas on, such as 1,2,3 (each partition keeps its replication factor)', modes: ['generate'] },
  { name: 'disable-rack-aware', kind: 'flag', help: 'with --generate: place replicas as if no broker had a rack (by default, brokers with racks get each partition spread over as many racks as it has replicas)', modes: ['generate'] },
  {
    name: 'disallow-replication-factor-change',
    kind: 'flag',
    help: "with --execute: refuse (INVALID_REPLICATION_FACTOR) the partitions whose replicas in the file are more or fewer than they have (during a reassignment: than it is headed for), as Kafka's tool does (KIP-860); the others start",
    modes: ['execute'],
  },
  { name: 'additional', kind: 'flag', help: 'with --execute: start these reassignments although others are in progress; with --throttle, also changes the throttle of those in progress (resubmit the same file)', modes: ['execute'] },
  {
    name: 'throttle',
    kind: 'int',
    value: 'bytes/s',
    min: 0,
    help: "with --execute: limit the copying of the moving partitions to this rate (bytes/s) on every broker involved, as Kafka's tool does: their topics' leader/follower.replication.throttled.replicas name the replicas copied from and to, and the brokers get leader/follower.replication.throttled.rate; run --verify until the reassignment completes, to remove the throttle",
    modes: ['execute'],
  },
  {
    name: 'replica-alter-log-dirs-throttle',
    kind: 'int',
    value: 'bytes/s',
    min: 0,
    help: "with --execute: limit the moves of replicas between the log dirs of their broker (\"log_dirs\") to this rate (bytes/s), as Kafka's tool does: the brokers moving replicas get replica.alter.log.dirs.io.max.bytes.per.second; run --verify until the moves complete, to remove it",
    modes: ['execute'],
  },
  {
    name: 'timeout',
    kind: 'int',
    value: 'ms',
    min: 0,
    help: 'with --execute: how long to keep asking for the log dir moves of "log_dirs" to begin (a replica new on a broker can move only once it is there; default 10000)',
    modes: ['execute'],
  },
  { name: 'preserve-throttles', kind: 'flag', help: 'with --verify or --cancel: leave the throttles set by --throttle in place (by default they are removed once no reassignment is in progress, or on --cancel)', modes: ['verify', 'cancel'] },
  HELP_OPTION,
];

/** A partition and its replicas, as an entry of Kafka's reassignment JSON file. */
export interface ReassignmentEntry {
  topic: string;
  partition: number;
  replicas: number[];
  /** The file's log_dirs: each replica's log dir on its broker, or "any" (absent: all "any"). */
  logDirs?: string[];
}

/** "log_dirs" for a replica: no particular log dir. */
export const ANY_LOG_DIR = 'any';

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError(`${file} is not JSON: ${(e as Error).message}`);
  }
}

function checkVersion(doc: Record<string, unknown>, file: string): void {
  if ('version' in doc && doc.version !== 1) throw new CliError(`${file}: version ${JSON.stringify(doc.version)} is not supported (only 1)`);
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isId = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;

/** The partitions of Kafka's reassignment file, or a CliError saying what is wrong with it. */
export function parseReassignmentFile(text: string, file: string): ReassignmentEntry[] {
  const doc = parseJson(text, file);
  const shape = '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2]}, ...]}';
  if (!isObject(doc) || !Array.isArray(doc.partitions)) throw new CliError(`${file} must hold ${shape}`);
  checkVersion(doc, file);
  if (doc.partitions.length === 0) throw new CliError(`${file} must hold ${shape} with at least one partition`);
  const seen = new Set<string>();
  return (doc.partitions as unknown[]).map((e, i) => {
    const at = `${file}: partitions[${i}]`;
    if (!isObject(e) || typeof e.topic !== 'string' || e.topic === '' || !isId(e.partition) || !Array.isArray(e.replicas) || !e.replicas.every(isId)) {
      throw new CliError(`${at} must be {"topic": "<name>", "partition": <integer >= 0>, "replicas": [<broker id>, ...]}, got ${JSON.stringify(e)}`);
    }
    const { topic, partition } = e as { topic: string; partition: number };
    const replicas = e.replicas as number[];
    const name = `${topic}-${partition}`;
    if (replicas.length === 0) throw new CliError(`${at}: the replicas of ${name} are empty (a partition needs at least one)`);
    if (new Set(replicas).size !== replicas.length) throw new CliError(`${at}: the replicas of ${name} name a broker twice: ${JSON.stringify(replicas)}`);
    let logDirs: string[] | undefined;
    if ('log_dirs' in e) {
      const dirs = e.log_dirs;
      if (!Array.isArray(dirs) || dirs.length !== replicas.length) throw new CliError(`${at}: log_dirs of ${name} must list one entry per replica (${replicas.length})`);
      if (!dirs.every((d) => typeof d === 'string' && d !== '')) {
        throw new CliError(`${at}: log_dirs of ${name} must be log dirs (absolute paths) or "any", one per replica (got ${JSON.stringify(dirs)})`);
      }
      if (dirs.some((d) => d !== ANY_LOG_DIR)) logDirs = [...(dirs as string[])];
    }
    if (seen.has(name)) throw new CliError(`${file}: partition ${name} is listed twice`);
    seen.add(name);
    return { topic, partition, replicas: [...replicas], ...(logDirs ? { logDirs } : {}) };
  });
}

/** The topics of Kafka's topics-to-move file, or a CliError saying what is wrong with it. */
export function parseTopicsToMoveFile(text: string, file: string): string[] {
  const doc = parseJson(text, file);
  const shape = '{"version":1,"topics":[{"topic":"t"}, ...]}';
  if (!isObject(doc) || !Array.isArray(doc.topics)) throw new CliError(`${file} must hold ${shape}`);
  checkVersion(doc, file);
  if (doc.topics.length === 0) throw new CliError(`${file} must hold ${shape} with at least one topic`);
  const seen = new Set<string>();
  return (doc.topics as unknown[]).map((e, i) => {
    if (!isObject(e) || typeof e.topic !== 'string' || e.topic === '') throw new CliError(`${file}: topics[${i}] must be {"topic": "<name>"}, got ${JSON.stringify(e)}`);
    if (seen.has(e.topic)) throw new CliError(`${file}: topic ${e.topic} is listed twice`);
    seen.add(e.topic);
    return e.topic;
  });
}

/** --broker-list: broker ids separated by commas, each once. */
export function parseBrokerList(raw: string): number[] {
  const ids = brokerIdList(raw, false);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new UsageError(`--broker-list names broker ${twice} twice`);
  return ids;
}

const byPartition = (a: { topic: string; partition: number }, b: { topic: string; partition: number }) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);
const tpName = (e: { topic: string; partition: number }) => `${e.topic}-${e.partition}`;

/** Entries grouped per topic, in the order topics first appear (as the admin client takes them). */
function byTopic<T extends { topic: string }>(entries: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const e of entries) {
    const list = m.get(e.topic);
    if (list) list.push(e);
    else m.set(e.topic, [e]);
  }
  return m;
}

/** Entries as Kafka's tool writes them (one line, sorted, log_dirs all "any"). */
export function reassignmentJson(entries: readonly ReassignmentEntry[]): string {
  const partitions = [...entries].sort(byPartition).map((e) => ({ topic: e.topic, partition: e.partition, replicas: e.replicas, log_dirs: e.replicas.map(() => 'any') }));
  return JSON.stringify({ version: 1, partitions });
}

/** The replicas a partition has now: during a reassignment, those of before it (without the ones being added). */
function assignedReplicas(p: PartitionState): number[] {
  const adding = new Set(p.addingReplicas ?? []);
  return p.replicas.filter((r) => !adding.has(r));
}

function findPartition(md: ClusterMetadata, topic: string, partition: number): PartitionState | undefined {
  return md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition);
}

/** The current assignment of the given partitions (those that exist). */
export function currentAssignment(md: ClusterMetadata, partitions: readonly { topic: string; partition: number }[]): ReassignmentEntry[] {
  const out: ReassignmentEntry[] = [];
  for (const { topic, partition } of partitions) {
    const p = findPartition(md, topic, partition);
    if (p) out.push({ topic, partition, replicas: assignedReplicas(p) });
  }
  return out.sort(byPartition);
}

/**
 * A plan that places each topic's partitions on `brokers` with the controller's placement
 * (rack-aware when any broker has a rack; a random start per topic, as Kafka's tool does), each
 * partition keeping its replication factor: the plan is made for the topic's largest one, and a
 * partition with fewer replicas takes the first of its placed ones.
 */
export function proposeReassignment(current: readonly ReassignmentEntry[], brokers: readonly PlacementBroker[], random: PlacementRandom = defaultRandom): ReassignmentEntry[] {
  const out: ReassignmentEntry[] = [];
  for (const [topic, entries] of [...byTopic(current)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const maxRf = Math.max(...entries.map((e) => e.replicas.length));
    if (maxRf > brokers.length) {
      throw new CliError(`topic ${topic} has partitions of ${maxRf} replicas, more than the ${brokers.length} broker(s) of --broker-list: name at least ${maxRf}`);
    }
    const count = Math.max(...entries.map((e) => e.partition)) + 1;
    const plan = assignReplicas(brokers, count, maxRf, placementForNewTopic(brokers.length, random, null));
    for (const e of entries) out.push({ topic, partition: e.partition, replicas: plan[e.partition]!.slice(0, e.replicas.length) });
  }
  return out.sort(byPartition);
}

type Lines = { stream: 'out' | 'err'; text: string }[];

/** A heading and one line per failed partition, on stderr. */
function failureLines(heading: string, bad: readonly ReassignmentResult[]): Lines {
  return [{ stream: 'err', text: heading }, ...bad.map((r) => ({ stream: 'err' as const, text: `${tpName(r)}: ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}` }))];
}

/** --execute's report: the partitions whose reassignment started, then the failures (stderr). */
export function reportStarted(results: readonly ReassignmentResult[]): { lines: Lines; failed: number } {
  const sorted = [...results].sort(byPartition);
  const ok = sorted.filter((r) => r.errorCode === ErrorCode.NONE);
  const bad = sorted.filter((r) => r.errorCode !== ErrorCode.NONE);
  const lines: Lines = [];
  if (ok.length > 0) lines.push({ stream: 'out', text: `Successfully started partition reassignment${ok.length === 1 ? '' : 's'} for ${ok.map(tpName).join(',')}` });
  if (bad.length > 0) lines.push(...failureLines('Error reassigning partition(s):', bad));
  return { lines, failed: bad.length };
}

/** --cancel's report: cancelled, not in progress (not a failure), and failures (stderr). */
export function reportCancelled(results: readonly ReassignmentResult[]): { lines: Lines; failed: number } {
  const sorted = [...results].sort(byPartition);
  const cancelled = sorted.filter((r) => r.errorCode === ErrorCode.NONE);
  const inactive = sorted.filter((r) => r.errorCode === ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  const bad = sorted.filter((r) => r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  const lines: Lines = [];
  if (cancelled.length > 0) lines.push({ stream: 'out', text: `Successfully cancelled partition reassignment${cancelled.length === 1 ? '' : 's'} for: ${cancelled.map(tpName).join(',')}` });
  if (cancelled.length === 0 && bad.length === 0) lines.push({ stream: 'out', text: 'None of the specified partition reassignments are active.' });
  else if (inactive.length > 0) lines.push({ stream: 'out', text: `No reassignment in progress for: ${inactive.map(tpName).join(',')}` });
  if (bad.length > 0) lines.push(...failureLines('Error cancelling partition reassignment(s):', bad));
  return { lines, failed: bad.length };
}

export type VerifyState = 'complete' | 'in-progress' | 'different' | 'missing';

/**
 * --verify: each partition of the file, complete (its replicas are the target, in order, and no
 * reassignment is in progress), still in progress, or neither (failed, cancelled or changed since).
 */
export function verifyReassignments(
  targets: readonly ReassignmentEntry[],
  md: ClusterMetadata,
  ongoing: ReadonlySet<string>,
): { lines: string[]; states: { partition: string; state: VerifyState }[] } {
  const lines = ['Status of partition reassignment:'];
  const states: { partition: string; state: VerifyState }[] = [];
  for (const t of [...targets].sort(byPartition)) {
    const name = tpName(t);
    const p = findPartition(md, t.topic, t.partition);
    let state: VerifyState;
    if (!p) {
      state = 'missing';
      lines.push(`Partition ${name} does not exist.`);
    } else if (ongoing.has(name)) {
      state = 'in-progress';
      lines.push(`Reassignment of partition ${name} is still in progress.`);
    } else if (p.replicas.length === t.replicas.length && p.replicas.every((r, i) => r === t.replicas[i])) {
      state = 'complete';
      lines.push(`Reassignment of partition ${name} is completed.`);
    } else {
      state = 'different';
      lines.push(`There is no active reassignment of partition ${name}, but replica set is ${p.replicas.join(',')} rather than ${t.replicas.join(',')}.`);
    }
    states.push({ partition: name, state });
  }
  return { lines, states };
}

/** --list: Kafka's tool's lines for the reassignments in progress. */
export function listLines(topics: readonly { topic: string; partitions: readonly PartitionReassignment[] }[]): string[] {
  const rows = topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, ...p }))).sort(byPartition);
  if (rows.length === 0) return ['No partition reassignments found.'];
  return [
    'Current partition reassignments:',
    ...rows.map(
      (r) =>
        `${tpName(r)}: replicas: ${r.replicas.join(',')}.${r.addingReplicas.length > 0 ? ` adding: ${r.addingReplicas.join(',')}.` : ''}${r.removingReplicas.length > 0 ? ` removing: ${r.removingReplicas.join(',')}.` : ''}`,
    ),
  ];
}

export const LEADER_THROTTLED_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_THROTTLED_REPLICAS = 'follower.replication.throttled.replicas';
export const LEADER_THROTTLED_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_THROTTLED_RATE = 'follower.replication.throttled.rate';
const TOPIC_THROTTLES = [LEADER_THROTTLED_REPLICAS, FOLLOWER_THROTTLED_REPLICAS];
export const LOG_DIR_THROTTLED_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
const BROKER_THROTTLES = [LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE, LOG_DIR_THROTTLED_RATE];

/** A partition that moves: the replicas it is copied from (those it has) and those it is copied to. */
export interface PartitionMove {
  topic: string;
  partition: number;
  sources: number[];
  destinations: number[];
}

/**
 * The moves a throttled --execute covers, as Kafka's tool computes them: every reassignment in
 * progress (copied from the replicas it had, to those being added) and every partition of the
 * file, copied from the replicas it has (those it had before a reassignment in progress) to
 * those of the target it has not. Partitions that do not exist are left out.
 */
export function throttledMoves(
  ongoing: readonly { topic: string; partitions: readonly PartitionReassignment[] }[],
  targets: readonly ReassignmentEntry[],
  current: readonly ReassignmentEntry[],
): PartitionMove[] {
  const moves = new Map<string, PartitionMove>();
  for (const t of ongoing) {
    for (const p of t.partitions) {
      const adding = new Set(p.addingReplicas);
      moves.set(tpName({ topic: t.topic, partition: p.partition }), { topic: t.topic, partition: p.partition, sources: p.replicas.filter((r) => !adding.has(r)), destinations: [...p.addingReplicas] });
    }
  }
  for (const e of targets) {
    const name = tpName(e);
    const sources = moves.get(name)?.sources ?? current.find((c) => c.topic === e.topic && c.partition === e.partition)?.replicas;
    if (!sources) continue;
    moves.set(name, { topic: e.topic, partition: e.partition, sources: [...sources], destinations: e.replicas.filter((r) => !sources.includes(r)) });
  }
  return [...moves.values()].sort(byPartition);
}

/** The brokers a move involves: every source and destination, in id order. */
export function throttledBrokers(moves: readonly PartitionMove[]): number[] {
  return [...new Set(moves.flatMap((m) => [...m.sources, ...m.destinations]))].sort((a, b) => a - b);
}

/**
 * A throttled-replicas value with `pairs` ('partition:broker') for the `moving` partitions: those
 * partitions' entries are replaced, the entries for other partitions stay, and '*' (every
 * replica) stays as it is. In partition then broker order; '' when nothing is left.
 */
export function mergeThrottledReplicas(existing: string | number | undefined, moving: ReadonlySet<number>, pairs: readonly [number, number][]): string {
  const text = existing === undefined ? '' : String(existing).trim();
  if (text === '*') return '*';
  const kept: [number, number][] = [];
  for (const entry of text === '' ? [] : text.split(',')) {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(entry);
    if (m && !moving.has(Number(m[1]))) kept.push([Number(m[1]), Number(m[2])]);
  }
  const all = [...kept, ...pairs].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return [...new Set(all.map(([p, b]) => `${p}:${b}`))].join(',');
}

/**
 * The topic config changes that throttle `moves`, per topic: leader.replication.throttled.replicas
 * names each moving partition's sources, follower.replication.throttled.replicas its
 * destinations, merged with what the topic's `config` has for other partitions. A value left
 * empty is deleted if the topic had one.
 */
export function topicThrottleChanges(moves: readonly PartitionMove[], configOf: (topic: string) => Readonly<Record<string, string | number>>): { topic: string; set: Record<string, string>; delete: string[] }[] {
  return [...byTopic(moves)].map(([topic, list]) => {
    const config = configOf(topic);
    const moving = new Set(list.map((m) => m.partition));
    const change = { topic, set: {} as Record<string, string>, delete: [] as string[] };
    const values: [string, [number, number][]][] = [
      [LEADER_THROTTLED_REPLICAS, list.flatMap((m) => m.sources.map((b): [number, number] => [m.partition, b]))],
      [FOLLOWER_THROTTLED_REPLICAS, list.flatMap((m) => m.destinations.map((b): [number, number] => [m.partition, b]))],
    ];
    for (const [key, pairs] of values) {
      const value = mergeThrottledReplicas(config[key], moving, pairs);
      if (value !== '') change.set[key] = value;
      else if (config[key] !== undefined) change.delete.push(key);
    }
    return change;
  });
}

/**
 * What removing the throttles touches: the brokers (of `brokers`) whose dynamic configs
 * (`brokerConfigs`, as describeBrokerConfigs gives them) have a throttled rate, and the topics
 * (of `topics`) that have a throttled-replicas config.
 */
export function throttlesSet(md: ClusterMetadata, brokerConfigs: readonly DynamicBrokerConfigs[], brokers: readonly number[], topics: readonly string[]): { brokers: number[]; topics: string[] } {
  const configsOf = (id: number) => brokerConfigs.find((c) => c.broker === id)?.configs ?? {};
  return {
    brokers: [...new Set(brokers)].filter((id) => BROKER_THROTTLES.some((k) => configsOf(id)[k] !== undefined)).sort((a, b) => a - b),
    topics: [...new Set(topics)].filter((t) => TOPIC_THROTTLES.some((k) => md.topics.find((x) => x.name === t)?.config[k] !== undefined)).sort(),
  };
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

function print(lines: Lines): void {
  for (const l of lines) (l.stream === 'out' ? out : err)(l.text);
}

/** The cluster's admin client for `fn`, with its metadata at hand. */
function withClusterAdmin<T>(args: Args, fn: (admin: Admin, md: () => Promise<ClusterMetadata>) => Promise<T>): Promise<T> {
  return withCluster(args, 'samsa-reassign-partitions', (conn) => withAdmin(conn, (admin) => fn(admin, () => conn.metadata())));
}

async function generate(args: Args): Promise<number> {
  const topicsFile = args.string('topics-to-move-json-file');
  const brokerArg = args.string('broker-list');
  if (topicsFile === undefined || brokerArg === undefined) throw new UsageError('--generate needs --topics-to-move-json-file file and --broker-list id,id,...');
  const brokers = parseBrokerList(brokerArg);
  const topics = parseTopicsToMoveFile(readFile(topicsFile), topicsFile);
  return withCluster(args, 'samsa-reassign-partitions', async (conn) => {
    const md = await conn.metadata();
    const missing = topics.filter((t) => !md.topics.some((x) => x.name === t));
    if (missing.length > 0) throw new CliError(`topic(s) ${missing.join(', ')} of ${topicsFile} do not exist — list the topics with \`samsa topics --list\``);
    const unknown = brokers.filter((id) => !md.brokers.some((b) => b.brokerId === id));
    if (unknown.length > 0) throw new CliError(`broker(s) ${unknown.join(',')} of --broker-list are not registered in the cluster (its brokers: ${md.brokers.map((b) => b.brokerId).sort((a, b) => a - b).join(',')})`);
    const fenced = brokers.filter((id) => md.brokers.find((b) => b.brokerId === id)!.fenced);
    if (fenced.length > 0) throw new CliError(`broker(s) ${fenced.join(',')} of --broker-list are fenced (not running): a plan onto them would wait for them to come back, so name running brokers`);
    const current = currentAssignment(
      md,
      md.topics.filter((t) => topics.includes(t.name)).flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition }))),
    );
    const rackAware = !args.has('disable-rack-aware');
    const placed = brokers.map((id) => ({ id, rack: rackAware ? (md.brokers.find((b) => b.brokerId === id)!.rack ?? null) : null }));
    const proposed = proposeReassignment(current, placed);
    out('Current partition replica assignment');
    out(reassignmentJson(current));
    out();
    out('Proposed partition reassignment configuration');
    out(reassignmentJson(proposed));
    return EXIT_OK;
  });
}

/** The replica log dir moves a file asks for (its log_dirs other than "any"), sorted as Kafka's tool sorts replicas. */
export function replicaMoves(entries: readonly ReassignmentEntry[]): ReplicaLogDir[] {
  const moves: ReplicaLogDir[] = [];
  for (const e of entries) {
    e.logDirs?.forEach((logDir, i) => {
      if (logDir !== ANY_LOG_DIR) moves.push({ topic: e.topic, partition: e.partition, broker: e.replicas[i]!, logDir });
    });
  }
  return moves.sort((a, b) => byPartition(a, b) || a.broker - b.broker);
}

/** Kafka's name of a replica (TopicPartitionReplica): topic-partition-broker. */
const replicaName = (r: { topic: string; partition: number; broker: number }) => `${r.topic}-${r.partition}-${r.broker}`;

/**
 * As Kafka's tool after the reassignments: asks each broker to move its replicas of log_dirs,
 * again every 100 ms for those not on their broker yet (REPLICA_NOT_AVAILABLE), until --timeout.
 */
async function executeMoves(admin: Admin, moves: readonly ReplicaLogDir[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...moves];
  for (;;) {
    const results = await admin.alterReplicaLogDirs({ replicas: pending });
    const failed = results.find((r) => r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.REPLICA_NOT_AVAILABLE);
    if (failed) throw new CliError(`Failed to alter dir for ${replicaName(failed)}: ${errorName(failed.errorCode)}${failed.errorMessage ? ` (${failed.errorMessage})` : ''}`);
    for (const r of results.filter((x) => x.errorCode === ErrorCode.NONE)) {
      out(`Successfully started moving log directory to ${r.logDir} for replica ${r.topic}-${r.partition} with broker ${r.broker} `);
    }
    pending = results.filter((r) => r.errorCode === ErrorCode.REPLICA_NOT_AVAILABLE).map(({ topic, partition, broker, logDir }) => ({ topic, partition, broker, logDir }));
    if (pending.length === 0) return;
    if (Date.now() >= deadline) throw new CliError(`Timed out before log directory move${pending.length === 1 ? '' : 's'} could be started for: ${pending.map(replicaName).join(',')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export type MoveState = 'complete' | 'in-progress' | 'elsewhere' | 'not-moving' | 'missing';

/**
 * Whether a log dir move is over, as Kafka's tool counts it (LogDirMoveState.done): there, or not
 * moving (cancelled); one still copying, to any dir, or whose replica is not on its broker yet is not.
 */
export function moveDone(state: MoveState): boolean {
  return state === 'complete' || state === 'not-moving';
}

/**
 * --verify for log_dirs, as Kafka's tool: each replica's log dir from its broker's log dirs (the
 * current log, and a future one while it is copied), with Kafka's lines.
 */
export function verifyMoves(moves: readonly ReplicaLogDir[], dirsByBroker: ReadonlyMap<number, BrokerLogDirs>): { lines: string[]; states: { replica: string; state: MoveState }[] } {
  const lines: string[] = [];
  const states: { replica: string; state: MoveState }[] = [];
  for (const m of moves) {
    const dirs = dirsByBroker.get(m.broker)?.logDirs ?? [];
    const holds = (future: boolean) => dirs.find((d) => d.partitions.some((p) => p.topic === m.topic && p.partition === m.partition && p.isFuture === future))?.logDir ?? null;
    const current = holds(false);
    const future = holds(true);
    const tp = `${m.topic}-${m.partition}`;
    let state: MoveState;
    if (current === null) {
      state = 'missing';
      lines.push(`Partition ${tp} cannot be found in any live log directory on broker ${m.broker}.`);
    } else if (future !== null) {
      state = future === m.logDir ? 'in-progress' : 'elsewhere';
      lines.push(future === m.logDir ? `Reassignment of replica ${replicaName(m)} is still in progress.` : `Partition ${tp} on broker ${m.broker} is being moved to log dir ${future} instead of ${m.logDir}.`);
    } else if (current === m.logDir) {
      state = 'complete';
      lines.push(`Reassignment of replica ${replicaName(m)} completed successfully.`);
    } else {
      state = 'not-moving';
      lines.push(`Partition ${tp} on broker ${m.broker} is not being moved from log dir ${current} to ${m.logDir}.`);
    }
    states.push({ replica: replicaName(m), state });
  }
  return { lines, states };
}

async function execute(args: Args, file: string, entries: ReassignmentEntry[]): Promise<number> {
  const throttle = args.int('throttle');
  const logDirThrottle = args.int('replica-alter-log-dirs-throttle');
  const moves = replicaMoves(entries);
  let failed = 0;
  await withClusterAdmin(args, async (admin, metadata) => {
    const ongoing = (await admin.listPartitionReassignments()).topics;
    if (!args.has('additional')) {
      const names = ongoing.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition }))).sort(byPartition);
      if (names.length > 0) {
        throw new CliError(
          `cannot execute while partition reassignments are in progress (${names.map(tpName).join(',')}): add --additional to start these as well (or, with --throttle, to change the throttle of these), or wait for those to complete (--list) or --cancel them`,
        );
      }
    }
    const md = await metadata();
    const current = currentAssignment(md, entries);
    if (current.length > 0) {
      out('Current partition replica assignment');
      out();
      out(reassignmentJson(current));
      out();
      out('Save this to use as the --reassignment-json-file option during rollback');
    }
    if (throttle !== undefined || logDirThrottle !== undefined) out('Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.');
    if (throttle !== undefined) await setThrottles(admin, md, throttledMoves(ongoing, entries, current), throttle);
    if (logDirThrottle !== undefined) await setLogDirThrottle(admin, moves, logDirThrottle);
    const results = await admin.alterPartitionReassignments({
      topics: [...byTopic(entries)].map(([topic, list]) => ({ topic, partitionAssignment: list.map((e) => ({ partition: e.partition, replicas: e.replicas })) })),
      allowReplicationFactorChange: !args.has('disallow-replication-factor-change'),
    });
    const report = reportStarted(results);
    print(report.lines);
    failed = report.failed;
    if (failed === 0 && moves.length > 0) await executeMoves(admin, moves, args.int('timeout') ?? 10_000);
  });
  if (failed > 0) throw new CliError(`${failed} partition reassignment(s) of ${file} could not be started`);
  return EXIT_OK;
}

/**
 * Throttles `moves` as Kafka's tool does: their topics' throttled-replicas configs name the
 * replicas copied from and to, and every broker involved gets `rate` as its leader and follower
 * replication throttled rate.
 */
async function setThrottles(admin: Admin, md: ClusterMetadata, moves: readonly PartitionMove[], rate: number): Promise<void> {
  const changes = topicThrottleChanges(moves, (topic) => md.topics.find((t) => t.name === topic)?.config ?? {});
  if (changes.length > 0) {
    await admin.alterTopicConfigs({ topics: changes.map((c) => ({ topic: c.topic, set: c.set, ...(c.delete.length > 0 ? { delete: c.delete } : {}) })) });
  }
  const brokers = throttledBrokers(moves);
  if (brokers.length === 0) return;
  await admin.alterBrokerConfigs({ brokers: brokers.map((broker) => ({ broker, set: { [LEADER_THROTTLED_RATE]: String(rate), [FOLLOWER_THROTTLED_RATE]: String(rate) } })) });
  out(`The inter-broker throttle limit was set to ${rate} B/s`);
}

/**
 * Throttles the log dir moves of `moves` as Kafka's tool does: every broker moving a replica gets
 * `rate` as its replica.alter.log.dirs.io.max.bytes.per.second.
 */
async function setLogDirThrottle(admin: Admin, moves: readonly ReplicaLogDir[], rate: number): Promise<void> {
  const brokers = [...new Set(moves.map((m) => m.broker))].sort((a, b) => a - b);
  if (brokers.length === 0) return;
  await admin.alterBrokerConfigs({ brokers: brokers.map((broker) => ({ broker, set: { [LOG_DIR_THROTTLED_RATE]: String(rate) } })) });
  out(`The replica-alter-dir throttle limit was set to ${rate} B/s`);
}

/**
 * Removes the throttles, as Kafka's tool does once the reassignments are over: the throttled
 * rates (inter-broker and between log dirs) of every registered broker and of the file's replicas, and the throttled-replicas
 * configs of the file's topics. Says what it removed; nothing when there was none.
 */
async function removeThrottles(admin: Admin, md: ClusterMetadata, entries: readonly ReassignmentEntry[]): Promise<void> {
  const brokers = [...md.brokers.map((b) => b.brokerId), ...entries.flatMap((e) => e.replicas)];
  const set = throttlesSet(md, await admin.describeBrokerConfigs(), brokers, entries.map((e) => e.topic));
  if (set.brokers.length === 0 && set.topics.length === 0) return;
  if (set.brokers.length > 0) {
    out(`Clearing broker-level throttles on broker${set.brokers.length === 1 ? '' : 's'} ${set.brokers.join(',')}`);
    await admin.alterBrokerConfigs({ brokers: set.brokers.map((broker) => ({ broker, delete: [...BROKER_THROTTLES] })) });
  }
  if (set.topics.length > 0) {
    out(`Clearing topic-level throttles on topic${set.topics.length === 1 ? '' : 's'} ${set.topics.join(',')}`);
    await admin.alterTopicConfigs({
      topics: set.topics.map((topic) => {
        const config = md.topics.find((t) => t.name === topic)?.config ?? {};
        return { topic, delete: TOPIC_THROTTLES.filter((k) => config[k] !== undefined) };
      }),
    });
  }
  out('Throttle was removed.');
}

async function verify(args: Args, file: string, entries: ReassignmentEntry[]): Promise<number> {
  const states = await withClusterAdmin(args, async (admin, metadata) => {
    const listed = (await admin.listPartitionReassignments()).topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition }))).sort(byPartition);
    const ongoing = new Set(listed.map(tpName));
    const md = await metadata();
    const v = verifyReassignments(entries, md, ongoing);
    for (const l of v.lines) out(l);
    const moves = replicaMoves(entries);
    let moveStates: { replica: string; state: MoveState }[] = [];
    if (moves.length > 0) {
      const brokers = [...new Set(moves.map((m) => m.broker))].filter((b) => md.brokers.some((x) => x.brokerId === b));
      const described = brokers.length > 0 ? await admin.describeLogDirs({ brokers, topics: [...new Set(moves.map((m) => m.topic))].map((topic) => ({ topic })) }) : [];
      const vm = verifyMoves(moves, new Map(described.map((b) => [b.broker, b])));
      for (const l of vm.lines) out(l);
      moveStates = vm.states;
    }
    // as Kafka's tool: the throttles go once no reassignment is left in progress and every log dir
    // move is over (any broker may be throttled for one)
    if (!args.has('preserve-throttles') && !v.states.some((s) => s.state === 'in-progress') && moveStates.every((s) => moveDone(s.state))) {
      const planned = new Set(entries.map(tpName));
      const others = listed.filter((p) => !planned.has(tpName(p)));
      if (others.length === 0) await removeThrottles(admin, md, entries);
      else {
        const set = throttlesSet(md, await admin.describeBrokerConfigs(), [...md.brokers.map((b) => b.brokerId), ...entries.flatMap((e) => e.replicas)], entries.map((e) => e.topic));
        if (set.brokers.length > 0 || set.topics.length > 0) {
          out(`The throttles stay while other partition reassignments are in progress (${others.map(tpName).join(',')}): --verify again once they complete`);
        }
      }
    }
    return [...v.states, ...moveStates];
  });
  const inProgress = states.filter((s) => s.state === 'in-progress').length;
  const other = states.filter((s) => s.state !== 'in-progress' && s.state !== 'complete').length;
  if (inProgress + other === 0) return EXIT_OK;
  const parts = [];
  if (inProgress > 0) parts.push(`${inProgress} still in progress`);
  if (other > 0) parts.push(`${other} not as ${file} asks (failed, cancelled or changed since)`);
  throw new CliError(`${inProgress + other} of ${states.length} partition reassignment(s) not complete: ${parts.join(', ')}`);
}

async function cancel(args: Args, file: string, entries: ReassignmentEntry[]): Promise<number> {
  let failed = 0;
  await withClusterAdmin(args, async (admin, metadata) => {
    const results = await admin.alterPartitionReassignments({
      topics: [...byTopic(entries)].map(([topic, list]) => ({ topic, partitionAssignment: list.map((e) => ({ partition: e.partition, replicas: null })) })),
    });
    const report = reportCancelled(results);
    print(report.lines);
    failed = report.failed;
    // as Kafka's tool, whatever else is in progress
    if (!args.has('preserve-throttles')) await removeThrottles(admin, await metadata(), entries);
  });
  if (failed > 0) throw new CliError(`${failed} partition reassignment(s) of ${file} could not be cancelled`);
  return EXIT_OK;
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES);
  if (mode === 'generate') return generate(args);
  if (mode === 'list') {
    await withClusterAdmin(args, async (admin) => {
      for (const l of listLines((await admin.listPartitionReassignments()).topics)) out(l);
    });
    return EXIT_OK;
  }
  const file = args.string('reassignment-json-file');
  if (file === undefined) throw new UsageError(`--${mode} needs --reassignment-json-file file`);
  const entries = parseReassignmentFile(readFile(file), file);
  if (mode === 'execute') return execute(args, file, entries);
  if (mode === 'verify') return verify(args, file, entries);
  return cancel(args, file, entries);
}

export const reassignPartitionsCommand: Command = {
  name: 'reassign-partitions',
  summary: 'move partitions to other brokers or change their replication factor, and follow or cancel the moves',
  usage: [
    '[--bootstrap-server host:port] --generate --topics-to-move-json-file file --broker-list id,id,... [--disable-rack-aware]',
    '[--bootstrap-server host:port] --execute --reassignment-json-file file [--additional] [--disallow-replication-factor-change] [--throttle bytes/s] [--timeout ms]',
    '[--bootstrap-server host:port] --verify --reassignment-json-file file [--preserve-throttles]',
    '[--bootstrap-server host:port] --cancel --reassignment-json-file file [--preserve-throttles]',
    '[--bootstrap-server host:port] --list',
  ],
  description:
    "Reassigns partitions like Kafka's kafka-reassign-partitions, with its JSON files. A reassignment gives a partition a new list of replicas (the first is its preferred leader; the replication factor may change): the new replicas start at once and copy the partition from its leader, and once all of them are in the ISR the partition takes the new list, the replicas left out are deleted, and leadership moves to a new replica if the leader was left out. Records can be produced and consumed throughout.\n\n" +
    '--generate prints the current assignment of the topics and a proposal that spreads them over --broker-list (save the proposal, edit it if you like, and pass it to --execute). --execute prints the current assignment first: save it to roll back with a later --execute; with --disallow-replication-factor-change (KIP-860) it refuses each partition whose replica list in the file is longer or shorter than the replication factor of the partition (INVALID_REPLICATION_FACTOR, from what to what) and starts the others. --verify exits 1 until every partition of the file is complete; --list shows the reassignments in progress, --cancel stops those of the file (each partition keeps the replicas it had before).\n\n' +
    "--throttle limits the copying as Kafka's tool does: each moving partition's topic gets the replicas it is copied from in leader.replication.throttled.replicas and those it is copied to in follower.replication.throttled.replicas (the entries for other partitions stay), and every broker involved gets the rate as its leader.replication.throttled.rate and follower.replication.throttled.rate. Replicas in the ISR are never throttled. --execute --additional --throttle with the file of a reassignment in progress changes the rate. --verify removes the throttles once no reassignment is left in progress (the rates of every broker, the throttled replicas of the file's topics), and --cancel removes them too; --preserve-throttles leaves them.\n\n" +
    '"log_dirs" in the file (one entry per replica: an absolute log dir of that replica\'s broker, or "any") moves replicas between the log dirs of their brokers, as Kafka\'s tool does: after the reassignments, --execute asks each broker to move its replicas (again every 100 ms, up to --timeout, for a replica not on its new broker yet), and --verify tells for each whether it is in its log dir. The replica serves on while its log is copied into a future log in the new dir, then the two are swapped; --replica-alter-log-dirs-throttle limits the copying.\n\n' +
    'Exits 1 when a reassignment or a log dir move could not be started or cancelled, or (--verify) is not complete.',
  options,
  examples: [
    'samsa reassign-partitions --generate --topics-to-move-json-file topics.json --broker-list 2,3',
    'samsa reassign-partitions --execute --reassignment-json-file plan.json',
    'samsa reassign-partitions --execute --reassignment-json-file plan.json --throttle 50000000',
    'samsa reassign-partitions --execute --reassignment-json-file plan.json --disallow-replication-factor-change',
    'samsa reassign-partitions --verify --reassignment-json-file plan.json',
    'samsa reassign-partitions --list',
  ],
  run,
};
