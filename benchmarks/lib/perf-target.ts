/**
 * Where a perf tool sends its load: a throw-away cluster it starts (perf-cluster.ts), or a running
 * samsa cluster named by --bootstrap-server, as kafka-producer-perf-test measures the cluster it
 * is pointed at (`samsa start` on this machine, or brokers on other hosts).
 *
 * The topic (chooseTopic): --topic names one. On a running cluster an existing topic is used as it
 * is (a --partitions or --replication-factor that does not match it is refused rather than
 * ignored), a missing one is created and kept; without --topic the run makes a topic of its own
 * and deletes it afterwards, so a benchmark leaves nothing behind on a cluster in use.
 *
 * Raw limits: the ones this process can measure (fs.writeSync, a TCP socket over loopback) bound a
 * cluster on this machine only; against brokers on other hosts they are not measured.
 */
import { nanoid } from 'nanoid';
import { connectCluster, parseBootstrapServers } from '../../src/cli/cluster.js';
import { UsageError } from '../../src/cli/errors.js';
import { isInternalTopic } from '../../actors/controller/topic-validation.js';
import { SamsaClient } from '../../src/client/samsa.js';
import type { TopicMetadata } from '../../src/protocol/cluster.js';
import type { FlagSpecs } from './perf-args.js';
import { createTopic, quietLogs, startPerfCluster, type PerfTopics, type Transport } from './perf-cluster.js';

/** The flags every tool that can measure a running cluster takes. */
export const TARGET_FLAGS = {
  'bootstrap-server': {
    type: 'string',
    default: '',
    help: "host:port[,host:port...] of a running samsa cluster's client listener (as for the other samsa commands): measure it instead of starting a throw-away cluster",
  },
  topic: {
    type: 'string',
    default: '',
    help: 'the topic: on a running cluster an existing one is used as it is and a missing one is created and kept; none: a topic of the run, deleted after it',
  },
} satisfies FlagSpecs;

/** Flags that shape a throw-away cluster, meaningless against a running one. */
const THROW_AWAY_ONLY = ['brokers', 'transport', 'heap-growing-percent'] as const;
/** Flags that shape a new topic, meaningless for an existing one unless they match it. */
const NEW_TOPIC_ONLY = ['min-insync-replicas'] as const;

export interface PerfTarget extends PerfTopics {
  /** How the client reaches the brokers: a throw-away cluster's transport, or 'running' (TCP). */
  readonly kind: Transport | 'running';
  /** Brokers in the cluster. */
  readonly brokers: number;
  /** For headers: "3 brokers (worker)", "the running cluster at 127.0.0.1:9192 (3 brokers)". */
  readonly description: string;
  /** The brokers run on this machine: its raw limits bound them. */
  readonly local: boolean;
  /** One client for the run's admin work (topics, offsets, groups), made once. */
  adminClient(): Promise<SamsaClient>;
  close(): Promise<void>;
}

export interface TargetFlags {
  'bootstrap-server': string;
  brokers: number;
  transport: string;
  'heap-growing-percent'?: number;
}

/** A loopback host: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The --bootstrap-server servers (null: a throw-away cluster), checked; refuses the throw-away cluster's flags beside them. */
export function targetServers(f: TargetFlags, given: ReadonlySet<string>): string[] | null {
  if (f['bootstrap-server'] === '') return null;
  const servers = parseBootstrapServers(f['bootstrap-server']);
  const wrong = THROW_AWAY_ONLY.filter((k) => given.has(k));
  if (wrong.length > 0) {
    throw new UsageError(`${wrong.map((k) => `--${k}`).join(', ')} ${wrong.length === 1 ? 'shapes' : 'shape'} the throw-away cluster; with --bootstrap-server the running cluster is measured as it is`);
  }
  return servers;
}

/** Whether the raw limits of this machine bound the target: a throw-away cluster, or servers all on loopback. */
export function targetIsLocal(servers: string[] | null): boolean {
  return servers === null || servers.every((s) => isLoopbackHost(s.slice(0, s.lastIndexOf(':'))));
}

/** Starts a throw-away cluster, or connects to the running one (a clear error when it cannot be reached). */
export async function openTarget(f: TargetFlags, servers: string[] | null): Promise<PerfTarget> {
  if (servers === null) {
    const growing = f['heap-growing-percent'] ?? -1;
    const transport = f.transport as Transport;
    const cluster = await startPerfCluster({ brokers: f.brokers, transport, ...(growing >= 0 ? { heapGrowingPercent: growing } : {}) });
    let admin: Promise<SamsaClient> | null = null;
    return {
      kind: transport,
      brokers: f.brokers,
      description: `${f.brokers} brokers (${transport})`,
      local: true,
      client: (id) => cluster.client(id),
      dropTopic: (topic) => cluster.dropTopic(topic),
      adminClient: () => (admin ??= cluster.client('perf-admin')),
      close: () => cluster.close(),
    };
  }
  quietLogs();
  const conn = await connectCluster(servers, `perf-${nanoid(6)}`);
  const clients: SamsaClient[] = [];
  let brokers: number;
  try {
    brokers = (await conn.metadata()).brokers.filter((b) => !b.fenced).length;
  } catch (err) {
    await conn.close();
    throw err;
  }
  return {
    kind: 'running',
    brokers,
    description: `the running cluster at ${servers.join(',')} (${brokers} brokers)`,
    local: targetIsLocal(servers),
    async client(clientId) {
      const c = await SamsaClient.connect({ brokers: servers, clientId });
      clients.push(c);
      return c;
    },
    adminClient: async () => conn.client,
    async dropTopic(topic) {
      const admin = conn.client.admin();
      await admin.connect();
      try {
        await admin.deleteTopics({ topics: [topic] });
        const deadline = Date.now() + 60_000;
        while ((await admin.listTopics()).includes(topic)) {
          if (Date.now() > deadline) throw new Error(`topic ${topic} still listed 60 s after its deletion`);
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        await admin.disconnect();
      }
    },
    async close() {
      for (const c of clients.splice(0)) await c.close().catch(() => undefined);
      await conn.close();
    },
  };
}

/**
 * The target of a tool run and this machine's raw limits (`measure`) where they bound it:
 * measured before a throw-away cluster starts (its threads would share the cores), and after a
 * running cluster answered (an address that does not answer fails at once); not measured for
 * brokers on other hosts, or without `raw`.
 */
export async function openTargetWithLimits<L>(f: TargetFlags, given: ReadonlySet<string>, raw: boolean, measure: () => Promise<L>): Promise<{ target: PerfTarget; limits: L | null }> {
  const servers = targetServers(f, given);
  const wanted = raw && targetIsLocal(servers);
  if (servers === null) {
    const limits = wanted ? await measure() : null;
    return { target: await openTarget(f, null), limits };
  }
  const target = await openTarget(f, servers);
  if (!wanted) return { target, limits: null };
  try {
    return { target, limits: await measure() };
  } catch (err) {
    await target.close();
    throw err;
  }
}

/** `<prefix>-<random>`: a name of this run's own on a cluster others use (letters and digits only). */
export function runName(prefix: string): string {
  return `${prefix}-${nanoid(10).replace(/[^a-zA-Z0-9]/g, 'x')}`;
}

/** The transport whose raw limit bounds the client: a running cluster is reached over TCP. */
export function clientTransport(target: PerfTarget): Transport {
  return target.kind === 'running' ? 'tcp' : target.kind;
}

export interface TopicChoice {
  name: string;
  partitions: number;
  replicationFactor: number;
  /** existing: used as it was; created: made for --topic and kept; run: made for this run (deleted after it on a running cluster). */
  origin: 'existing' | 'created' | 'run';
}

export interface TopicWish {
  /** --topic ('' for none). */
  topic: string;
  /** The name of a throw-away cluster's topic, and the prefix of a run's topic on a running cluster. */
  defaultName: string;
  partitions: number;
  replicationFactor: number;
  config: Record<string, string>;
}

/** The topic a run uses on `target`: existing (checked against the flags given), or created. */
export async function chooseTopic(target: PerfTarget, w: TopicWish, given: ReadonlySet<string>): Promise<TopicChoice> {
  const client = await target.adminClient();
  const name = w.topic !== '' ? w.topic : target.kind === 'running' ? runName(w.defaultName) : w.defaultName;
  const admin = client.admin();
  await admin.connect();
  let existing: TopicMetadata | undefined;
  try {
    if ((await admin.listTopics()).includes(name)) existing = (await admin.fetchTopicMetadata({ topics: [name] })).topics[0];
  } finally {
    await admin.disconnect();
  }
  if (existing) {
    const partitions = existing.partitions.length;
    const replicationFactor = existing.partitions[0]?.replicas.length ?? 0;
    const clash: string[] = [];
    if (given.has('partitions') && w.partitions !== partitions) clash.push(`--partitions ${w.partitions} (it has ${partitions})`);
    if (given.has('replication-factor') && w.replicationFactor !== replicationFactor) clash.push(`--replication-factor ${w.replicationFactor} (it has ${replicationFactor})`);
    for (const k of NEW_TOPIC_ONLY) if (given.has(k)) clash.push(`--${k} (it has its own config)`);
    if (clash.length > 0) throw new UsageError(`topic '${name}' exists: ${clash.join(', ')} would not apply; leave ${clash.length === 1 ? 'it' : 'them'} out to use the topic as it is, or name another --topic`);
    return { name, partitions, replicationFactor, origin: 'existing' };
  }
  await createTopic(client, name, w.partitions, w.replicationFactor, w.config);
  return { name, partitions: w.partitions, replicationFactor: w.replicationFactor, origin: w.topic !== '' && target.kind === 'running' ? 'created' : 'run' };
}

/**
 * The cluster's topics, internal ones aside, whose whole name `pattern` matches (as Kafka's
 * pattern subscription matches), sorted by name, each as it is.
 */
export async function topicsMatching(target: PerfTarget, pattern: RegExp): Promise<TopicChoice[]> {
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    const names = (await admin.listTopics()).filter((n) => !isInternalTopic(n) && pattern.test(n)).sort();
    if (names.length === 0) return [];
    const { topics } = await admin.fetchTopicMetadata({ topics: names });
    return topics.map((t) => ({ name: t.name, partitions: t.partitions.length, replicationFactor: t.partitions[0]?.replicas.length ?? 0, origin: 'existing' as const })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    await admin.disconnect();
  }
}

/** Records a topic holds: high watermark - log start, summed over its partitions (a compacted topic's gaps count). */
export async function recordsHeld(target: PerfTarget, topic: string): Promise<number> {
  return (await topicOffsets(target, topic)).reduce((n, p) => n + (p.high - p.low), 0);
}

/** Each partition's log start (low) and end (high) offsets. */
export async function topicOffsets(target: PerfTarget, topic: string): Promise<{ partition: number; low: number; high: number }[]> {
  const admin = (await target.adminClient()).admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, low: p.low, high: p.high }));
  } finally {
    await admin.disconnect();
  }
}

/** Drops the run's own topic from a running cluster (a throw-away cluster goes as a whole). */
export async function releaseTopic(target: PerfTarget, t: TopicChoice | null): Promise<void> {
  if (t && t.origin === 'run' && target.kind === 'running') await target.dropTopic(t.name);
}

/** "topic t (existing, 6 partitions, RF 3)" for headers. */
export function describeTopic(t: TopicChoice): string {
  const origin = t.origin === 'existing' ? 'existing' : t.origin === 'created' ? 'created and kept' : 'of this run';
  return `topic ${t.name} (${origin}), ${t.partitions} partitions, RF ${t.replicationFactor}`;
}
