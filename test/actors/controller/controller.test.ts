/**
 * The controller actor driven through its messages, with fake brokers recording what it tells
 * them and a FakeClock for sessions: registration, heartbeats and fencing, topic creation
 * (placement and every validation error), deletion, partition growth, leader failover, offline
 * partitions and their recovery, unclean election, AlterPartition, controlled shutdown,
 * unregistering a broker, watchers.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { NO_LEADER } from '../../../src/protocol/cluster.js';
import type { Failure } from '../../../src/runtime/types.js';
import { ControllerHarness, type Reply } from './harness.js';

describe('actors/controller', () => {
  let h: ControllerHarness;

  afterEach(async () => {
    await h?.stop();
  });

  describe('broker registration', () => {
    it('registers a new broker with epoch 1, unfenced, and tells every live broker', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      expect(h.epochs.get(1)).to.equal(1);
      expect(h.epochs.get(2)).to.equal(1);
      const md = await h.metadata();
      expect(md.controllerEpoch).to.equal(1);
      expect(md.controllerNode).to.equal('controller');
      expect(md.brokers).to.deep.equal([
        { brokerId: 1, node: 'node-1', rack: null, fenced: false, brokerEpoch: 1, endpoint: null, kafkaEndpoint: null },
        { brokerId: 2, node: 'node-2', rack: null, fenced: false, brokerEpoch: 1, endpoint: null, kafkaEndpoint: null },
      ]);
      await h.settle();
      const last = h.received(1, 'UpdateMetadataRequest').at(-1)!;
      expect(last.controllerEpoch).to.equal(1);
      expect(last.metadata.brokers.map((b) => b.brokerId)).to.deep.equal([1, 2]);
    });

    it('re-registration bumps the epoch and resends the state of every partition the broker hosts', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopic('t', 2, 2);
      await h.settle();
      h.clearInboxes();
      const r = await h.register(2); // same incarnation: a retry, no bounce
      expect(r).to.deep.equal({ type: 'BrokerRegistrationResponse', errorCode: 0, brokerEpoch: 2 });
      await h.settle();
      const lai = h.leaderAndIsr(2);
      expect(lai.map((p) => `${p.topic}-${p.partition}`).sort()).to.deep.equal(['t-0', 't-1']);
      expect(lai.every((p) => p.isNew === false)).to.equal(true);
      expect(h.received(2, 'LeaderAndIsrRequest')[0]!.controllerEpoch).to.equal(1);
      expect((await h.partition('t', 1)).leader).to.equal(2); // a retry keeps leadership
      expect((await h.metadata()).brokers.find((b) => b.brokerId === 2)!.brokerEpoch).to.equal(2);
    });

    it('a live broker registering with a new incarnation is bounced: its leadership moves first', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopics([{ name: 'x', assignments: [[2, 1]] }]);
      await h.register(2, 'inc-2-restarted');
      const p = await h.partition('x', 0);
      expect(p).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 1, partitionEpoch: 1 });
      expect(h.epochs.get(2)).to.equal(2);
    });

    it('refuses a malformed registration with an error, not a crash', async () => {
      h = await ControllerHarness.start({ brokers: [] });
      const r = await h.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: -3, node: 'n', incarnationId: 'i' });
      expect(r.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect(r.errorMessage).to.match(/brokerId/);
      const f = (await h.client.ask(h.controllerRef, { type: 'BrokerRegistration', brokerId: 'one' } as never)) as Failure;
      expect(f).to.deep.include({ type: 'Failure', reason: 'invalid-message', errorCode: ErrorCode.INVALID_REQUEST });
      expect((await h.metadata()).brokers).to.deep.equal([]);
    });
  });

  describe('heartbeats and sessions', () => {
    it('answers a heartbeat with the current epoch', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      expect(await h.heartbeat(1)).to.deep.equal({ type: 'BrokerHeartbeatResponse', errorCode: 0, isFenced: false, shouldShutDown: false });
    });

    it('refuses a stale broker epoch with STALE_BROKER_EPOCH', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.register(1);
      const r = await h.heartbeat(1, 1);
      expect(r).to.deep.include({ errorCode: ErrorCode.STALE_BROKER_EPOCH, isFenced: true, shouldShutDown: false });
      expect(r.errorMessage).to.match(/epoch 2, not 1/);
    });

    it('refuses an unknown broker with BROKER_NOT_AVAILABLE', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      const r = await h.heartbeat(7, 1);
      expect(r).to.deep.include({ errorCode: ErrorCode.BROKER_NOT_AVAILABLE, isFenced: true });
      expect(r.errorMessage).to.match(/not registered/);
    });

    it('fences exactly the broker that fell silent, once its session times out', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.advanceKeeping([1, 2], 8_000);
      expect((await h.metadata()).brokers.map((b) => b.fenced)).to.deep.equal([false, false, false]);
      await h.advanceKeeping([1, 2], 2_000);
      const md = await h.metadata();
      expect(md.brokers.map((b) => [b.brokerId, b.fenced])).to.deep.equal([
        [1, false],
        [2, false],
        [3, true],
      ]);
      expect(h.received(1, 'UpdateMetadataRequest').at(-1)!.metadata.brokers[2]!.fenced).to.equal(true);
    });

    it('honours broker.session.timeout.ms', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2], args: { config: { 'broker.session.timeout.ms': 3000 } } });
      await h.advanceKeeping([1], 2_000, 1_000);
      expect((await h.metadata()).brokers[1]!.fenced).to.equal(false);
      await h.advanceKeeping([1], 1_000, 1_000);
      expect((await h.metadata()).brokers[1]!.fenced).to.equal(true);
    });

    it('a fenced broker that heartbeats again with its epoch is unfenced and gets its partitions', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopics([{ name: 'x', assignments: [[2, 1]] }]);
      await h.advanceKeeping([1], 10_000);
      expect((await h.partition('x', 0)).leader).to.equal(1);
      h.clearInboxes();
      expect(await h.heartbeat(2)).to.deep.include({ errorCode: 0, isFenced: false });
      await h.settle();
      expect((await h.metadata()).brokers[1]!.fenced).to.equal(false);
      expect(h.leaderAndIsr(2).map((p) => [p.topic, p.leader])).to.deep.equal([['x', 1]]);
    });
  });

  describe('CreateTopics', () => {
    it('places replicas like Kafka (3 brokers x 6 partitions x RF 3, start index 0) and tells every replica', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.settle();
      h.clearInboxes();
      const r = await h.createTopics([{ name: 'orders', numPartitions: 6, replicationFactor: 3, config: { 'retention.ms': 60_000 } }]);
      expect(r.topics).to.have.length(1);
      expect(r.topics[0]).to.deep.include({ name: 'orders', errorCode: 0, errorMessage: null, numPartitions: 6, replicationFactor: 3 });
      expect(r.topics[0]!.topicId).to.be.a('string').with.length.above(10);
      const md = await h.metadata(['orders']);
      const t = md.topics[0]!;
      expect(t.config).to.deep.equal({ 'retention.ms': 60_000 });
      expect(t.internal).to.equal(false);
      expect(t.partitions.map((p) => p.replicas)).to.deep.equal([
        [1, 2, 3],
        [2, 3, 1],
        [3, 1, 2],
        [1, 3, 2],
        [2, 1, 3],
        [3, 2, 1],
      ]);
      for (const p of t.partitions) {
        expect(p).to.deep.include({ leader: p.replicas[0], isr: p.replicas, leaderEpoch: 0, partitionEpoch: 0 });
      }
      await h.settle();
      for (const id of [1, 2, 3]) {
        const reqs = h.received(id, 'LeaderAndIsrRequest');
        expect(reqs).to.have.length(1);
        expect(reqs[0]!).to.deep.include({ controllerEpoch: 1, brokerId: id });
        expect(reqs[0]!.partitions.map((p) => p.partition)).to.deep.equal([0, 1, 2, 3, 4, 5]);
        expect(reqs[0]!.partitions.every((p) => p.isNew && p.topicId === t.topicId && p.config['retention.ms'] === 60_000)).to.equal(true);
        expect(reqs[0]!.liveLeaders.map((b) => b.brokerId)).to.deep.equal([1, 2, 3]);
        const um = h.received(id, 'UpdateMetadataRequest');
        expect(um).to.have.length(1);
        expect(um[0]!.metadata.topics.map((x) => x.name)).to.deep.equal(['orders']);
      }
    });

    it('spreads each partition over the racks of brokers registered with one (rack-aware placement), new partitions too', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3, 4], register: false });
      const rackOf: Record<number, string> = { 1: 'east', 2: 'east', 3: 'west', 4: 'west' };
      for (const id of [1, 2, 3, 4]) {
        const r = await h.ask<'BrokerRegistrationResponse'>({ type: 'BrokerRegistration', brokerId: id, node: `node-${id}`, incarnationId: `inc-${id}`, rack: rackOf[id]! });
        expect(r.errorCode).to.equal(0);
        h.epochs.set(id, r.brokerEpoch);
      }
      await h.createTopic('spread', 8, 2);
      expect((await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'spread', count: 12 }] })).topics[0]!.errorCode).to.equal(0);
      const parts = (await h.metadata(['spread'])).topics[0]!.partitions;
      expect(parts).to.have.length(12);
      for (const p of parts) expect(new Set(p.replicas.map((b) => rackOf[b])).size, `spread-${p.partition} ${p.replicas}`).to.equal(2);
      const leaders = parts.slice(0, 8).map((p) => p.leader);
      for (const id of [1, 2, 3, 4]) expect(leaders.filter((l) => l === id), `leaders on ${id}`).to.have.length(2);
    });

    it('only tells the brokers that host a replica', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.settle();
      h.clearInboxes();
      await h.createTopics([{ name: 'pinned', assignments: [[3], [2]] }]);
      await h.settle();
      expect(h.leaderAndIsr(1)).to.deep.equal([]);
      expect(h.leaderAndIsr(2).map((p) => p.partition)).to.deep.equal([1]);
      expect(h.leaderAndIsr(3).map((p) => p.partition)).to.deep.equal([0]);
      expect(h.received(1, 'UpdateMetadataRequest')).to.have.length(1);
    });

    it('a seeded placement is reproducible and spreads leaders evenly', async () => {
      const placements: number[][][] = [];
      for (let i = 0; i < 2; i++) {
        h = await ControllerHarness.start({ brokers: [1, 2, 3, 4], args: { placementStartIndex: -1, placementSeed: 42 } });
        await h.createTopic('t', 8, 2);
        placements.push((await h.metadata()).topics[0]!.partitions.map((p) => p.replicas));
        await h.stop();
      }
      expect(placements[0]).to.deep.equal(placements[1]);
      const leaders = placements[0]!.map((r) => r[0]!);
      for (const b of [1, 2, 3, 4]) expect(leaders.filter((l) => l === b)).to.have.length(2);
    });

    it('uses num.partitions and default.replication.factor when the request leaves them out', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3], args: { config: { 'num.partitions': 4, 'default.replication.factor': 2 } } });
      const r = await h.createTopics([{ name: 'a' }, { name: 'b', numPartitions: -1, replicationFactor: -1 }]);
      expect(r.topics.map((t) => [t.name, t.errorCode, t.numPartitions, t.replicationFactor])).to.deep.equal([
        ['a', 0, 4, 2],
        ['b', 0, 4, 2],
      ]);
    });

    it('accepts an explicit assignment and marks internal topics', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      const r = await h.createTopics([{ name: '__consumer_offsets', assignments: [[3, 1], [1, 2]] }]);
      expect(r.topics[0]).to.deep.include({ errorCode: 0, numPartitions: 2, replicationFactor: 2 });
      const t = (await h.metadata()).topics[0]!;
      expect(t.internal).to.equal(true);
      expect(t.partitions.map((p) => [p.replicas, p.leader])).to.deep.equal([
        [[3, 1], 3],
        [[1, 2], 1],
      ]);
    });

    it('validates each topic on its own and reports every error with a message', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('exists', 1, 1);
      await h.createTopic('a.b', 1, 1);
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [{ name: '' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /empty/],
        [{ name: '.' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /"\." or "\.\."/],
        [{ name: '..' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /"\." or "\.\."/],
        [{ name: 'x'.repeat(250) }, ErrorCode.INVALID_TOPIC_EXCEPTION, /longer than 249/],
        [{ name: 'bad name' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /illegal/],
        [{ name: 'ünï' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /illegal/],
        [{ name: 'slash/y' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /illegal/],
        [{ name: 'a_b' }, ErrorCode.INVALID_TOPIC_EXCEPTION, /collides with existing topic: a\.b/],
        [{ name: 'exists' }, ErrorCode.TOPIC_ALREADY_EXISTS, /already exists/],
        [{ name: 'p0', numPartitions: 0 }, ErrorCode.INVALID_PARTITIONS, /partitions/],
        [{ name: 'pneg', numPartitions: -5 }, ErrorCode.INVALID_PARTITIONS, /partitions/],
        [{ name: 'pfrac', numPartitions: 1.5 }, ErrorCode.INVALID_PARTITIONS, /partitions/],
        [{ name: 'rf0', numPartitions: 1, replicationFactor: 0 }, ErrorCode.INVALID_REPLICATION_FACTOR, /Replication factor/],
        [{ name: 'rf4', numPartitions: 1, replicationFactor: 4 }, ErrorCode.INVALID_REPLICATION_FACTOR, /larger than the 3 available/],
        [{ name: 'cfg1', config: { 'retention.msx': 1 } }, ErrorCode.INVALID_CONFIG, /retention\.msx/],
        [{ name: 'cfg2', config: { 'retention.ms': 'soon' } }, ErrorCode.INVALID_CONFIG, /^retention\.ms: /],
        [{ name: 'cfg3', config: { 'cleanup.policy': 'shred' } }, ErrorCode.INVALID_CONFIG, /^cleanup\.policy: /],
        [{ name: 'cfg4', config: { 'min.insync.replicas': 0 } }, ErrorCode.INVALID_CONFIG, /^min\.insync\.replicas: /],
        [{ name: 'cfg5', config: { 'unclean.leader.election.enable': 'maybe' } }, ErrorCode.INVALID_CONFIG, /^unclean\.leader\.election\.enable: /],
        [{ name: 'cfg6', config: { 'compression.type': 'brotli' } }, ErrorCode.INVALID_CONFIG, /^compression\.type: "brotli" is not valid: must be one of uncompressed, zstd, lz4, snappy, gzip, producer/],
        [{ name: 'cfg7', config: { 'segment.bytes': 10 } }, ErrorCode.INVALID_CONFIG, /^segment\.bytes: /],
        [{ name: 'cfg8', config: { 'compression.zstd.level': 23 } }, ErrorCode.INVALID_CONFIG, /^compression\.zstd\.level: 23 is not valid: must be an integer from -131072 to 22$/],
        [{ name: 'cfg9', config: { 'compression.gzip.level': '0' } }, ErrorCode.INVALID_CONFIG, /^compression\.gzip\.level: "0" is not valid: must be an integer from 1 to 9 \(or -1, the default\)$/],
        [{ name: 'cfg10', config: { 'compression.lz4.level': 'high' } }, ErrorCode.INVALID_CONFIG, /^compression\.lz4\.level: "high" is not valid: must be an integer from 1 to 17$/],
        [{ name: 'as1', numPartitions: 1, assignments: [[1]] }, ErrorCode.INVALID_REQUEST, /not both/],
        [{ name: 'as2', assignments: [[1, 9]] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, /broker 9/],
        [{ name: 'as3', assignments: [[1, 1]] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, /duplicate/],
        [{ name: 'as4', assignments: [[1, 2], [3]] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, /same number/],
        [{ name: 'as5', assignments: [] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT, /non-empty/],
      ];
      const topics = [...cases.map((c) => c[0]), { name: 'fine', numPartitions: 2, replicationFactor: 3 }];
      const r = await h.createTopics(topics as never);
      expect(r.topics).to.have.length(cases.length + 1);
      cases.forEach(([, code, message], i) => {
        const got = r.topics[i]!;
        expect(got.errorCode, `${JSON.stringify(cases[i]![0]).slice(0, 60)} -> ${got.errorMessage}`).to.equal(code);
        expect(got.errorMessage).to.match(message);
        expect(got).to.deep.include({ topicId: null, numPartitions: -1, replicationFactor: -1 });
      });
      expect(r.topics.at(-1)).to.deep.include({ name: 'fine', errorCode: 0 });
      const names = (await h.metadata()).topics.map((t) => t.name);
      expect(names).to.deep.equal(['a.b', 'exists', 'fine']);
    });

    it('accepts the longest legal name, every known config key, and refuses a name twice in one request', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      const config = {
        'retention.ms': '-1',
        'segment.bytes': 1048576,
        'min.insync.replicas': '2',
        'unclean.leader.election.enable': 'TRUE',
        'cleanup.policy': 'compact,delete',
        'compression.type': 'gzip',
        'message.timestamp.type': 'LogAppendTime',
      };
      const r = await h.createTopics([{ name: 'L'.repeat(249), config }, { name: 'twice' }, { name: 'twice' }]);
      expect(r.topics.map((t) => t.errorCode)).to.deep.equal([0, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
      const t = (await h.metadata()).topics[0]!;
      expect(t.config).to.deep.include({ 'unclean.leader.election.enable': 'true', 'cleanup.policy': 'compact,delete', 'min.insync.replicas': '2' });
    });

    it('counts only unfenced brokers for the replication factor', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.advanceKeeping([1, 2], 10_000);
      const r = await h.createTopics([{ name: 'three', numPartitions: 1, replicationFactor: 3 }, { name: 'two', numPartitions: 3, replicationFactor: 2 }]);
      expect(r.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.INVALID_REPLICATION_FACTOR, 0]);
      const placed = (await h.metadata(['two'])).topics[0]!.partitions.flatMap((p) => p.replicas);
      expect(placed).to.not.include(3);
    });

    it('validateOnly answers as a real creation would, but creates and sends nothing', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.settle();
      h.clearInboxes();
      const r = await h.createTopics([{ name: 'dry', numPartitions: 3, replicationFactor: 2 }, { name: 'bad', numPartitions: 0 }], true);
      expect(r.topics[0]).to.deep.include({ name: 'dry', errorCode: 0, topicId: null, numPartitions: 3, replicationFactor: 2 });
      expect(r.topics[1]).to.deep.include({ name: 'bad', errorCode: ErrorCode.INVALID_PARTITIONS });
      await h.settle();
      expect((await h.metadata()).topics).to.deep.equal([]);
      for (const id of [1, 2, 3]) expect(h.inbox(id)).to.deep.equal([]);
    });

    it('refuses a request for more than 10,000 partitions in all with POLICY_VIOLATION for every topic, before placing any (Kafka: MAX_PARTITIONS_PER_BATCH)', async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { config: { 'num.partitions': 5_000 } } });
      const huge = await h.createTopics([{ name: 'huge', numPartitions: 2 ** 31 - 1, replicationFactor: 1 }, { name: 'small', numPartitions: 1, replicationFactor: 1 }]);
      expect(huge.topics.map((t) => [t.name, t.errorCode, t.errorMessage])).to.deep.equal([
        ['huge', ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.'],
        ['small', ErrorCode.POLICY_VIOLATION, 'Excessively large number of partitions per request.'],
      ]);
      // the topics' default partitions count too (-1 or none), an invalid count not
      const defaults = await h.createTopics([{ name: 'd1' }, { name: 'd2', numPartitions: -1 }, { name: 'd3', numPartitions: 1 }, { name: 'bad', numPartitions: -7 }], true);
      expect(defaults.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION, ErrorCode.POLICY_VIOLATION]);
      const atTheBound = await h.createTopics([{ name: 'd1' }, { name: 'd2', numPartitions: -1 }, { name: 'bad', numPartitions: -7 }], true);
      expect(atTheBound.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE, ErrorCode.INVALID_PARTITIONS]);
      expect((await h.metadata()).topics).to.deep.equal([]);
    });
  });

  describe('DeleteTopics', () => {
    it('tells every replica to stop and delete, and drops the topic from metadata', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('doomed', 3, 2);
      await h.createTopic('kept', 1, 1);
      const doomed = (await h.metadata(['doomed'])).topics[0]!;
      const placement = doomed.partitions.map((p) => p.replicas);
      await h.settle();
      h.clearInboxes();
      const r = await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['doomed', 'ghost'] });
      expect(r.topics).to.deep.equal([
        { name: 'doomed', topicId: doomed.topicId, errorCode: 0, errorMessage: null },
        { name: 'ghost', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: "Topic 'ghost' does not exist." },
      ]);
      await h.settle();
      for (const id of [1, 2, 3]) {
        const expected = placement.flatMap((replicas, partition) => (replicas.includes(id) ? [{ topic: 'doomed', partition, deletePartition: true }] : []));
        const stops = h.received(id, 'StopReplicaRequest');
        expect(stops).to.have.length(1);
        expect(stops[0]!.partitions).to.deep.equal(expected);
        expect(h.received(id, 'UpdateMetadataRequest').at(-1)!.metadata.topics.map((t) => t.name)).to.deep.equal(['kept']);
      }
      expect((await h.metadata()).topics.map((t) => t.name)).to.deep.equal(['kept']);
      const again = await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['kept', 'kept'] });
      expect(again.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
    });

    it('a topic named with the id it must have (asked by id) is deleted only while it has that id', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.createTopic('t', 1, 1);
      const first = (await h.metadata(['t'])).topics[0]!.topicId;
      const wrong = await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['t'], topicIds: { t: `${first}x` } });
      expect(wrong.topics).to.deep.equal([{ name: 't', errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: "Topic 't' with that id does not exist." }]);
      expect((await h.metadata(['t'])).topics).to.have.length(1);
      const gone = await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['t'], topicIds: { t: first } });
      expect(gone.topics).to.deep.equal([{ name: 't', topicId: first, errorCode: ErrorCode.NONE, errorMessage: null }]);
      await h.createTopic('t', 1, 1);
      const second = (await h.metadata(['t'])).topics[0]!.topicId;
      expect(second).to.not.equal(first);
      // the old id does not delete the topic made again under its name
      const stale = await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['t'], topicIds: { t: first } });
      expect(stale.topics[0]!.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_ID);
      expect((await h.metadata(['t'])).topics[0]!.topicId).to.equal(second);
    });

    it('a replica that was fenced during the delete is told when it registers again', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopics([{ name: 'gone', assignments: [[1, 2], [2, 1]] }]);
      await h.advanceKeeping([1], 10_000);
      await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['gone'] });
      await h.settle();
      h.clearInboxes();
      await h.register(2, 'inc-2-back');
      await h.settle();
      const stops = h.received(2, 'StopReplicaRequest');
      expect(stops).to.have.length(1);
      expect(stops[0]!.partitions).to.deep.equal([
        { topic: 'gone', partition: 0, deletePartition: true },
        { topic: 'gone', partition: 1, deletePartition: true },
      ]);
      h.clearInboxes();
      await h.register(2, 'inc-2-again');
      await h.settle();
      expect(h.received(2, 'StopReplicaRequest')).to.deep.equal([]);
    });
  });

  describe('AlterTopicConfigs', () => {
    it('sets and deletes overrides, validates like CreateTopics, tells every broker, and validateOnly changes nothing', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopic('t', 1, 2, { 'retention.ms': 1000, 'segment.ms': 5000 });
      await h.settle();
      h.clearInboxes();
      const dry = await h.ask<'AlterTopicConfigsResponse'>({ type: 'AlterTopicConfigs', topics: [{ name: 't', set: { 'retention.ms': 2000 } }], validateOnly: true });
      expect(dry.topics).to.deep.equal([{ name: 't', errorCode: 0, errorMessage: null }]);
      expect((await h.metadata(['t'])).topics[0]!.config).to.deep.equal({ 'retention.ms': 1000, 'segment.ms': 5000 });
      const r = await h.ask<'AlterTopicConfigsResponse'>({
        type: 'AlterTopicConfigs',
        topics: [
          { name: 't', set: { 'min.insync.replicas': 2 }, delete: ['segment.ms'] },
          { name: 'ghost', set: { 'retention.ms': 1 } },
        ],
      });
      expect(r.topics.map((x) => x.errorCode)).to.deep.equal([0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
      expect((await h.metadata(['t'])).topics[0]!.config).to.deep.equal({ 'retention.ms': 1000, 'min.insync.replicas': 2 });
      await h.settle();
      for (const b of [1, 2]) expect(h.received(b, 'UpdateMetadataRequest').at(-1)!.metadata.topics.find((t) => t.name === 't')!.config).to.include({ 'min.insync.replicas': 2 });
      const bad = await h.ask<'AlterTopicConfigsResponse'>({ type: 'AlterTopicConfigs', topics: [{ name: 't', set: { 'retention.ms': 'soon' } }] });
      expect(bad.topics[0]!.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    });

    it('turning unclean.leader.election.enable on elects a live out-of-sync replica for each partition without a leader', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2, 3] });
      await h.createTopics([
        { name: 'stuck', assignments: [[2, 1]] },
        { name: 'gone', assignments: [[2]] },
      ]);
      const r = await h.ask<'AlterPartitionResponse'>({ type: 'AlterPartition', brokerId: 2, brokerEpoch: 1, topic: 'stuck', partition: 0, leaderEpoch: 0, partitionEpoch: 0, newIsr: [2] });
      expect(r.errorCode).to.equal(0);
      await h.advanceKeeping([1, 3], 10_000); // 2 fails: both offline, 1 out of sync
      expect(await h.partition('stuck', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
      const set = (name: string, validateOnly?: boolean) =>
        h.ask<'AlterTopicConfigsResponse'>({ type: 'AlterTopicConfigs', topics: [{ name, set: { 'unclean.leader.election.enable': 'true' } }], ...(validateOnly ? { validateOnly } : {}) });
      expect((await set('stuck', true)).topics[0]!.errorCode).to.equal(0);
      expect(await h.partition('stuck', 0)).to.deep.include({ leader: NO_LEADER });
      await h.settle();
      h.clearInboxes();
      expect((await set('stuck')).topics[0]!.errorCode).to.equal(0);
      expect(await h.partition('stuck', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 2 });
      await h.settle();
      expect(h.leaderAndIsr(1).map((p) => [p.topic, p.leader])).to.deep.equal([['stuck', 1]]);
      // no live replica at all: the config changes, the partition stays offline
      expect((await set('gone')).topics[0]!.errorCode).to.equal(0);
      expect(await h.partition('gone', 0)).to.deep.include({ leader: NO_LEADER });
      expect((await h.metadata(['gone'])).topics[0]!.config).to.include({ 'unclean.leader.election.enable': 'true' });
    });
  });

  describe('AllocateProducerIds', () => {
    it('hands out disjoint blocks that survive a controller restart, only to a live broker with its current epoch', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-pid-'));
      h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
      const epoch = (id: number) => h.epochs.get(id)!;
      const a = await h.ask<'AllocateProducerIdsResponse'>({ type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: epoch(1) });
      const b = await h.ask<'AllocateProducerIdsResponse'>({ type: 'AllocateProducerIds', brokerId: 2, brokerEpoch: epoch(2) });
      expect(a).to.deep.include({ errorCode: 0, firstProducerId: 0, count: 1000 });
      expect(b).to.deep.include({ errorCode: 0, firstProducerId: 1000, count: 1000 });
      const stale = await h.ask<'AllocateProducerIdsResponse'>({ type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: epoch(1) - 1 });
      expect(stale.errorCode).to.equal(ErrorCode.STALE_BROKER_EPOCH);
      const unknown = await h.ask<'AllocateProducerIdsResponse'>({ type: 'AllocateProducerIds', brokerId: 9, brokerEpoch: 1 });
      expect(unknown.errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
      await h.restartController();
      await h.register(1, 'inc-1-b');
      const c = await h.ask<'AllocateProducerIdsResponse'>({ type: 'AllocateProducerIds', brokerId: 1, brokerEpoch: epoch(1) });
      expect(c).to.deep.include({ errorCode: 0, firstProducerId: 2000 });
      await h.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      h = await ControllerHarness.start();
    });
  });

  describe('CreatePartitions', () => {
    it('grows a topic to the new total, continuing the placement, and tells the new replicas', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('grow', 2, 2);
      await h.settle();
      h.clearInboxes();
      const r = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'grow', count: 5 }] });
      expect(r.topics).to.deep.equal([{ name: 'grow', errorCode: 0, errorMessage: null }]);
      const t = (await h.metadata(['grow'])).topics[0]!;
      // partitions 0-1 from start index 0; 2-4 continue from broker 1 (start index 0, shift 0, partition 3 wraps)
      expect(t.partitions.map((p) => p.replicas)).to.deep.equal([
        [1, 2],
        [2, 3],
        [3, 1],
        [1, 3],
        [2, 1],
      ]);
      expect(t.partitions.slice(2).every((p) => p.leader === p.replicas[0] && p.leaderEpoch === 0 && p.partitionEpoch === 0)).to.equal(true);
      await h.settle();
      expect(h.leaderAndIsr(1).map((p) => [p.partition, p.isNew])).to.deep.equal([
        [2, true],
        [3, true],
        [4, true],
      ]);
      expect(h.leaderAndIsr(2).map((p) => p.partition)).to.deep.equal([4]);
    });

    it('refuses a count that does not grow the topic, unknown topics and too few brokers', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopic('t', 3, 2);
      const r = await h.ask<'CreatePartitionsResponse'>({
        type: 'CreatePartitions',
        topics: [
          { name: 't', count: 3 },
          { name: 'ghost', count: 4 },
        ],
      });
      expect(r.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.INVALID_PARTITIONS, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
      expect(r.topics[0]!.errorMessage).to.equal('Topic already has 3 partitions.');
      const smaller = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 't', count: 2 }] });
      expect(smaller.topics[0]!.errorMessage).to.match(/currently has 3 partitions, which is higher than the requested 2/);
      await h.advanceKeeping([1], 10_000);
      const rf = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 't', count: 4 }] });
      expect(rf.topics[0]!.errorCode).to.equal(ErrorCode.INVALID_REPLICATION_FACTOR);
      expect((await h.metadata()).topics[0]!.partitions).to.have.length(3);
    });

    it('places new partitions on explicit assignments, checking their count, size and brokers', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('placed', 1, 2);
      const bad = await h.ask<'CreatePartitionsResponse'>({
        type: 'CreatePartitions',
        topics: [{ name: 'placed', count: 3, assignments: [[3, 1]] }],
      });
      expect(bad.topics[0]!.errorCode).to.equal(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
      expect(bad.topics[0]!.errorMessage).to.match(/1 replica assignment\(s\) given for 2 new partition/);
      const size = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'placed', count: 2, assignments: [[3]] }] });
      expect(size.topics[0]!.errorMessage).to.match(/needs 2 replicas/);
      const ghost = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'placed', count: 2, assignments: [[3, 9]] }] });
      expect(ghost.topics[0]!.errorCode).to.equal(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
      expect((await h.metadata(['placed'])).topics[0]!.partitions).to.have.length(1);
      const ok = await h.ask<'CreatePartitionsResponse'>({
        type: 'CreatePartitions',
        topics: [{ name: 'placed', count: 3, assignments: [[3, 1], [2, 3]] }],
      });
      expect(ok.topics[0]!.errorCode).to.equal(ErrorCode.NONE);
      expect((await h.metadata(['placed'])).topics[0]!.partitions.map((p) => p.replicas).slice(1)).to.deep.equal([
        [3, 1],
        [2, 3],
      ]);
    });

    it('refuses the topic that would take a request past 10,000 new partitions (Kafka bounds the records of one request), before placing them', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.createTopic('a', 1, 1);
      await h.createTopic('b', 1, 1);
      const r = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'a', count: 2 ** 31 - 1 }, { name: 'b', count: 3 }], validateOnly: true });
      expect(r.topics).to.deep.equal([
        { name: 'a', errorCode: ErrorCode.POLICY_VIOLATION, errorMessage: 'Excessively large number of partitions per request.' },
        { name: 'b', errorCode: ErrorCode.NONE, errorMessage: null },
      ]);
      const over = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'b', count: 3 }, { name: 'a', count: 10_000 }], validateOnly: true });
      // 2 + 9,999 new: one over
      expect(over.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.POLICY_VIOLATION]);
      const atTheBound = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 'b', count: 3 }, { name: 'a', count: 9_999 }], validateOnly: true });
      expect(atTheBound.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.NONE]);
      expect((await h.metadata(['a'])).topics[0]!.partitions).to.have.length(1);
    });

    it('validateOnly answers as it would and changes nothing', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopic('t', 1, 1);
      const r = await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 't', count: 4 }, { name: 'ghost', count: 2 }], validateOnly: true });
      expect(r.topics.map((t) => t.errorCode)).to.deep.equal([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
      expect((await h.metadata(['t'])).topics[0]!.partitions).to.have.length(1);
    });
  });

  describe('leader failover', () => {
    it('moves leadership to the next ISR member, bumps the epochs and shrinks the ISRs', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('t', 3, 3); // [1,2,3] [2,3,1] [3,1,2]
      await h.settle();
      h.clearInboxes();
      await h.advanceKeeping([1, 2], 10_000);
      const ps = (await h.metadata(['t'])).topics[0]!.partitions;
      expect(ps.map((p) => [p.leader, p.isr, p.leaderEpoch, p.partitionEpoch])).to.deep.equal([
        [1, [1, 2], 0, 1],
        [2, [2, 1], 0, 1],
        [1, [1, 2], 1, 1],
      ]);
      for (const id of [1, 2]) {
        const got = h.leaderAndIsr(id);
        expect(got.map((p) => p.partition).sort()).to.deep.equal([0, 1, 2]);
        expect(got.find((p) => p.partition === 2)).to.deep.include({ leader: 1, leaderEpoch: 1, isNew: false });
        expect(h.received(id, 'LeaderAndIsrRequest')[0]!.liveLeaders.map((b) => b.brokerId)).to.deep.equal([1, 2]);
      }
      expect(h.inbox(3)).to.deep.equal([]);
    });

    it('takes a partition offline when no ISR member is left, keeping the last one, and brings it back when that one returns', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2] });
      await h.createTopics([{ name: 'solo', assignments: [[2]] }, { name: 'pair', assignments: [[2, 1]] }]);
      await h.advanceKeeping([1], 10_000);
      expect(await h.partition('solo', 0)).to.deep.include({ leader: NO_LEADER, isr: [2], leaderEpoch: 1, partitionEpoch: 1 });
      expect(await h.partition('pair', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 1, partitionEpoch: 1 });
      // now broker 1 goes too: pair goes offline with 1 as its last ISR member
      await h.advanceKeeping([], 10_000);
      expect(await h.partition('pair', 0)).to.deep.include({ leader: NO_LEADER, isr: [1], leaderEpoch: 2, partitionEpoch: 2 });
      // broker 2 returns: it leads solo again; pair stays offline (2 is not in its ISR)
      h.clearInboxes();
      await h.register(2, 'inc-2-back');
      expect(await h.partition('solo', 0)).to.deep.include({ leader: 2, isr: [2], leaderEpoch: 2, partitionEpoch: 2 });
      expect(await h.partition('pair', 0)).to.deep.include({ leader: NO_LEADER, isr: [1] });
      await h.settle();
      expect(h.leaderAndIsr(2).map((p) => [p.topic, p.leader]).sort()).to.deep.equal([
        ['pair', NO_LEADER],
        ['solo', 2],
      ]);
      // broker 1 returns: pair is back with its last ISR member as leader
      await h.register(1, 'inc-1-back');
      expect(await h.partition('pair', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 3, partitionEpoch: 3 });
    });

    it('with unclean.leader.election.enable elects an out-of-sync live replica instead of going offline', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2] });
      await h.createTopics([
        { name: 'unclean', assignments: [[2, 1]], config: { 'unclean.leader.election.enable': 'true' } },
        { name: 'clean', assignments: [[2, 1]] },
      ]);
      for (const topic of ['unclean', 'clean']) {
        const r = await h.ask<'AlterPartitionResponse'>({
          type: 'AlterPartition',
          brokerId: 2,
          brokerEpoch: 1,
          topic,
          partition: 0,
          leaderEpoch: 0,
          partitionEpoch: 0,
          newIsr: [2],
        });
        expect(r.errorCode).to.equal(0);
      }
      await h.advanceKeeping([1], 10_000);
      expect(await h.partition('unclean', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 1, partitionEpoch: 2 });
      expect(await h.partition('clean', 0)).to.deep.include({ leader: NO_LEADER, isr: [2], leaderEpoch: 1, partitionEpoch: 2 });
    });

    it('the controller-wide unclean default applies to topics without their own setting, and to returning replicas', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2], args: { config: { 'unclean.leader.election.enable': true } } });
      await h.createTopics([{ name: 'u', assignments: [[2, 1]] }, { name: 'optout', assignments: [[2, 1]], config: { 'unclean.leader.election.enable': 'false' } }]);
      await h.advanceKeeping([2], 10_000); // 1 leaves both ISRs
      await h.advanceKeeping([], 10_000); // then 2 goes: both offline, last ISR member 2
      expect(await h.partition('u', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
      await h.register(1, 'inc-1-back'); // an out-of-sync replica returns
      expect(await h.partition('u', 0)).to.deep.include({ leader: 1, isr: [1] });
      expect(await h.partition('optout', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
    });
  });

  describe('ElectLeaders and leader balancing', () => {
    type ElectReply = Reply<'ElectLeadersResponse'>;
    const elect = (electionType: number, topicPartitions: { topic: string; partitions: number[] }[] | null) =>
      h.ask<'ElectLeadersResponse'>({ type: 'ElectLeaders', electionType, topicPartitions });
    const codes = (r: ElectReply) => r.results.map((t) => [t.topic, t.partitions.map((p) => [p.partition, p.errorCode])]);

    const alterIsr = (topic: string, partition: number, isr: number[]) => h.alterIsr(topic, partition, isr);

    /** Brokers 1-3, topic t [1,2,3] [2,3,1] [3,1,2]; broker 1 fails over and comes back out of sync. */
    async function failAndReturn(config: Record<string, string | number | boolean> = {}): Promise<void> {
      h = await ControllerHarness.start({ brokers: [1, 2, 3], args: { config } });
      await h.createTopic('t', 3, 3);
      await h.advanceKeeping([2, 3], 10_000);
      await h.register(1, 'inc-1-back');
      expect((await h.metadata(['t'])).topics[0]!.partitions.map((p) => [p.leader, p.isr])).to.deep.equal([
        [2, [2, 3]],
        [2, [2, 3]],
        [3, [3, 2]],
      ]);
    }

    it('PREFERRED moves leadership back once the preferred replica is in the ISR, and tells the replicas', async () => {
      await failAndReturn();
      const notYet = await elect(0, [{ topic: 't', partitions: [0, 1] }]);
      expect(codes(notYet)).to.deep.equal([['t', [[0, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE], [1, ErrorCode.ELECTION_NOT_NEEDED]]]]);
      expect(notYet.results[0]!.partitions[0]!.errorMessage).to.match(/preferred replica 1 of t-0 is not in the ISR \[2,3\]/);
      await alterIsr('t', 0, [2, 3, 1]);
      await h.settle();
      h.clearInboxes();
      const r = await elect(0, [{ topic: 't', partitions: [0] }]);
      expect(r).to.deep.equal({ type: 'ElectLeadersResponse', errorCode: 0, results: [{ topic: 't', partitions: [{ partition: 0, errorCode: 0, errorMessage: null }] }] });
      // the ISR stays as it was; the leader epoch moves on
      expect(await h.partition('t', 0)).to.deep.include({ leader: 1, isr: [2, 3, 1], leaderEpoch: 2, partitionEpoch: 3 });
      await h.settle();
      for (const id of [1, 2, 3]) expect(h.leaderAndIsr(id).map((p) => [p.partition, p.leader, p.leaderEpoch])).to.deep.equal([[0, 1, 2]]);
      expect(codes(await elect(0, [{ topic: 't', partitions: [0] }]))).to.deep.equal([['t', [[0, ErrorCode.ELECTION_NOT_NEEDED]]]]);
    });

    it('PREFERRED refuses a fenced or shutting-down preferred replica and names unknown topics and partitions', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopics([{ name: 'a', assignments: [[1, 2], [2, 3]] }]);
      await h.advanceKeeping([2, 3], 10_000); // 1 fenced; a-0 led by 2 with ISR [2]
      const r = await elect(0, [
        { topic: 'a', partitions: [0, 7] },
        { topic: 'nope', partitions: [0] },
      ]);
      expect(codes(r)).to.deep.equal([
        ['a', [[0, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE], [7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
        ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
      ]);
      expect(r.results[0]!.partitions[0]!.errorMessage).to.match(/preferred replica 1 of a-0 is not a live, unfenced broker/);
      // a-1's preferred replica 2 starts a controlled shutdown: leadership moves to 3, and 2 may not take it back
      expect((await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 2, brokerEpoch: h.epochs.get(2)! })).errorCode).to.equal(0);
      expect(await h.partition('a', 1)).to.deep.include({ leader: 3 });
      expect(codes(await elect(0, [{ topic: 'a', partitions: [1] }]))).to.deep.equal([['a', [[1, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE]]]]);
    });

    it('for every partition (null), answers only those that needed an election; a partition named twice is elected once', async () => {
      await failAndReturn();
      await alterIsr('t', 0, [2, 3, 1]);
      await h.createTopics([{ name: 'b', assignments: [[2, 3]] }]);
      const all = await elect(0, null);
      expect(codes(all)).to.deep.equal([
        ['b', []],
        ['t', [[0, 0]]],
      ]);
      await failAndReturnAgain();
      const twice = await elect(0, [{ topic: 't', partitions: [0, 0] }]);
      expect(codes(twice)).to.deep.equal([['t', [[0, 0], [0, ErrorCode.ELECTION_NOT_NEEDED]]]]);

      async function failAndReturnAgain(): Promise<void> {
        await h.advanceKeeping([2, 3], 10_000);
        await h.register(1, 'inc-1-again');
        await alterIsr('t', 0, [2, 3, 1]);
      }
    });

    it('UNCLEAN elects a live out-of-sync replica for a partition without a leader, whatever the topic says', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2, 3] });
      await h.createTopics([
        { name: 'u', assignments: [[2, 1]] },
        { name: 'led', assignments: [[3, 1]] },
        { name: 'lost', assignments: [[2]] },
      ]);
      await alterIsr('u', 0, [2]); // 1 falls out of sync
      await h.advanceKeeping([1, 3], 10_000); // 2 fails: u-0 and lost-0 go offline
      expect(await h.partition('u', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
      const r = await elect(1, [
        { topic: 'u', partitions: [0] },
        { topic: 'led', partitions: [0] },
        { topic: 'lost', partitions: [0] },
      ]);
      expect(codes(r)).to.deep.equal([
        ['u', [[0, 0]]],
        ['led', [[0, ErrorCode.ELECTION_NOT_NEEDED]]],
        ['lost', [[0, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE]]],
      ]);
      expect(await h.partition('u', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 2 });
    });

    it('refuses an unknown election type and malformed partitions with INVALID_REQUEST, changing nothing', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.createTopic('t', 1, 1);
      const bad = await elect(2, null);
      expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, results: [] });
      expect(bad.errorMessage).to.match(/Unknown election type 2/);
      const malformed = await h.ask<'ElectLeadersResponse'>({ type: 'ElectLeaders', electionType: 0, topicPartitions: [{ topic: 't', partitions: ['x'] }] } as never);
      expect(malformed.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect(await h.partition('t', 0)).to.deep.include({ leader: 1, leaderEpoch: 0, partitionEpoch: 0 });
    });

    it('balancing moves leaders back leader.imbalance.check.interval.seconds after the imbalance appeared, once the preferred replica is in sync', async () => {
      await failAndReturn();
      // the imbalance appeared at the fencing (~10 s in); 1 is not in sync when the first check comes
      await h.advanceKeeping([1, 2, 3], 300_000);
      expect((await h.partition('t', 0)).leader).to.equal(2);
      await alterIsr('t', 0, [2, 3, 1]);
      await alterIsr('t', 2, [3, 2, 1]);
      h.clearInboxes();
      // the next check, 300 s after the last one
      await h.advanceKeeping([1, 2, 3], 290_000);
      expect((await h.partition('t', 0)).leader).to.equal(2);
      await h.advanceKeeping([1, 2, 3], 20_000);
      expect((await h.metadata(['t'])).topics[0]!.partitions.map((p) => [p.leader, p.leaderEpoch])).to.deep.equal([
        [1, 2],
        [2, 0],
        [3, 0],
      ]);
      expect(h.leaderAndIsr(1).map((p) => [p.partition, p.leader])).to.deep.equal([[0, 1]]);
    });

    it('honours leader.imbalance.check.interval.seconds, and auto.leader.rebalance.enable=false leaves leaders where they are', async () => {
      await failAndReturn({ 'leader.imbalance.check.interval.seconds': 5 });
      await alterIsr('t', 0, [2, 3, 1]);
      await h.advanceKeeping([1, 2, 3], 6_000);
      expect((await h.partition('t', 0)).leader).to.equal(1);
      await h.stop();

      await failAndReturn({ 'auto.leader.rebalance.enable': false, 'leader.imbalance.check.interval.seconds': 5 });
      await alterIsr('t', 0, [2, 3, 1]);
      await h.advanceKeeping([1, 2, 3], 20_000);
      expect((await h.partition('t', 0)).leader).to.equal(2);
      // an operator can still ask for it
      expect(codes(await elect(0, [{ topic: 't', partitions: [0] }]))).to.deep.equal([['t', [[0, 0]]]]);
    });

    it('balances more partitions than one round takes in one check, a round right after another', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2], args: { maxElectionsPerBalance: 3, config: { 'leader.imbalance.check.interval.seconds': 10 } } });
      await h.createTopics([{ name: 'many', assignments: Array.from({ length: 8 }, () => [1, 2]) }]);
      await h.advanceKeeping([2], 10_000);
      await h.register(1, 'inc-1-back');
      for (let i = 0; i < 8; i++) await alterIsr('many', i, [2, 1]);
      await h.advanceKeeping([1, 2], 12_000);
      expect((await h.metadata(['many'])).topics[0]!.partitions.map((p) => p.leader)).to.deep.equal([1, 1, 1, 1, 1, 1, 1, 1]);
    });

    it('a restarted controller finds the imbalance in its log and schedules the check again', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-ctl-balance-'));
      try {
        h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir, config: { 'leader.imbalance.check.interval.seconds': 10 } } });
        await h.createTopics([{ name: 'a', assignments: [[1, 2]] }]);
        await h.advanceKeeping([2], 10_000);
        await h.register(1, 'inc-1-back');
        await alterIsr('a', 0, [2, 1]);
        await h.restartController();
        await h.heartbeatAll([1, 2]);
        await h.advanceKeeping([1, 2], 12_000);
        expect(await h.partition('a', 0)).to.deep.include({ leader: 1 });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('AlterPartition', () => {
    async function setup(): Promise<void> {
      h = await ControllerHarness.start({ brokers: [1, 2, 3, 4] });
      await h.createTopics([{ name: 'a', assignments: [[1, 2, 3]] }]);
      await h.settle();
      h.clearInboxes();
    }
    const alter = (over: Partial<{ brokerId: number; brokerEpoch: number; topic: string; partition: number; leaderEpoch: number; partitionEpoch: number; newIsr: number[] }>) =>
      h.ask<'AlterPartitionResponse'>({
        type: 'AlterPartition',
        brokerId: 1,
        brokerEpoch: 1,
        topic: 'a',
        partition: 0,
        leaderEpoch: 0,
        partitionEpoch: 0,
        newIsr: [1, 2],
        ...over,
      });

    it('applies an ISR change from the current leader, bumps the partition epoch, and updates metadata only', async () => {
      await setup();
      const r = await alter({});
      expect(r).to.deep.equal({
        type: 'AlterPartitionResponse',
        errorCode: 0,
        state: { topic: 'a', partition: 0, replicas: [1, 2, 3], isr: [1, 2], leader: 1, leaderEpoch: 0, partitionEpoch: 1 },
      });
      const back = await alter({ partitionEpoch: 1, newIsr: [1, 2, 3] });
      expect(back.state).to.deep.include({ isr: [1, 2, 3], partitionEpoch: 2, leaderEpoch: 0 });
      await h.settle();
      for (const id of [1, 2, 3, 4]) {
        expect(h.received(id, 'LeaderAndIsrRequest')).to.deep.equal([]);
        expect(h.received(id, 'UpdateMetadataRequest').at(-1)!.metadata.topics[0]!.partitions[0]!.isr).to.deep.equal([1, 2, 3]);
      }
      const same = await alter({ partitionEpoch: 2, newIsr: [1, 2, 3] });
      expect(same.state).to.deep.include({ partitionEpoch: 2 }); // nothing to change
    });

    it('refuses a stale leader epoch with FENCED_LEADER_EPOCH', async () => {
      await setup();
      expect((await alter({ leaderEpoch: 3 })).errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
      expect((await h.partition('a', 0)).partitionEpoch).to.equal(0);
    });

    it('refuses a stale partition epoch with INVALID_UPDATE_VERSION and the current state, changing nothing', async () => {
      await setup();
      await alter({});
      // the leader missed the answer to its first change and asks again from the old epoch
      const r = await alter({ newIsr: [1] });
      expect(r.errorCode).to.equal(ErrorCode.INVALID_UPDATE_VERSION);
      expect(r.errorMessage).to.equal('partition epoch 0 is not the current 1');
      expect(r.state).to.deep.equal({ topic: 'a', partition: 0, replicas: [1, 2, 3], isr: [1, 2], leader: 1, leaderEpoch: 0, partitionEpoch: 1 });
      expect(await h.partition('a', 0)).to.deep.include({ isr: [1, 2], partitionEpoch: 1 });
    });

    it('refuses a broker that is not the leader, a stale broker epoch, and an unknown partition', async () => {
      await setup();
      expect((await alter({ brokerId: 2 })).errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect((await alter({ brokerEpoch: 9 })).errorCode).to.equal(ErrorCode.STALE_BROKER_EPOCH);
      expect((await alter({ brokerId: 9 })).errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
      expect((await alter({ partition: 1 })).errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect((await alter({ topic: 'zz' })).errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    });

    it('refuses an ISR without the leader, with non-replicas, duplicates, or fenced brokers', async () => {
      await setup();
      const noLeader = await alter({ newIsr: [2, 3] });
      expect([noLeader.errorCode, noLeader.errorMessage]).to.deep.equal([ErrorCode.INVALID_REQUEST, 'newIsr [2,3] must include the leader 1']);
      expect((await alter({ newIsr: [1, 4] })).errorMessage).to.match(/broker 4 is not a replica/);
      expect((await alter({ newIsr: [1, 2, 2] })).errorMessage).to.match(/duplicates/);
      await h.advanceKeeping([1, 2, 4], 10_000); // 3 is fenced: ISR [1,2], partition epoch 1
      const fenced = await alter({ partitionEpoch: 1, newIsr: [1, 2, 3] });
      expect(fenced.errorCode).to.equal(ErrorCode.INELIGIBLE_REPLICA);
      expect(fenced.errorMessage).to.match(/broker 3 is fenced/);
      expect(await h.partition('a', 0)).to.deep.include({ isr: [1, 2], partitionEpoch: 1 });
    });
  });

  describe('controlled shutdown', () => {
    it('moves leadership away, leaves the ISRs, reports nothing remaining and fences the broker', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('t', 3, 2); // [1,2] [2,3] [3,1]
      await h.settle();
      h.clearInboxes();
      const r = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 1, brokerEpoch: 1 });
      expect(r).to.deep.equal({ type: 'ControlledShutdownResponse', errorCode: 0, remainingPartitions: [], movablePartitions: [] });
      const ps = (await h.metadata(['t'])).topics[0]!.partitions;
      expect(ps.map((p) => [p.leader, p.isr, p.leaderEpoch])).to.deep.equal([
        [2, [2], 1],
        [2, [2, 3], 0],
        [3, [3], 0],
      ]);
      expect((await h.metadata()).brokers[0]!.fenced).to.equal(true);
      await h.settle();
      expect(h.leaderAndIsr(1).map((p) => [p.partition, p.leader]).sort()).to.deep.equal([
        [0, 2],
        [2, 3],
      ]);
      expect(await h.heartbeat(1)).to.deep.include({ errorCode: 0, isFenced: true, shouldShutDown: true });
      // it comes back with a new incarnation
      await h.register(1, 'inc-1-new');
      expect((await h.metadata()).brokers[0]).to.deep.include({ fenced: false, brokerEpoch: 2 });
    });

    it('keeps a partition that has no other ISR member on the broker and reports it, until a retry can move it', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2] });
      await h.createTopics([{ name: 'solo', assignments: [[2]] }, { name: 'pair', assignments: [[2, 1]] }]);
      const r = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 2, brokerEpoch: 1 });
      expect(r.remainingPartitions).to.deep.equal([{ topic: 'solo', partition: 0 }]);
      // no other broker holds a replica of solo: waiting cannot move it
      expect(r.movablePartitions).to.deep.equal([]);
      expect(await h.partition('pair', 0)).to.deep.include({ leader: 1, isr: [1], leaderEpoch: 1 });
      expect(await h.partition('solo', 0)).to.deep.include({ leader: 2, isr: [2], leaderEpoch: 0 });
      expect((await h.metadata()).brokers[1]!.fenced).to.equal(false); // shutting down, still serving solo
      const retry = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 2, brokerEpoch: 1 });
      expect(retry.remainingPartitions).to.deep.equal([{ topic: 'solo', partition: 0 }]);
      // a broker shutting down cannot be added to an ISR
      const add = await h.ask<'AlterPartitionResponse'>({
        type: 'AlterPartition',
        brokerId: 1,
        brokerEpoch: 1,
        topic: 'pair',
        partition: 0,
        leaderEpoch: 1,
        partitionEpoch: 1,
        newIsr: [1, 2],
      });
      expect(add.errorCode).to.equal(ErrorCode.INELIGIBLE_REPLICA);
      // it dies: its session expires, solo goes offline keeping it as the last ISR member
      await h.advanceKeeping([1], 10_000);
      expect(await h.partition('solo', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
      expect(await h.heartbeat(2)).to.deep.include({ isFenced: true, shouldShutDown: true });
    });

    it('reports a remaining partition as movable while another live broker holds a replica that may catch up, and not once that broker is gone', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopics([{ name: 'lagging', assignments: [[2, 1]] }]);
      // the follower fell behind: the leader shrank the ISR to itself
      const shrink = await h.ask<'AlterPartitionResponse'>({ type: 'AlterPartition', brokerId: 2, brokerEpoch: 1, topic: 'lagging', partition: 0, leaderEpoch: 0, partitionEpoch: 0, newIsr: [2] });
      expect(shrink.errorCode).to.equal(ErrorCode.NONE);
      const r = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 2, brokerEpoch: 1 });
      expect(r.remainingPartitions).to.deep.equal([{ topic: 'lagging', partition: 0 }]);
      expect(r.movablePartitions).to.deep.equal([{ topic: 'lagging', partition: 0 }]);
      // broker 1 dies: nothing could take over any more
      await h.advanceKeeping([2], 10_000);
      const retry = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 2, brokerEpoch: 1 });
      expect(retry).to.deep.include({ errorCode: 0, remainingPartitions: [{ topic: 'lagging', partition: 0 }], movablePartitions: [] });
    });

    it('a heartbeat asking to shut down does the same', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopics([{ name: 'pair', assignments: [[2, 1]] }]);
      expect(await h.heartbeat(2, 1, true)).to.deep.include({ errorCode: 0, isFenced: true, shouldShutDown: true });
      expect(await h.partition('pair', 0)).to.deep.include({ leader: 1, isr: [1] });
    });

    it('refuses a stale epoch or an unknown broker', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      const stale = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 1, brokerEpoch: 5 });
      expect(stale.errorCode).to.equal(ErrorCode.STALE_BROKER_EPOCH);
      const unknown = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 5, brokerEpoch: 1 });
      expect(unknown.errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
      expect((await h.metadata()).brokers[0]!.fenced).to.equal(false);
    });
  });

  describe('UnregisterBroker', () => {
    const unregister = (brokerId: number) => h.ask<'UnregisterBrokerResponse'>({ type: 'UnregisterBroker', brokerId });

    it('a live broker: what it led moves, it leaves every ISR, it is gone from the metadata (fenced or not), and it hears the new leaders', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3] });
      await h.createTopic('t', 3, 2); // [1,2] [2,3] [3,1]
      await h.settle();
      h.clearInboxes();
      expect(await unregister(1)).to.deep.equal({ type: 'UnregisterBrokerResponse', errorCode: ErrorCode.NONE });
      const ps = (await h.metadata(['t'])).topics[0]!.partitions;
      expect(ps.map((p) => [p.replicas, p.leader, p.isr, p.leaderEpoch])).to.deep.equal([
        [[1, 2], 2, [2], 1],
        [[2, 3], 2, [2, 3], 0],
        [[3, 1], 3, [3], 0],
      ]);
      expect((await h.metadata()).brokers.map((b) => b.brokerId)).to.deep.equal([2, 3]);
      await h.settle();
      // it may still run: told who leads its partitions now
      expect(h.leaderAndIsr(1).map((p) => [p.partition, p.leader]).sort()).to.deep.equal([
        [0, 2],
        [2, 3],
      ]);
      // the others learn the broker list without it
      const update = h.received(2, 'UpdateMetadataRequest').at(-1)!;
      expect(update.metadata.brokers.map((b) => b.brokerId)).to.deep.equal([2, 3]);
      expect(h.received(1, 'UpdateMetadataRequest')).to.deep.equal([]);
    });

    it('a broker still running is refused its next heartbeat and registers again at a higher epoch; its old epoch stays refused', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.createTopic('t', 2, 2);
      expect((await unregister(2)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.heartbeat(2, 1)).errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
      const again = await h.register(2, 'inc-2');
      expect(again).to.deep.include({ errorCode: ErrorCode.NONE, brokerEpoch: 2 });
      expect((await h.heartbeat(2, 1)).errorCode).to.equal(ErrorCode.STALE_BROKER_EPOCH);
      expect((await h.heartbeat(2, 2)).errorCode).to.equal(ErrorCode.NONE);
      expect((await h.metadata()).brokers.map((b) => [b.brokerId, b.brokerEpoch, b.fenced])).to.deep.equal([
        [1, 1, false],
        [2, 2, false],
      ]);
    });

    it('a dead broker (fenced) without ELR: a partition it was the last ISR member of keeps it and stays offline; it leads again if it comes back', async () => {
      h = await ControllerHarness.start({ elr: 0, brokers: [1, 2] });
      await h.createTopics([{ name: 'solo', assignments: [[2]] }, { name: 'pair', assignments: [[2, 1]] }]);
      await h.advanceKeeping([1], 10_000);
      expect((await h.metadata()).brokers.find((b) => b.brokerId === 2)!.fenced).to.equal(true);
      expect((await unregister(2)).errorCode).to.equal(ErrorCode.NONE);
      expect(await h.partition('solo', 0)).to.deep.include({ leader: NO_LEADER, isr: [2] });
      expect(await h.partition('pair', 0)).to.deep.include({ leader: 1, isr: [1] });
      expect((await h.metadata()).brokers.map((b) => b.brokerId)).to.deep.equal([1]);
      expect((await h.register(2, 'inc-2-back')).brokerEpoch).to.equal(2);
      expect(await h.partition('solo', 0)).to.deep.include({ leader: 2, isr: [2] });
    });

    it('with ELR on it leaves the ELR too', async () => {
      h = await ControllerHarness.start({ elr: 1, brokers: [1, 2, 3], args: { config: { 'min.insync.replicas': 2 } } });
      await h.createTopics([{ name: 'e', assignments: [[1, 2, 3]] }]);
      // 3 falls silent, then 2: with min.insync.replicas 2 the second leaves the ISR for the ELR
      await h.advanceKeeping([1, 2], 10_000);
      await h.advanceKeeping([1], 10_000);
      expect((await h.partition('e', 0)).elr ?? []).to.include(2);
      expect((await unregister(2)).errorCode).to.equal(ErrorCode.NONE);
      const p = await h.partition('e', 0);
      expect(p.elr ?? []).to.not.include(2);
      expect(p.isr).to.not.include(2);
      expect(p.leader).to.equal(1);
    });

    it('refuses an id not registered (BROKER_ID_NOT_REGISTERED, also the second time) and a malformed one (INVALID_REQUEST), changing nothing', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      expect(await unregister(7)).to.deep.include({ errorCode: ErrorCode.BROKER_ID_NOT_REGISTERED, errorMessage: 'Broker ID 7 is not currently registered' });
      expect((await unregister(-1)).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect((await unregister(1)).errorCode).to.equal(ErrorCode.NONE);
      expect((await unregister(1)).errorCode).to.equal(ErrorCode.BROKER_ID_NOT_REGISTERED);
    });

    it('survives a controller restart: still gone, and a registration still takes an epoch above the one it had', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-ctl-unregister-'));
      try {
        h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
        await h.register(2, 'inc-2'); // epoch 2
        expect((await unregister(2)).errorCode).to.equal(ErrorCode.NONE);
        await h.restartController();
        expect((await h.metadata()).brokers.map((b) => b.brokerId)).to.deep.equal([1]);
        expect((await h.register(2, 'inc-2-new')).brokerEpoch).to.equal(3);
      } finally {
        await h?.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('metadata and watchers', () => {
    it('answers Metadata for named topics, leaving unknown names out', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.createTopic('x', 1, 1);
      await h.createTopic('y', 1, 1);
      expect((await h.metadata(['y', 'nope'])).topics.map((t) => t.name)).to.deep.equal(['y']);
      expect((await h.metadata()).topics.map((t) => t.name)).to.deep.equal(['x', 'y']);
    });

    it('a watcher gets a snapshot, then every update the brokers get, until it unwatches', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2] });
      await h.watch();
      expect(h.watcherInbox).to.have.length(1);
      expect(h.watcherInbox[0]!.type).to.equal('UpdateMetadataRequest');
      h.clearInboxes();
      await h.createTopic('w', 2, 2);
      await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['w'] });
      await h.settle();
      // the same updates, but for the SCRAM and delegation token credentials only brokers get
      expect(h.watcherInbox).to.deep.equal(h.received(1, 'UpdateMetadataRequest').map(({ scramCredentials: _secret, delegationTokens: _tokens, ...m }) => m));
      expect(h.watcherInbox).to.have.length(2);
      await h.ask<'MetadataResponse'>({ type: 'UnwatchMetadata', watcher: h.watcherRef });
      h.clearInboxes();
      await h.createTopic('v', 1, 1);
      await h.settle();
      expect(h.watcherInbox).to.deep.equal([]);
    });
  });
});
