/**
 * Replica placement against Kafka's rack-unaware assignment, worked out by hand, and the topic
 * and controller config validation rules.
 */
import { expect } from 'chai';
import {
  PlacementError,
  assignReplicas,
  assignReplicasRackAware,
  assignReplicasRackUnaware,
  rackAlternatedBrokerList,
  placementForNewPartitions,
  placementForNewTopic,
  seededRandom,
} from '../../../actors/controller/placement.js';
import {
  TOPIC_CONFIG_KEYS,
  normalizeTopicConfig,
  validateAssignments,
  validateNoCollision,
  validateTopicConfig,
  validateTopicName,
} from '../../../actors/controller/topic-validation.js';
import { parseControllerConfig, sessionCheckIntervalMs } from '../../../actors/controller/controller-config.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { LOG_CONFIG_KEYS } from '../../../src/storage/log-config.js';

describe('actors/controller/placement', () => {
  it("matches Kafka's documented example: 5 brokers, 10 partitions, RF 3, start index 0", () => {
    // broker-0  broker-1  broker-2  broker-3  broker-4
    // p0        p1        p2        p3        p4       (1st replica)
    // p5        p6        p7        p8        p9       (1st replica)
    // p4        p0        p1        p2        p3       (2nd replica)
    // p8        p9        p5        p6        p7       (2nd replica)
    // p3        p4        p0        p1        p2       (3rd replica)
    // p7        p8        p9        p5        p6       (3rd replica)
    expect(assignReplicasRackUnaware([0, 1, 2, 3, 4], 10, 3, { startIndex: 0, replicaShift: 0 })).to.deep.equal([
      [0, 1, 2],
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 0],
      [4, 0, 1],
      [0, 2, 3],
      [1, 3, 4],
      [2, 4, 0],
      [3, 0, 1],
      [4, 1, 2],
    ]);
  });

  it('3 brokers x 6 partitions x RF 3: the shift grows when partition ids wrap around', () => {
    expect(assignReplicasRackUnaware([3, 1, 2], 6, 3, { startIndex: 0, replicaShift: 0 })).to.deep.equal([
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
      [1, 3, 2],
      [2, 1, 3],
      [3, 2, 1],
    ]);
  });

  it('honours the start index and shift, and continues from a first partition id', () => {
    // start 1, shift 1: p0 first = broker[1] = 2, second = 1 + (1 + 0) % 2 = 2 steps on -> broker[0] = 1
    expect(assignReplicasRackUnaware([1, 2, 3], 2, 2, { startIndex: 1, replicaShift: 1 })).to.deep.equal([
      [2, 1],
      [3, 2],
    ]);
    expect(placementForNewPartitions([1, 2, 3], 2, 2)).to.deep.equal({ startIndex: 1, replicaShift: 1, firstPartitionId: 2 });
    expect(assignReplicasRackUnaware([1, 2, 3], 1, 2, { startIndex: 0, replicaShift: 0, firstPartitionId: 3 })).to.deep.equal([[1, 3]]);
  });

  it('a seed gives the same start index and shift every time; a fixed start index sets both', () => {
    const a = placementForNewTopic(7, seededRandom(99), null);
    const b = placementForNewTopic(7, seededRandom(99), null);
    expect(a).to.deep.equal(b);
    expect(a.startIndex).to.be.within(0, 6);
    expect(placementForNewTopic(7, seededRandom(99), 4)).to.deep.equal({ startIndex: 4, replicaShift: 4 });
    const seen = new Set<number>();
    const r = seededRandom(1);
    for (let i = 0; i < 200; i++) seen.add(r.nextInt(5));
    expect([...seen].sort()).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('every partition gets distinct brokers and leaders are spread evenly', () => {
    const brokers = [10, 11, 12, 13, 14, 15];
    const placement = assignReplicasRackUnaware(brokers, 60, 3, { startIndex: 2, replicaShift: 4 });
    for (const replicas of placement) expect(new Set(replicas).size).to.equal(3);
    for (const b of brokers) expect(placement.filter((r) => r[0] === b)).to.have.length(10);
    expect(placement.flat().filter((b) => b === 10)).to.have.length(30);
  });

  it('refuses a replication factor above the broker count (callers validate first)', () => {
    expect(() => assignReplicasRackUnaware([1, 2], 1, 3, { startIndex: 0, replicaShift: 0 })).to.throw(PlacementError);
    expect(assignReplicasRackUnaware([1], 3, 1, { startIndex: 0, replicaShift: 0 })).to.deep.equal([[1], [1], [1]]);
  });
});

describe('actors/controller/topic-validation', () => {
  it('names: Kafka charset, 1..249 characters, not . or ..', () => {
    for (const ok of ['a', 'A-b_c.d', '__consumer_offsets', 'x'.repeat(249), '...']) expect(validateTopicName(ok), ok).to.equal(null);
    for (const bad of ['', '.', '..', 'x'.repeat(250), 'a b', 'a/b', 'a:b', 'é', 42]) {
      expect(validateTopicName(bad)?.errorCode, String(bad)).to.equal(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
    expect(validateNoCollision('a_b', ['a.b'])?.errorMessage).to.equal("Topic 'a_b' collides with existing topic: a.b");
    expect(validateNoCollision('a_b', ['a_b', 'ab'])).to.equal(null);
  });

  it('config: the storage keys plus four topic keys; unknown keys and bad values name the key', () => {
    expect(TOPIC_CONFIG_KEYS).to.include.members([...LOG_CONFIG_KEYS, 'min.insync.replicas', 'unclean.leader.election.enable', 'cleanup.policy', 'compression.type']);
    expect(validateTopicConfig(undefined)).to.equal(null);
    const good = { 'cleanup.policy': 'Compact', 'compression.type': 'producer', 'unclean.leader.election.enable': true, 'retention.ms': 5 };
    expect(validateTopicConfig(good)).to.equal(null);
    expect(normalizeTopicConfig(good)).to.deep.equal({
      'cleanup.policy': 'compact',
      'compression.type': 'producer',
      'unclean.leader.election.enable': 'true',
      'retention.ms': 5,
    });
    const bad: [unknown, RegExp][] = [
      [{ nope: 1 }, /^nope: unknown topic config name/],
      [{ 'retention.bytes': null }, /^retention\.bytes: null value/],
      [{ 'flush.ms': [1] }, /^flush\.ms: expected a string or a number/],
      [{ 'cleanup.policy': '' }, /^cleanup\.policy: /],
      [{ 'cleanup.policy': 'delete,delete' }, /^cleanup\.policy: /],
      [{ 'compression.type': 'brotli' }, /^compression\.type: .*must be one of/],
      [{ 'min.insync.replicas': '1.5' }, /^min\.insync\.replicas: /],
      [[], /must be a map/],
    ];
    for (const [config, message] of bad) {
      const r = validateTopicConfig(config);
      expect(r, JSON.stringify(config)).to.have.property('errorCode', ErrorCode.INVALID_CONFIG);
      expect((r as { errorMessage: string }).errorMessage).to.match(message);
    }
  });

  it('assignments: non-empty, integer broker ids of eligible brokers, no duplicates, one size', () => {
    expect(validateAssignments([[1, 2], [2, 1]], [1, 2])).to.equal(null);
    expect(validateAssignments([[1, 'x']], [1])?.errorMessage).to.match(/not an integer/);
    expect(validateAssignments([[]], [1])?.errorMessage).to.match(/non-empty/);
    expect(validateAssignments('no', [1])?.errorCode).to.equal(ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  });
});

describe('actors/controller/controller-config', () => {
  it("has Kafka's defaults and refuses unknown keys and bad values, naming the key", () => {
    expect(parseControllerConfig()).to.deep.equal({
      brokerSessionTimeoutMs: 9000,
      quorumElectionTimeoutMs: 1000,
      metadataLogMaxRecordBytesBetweenSnapshots: 20 * 1024 * 1024,
      numPartitions: 1,
      defaultReplicationFactor: 1,
      uncleanLeaderElectionEnable: false,
      // the min ISR of topics without their own, for eligible leader replicas (KIP-966)
      minInsyncReplicas: 1,
      autoLeaderRebalanceEnable: true,
      leaderImbalanceCheckIntervalSeconds: 300,
      // delegation tokens (KIP-48): off without a secret key; Kafka's lifetimes
      delegationTokenSecretKey: null,
      delegationTokenMaxLifetimeMs: 7 * 24 * 60 * 60 * 1000,
      delegationTokenExpiryTimeMs: 24 * 60 * 60 * 1000,
      delegationTokenExpiryCheckIntervalMs: 60 * 60 * 1000,
      // what group configs are checked against (Kafka's GroupCoordinatorConfig defaults)
      consumerGroupTimeouts: { sessionTimeoutMs: 45_000, heartbeatIntervalMs: 5_000, minSessionTimeoutMs: 45_000, maxSessionTimeoutMs: 60_000, minHeartbeatIntervalMs: 5_000, maxHeartbeatIntervalMs: 15_000 },
      // and share groups' share.* (Kafka's GroupCoordinatorConfig and ShareGroupConfig defaults)
      shareGroupBounds: {
        sessionTimeoutMs: 45_000,
        heartbeatIntervalMs: 5_000,
        minSessionTimeoutMs: 45_000,
        maxSessionTimeoutMs: 60_000,
        minHeartbeatIntervalMs: 5_000,
        maxHeartbeatIntervalMs: 15_000,
        recordLockDurationMs: 30_000,
        minRecordLockDurationMs: 15_000,
        maxRecordLockDurationMs: 60_000,
        deliveryCountLimit: 5,
        partitionMaxRecordLocks: 2_000,
      },
    });
    expect(parseControllerConfig({ 'group.consumer.min.session.timeout.ms': '1000', 'group.consumer.session.timeout.ms': 2_000, 'group.consumer.min.heartbeat.interval.ms': 100, 'group.consumer.heartbeat.interval.ms': 500 }).consumerGroupTimeouts).to.deep.include({ minSessionTimeoutMs: 1_000, sessionTimeoutMs: 2_000 });
    expect(() => parseControllerConfig({ 'group.consumer.session.timeout.ms': 2_000 })).to.throw(/group\.consumer\.session\.timeout\.ms: must be greater than or equal to group\.consumer\.min\.session\.timeout\.ms/);
    expect(() => parseControllerConfig({ 'group.consumer.max.heartbeat.interval.ms': 0 })).to.throw(/group\.consumer\.max\.heartbeat\.interval\.ms: 0 is not valid/);
    expect(
      parseControllerConfig({
        'group.share.min.session.timeout.ms': '1000',
        'group.share.session.timeout.ms': 2_000,
        'group.share.min.heartbeat.interval.ms': 100,
        'group.share.heartbeat.interval.ms': 500,
        'group.share.min.record.lock.duration.ms': 1_000,
        'group.share.record.lock.duration.ms': '1000',
      }).shareGroupBounds,
    ).to.deep.include({ minSessionTimeoutMs: 1_000, sessionTimeoutMs: 2_000, heartbeatIntervalMs: 500, minRecordLockDurationMs: 1_000, recordLockDurationMs: 1_000 });
    expect(() => parseControllerConfig({ 'group.share.session.timeout.ms': 2_000 })).to.throw(/group\.share\.session\.timeout\.ms: must be greater than or equal to group\.share\.min\.session\.timeout\.ms/);
    expect(() => parseControllerConfig({ 'group.share.record.lock.duration.ms': 70_000 })).to.throw(/group\.share\.max\.record\.lock\.duration\.ms: must be greater than or equal to group\.share\.record\.lock\.duration\.ms/);
    expect(() => parseControllerConfig({ 'group.share.delivery.count.limit': 11 })).to.throw(/group\.share\.delivery\.count\.limit: 11 is not valid: must be an integer in \[2, 10\]/);
    expect(
      parseControllerConfig({ 'broker.session.timeout.ms': '18000', 'unclean.leader.election.enable': 'true', 'auto.leader.rebalance.enable': 'false', 'leader.imbalance.check.interval.seconds': '30' }),
    ).to.deep.include({
      brokerSessionTimeoutMs: 18000,
      uncleanLeaderElectionEnable: true,
      autoLeaderRebalanceEnable: false,
      leaderImbalanceCheckIntervalSeconds: 30,
    });
    expect(() => parseControllerConfig({ 'leader.imbalance.check.interval.seconds': 0 })).to.throw(/leader\.imbalance\.check\.interval\.seconds: 0 is not valid/);
    expect(() => parseControllerConfig({ 'auto.leader.rebalance.enable': 'on' })).to.throw(/auto\.leader\.rebalance\.enable/);
    expect(() => parseControllerConfig({ 'leader.imbalance.per.broker.percentage': 10 })).to.throw(/unknown controller config key/);
    expect(() => parseControllerConfig({ 'log.dirs': '/x' })).to.throw(/log\.dirs: unknown controller config key/);
    expect(() => parseControllerConfig({ 'num.partitions': 0 })).to.throw(/num\.partitions: 0 is not valid/);
    expect(() => parseControllerConfig({ 'default.replication.factor': 'two' })).to.throw(/default\.replication\.factor/);
    expect(() => parseControllerConfig({ 'unclean.leader.election.enable': 'yes' })).to.throw(/unclean\.leader\.election\.enable/);
    expect(sessionCheckIntervalMs(parseControllerConfig())).to.equal(1000);
    expect(sessionCheckIntervalMs(parseControllerConfig({ 'broker.session.timeout.ms': 300 }))).to.equal(100);
  });

  describe('rack-aware', () => {
    const racks = (spec: Record<number, string | null>) => Object.entries(spec).map(([id, rack]) => ({ id: Number(id), rack }));

    it('arranges brokers with racks alternating: racks by name, brokers by id, brokers without a rack as one rack last', () => {
      expect(rackAlternatedBrokerList(racks({ 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' }))).to.deep.equal([0, 3, 1, 5, 4, 2]);
      expect(rackAlternatedBrokerList(racks({ 1: null, 2: 'b', 3: 'a', 4: null }))).to.deep.equal([3, 2, 1, 4]);
    });

    it("places like Kafka's rack-aware assignment (fixed start 0): the walk skips brokers of racks that already hold a replica", () => {
      // arranged: 0(rack1) 3(rack2) 1(rack3) 5(rack1) 4(rack2) 2(rack3)
      const brokers = racks({ 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' });
      expect(assignReplicasRackAware(brokers, 6, 3, { startIndex: 0, replicaShift: 0 })).to.deep.equal([
        [0, 3, 1],
        [3, 1, 5],
        [1, 5, 4],
        [5, 4, 2],
        [4, 2, 0],
        [2, 0, 3],
      ]);
    });

    it('spans min(replication factor, racks) racks and spreads leaders and replicas evenly', () => {
      const brokers = racks({ 1: 'a', 2: 'a', 3: 'b', 4: 'b', 5: 'c', 6: 'c' });
      const rackOf = new Map(brokers.map((b) => [b.id, b.rack]));
      for (const rf of [1, 2, 3, 4]) {
        const placement = assignReplicasRackAware(brokers, 60, rf, { startIndex: 2, replicaShift: 4 });
        const leaders = new Map<number, number>();
        const replicas = new Map<number, number>();
        for (const p of placement) {
          expect(new Set(p).size, 'distinct brokers').to.equal(rf);
          expect(new Set(p.map((b) => rackOf.get(b))).size, `rf ${rf}: racks spanned`).to.equal(Math.min(rf, 3));
          leaders.set(p[0]!, (leaders.get(p[0]!) ?? 0) + 1);
          for (const b of p) replicas.set(b, (replicas.get(b) ?? 0) + 1);
        }
        expect([...leaders.values()], `rf ${rf}: leaders per broker`).to.deep.equal([10, 10, 10, 10, 10, 10]);
        expect(Math.max(...replicas.values()) - Math.min(...replicas.values()), `rf ${rf}: replicas per broker`).to.be.at.most(rf === 4 ? 10 : 0);
      }
    });

    it('assignReplicas is rack-unaware when no broker has a rack, rack-aware once one has', () => {
      const opts = { startIndex: 0, replicaShift: 0 };
      expect(assignReplicas(racks({ 1: null, 2: null, 3: null }), 3, 2, opts)).to.deep.equal(assignReplicasRackUnaware([1, 2, 3], 3, 2, opts));
      const mixed = racks({ 1: 'a', 2: 'a', 3: null });
      const placed = assignReplicas(mixed, 3, 2, opts);
      expect(placed).to.deep.equal(assignReplicasRackAware(mixed, 3, 2, opts));
      // rack a and the brokers without a rack: every partition has a replica on each
      for (const p of placed) expect(p.filter((b) => b === 3).length, JSON.stringify(p)).to.equal(1);
      expect(() => assignReplicasRackAware(mixed, 1, 4, opts)).to.throw(PlacementError);
    });
  });
});
