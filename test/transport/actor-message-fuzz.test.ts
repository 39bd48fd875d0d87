/**
 * Well-framed but ill-typed samsa messages from outside and from inside the cluster. Each actor
 * of a running cluster (the controller and its quorum, the controller channels and metadata
 * proxies, the brokers, their coordinators, share partition manager, replica fetchers and the
 * replicas of a scratch topic) gets, for every message type it handles, messages with that type
 * and fields drawn from the shape the actor's sources declare with at least one of them
 * ill-typed (test/helpers/actor-message-fuzz.ts). They go as msgpack envelopes over TCP: from a
 * client that joined through the topology's client listener when the actor lets clients send
 * that type (ActorDefinition.clientMessages); otherwise from a node the cluster trusts (a TCP
 * link of the listener's node that takes its peers as the cluster's, as the nodes of a tcp
 * topology take each other), and the client's one try at that type must be refused as
 * 'unauthorized'; so must what an actor takes from its own node only (ActorDefinition.
 * localMessages: its timers', its parent's), sent once from the trusted node. The controller's
 * own requests to brokers (LeaderAndIsr, UpdateMetadata, StopReplica) are not sent from the
 * trusted node: a node of the cluster speaks for the controller with the controller epoch it
 * names, and a higher one makes a broker follow it.
 *
 * An ask may go unanswered (actors drop what they do not expect, e.g. a result of their own
 * asks with an id they do not know, without a reply), but no actor may crash (an error-level log
 * line or an 'actor-crashed' Failure). After each actor's batch the cluster must still work for
 * samsa's own client: a new topic is created, a record produced there is consumed by a new
 * group, the groups are listed, and the records of a topic written before the fuzzing are all
 * still there, unchanged.
 *
 * SAMSA_ACTOR_FUZZ_ROUNDS (default 1) batches per actor (SAMSA_ACTOR_FUZZ_STATS=1 prints what each got back); SAMSA_FUZZ_SEED (decimal or 0x hex)
 * picks the messages, fixed by default, random when only the rounds are given (`npm run
 * test:fuzz`). The seed is in the suite's title and in every failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { SamsaClient } from '../../src/client/samsa.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { clientMessageProblem, type ActorDefinition, type FieldSpec } from '../../src/runtime/actor-definition.js';
import { isFailure, type Message } from '../../src/runtime/types.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { TcpTransport } from '../../src/transport/tcp.js';
import { Prng, seedFrom } from '../helpers/kafka-request-fuzz.js';
import { LogCapture, type LogLine } from '../helpers/log-capture.js';
import { readMessageShapes, type FieldShape, type MessageShape, type Shape } from '../helpers/actor-message-shapes.js';
import { describeMessage, illTypedMessage, type FuzzPools } from '../helpers/actor-message-fuzz.js';

const ROUNDS = Math.max(1, Math.floor(Number(process.env.SAMSA_ACTOR_FUZZ_ROUNDS)) || 1);
const SEED = seedFrom(process.env.SAMSA_FUZZ_SEED ?? (process.env.SAMSA_ACTOR_FUZZ_ROUNDS ? undefined : '0xac7012'));
/** Messages per message type in one batch. */
const PER_TYPE = 3;
const ASK_TIMEOUT_MS = 1_500;
const CLUSTER_ID = 'actor-fuzz';
const HEALTHY = 'healthy';
const SCRATCH = 'scratch';
const HEALTHY_RECORDS = 40;

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The actors/ folder whose messages.ts declares each actor kind's messages. */
const FOLDER_OF_KIND: Record<string, string> = {
  'controller-channel': 'controller',
  'metadata-proxy': 'broker',
  controller: 'controller',
  quorum: 'quorum',
  broker: 'broker',
  'replica-fetcher': 'broker',
  'group-coordinator': 'group-coordinator',
  'txn-coordinator': 'txn-coordinator',
  'share-coordinator': 'share-coordinator',
  'share-partition-manager': 'share-partition',
  'partition-replica': 'partition-replica',
};

/** The controller's requests to brokers: a trusted node that sends them speaks for the controller. */
const CONTROLLER_REQUESTS = new Set(['LeaderAndIsrRequest', 'UpdateMetadataRequest', 'StopReplicaRequest']);

interface Target {
  node: string;
  path: string;
  kind: string;
  def: ActorDefinition<unknown, Message, unknown>;
  /** message type -> its fields */
  types: Map<string, Record<string, FieldShape>>;
}

const SCHEMA_SHAPES: Record<string, Shape> = {
  string: { kind: 'string' },
  number: { kind: 'number' },
  integer: { kind: 'number' },
  safeInteger: { kind: 'number' },
  boolean: { kind: 'boolean' },
  bytes: { kind: 'bytes' },
  batches: { kind: 'bytes' },
  ref: { kind: 'ref' },
  array: { kind: 'array', element: { kind: 'any' } },
  object: { kind: 'object', fields: {} },
  any: { kind: 'any' },
};

function specField(spec: FieldSpec): FieldShape {
  if (typeof spec !== 'string') {
    const shape: Shape =
      spec.kind === 'array'
        ? { kind: 'array', element: spec.items === undefined ? { kind: 'any' } : specField(spec.items).shape }
        : { kind: 'object', fields: Object.fromEntries(Object.entries(spec.fields ?? {}).map(([k, f]) => [k, specField(f)])) };
    return { shape, optional: !!spec.optional, nullable: !!spec.optional };
  }
  const optional = spec.endsWith('?');
  return { shape: SCHEMA_SHAPES[optional ? spec.slice(0, -1) : spec]!, optional, nullable: optional };
}

/** The fields of each message type an actor handles: as its sources declare them, else as its schema does. */
function messageTypes(def: ActorDefinition<unknown, Message, unknown>, shapes: MessageShape[]): Map<string, Record<string, FieldShape>> {
  const folder = FOLDER_OF_KIND[def.kind];
  const out = new Map<string, Record<string, FieldShape>>();
  for (const type of Object.keys(def.handlers)) {
    const candidates = shapes.filter((s) => s.type === type);
    const own = candidates.find((s) => s.folder === folder) ?? candidates.find((s) => s.folder !== 'admin') ?? candidates[0];
    const fields: Record<string, FieldShape> = { ...(own?.fields ?? {}) };
    const schema = (def.schema as Record<string, Record<string, FieldSpec>> | undefined)?.[type] ?? {};
    for (const [k, spec] of Object.entries(schema)) if (!fields[k]) fields[k] = specField(spec);
    out.set(type, fields);
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

describe(`transport: ill-typed actor messages from a client and from a trusted node (seed ${SEED} = 0x${SEED.toString(16)}, ${ROUNDS} rounds; SAMSA_FUZZ_SEED and SAMSA_ACTOR_FUZZ_ROUNDS)`, function () {
  this.timeout(60_000 + ROUNDS * 20_000);
  let dir: string;
  let handle: ClusterHandle;
  let client: SamsaClient;
  let fuzzer: ActorSystem;
  let peer: ActorSystem;
  let peerLink: TcpTransport;
  let healthyBefore: string[] = [];
  let checks = 0;

  /** The actors running now, read from the nodes (a client learns most paths from metadata; a fetcher's changes as leaders move). */
  function targets(): Target[] {
    const out: Target[] = [];
    for (const system of (handle as unknown as { systems: ActorSystem[] }).systems) {
      const cells = (system as unknown as { cells: Map<string, { def: ActorDefinition<unknown, Message, unknown> }> }).cells;
      for (const [p, cell] of cells) {
        // the replicas fuzzed are the scratch topic's (the healthy topic's are read back, the health checks' come and go)
        if (cell.def.kind === 'partition-replica' && !p.endsWith(`/${SCRATCH}-0`)) continue;
        out.push({ node: system.nodeId, path: p, kind: cell.def.kind, def: cell.def, types: messageTypes(cell.def, shapes) });
      }
    }
    return out;
  }
  let shapes: MessageShape[] = [];
  /** kind:type of the asks that got no answer (handlers that answer nothing, e.g. their own timers' messages, drop what they do not know) */
  const unanswered = new Set<string>();
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  const capture = new LogCapture();
  const lines = capture.lines;
  const levelBefore = capture.levelBefore;
  const pools: FuzzPools = { strings: [SCRATCH, 'fuzz-group', 'fuzz-txn', '1', '2', 'main', 'b1', 'b2', 'retention.ms', 'range', 'consumer', 'classic'], maxArray: 5_000 };

  /** Every record of `topic`, partition by partition, as 'partition:offset:key:value'. */
  async function readAll(topic: string): Promise<string[]> {
    const admin = client.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    const want = offsets.reduce((n, p) => n + p.high - p.low, 0);
    const consumer = client.consumer({ groupId: `read-${topic}-${++checks}` });
    await consumer.connect();
    const seen: string[] = [];
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.offset}:${String(message.key)}:${String(message.value)}`) });
      await withTimeout(
        (async () => {
          while (seen.length < want) await new Promise((r) => setTimeout(r, 20));
        })(),
        15_000,
        `reading ${want} records of ${topic}`,
      );
    } finally {
      await consumer.disconnect();
    }
    return seen.sort();
  }

  /** Creates a topic, produces a record there, consumes it in a new group, lists groups, reads the healthy topic. */
  async function healthCheck(after: string): Promise<void> {
    const n = ++checks;
    const topic = `health-${n}`;
    const admin = client.admin();
    await admin.connect();
    try {
      await withTimeout(admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 2 }], waitForLeaders: true }), 15_000, `creating ${topic} after ${after}`);
      const producer = client.producer({ acks: 'all' });
      await producer.connect();
      await withTimeout(producer.send({ topic, messages: [{ key: 'k', value: `v${n}` }] }), 15_000, `producing to ${topic} after ${after}`);
      await producer.disconnect();
      expect(await readAll(topic), `the record produced to ${topic} after ${after}`).to.deep.equal([`0:0:k:v${n}`]);
      const groups = await withTimeout(admin.listGroups(), 10_000, `listing groups after ${after}`);
      expect(groups.groups.map((g) => g.groupId), `groups listed after ${after}`).to.include(`read-${topic}-${n + 1}`);
      expect(await readAll(HEALTHY), `the records of ${HEALTHY} after ${after}`).to.deep.equal(healthyBefore);
    } finally {
      await admin.disconnect();
    }
  }

  before(async function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-actor-fuzz-'));
    const topology: TopologyConfig = {
      clusterId: CLUSTER_ID,
      logLevel: levelBefore as TopologyConfig['logLevel'],
      nodes: [{ id: 'main', kind: 'inproc' }, { id: 'b1', kind: 'inproc' }, { id: 'b2', kind: 'inproc' }],
      controller: { node: 'main', metadataDir: 'controller' },
      brokers: [1, 2].map((id) => ({ id, node: `b${id}`, logDir: `broker-${id}`, config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 2 } })),
      listeners: [{ node: 'main', host: '127.0.0.1', port: 0 }],
      topics: [
        { name: HEALTHY, partitions: 2, replicationFactor: 2 },
        { name: SCRATCH, partitions: 1, replicationFactor: 2 },
      ],
    };
    handle = await startCluster(topology, { baseDir: dir });
    const address = handle.addresses()[0]!;
    client = await SamsaClient.connect({ brokers: [address], clientId: 'fuzz-health', clusterId: CLUSTER_ID });
    const producer = client.producer({ acks: 'all' });
    await producer.connect();
    for (let i = 0; i < HEALTHY_RECORDS; i += 10) {
      await producer.send({ topic: HEALTHY, messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${i + j}`, value: `value-${i + j}` })) });
    }
    await producer.disconnect();
    healthyBefore = await readAll(HEALTHY);
    expect(healthyBefore).to.have.length(HEALTHY_RECORDS);

    // the raw client: a node of its own that speaks the wire format to the listener
    fuzzer = new ActorSystem({ nodeId: 'fuzzer' });
    const [host, port] = address.split(':');
    await new TcpTransport(fuzzer, { clusterId: CLUSTER_ID }).connect(Number(port), host);
    // the listener's node relays to the others, as for samsa's own clients
    fuzzer.setDefaultRoute('main');
    // and a node the cluster trusts, on a link of the listener's node that takes its peers as the cluster's
    const main = (handle as unknown as { systems: ActorSystem[] }).systems.find((x) => x.nodeId === 'main')!;
    peerLink = new TcpTransport(main, { clusterId: CLUSTER_ID });
    const link = await peerLink.listen(0);
    peer = new ActorSystem({ nodeId: 'fuzz-peer' });
    await new TcpTransport(peer, { clusterId: CLUSTER_ID }).connect(link.port, link.host);
    peer.setDefaultRoute('main');

    shapes = readMessageShapes(REPO);
    capture.start();
    process.on('unhandledRejection', onRejection);
  });

  after(async () => {
    if (process.env.SAMSA_ACTOR_FUZZ_STATS) process.stderr.write(`unanswered (dropped without a reply): ${[...unanswered].sort().join(' ')}\n`);
    process.off('unhandledRejection', onRejection);
    capture.stop();
    await fuzzer?.stop();
    await peer?.stop();
    await peerLink?.close();
    await client?.close();
    await handle?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reaches every kind of actor of the cluster', () => {
    const all = targets();
    expect([...new Set(all.map((t) => t.kind))].sort()).to.include.members(Object.keys(FOLDER_OF_KIND).sort());
    const shapeless = all.flatMap((t) => [...t.types].filter(([, f]) => Object.keys(f).length === 0).map(([type]) => `${t.kind}:${type}`));
    expect(all.length).to.be.greaterThan(15, shapeless.join(' '));
  });

  const KINDS = Object.keys(FOLDER_OF_KIND);
  for (const kind of KINDS) {
    it(`${kind}: every message type, ill-typed, is answered or dropped with a warning (refused from a client unless it may send it), and the cluster goes on`, async () => {
      const mine = targets().filter((t) => t.kind === kind);
      expect(mine, `actors of kind ${kind}`).to.not.be.empty;
      const problems: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of mine) {
          const rng = new Prng((SEED ^ (round * 0x9e3779b1) ^ hash(`${target.node}:${target.path}`)) >>> 0);
          lines.splice(0);
          const sent: { msg: Record<string, unknown>; p: Promise<Message>; from: 'client' | 'peer' | 'refused' }[] = [];
          const to = { node: target.node, path: target.path };
          for (const [type, fields] of target.types) {
            // clients send what they may (a check on the message itself may still refuse it); the trusted node the rest
            const forClients = clientMessageProblem(target.def, { type }) === null || typeof (target.def.clientMessages as Record<string, unknown> | undefined)?.[type] === 'function';
            if (!forClients) {
              const msg = illTypedMessage(type, fields, rng, pools);
              if (msg) sent.push({ msg, p: fuzzer.ask(to, msg as unknown as Message, { timeoutMs: ASK_TIMEOUT_MS }), from: 'refused' });
              if (CONTROLLER_REQUESTS.has(type)) continue;
              // what an actor takes only from its own node: refused from the trusted node too
              if ((target.def.localMessages as readonly string[] | undefined)?.includes(type)) {
                const local = illTypedMessage(type, fields, rng, pools);
                if (local) sent.push({ msg: local, p: peer.ask(to, local as unknown as Message, { timeoutMs: ASK_TIMEOUT_MS }), from: 'refused' });
                continue;
              }
            }
            for (let i = 0; i < PER_TYPE; i++) {
              const msg = illTypedMessage(type, fields, rng, pools);
              if (!msg) break;
              sent.push({ msg, p: (forClients ? fuzzer : peer).ask(to, msg as unknown as Message, { timeoutMs: ASK_TIMEOUT_MS }), from: forClients ? 'client' : 'peer' });
            }
          }
          const replies = await Promise.all(sent.map((s) => s.p.catch((err: Error) => ({ type: 'Thrown', message: err.message }) as Message)));
          const where = `${target.node}:${target.path} (round ${round}, seed 0x${SEED.toString(16)})`;
          replies.forEach((r, i) => {
            const m = sent[i]!.msg;
            if (sent[i]!.from === 'refused') {
              if (!isFailure(r) || r.reason !== 'unauthorized') problems.push(`${where}: took ${describeMessage(m)} from a client or, one it takes from its own node only, another node: ${JSON.stringify(r).slice(0, 300)}`);
            } else if (isFailure(r) && r.reason === 'actor-crashed') problems.push(`${where}: crashed on ${describeMessage(m)}: ${r.message}`);
            else if (isFailure(r) && r.reason === 'timeout') unanswered.add(`${target.kind}:${String(m.type)}`);
            else if ((r as { type: string }).type === 'Thrown') problems.push(`${where}: the ask threw for ${describeMessage(m)}: ${(r as { message?: string }).message}`);
          });
          if (process.env.SAMSA_ACTOR_FUZZ_STATS) {
            const tally = new Map<string, number>();
            for (const r of replies) {
              const k = isFailure(r) ? `Failure:${r.reason}` : r.type;
              tally.set(k, (tally.get(k) ?? 0) + 1);
            }
            process.stderr.write(`${where}: ${replies.length} sent, ${[...tally].map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
          }
          for (const l of lines.filter((x) => x.level === 'error')) problems.push(`${where}: logged an error: ${JSON.stringify(l).slice(0, 600)}`);
          for (const r of rejections.splice(0)) problems.push(`${where}: unhandled rejection: ${String((r as Error)?.stack ?? r)}`);
          if (problems.length > 0) break;
          try {
            await healthCheck(where);
          } catch (err) {
            problems.push(`${where}: health check failed: ${(err as Error).message}`);
          }
          if (problems.length > 0) break;
        }
        if (problems.length > 0) break;
      }
      expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
    });
  }
});

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
