/**
 * KafkaJS 2.x against samsa's Kafka listeners, unchanged, the way a user's test suite would use it:
 * the admin client (create/describe/list/delete topics, group descriptions and committed offsets,
 * a compacted topic read across its gaps, a kept tombstone at its own old timestamp under the
 * delete horizon the cleaner gave its batch),
 * the producer (acks -1, 1 and 0, keys, headers, gzip, explicit partitions) read back record for
 * record, a consumer group of three members over six partitions (rebalance on leave, commits,
 * restart from the committed offsets), and one produce+consume round trip against worker-thread
 * brokers.
 */
import { expect } from 'chai';
import { AssignerProtocol, CompressionTypes, Kafka, logLevel, type Admin, type Consumer, type ConsumerConfig, type IHeaders, type KafkaConfig, type Producer } from 'kafkajs';
import { checkFor } from '../helpers/check-for.js';
import { replicaPath } from '../../src/protocol/cluster.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';

/** Fail fast: few, short retries; no KafkaJS logging. */
function kafkaClient(brokers: string[], clientId = 'kafkajs-test', extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries: 3, initialRetryTime: 50, maxRetryTime: 500 },
    ...extra,
  });
}

/** Consumer settings that keep group protocol round trips short. */
const CONSUMER: Omit<ConsumerConfig, 'groupId'> = {
  sessionTimeout: 6_000,
  rebalanceTimeout: 10_000,
  heartbeatInterval: 100,
  maxWaitTimeInMs: 100,
  retry: { retries: 3, initialRetryTime: 50, maxRetryTime: 500 },
};

interface Got {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

function headersOf(h: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  return out;
}

/** Reads `count` records of `topic` from the beginning with a fresh KafkaJS group consumer. */
async function consumeAll(kafka: Kafka, topic: string, count: number, groupId: string, timeoutMs = 15_000): Promise<Got[]> {
  const consumer = kafka.consumer({ groupId, ...CONSUMER });
  const got: Got[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic: t, partition, message }) => {
        got.push({
          topic: t,
          partition,
          offset: Number(message.offset),
          key: message.key === null ? null : message.key.toString(),
          value: message.value === null ? null : message.value.toString(),
          headers: headersOf(message.headers),
        });
      },
    });
    await checkFor(() => got.length >= count, timeoutMs, 20);
  } finally {
    await consumer.disconnect();
  }
  return got;
}

/** Per partition, offsets must run 0, 1, 2, ... without gap or repeat. */
function expectContiguous(got: Got[]): void {
  const byPartition = new Map<number, number[]>();
  for (const g of got) byPartition.set(g.partition, [...(byPartition.get(g.partition) ?? []), g.offset]);
  for (const [p, offsets] of byPartition) expect(offsets, `partition ${p}`).to.deep.equal(offsets.map((_, i) => i));
}

function kafkaErrorType(err: unknown): string[] {
  const e = err as { type?: string; errors?: { type?: string }[]; originalError?: unknown; name?: string };
  if (Array.isArray(e.errors)) return e.errors.map((x) => x.type ?? String(x));
  if (e.type) return [e.type];
  if (e.originalError) return kafkaErrorType(e.originalError);
  return [String(e.name)];
}

describe('KafkaJS against samsa (3 in-process brokers)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let kafka: Kafka;
  let admin: Admin;

  before(async () => {
    c = await startKafkaCluster({ brokers: 3, brokerConfig: { 'log.cleaner.backoff.ms': 100 } });
    kafka = kafkaClient(c.bootstrap);
    admin = kafka.admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  describe('admin', () => {
    it('describeCluster lists the 3 brokers at their Kafka addresses and a controller among them', async () => {
      const d = await admin.describeCluster();
      expect(d.brokers.map((b) => `${b.host}:${b.port}`).sort()).to.deep.equal([...c.bootstrap].sort());
      expect(d.brokers.map((b) => b.nodeId).sort()).to.deep.equal([1, 2, 3]);
      expect(d.controller).to.be.oneOf([1, 2, 3]);
      expect(d.clusterId).to.be.a('string').and.not.equal('');
    });

    it('createTopics, then fetchTopicMetadata shows a leader, 3 replicas and a full ISR for every partition, and listTopics has it', async () => {
      expect(await admin.createTopics({ topics: [{ topic: 'adm-a', numPartitions: 4, replicationFactor: 3 }], waitForLeaders: true })).to.equal(true);
      const { topics } = await admin.fetchTopicMetadata({ topics: ['adm-a'] });
      expect(topics).to.have.length(1);
      expect(topics[0]!.name).to.equal('adm-a');
      const parts = [...topics[0]!.partitions].sort((a, b) => a.partitionId - b.partitionId);
      expect(parts.map((p) => p.partitionId)).to.deep.equal([0, 1, 2, 3]);
      for (const p of parts) {
        expect(p.partitionErrorCode).to.equal(0);
        expect([...p.replicas].sort()).to.deep.equal([1, 2, 3]);
        expect([...p.isr].sort()).to.deep.equal([1, 2, 3]);
        expect(p.replicas).to.include(p.leader);
      }
      // leaders are spread over the brokers
      expect(new Set(parts.map((p) => p.leader)).size).to.be.greaterThan(1);
      expect(await admin.listTopics()).to.include('adm-a');
    });

    it('createTopics of an existing topic is TOPIC_ALREADY_EXISTS (KafkaJS answers false), with the topic unchanged', async () => {
      await admin.createTopics({ topics: [{ topic: 'adm-dup', numPartitions: 2, replicationFactor: 2 }] });
      expect(await admin.createTopics({ topics: [{ topic: 'adm-dup', numPartitions: 5, replicationFactor: 1 }] })).to.equal(false);
      // mixed with another error, KafkaJS reports every topic's error type
      const err = await admin
        .createTopics({ topics: [{ topic: 'adm-dup', numPartitions: 1 }, { topic: 'adm-bad-rf', numPartitions: 1, replicationFactor: 4 }] })
        .then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(kafkaErrorType(err).sort()).to.deep.equal(['INVALID_REPLICATION_FACTOR', 'TOPIC_ALREADY_EXISTS']);
      const { topics } = await admin.fetchTopicMetadata({ topics: ['adm-dup'] });
      expect(topics[0]!.partitions).to.have.length(2);
      for (const p of topics[0]!.partitions) expect(p.replicas).to.have.length(2);
    });

    it('createTopics with a replication factor above the broker count (or zero) is INVALID_REPLICATION_FACTOR and creates nothing', async () => {
      for (const replicationFactor of [4, 0]) {
        const err = await admin.createTopics({ topics: [{ topic: 'adm-rf', numPartitions: 1, replicationFactor }] }).then(() => null, (e: unknown) => e);
        expect(err, `replicationFactor ${replicationFactor}`).to.be.instanceOf(Error);
        expect(kafkaErrorType(err)).to.deep.equal(['INVALID_REPLICATION_FACTOR']);
      }
      expect(await admin.listTopics()).to.not.include('adm-rf');
    });

    it('deleteTopics: the topic leaves listTopics and metadata', async () => {
      await admin.createTopics({ topics: [{ topic: 'adm-del', numPartitions: 2, replicationFactor: 3 }, { topic: 'adm-keep', numPartitions: 1, replicationFactor: 3 }] });
      expect(await admin.listTopics()).to.include.members(['adm-del', 'adm-keep']);
      await admin.deleteTopics({ topics: ['adm-del'], timeout: 10_000 });
      await checkFor(async () => !(await admin.listTopics()).includes('adm-del'), 10_000, 50);
      const all = await admin.fetchTopicMetadata();
      expect(all.topics.map((t) => t.name)).to.include('adm-keep').and.not.include('adm-del');
      const err = await admin.fetchTopicMetadata({ topics: ['adm-del'] }).then(() => null, (e: unknown) => e);
      expect(kafkaErrorType(err)).to.deep.equal(['UNKNOWN_TOPIC_OR_PARTITION']);
    });

    it('deleteGroups removes an empty group and reports an unknown one', async () => {
      const consumer = kafka.consumer({ groupId: 'adm-doomed-group', ...CONSUMER });
      await consumer.connect();
      await consumer.subscribe({ topic: 'adm-keep', fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await checkFor(async () => (await admin.describeGroups(['adm-doomed-group'])).groups[0]!.state === 'Stable', 15_000, 50);
      await consumer.disconnect();
      const done = await admin.deleteGroups(['adm-doomed-group']);
      expect(done).to.deep.equal([{ groupId: 'adm-doomed-group', errorCode: 0 }]);
      expect((await admin.listGroups()).groups.map((g) => g.groupId)).to.not.include('adm-doomed-group');
      const err = await admin.deleteGroups(['adm-never-was']).then(() => null, (e: unknown) => e);
      expect(String((err as Error)?.message ?? err)).to.match(/not exist|GROUP_ID_NOT_FOUND|delete/i);
    });

    it('deleteTopicRecords moves the low watermark on the leader and its followers; consumers start there', async () => {
      const topic = 'adm-trim';
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }] });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `t${i}` })) });
      await producer.disconnect();
      // KafkaJS finds the leader from the admin's cached metadata: fetch the topic's offsets first, as its docs do
      expect((await admin.fetchTopicOffsets(topic))[0]).to.include({ low: '0', high: '10' });
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '6' }] });
      const offsets = await admin.fetchTopicOffsets(topic);
      expect(offsets[0]).to.include({ partition: 0, low: '6', high: '10' });
      // answered once every replica had moved its log start there (the low watermark, as Kafka)
      for (const brokerId of [1, 2, 3]) {
        const d = (await c.handle.mainSystem.ask({ node: 'main', path: replicaPath(brokerId, topic, 0) }, { type: 'DescribeReplica' })) as unknown as { logStartOffset: number };
        expect(d.logStartOffset, `broker ${brokerId}`).to.equal(6);
      }
      const beyond = await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '99' }] }).then(() => null, (e: unknown) => e);
      expect(beyond).to.be.instanceOf(Error);
      const consumer = kafka.consumer({ groupId: 'adm-trim-readers', maxWaitTimeInMs: 100, heartbeatInterval: 200 });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const got: string[] = [];
      await consumer.run({ eachMessage: async ({ message }) => void got.push(String(message.value)) });
      await checkFor(() => got.length >= 4, 15_000, 50);
      await consumer.disconnect();
      expect(got).to.deep.equal(['t6', 't7', 't8', 't9']);
    });

    it('a compacted topic (createTopics configEntries): keyless sends fail with INVALID_RECORD; a consumer reads the latest value of each key across the gaps', async () => {
      const topic = 'adm-compacted';
      await admin.createTopics({
        topics: [{ topic, numPartitions: 1, replicationFactor: 3, configEntries: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'segment.bytes', value: '1024' }, { name: 'min.cleanable.dirty.ratio', value: '0.01' }] }],
      });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      const refused = await producer.send({ topic, acks: -1, messages: [{ value: 'no key' }] }).then(() => null, (e: unknown) => e);
      expect(kafkaErrorType(refused)).to.include('INVALID_RECORD');
      const latest = new Map<string, string | null>();
      for (let round = 0; round < 8; round++) {
        const messages = Array.from({ length: 8 }, (_, k) => ({ key: `item-${k}`, value: `r${round}-${k}` }));
        for (const m of messages) latest.set(m.key, m.value);
        await producer.send({ topic, acks: -1, messages });
      }
      // a tombstone stamped years ago: the cleaner keeps it, its batch given a delete horizon a
      // day ahead (KIP-534) in place of its base timestamp, and it still reads as its own time
      const yearsAgo = Date.now() - 3 * 365 * 24 * 60 * 60 * 1000;
      await producer.send({ topic, acks: -1, messages: [{ key: 'item-0', value: null, timestamp: String(yearsAgo) }] });
      latest.set('item-0', null);
      // a few more so the last full segment is no longer the active one
      for (let i = 0; i < 4; i++) {
        const messages = Array.from({ length: 4 }, (_, k) => ({ key: `pad-${i}-${k}`, value: 'p'.repeat(40) }));
        for (const m of messages) latest.set(m.key, m.value);
        await producer.send({ topic, acks: -1, messages });
      }
      await producer.disconnect();
      const total = 8 * 8 + 1 + 16;
      // read everything up to the last offset with a fresh group, until the cleaner has run
      let attempt = 0;
      let tombstone: { timestamp: string; batchBaseTimestamp: string } | null = null;
      const readToEnd = async (): Promise<Got[]> => {
        const consumer = kafka.consumer({ groupId: `compacted-readers-${attempt++}`, ...CONSUMER });
        const all: Got[] = [];
        await consumer.connect();
        try {
          await consumer.subscribe({ topic, fromBeginning: true });
          await consumer.run({
            eachMessage: async ({ message }) => {
              all.push({ topic, partition: 0, offset: Number(message.offset), key: String(message.key), value: message.value === null ? null : String(message.value), headers: {} });
              const batchContext = (message as unknown as { batchContext: { firstTimestamp: string } }).batchContext;
              if (message.value === null) tombstone = { timestamp: message.timestamp, batchBaseTimestamp: batchContext.firstTimestamp };
            },
          });
          await checkFor(() => all.some((g) => g.offset === total - 1), 15_000, 20);
        } finally {
          await consumer.disconnect();
        }
        return all;
      };
      const got = await checkFor(async () => {
        tombstone = null;
        const all = await readToEnd();
        const cleaned = tombstone !== null && Number((tombstone as { batchBaseTimestamp: string }).batchBaseTimestamp) > Date.now();
        return all.length < total - 20 && cleaned ? all : null;
      }, 30_000, 100);
      const seen = new Map(got.map((g) => [g.key!, g.value]));
      expect(seen).to.deep.equal(latest);
      expect(tombstone!.timestamp).to.equal(String(yearsAgo));
      expect(Number(tombstone!.batchBaseTimestamp)).to.be.within(Date.now() + 23 * 60 * 60 * 1000, Date.now() + 24 * 60 * 60 * 1000);
      const offsets = got.map((g) => g.offset);
      expect(offsets).to.deep.equal([...offsets].sort((a, b) => a - b));
    });

    it('createPartitions grows a topic (and refuses shrinking it)', async () => {
      await admin.createTopics({ topics: [{ topic: 'adm-grow', numPartitions: 2, replicationFactor: 3 }] });
      await admin.createPartitions({ topicPartitions: [{ topic: 'adm-grow', count: 5 }] });
      await checkFor(async () => {
        const md = await admin.fetchTopicMetadata({ topics: ['adm-grow'] });
        return md.topics[0]!.partitions.length === 5 && md.topics[0]!.partitions.every((p) => p.leader > 0);
      }, 10_000, 50);
      const err = await admin.createPartitions({ topicPartitions: [{ topic: 'adm-grow', count: 3 }] }).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(String((err as Error).message)).to.match(/higher than the requested 3|partitions/i);
    });
  });

  describe('producer', () => {
    it('acks -1, 1 and 0 with keys, headers, gzip and explicit partitions: every record read back as sent, offsets contiguous per partition', async () => {
      const topic = 'prod';
      await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }] });
      const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 3, initialRetryTime: 50, maxRetryTime: 500 } });
      await producer.connect();
      const sent: Omit<Got, 'offset'>[] = [];
      const batch = (tag: string, n: number, partition?: (i: number) => number) =>
        Array.from({ length: n }, (_, i) => ({
          key: `${tag}-k${i % 7}`,
          value: `${tag}-v${i}`,
          headers: { tag, seq: String(i), 'multi-byte': 'ü€' },
          ...(partition ? { partition: partition(i) } : {}),
        }));
      try {
        const cases: { tag: string; acks: number; compression?: CompressionTypes; partition?: (i: number) => number }[] = [
          { tag: 'all', acks: -1 },
          { tag: 'one', acks: 1 },
          { tag: 'none', acks: 0 },
          { tag: 'gzip', acks: -1, compression: CompressionTypes.GZIP },
          { tag: 'gzip0', acks: 0, compression: CompressionTypes.GZIP },
          { tag: 'pinned', acks: 1, partition: (i) => i % 3 },
        ];
        for (const cs of cases) {
          const messages = batch(cs.tag, 20, cs.partition);
          const res = await producer.send({ topic, acks: cs.acks, messages, ...(cs.compression !== undefined ? { compression: cs.compression } : {}) });
          if (cs.acks !== 0) {
            expect(res.length).to.be.greaterThan(0);
            for (const r of res) expect(r.errorCode, `${cs.tag} p${r.partition}`).to.equal(0);
          }
          for (const m of messages) sent.push({ topic, partition: m.partition ?? -1, key: m.key, value: m.value, headers: m.headers });
        }
      } finally {
        await producer.disconnect();
      }
      const got = await consumeAll(kafka, topic, sent.length, 'prod-reader');
      expect(got).to.have.length(sent.length);
      expectContiguous(got);
      const byValue = new Map(got.map((g) => [g.value, g]));
      expect(byValue.size).to.equal(sent.length);
      const keyPartition = new Map<string, number>();
      for (const s of sent) {
        const g = byValue.get(s.value);
        expect(g, `record ${s.value}`).to.not.equal(undefined);
        expect(g!.key).to.equal(s.key);
        expect(g!.headers).to.deep.equal(s.headers);
        if (s.partition >= 0) expect(g!.partition, s.value!).to.equal(s.partition);
        else {
          // one key always lands on one partition (KafkaJS's default partitioner)
          const p = keyPartition.get(s.key!);
          if (p === undefined) keyPartition.set(s.key!, g!.partition);
          else expect(g!.partition, s.key!).to.equal(p);
        }
      }
      // ListOffsets: each partition runs from 0 to the number of records it holds
      const offsets = await admin.fetchTopicOffsets(topic);
      for (const o of offsets) {
        expect(Number(o.low), `p${o.partition}`).to.equal(0);
        expect(Number(o.high), `p${o.partition}`).to.equal(got.filter((g) => g.partition === o.partition).length);
      }
      // and the records arrive in the order each partition received them
      for (const tag of ['all', 'one', 'none', 'gzip', 'gzip0', 'pinned']) {
        const mine = got.filter((g) => g.headers.tag === tag);
        for (const p of [0, 1, 2]) {
          const seq = mine.filter((g) => g.partition === p).map((g) => Number(g.headers.seq));
          expect(seq, `${tag} p${p}`).to.deep.equal([...seq].sort((a, b) => a - b));
        }
      }
    });
  });

  describe('consumer group', () => {
    it('three members over six partitions: 2 each, disjoint; a leave rebalances the rest over all 6; commits visible; a restart resumes from them', async () => {
      const topic = 'grp';
      const groupId = 'grp-three';
      await admin.createTopics({ topics: [{ topic, numPartitions: 6, replicationFactor: 3 }] });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      let produced = 0;
      const produce = async (perPartition: number) => {
        const messages = [];
        for (let p = 0; p < 6; p++) for (let i = 0; i < perPartition; i++) messages.push({ partition: p, key: `p${p}`, value: `r${produced++}` });
        await producer.send({ topic, acks: -1, messages });
      };

      const seen: (Got & { member: number })[] = [];
      // each member's latest assignment, and how many joins it has completed
      const assignment = new Map<number, { joins: number; partitions: number[] }>();
      const members: Consumer[] = [];
      const start = async (member: number) => {
        const consumer = kafka.consumer({ groupId, ...CONSUMER });
        consumer.on(consumer.events.GROUP_JOIN, (e) => {
          const joins = (assignment.get(member)?.joins ?? 0) + 1;
          assignment.set(member, { joins, partitions: [...(e.payload.memberAssignment[topic] ?? [])].sort() });
        });
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          autoCommitThreshold: 1,
          eachMessage: async ({ partition, message }) => {
            seen.push({ member, topic, partition, offset: Number(message.offset), key: message.key?.toString() ?? null, value: message.value?.toString() ?? null, headers: {} });
          },
        });
        members[member] = consumer;
        return consumer;
      };
      const committed = async (): Promise<number[]> => {
        const r = await admin.fetchOffsets({ groupId, topics: [topic] });
        const offs = r.find((t) => t.topic === topic)!.partitions;
        return [0, 1, 2, 3, 4, 5].map((p) => Number(offs.find((o) => o.partition === p)?.offset ?? -1));
      };
      /** Waits until the given members hold `each` partitions apiece that together cover all 6 partitions once. */
      const balanced = async (who: number[], each: number) =>
        checkFor(
          () => {
            const a = who.map((m) => assignment.get(m));
            if (a.some((x) => !x || x.partitions.length !== each)) return false;
            const all = a.flatMap((x) => x!.partitions);
            return new Set(all).size === 6 && all.length === 6;
          },
          25_000,
          20,
        );

      try {
        await Promise.all([0, 1, 2].map(start));
        await balanced([0, 1, 2], 2);
        const desc = await admin.describeGroups([groupId]);
        expect(desc.groups).to.have.length(1);
        const g = desc.groups[0]!;
        expect(g.groupId).to.equal(groupId);
        expect(g.protocolType).to.equal('consumer');
        expect(g.members).to.have.length(3);
        expect(g.state).to.equal('Stable');
        expect(g.protocol).to.equal('RoundRobinAssigner');
        // the assignments the group holds are the ones the members were handed
        const held = g.members.map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[topic] ?? []);
        expect(held.map((p) => [...p].sort()).sort()).to.deep.equal([0, 1, 2].map((m) => assignment.get(m)!.partitions).sort());
        for (const m of g.members) expect(m.clientId).to.equal('kafkajs-test');
        const listed = await admin.listGroups();
        expect(listed.groups).to.deep.include({ groupId, protocolType: 'consumer' });

        // records arrive only now that the group is balanced: each is consumed once, by its partition's owner
        await produce(5); // 30 records, 5 per partition
        // every record consumed once and committed: offset 5 on every partition
        await checkFor(() => new Set(seen.map((s) => s.value)).size === 30, 15_000, 20);
        await checkFor(async () => (await committed()).every((o) => o === 5), 15_000, 50);
        // each member consumed only from its partitions
        for (const s of seen) expect(assignment.get(s.member)!.partitions).to.include(s.partition);

        // member 2 leaves: members 0 and 1 split the six partitions 3 + 3
        const joinsBefore = [assignment.get(0)!.joins, assignment.get(1)!.joins];
        const leftAt = Date.now();
        await members[2]!.disconnect();
        await balanced([0, 1], 3);
        // LeaveGroup triggered the rebalance: nobody waited for member 2's session to time out
        expect(Date.now() - leftAt).to.be.lessThan(CONSUMER.sessionTimeout!);
        expect(assignment.get(0)!.joins).to.be.greaterThan(joinsBefore[0]!);
        expect(assignment.get(1)!.joins).to.be.greaterThan(joinsBefore[1]!);
        await produce(5); // 30 more
        await checkFor(() => new Set(seen.map((s) => s.value)).size === 60, 15_000, 20);
        await checkFor(async () => (await committed()).every((o) => o === 10), 15_000, 50);
        const afterLeave = seen.filter((s) => Number(s.value!.slice(1)) >= 30);
        for (const s of afterLeave) expect(s.member).to.be.oneOf([0, 1]);
        expect((await admin.describeGroups([groupId])).groups[0]!.members).to.have.length(2);

        await Promise.all([members[0]!.disconnect(), members[1]!.disconnect()]);
        await checkFor(async () => (await admin.describeGroups([groupId])).groups[0]!.state === 'Empty', 10_000, 50);
        expect(await committed()).to.deep.equal([10, 10, 10, 10, 10, 10]);

        // nobody consuming: 3 more per partition; a new member resumes exactly from the commits
        await produce(3);
        const count = seen.length;
        await start(3);
        await checkFor(() => seen.length - count >= 18, 15_000, 20);
        await checkFor(async () => (await committed()).every((o) => o === 13), 15_000, 50);
        const resumed = seen.slice(count);
        expect(resumed).to.have.length(18);
        for (const p of [0, 1, 2, 3, 4, 5]) {
          expect(resumed.filter((s) => s.partition === p).map((s) => s.offset), `partition ${p}`).to.deep.equal([10, 11, 12]);
        }
        // across all members: every record seen, none skipped, none twice
        const values = seen.map((s) => Number(s.value!.slice(1))).sort((a, b) => a - b);
        expect(values).to.deep.equal(Array.from({ length: produced }, (_, i) => i));
      } finally {
        for (const m of members) await m?.disconnect().catch(() => undefined);
        await producer.disconnect();
      }
    });
  });

  describe('interop with samsa clients', () => {
    // 6 s: the brokers keep Kafka's default group.min.session.timeout.ms
    const SAMSA_CONSUMER = { 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 };

    it("records produced by KafkaJS are read by samsa's consumer with the same keys, values and headers", async () => {
      const topic = 'interop-kafkajs';
      await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }] });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      const messages = Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 5}`, value: `from-kafkajs-${i}`, headers: { origin: 'kafkajs', i: String(i) } }));
      await producer.send({ topic, acks: -1, messages: messages.slice(0, 15) });
      await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages: messages.slice(15) });
      await producer.disconnect();

      const samsa = c.handle.samsa('interop-reader');
      const consumer = samsa.consumer({ groupId: 'interop-samsa', ...SAMSA_CONSUMER });
      const got: Omit<Got, 'topic'>[] = [];
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await consumer.run({
          eachMessage: async ({ partition, message }) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(message.headers)) headers[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
            got.push({ partition, offset: message.offset, key: message.key?.toString() ?? null, value: message.value?.toString() ?? null, headers });
          },
        });
        await checkFor(() => got.length >= 30, 20_000, 20);
      } finally {
        await consumer.disconnect();
        await samsa.close();
      }
      expect(got).to.have.length(30);
      const byValue = new Map(got.map((g) => [g.value, g]));
      for (const m of messages) {
        const g = byValue.get(m.value);
        expect(g, m.value).to.not.equal(undefined);
        expect(g!.key).to.equal(m.key);
        expect(g!.headers).to.deep.equal(m.headers);
      }
      expectContiguous(got.map((g) => ({ ...g, topic })));
    });

    it("records produced by samsa's producer are read by a KafkaJS consumer with the same keys, values and headers", async () => {
      const topic = 'interop-samsa';
      await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }] });
      const samsa = c.handle.samsa('interop-writer');
      const messages = Array.from({ length: 30 }, (_, i) => ({ key: `k${i % 5}`, value: `from-samsa-${i}`, headers: { origin: 'samsa', i: String(i) } }));
      try {
        const producer = samsa.producer({ acks: 'all', 'linger.ms': 5 });
        await producer.connect();
        await producer.send({ topic, messages: messages.slice(0, 15) });
        await producer.send({ topic, messages: messages.slice(15).map((m, i) => ({ ...m, partition: i % 3 })) });
        await producer.disconnect();
      } finally {
        await samsa.close();
      }
      const got = await consumeAll(kafka, topic, 30, 'interop-kafkajs-reader');
      expect(got).to.have.length(30);
      expectContiguous(got);
      const byValue = new Map(got.map((g) => [g.value, g]));
      messages.forEach((m, i) => {
        const g = byValue.get(m.value);
        expect(g, m.value).to.not.equal(undefined);
        expect(g!.key).to.equal(m.key);
        expect(g!.headers).to.deep.equal(m.headers);
        if (i >= 15) expect(g!.partition).to.equal((i - 15) % 3);
      });
    });
  });
});

describe('KafkaJS against samsa (3 worker-thread brokers)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;

  before(async () => {
    c = await startKafkaCluster({ brokers: 3, kind: 'worker' });
  });
  after(async () => {
    await c?.stop();
  });

  it('creates a topic, produces keyed records with headers at acks -1 and consumes them in a group', async () => {
    const kafka = kafkaClient(c.bootstrap, 'kafkajs-worker');
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'w', numPartitions: 3, replicationFactor: 3 }] });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      const messages = Array.from({ length: 40 }, (_, i) => ({ key: `k${i % 4}`, value: `w${i}`, headers: { n: String(i) } }));
      await producer.send({ topic: 'w', acks: -1, messages: messages.slice(0, 20) });
      await producer.send({ topic: 'w', acks: -1, compression: CompressionTypes.GZIP, messages: messages.slice(20) });
      await producer.disconnect();
      const got = await consumeAll(kafka, 'w', 40, 'w-group', 20_000);
      expect(got).to.have.length(40);
      expectContiguous(got);
      const byValue = new Map(got.map((g) => [g.value, g]));
      for (const m of messages) {
        expect(byValue.get(m.value)?.key).to.equal(m.key);
        expect(byValue.get(m.value)?.headers).to.deep.equal(m.headers);
      }
      const offsets = await admin.fetchOffsets({ groupId: 'w-group', topics: ['w'] });
      const total = offsets[0]!.partitions.reduce((s, p) => s + Number(p.offset), 0);
      expect(total).to.equal(40);
    } finally {
      await admin.disconnect();
    }
  });
});
