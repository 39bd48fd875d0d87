/**
 * Broker configuration: Kafka's names and defaults, values as numbers or strings, and a
 * ConfigError naming the key for anything unknown or out of range.
 */
import { expect } from 'chai';
import { DYNAMIC_BROKER_CONFIG_KEYS, describeBrokerConfig, dynamicBrokerConfigProblem, parseBrokerConfig, shareGroupBoundsOf } from '../../../actors/broker/broker-config.js';
import { DEFAULT_SHARE_GROUP_BOUNDS } from '../../../actors/group-coordinator/group-configs.js';
import { UNLIMITED_RATE } from '../../../src/runtime/rate-quota.js';
import { ConfigError } from '../../../src/storage/log-config.js';

describe('broker config', () => {
  it("takes Kafka's defaults", () => {
    const c = parseBrokerConfig({});
    expect(c.replicaLagTimeMaxMs).to.equal(30_000);
    expect(c.socketRequestMaxBytes).to.equal(100 * 1024 * 1024);
    expect(c.autoCreateTopicsEnable).to.equal(true);
    expect(c.offsetsTopicNumPartitions).to.equal(50);
  });

  it('reads integers given as numbers or strings, booleans given as booleans or strings', () => {
    const c = parseBrokerConfig({ 'socket.request.max.bytes': '1024', 'auto.create.topics.enable': 'false', 'min.insync.replicas': 2 });
    expect(c.socketRequestMaxBytes).to.equal(1024);
    expect(c.autoCreateTopicsEnable).to.equal(false);
    expect(c.minInsyncReplicas).to.equal(2);
    expect(parseBrokerConfig({ 'auto.create.topics.enable': true }).autoCreateTopicsEnable).to.equal(true);
  });

  it("takes compression.type, Kafka's default for topics without their own ('producer' unless set)", () => {
    expect(parseBrokerConfig({}).compressionType).to.equal('producer');
    expect(parseBrokerConfig({ 'compression.type': ' LZ4 ' }).compressionType).to.equal('lz4');
    expect(describeBrokerConfig({ 'compression.type': 'zstd' }).find((c) => c.name === 'compression.type')).to.deep.equal({ name: 'compression.type', value: 'zstd', isDefault: false });
  });

  it('takes compression.gzip.level, compression.lz4.level and compression.zstd.level (KIP-390), dynamic, each in its codec\'s range', () => {
    const c = parseBrokerConfig({});
    expect([c.compressionGzipLevel, c.compressionLz4Level, c.compressionZstdLevel]).to.deep.equal([-1, 9, 3]);
    const set = parseBrokerConfig({ 'compression.gzip.level': '9', 'compression.lz4.level': 12, 'compression.zstd.level': '-5' });
    expect([set.compressionGzipLevel, set.compressionLz4Level, set.compressionZstdLevel]).to.deep.equal([9, 12, -5]);
    expect(() => parseBrokerConfig({ 'compression.gzip.level': 10 })).to.throw(ConfigError, /compression\.gzip\.level: 10 is not a gzip level: must be an integer from 1 to 9 \(or -1, the default\)/);
    expect(() => parseBrokerConfig({ 'compression.zstd.level': 'fast' })).to.throw(ConfigError, /compression\.zstd\.level: "fast" is not a zstd level/);
    expect(describeBrokerConfig({ 'compression.lz4.level': 12 }).filter((e) => e.name.startsWith('compression.') && e.name.endsWith('.level'))).to.deep.equal([
      { name: 'compression.gzip.level', value: '-1', isDefault: true },
      { name: 'compression.lz4.level', value: '12', isDefault: false },
      { name: 'compression.zstd.level', value: '3', isDefault: true },
    ]);
    for (const k of ['compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level']) expect(DYNAMIC_BROKER_CONFIG_KEYS).to.include(k);
  });

  it("takes replica.selector.class: none (Kafka's default), LeaderSelector, or the rack-aware selector by Kafka's class name", () => {
    expect(parseBrokerConfig({}).replicaSelectorClass).to.equal('');
    const rackAware = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';
    expect(parseBrokerConfig({ 'replica.selector.class': ` ${rackAware} ` }).replicaSelectorClass).to.equal(rackAware);
    expect(parseBrokerConfig({ 'replica.selector.class': 'org.apache.kafka.common.replica.LeaderSelector' }).replicaSelectorClass).to.equal('org.apache.kafka.common.replica.LeaderSelector');
    expect(parseBrokerConfig({ 'replica.selector.class': null }).replicaSelectorClass).to.equal('');
    expect(() => parseBrokerConfig({ 'replica.selector.class': 'com.example.Nearest' })).to.throw(/replica.selector.class: "com.example.Nearest" is not valid: must be one of \(empty\), org.apache.kafka.common.replica.LeaderSelector, org.apache.kafka.common.replica.RackAwareReplicaSelector/);
    expect(() => parseBrokerConfig({ 'replica.selector.class': rackAware.toLowerCase() })).to.throw(/is not valid/);
    expect(describeBrokerConfig({ 'replica.selector.class': rackAware }).find((c) => c.name === 'replica.selector.class')).to.deep.equal({ name: 'replica.selector.class', value: rackAware, isDefault: false });
  });

  it("takes group.consumer.migration.policy: Kafka 4.0's bidirectional by default, disabled, upgrade or downgrade in any case", () => {
    expect(parseBrokerConfig({}).groupConsumerMigrationPolicy).to.equal('bidirectional');
    expect(parseBrokerConfig({ 'group.consumer.migration.policy': ' Disabled ' }).groupConsumerMigrationPolicy).to.equal('disabled');
    expect(parseBrokerConfig({ 'group.consumer.migration.policy': 'UPGRADE' }).groupConsumerMigrationPolicy).to.equal('upgrade');
    expect(parseBrokerConfig({ 'group.consumer.migration.policy': 'downgrade' }).groupConsumerMigrationPolicy).to.equal('downgrade');
    expect(() => parseBrokerConfig({ 'group.consumer.migration.policy': 'sideways' })).to.throw(/group.consumer.migration.policy: "sideways" is not valid: must be one of disabled, upgrade, downgrade, bidirectional/);
    expect(describeBrokerConfig({}).find((c) => c.name === 'group.consumer.migration.policy')).to.deep.equal({ name: 'group.consumer.migration.policy', value: 'bidirectional', isDefault: true });
  });

  it('takes the authorizer: authorizer.class.name (StandardAuthorizer or AclAuthorizer), super.users, allow.everyone.if.no.acl.found', () => {
    expect(parseBrokerConfig({})).to.include({ authorizerClassName: '', allowEveryoneIfNoAclFound: false });
    expect(parseBrokerConfig({}).superUsers).to.deep.equal([]);
    const standard = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
    const c = parseBrokerConfig({ 'authorizer.class.name': standard, 'super.users': ' User:admin ; User:CN=ops,O=Example ;', 'allow.everyone.if.no.acl.found': 'true' });
    expect(c).to.include({ authorizerClassName: standard, allowEveryoneIfNoAclFound: true });
    expect(c.superUsers).to.deep.equal(['User:admin', 'User:CN=ops,O=Example']);
    expect(parseBrokerConfig({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' }).authorizerClassName).to.equal('kafka.security.authorizer.AclAuthorizer');
    expect(parseBrokerConfig({ 'super.users': ['User:a', 'User:b'] }).superUsers).to.deep.equal(['User:a', 'User:b']);
    expect(() => parseBrokerConfig({ 'authorizer.class.name': 'com.example.Custom' })).to.throw(/authorizer.class.name: "com.example.Custom" is not valid/);
    expect(() => parseBrokerConfig({ 'super.users': 'admin' })).to.throw(/super.users: 'admin' is not a principal/);
    expect(() => parseBrokerConfig({ 'super.users': 5 })).to.throw(/super.users: expected principals/);
    expect(describeBrokerConfig({ 'super.users': 'User:admin;User:ops' }).find((e) => e.name === 'super.users')).to.deep.equal({ name: 'super.users', value: 'User:admin;User:ops', isDefault: false });
  });

  it("takes the log cleaner's settings and the broker-level compaction defaults for topics", () => {
    const d = parseBrokerConfig({});
    expect(d).to.include({ logCleanerEnable: true, logCleanerBackoffMs: 15_000, logCleanerDedupeBufferSize: 128 * 1024 * 1024 });
    expect(d.log).to.include({ cleanupPolicy: 'delete', deleteRetentionMs: 86_400_000, minCleanableDirtyRatio: 0.5, minCompactionLagMs: 0, maxCompactionLagMs: Infinity });
    const c = parseBrokerConfig({
      'log.cleaner.enable': 'false',
      'log.cleaner.backoff.ms': '500',
      'log.cleaner.dedupe.buffer.size': 4 * 1024 * 1024,
      'log.cleanup.policy': 'compact',
      'log.cleaner.delete.retention.ms': 1000,
      'log.cleaner.min.cleanable.ratio': '0.2',
      'log.cleaner.min.compaction.lag.ms': 10,
      'log.cleaner.max.compaction.lag.ms': 60_000,
    });
    expect(c).to.include({ logCleanerEnable: false, logCleanerBackoffMs: 500, logCleanerDedupeBufferSize: 4 * 1024 * 1024 });
    expect(c.log).to.include({ cleanupPolicy: 'compact', deleteRetentionMs: 1000, minCleanableDirtyRatio: 0.2, minCompactionLagMs: 10, maxCompactionLagMs: 60_000 });
    expect(describeBrokerConfig({ 'log.cleanup.policy': 'delete,compact' }).find((x) => x.name === 'log.cleanup.policy')).to.deep.equal({ name: 'log.cleanup.policy', value: 'compact,delete', isDefault: false });
  });

  it('takes replica.alter.log.dirs.io.max.bytes.per.second (unlimited by default, 0 or more), a dynamic key like the replication throttle rates', () => {
    const key = 'replica.alter.log.dirs.io.max.bytes.per.second';
    expect(parseBrokerConfig({}).replicaAlterLogDirsIoMaxBytesPerSecond).to.equal(UNLIMITED_RATE);
    expect(parseBrokerConfig({ [key]: '1048576' }).replicaAlterLogDirsIoMaxBytesPerSecond).to.equal(1048576);
    expect(parseBrokerConfig({ [key]: 0 }).replicaAlterLogDirsIoMaxBytesPerSecond).to.equal(0);
    expect(describeBrokerConfig({}).find((c) => c.name === key)).to.deep.equal({ name: key, value: '9223372036854775807', isDefault: true });
    expect(describeBrokerConfig({ [key]: 5000 }).find((c) => c.name === key)).to.deep.equal({ name: key, value: '5000', isDefault: false });
    expect(DYNAMIC_BROKER_CONFIG_KEYS).to.include.members([key, 'leader.replication.throttled.rate', 'follower.replication.throttled.rate']);
    expect(dynamicBrokerConfigProblem({ [key]: '2000' })).to.equal(null);
    expect(dynamicBrokerConfigProblem({ [key]: '-1' })).to.deep.include({ key, dynamic: true });
    expect(dynamicBrokerConfigProblem({ [key]: 'fast' })).to.deep.include({ key, dynamic: true });
  });

  it("describes the unlimited default of the three rates as Kafka does (Long.MAX_VALUE), and takes that value back as unlimited", () => {
    for (const key of ['leader.replication.throttled.rate', 'follower.replication.throttled.rate', 'replica.alter.log.dirs.io.max.bytes.per.second']) {
      expect(describeBrokerConfig({}).find((c) => c.name === key)!.value, key).to.equal('9223372036854775807');
      const back = describeBrokerConfig({ [key]: '9223372036854775807' }).find((c) => c.name === key)!;
      expect(back, key).to.deep.equal({ name: key, value: '9223372036854775807', isDefault: false });
      expect(dynamicBrokerConfigProblem({ [key]: '9223372036854775807' }), key).to.equal(null);
      expect(dynamicBrokerConfigProblem({ [key]: '9223372036854775808' }), key).to.deep.include({ key });
    }
    expect(parseBrokerConfig({ 'leader.replication.throttled.rate': '9223372036854775807' }).leaderReplicationThrottledRate).to.equal(UNLIMITED_RATE);
    expect(parseBrokerConfig({ 'follower.replication.throttled.rate': 9223372036854775807 }).followerReplicationThrottledRate).to.equal(UNLIMITED_RATE);
    expect(parseBrokerConfig({ 'replica.alter.log.dirs.io.max.bytes.per.second': String(UNLIMITED_RATE) }).replicaAlterLogDirsIoMaxBytesPerSecond).to.equal(UNLIMITED_RATE);
    // other integer keys keep their safe-integer bound
    expect(() => parseBrokerConfig({ 'replica.lag.time.max.ms': '9223372036854775807' })).to.throw(ConfigError);
  });

  const bad: [Record<string, unknown>, string][] = [
    [{ 'auto.create.topics.enable': 'yes' }, 'auto.create.topics.enable'],
    [{ 'auto.create.topics.enable': 1 }, 'auto.create.topics.enable'],
    [{ 'socket.request.max.bytes': 0 }, 'socket.request.max.bytes'],
    [{ 'socket.request.max.bytes': 'lots' }, 'socket.request.max.bytes'],
    [{ 'no.such.key': 1 }, 'no.such.key'],
    [{ 'log.retention.ms': 'soon' }, 'log.retention.ms'],
    [{ 'compression.type': 'brotli' }, 'compression.type'],
    [{ 'compression.type': 3 }, 'compression.type'],
    [{ 'log.cleaner.backoff.ms': 0 }, 'log.cleaner.backoff.ms'],
    [{ 'log.cleaner.dedupe.buffer.size': 1024 }, 'log.cleaner.dedupe.buffer.size'],
    [{ 'log.cleaner.enable': 'on' }, 'log.cleaner.enable'],
    [{ 'log.cleanup.policy': 'archive' }, 'log.cleanup.policy'],
    [{ 'log.cleaner.min.cleanable.ratio': 2 }, 'log.cleaner.min.cleanable.ratio'],
    [{ 'replica.alter.log.dirs.io.max.bytes.per.second': -1 }, 'replica.alter.log.dirs.io.max.bytes.per.second'],
    [{ 'replica.alter.log.dirs.io.max.bytes.per.second': '1.5' }, 'replica.alter.log.dirs.io.max.bytes.per.second'],
    // Kafka's GroupCoordinatorConfig rules on the consumer group session timeout and heartbeat interval
    [{ 'group.consumer.session.timeout.ms': 1_500 }, 'group.consumer.session.timeout.ms'],
    [{ 'group.consumer.session.timeout.ms': 60_001 }, 'group.consumer.session.timeout.ms'],
    [{ 'group.consumer.heartbeat.interval.ms': 100 }, 'group.consumer.heartbeat.interval.ms'],
    [{ 'group.consumer.heartbeat.interval.ms': 15_001 }, 'group.consumer.heartbeat.interval.ms'],
    [{ 'group.consumer.min.session.timeout.ms': 50_000, 'group.consumer.session.timeout.ms': 50_000, 'group.consumer.max.session.timeout.ms': 49_000 }, 'group.consumer.max.session.timeout.ms'],
    [{ 'group.consumer.min.heartbeat.interval.ms': 9_000, 'group.consumer.heartbeat.interval.ms': 9_000, 'group.consumer.max.heartbeat.interval.ms': 8_000 }, 'group.consumer.max.heartbeat.interval.ms'],
    [{ 'group.consumer.min.session.timeout.ms': 1_000, 'group.consumer.session.timeout.ms': 5_000, 'group.consumer.heartbeat.interval.ms': 5_000 }, 'group.consumer.heartbeat.interval.ms'],
    // and on the share group ones (group.share.*), with ShareGroupConfig's on the record lock duration and its ranges
    [{ 'group.share.session.timeout.ms': 44_999 }, 'group.share.session.timeout.ms'],
    [{ 'group.share.session.timeout.ms': 60_001 }, 'group.share.session.timeout.ms'],
    [{ 'group.share.heartbeat.interval.ms': 4_999 }, 'group.share.heartbeat.interval.ms'],
    [{ 'group.share.heartbeat.interval.ms': 15_001 }, 'group.share.heartbeat.interval.ms'],
    [{ 'group.share.min.session.timeout.ms': 50_000, 'group.share.session.timeout.ms': 50_000, 'group.share.max.session.timeout.ms': 49_000 }, 'group.share.max.session.timeout.ms'],
    [{ 'group.share.min.heartbeat.interval.ms': 9_000, 'group.share.heartbeat.interval.ms': 9_000, 'group.share.max.heartbeat.interval.ms': 8_000 }, 'group.share.max.heartbeat.interval.ms'],
    [{ 'group.share.min.session.timeout.ms': 1_000, 'group.share.session.timeout.ms': 5_000, 'group.share.heartbeat.interval.ms': 5_000 }, 'group.share.heartbeat.interval.ms'],
    [{ 'group.share.record.lock.duration.ms': 14_999 }, 'group.share.record.lock.duration.ms'],
    [{ 'group.share.record.lock.duration.ms': 60_001 }, 'group.share.max.record.lock.duration.ms'],
    [{ 'group.share.record.lock.duration.ms': 3_600_001, 'group.share.max.record.lock.duration.ms': 3_600_001 }, 'group.share.record.lock.duration.ms'],
    [{ 'group.share.min.record.lock.duration.ms': 30_001 }, 'group.share.min.record.lock.duration.ms'],
    [{ 'group.share.max.record.lock.duration.ms': 29_999 }, 'group.share.max.record.lock.duration.ms'],
    [{ 'group.share.delivery.count.limit': 11 }, 'group.share.delivery.count.limit'],
    [{ 'group.share.delivery.count.limit': 1 }, 'group.share.delivery.count.limit'],
    [{ 'group.share.partition.max.record.locks': 10_001 }, 'group.share.partition.max.record.locks'],
    [{ 'group.share.partition.max.record.locks': 99 }, 'group.share.partition.max.record.locks'],
  ];

  it("takes the bounds of the consumer groups' session timeouts and heartbeat intervals (Kafka's defaults 45-60 s, 5-15 s), and values within them", () => {
    const d = parseBrokerConfig({});
    expect([d.groupConsumerMinSessionTimeoutMs, d.groupConsumerMaxSessionTimeoutMs, d.groupConsumerMinHeartbeatIntervalMs, d.groupConsumerMaxHeartbeatIntervalMs]).to.deep.equal([45_000, 60_000, 5_000, 15_000]);
    const c = parseBrokerConfig({ 'group.consumer.min.session.timeout.ms': 1_000, 'group.consumer.session.timeout.ms': 1_500, 'group.consumer.min.heartbeat.interval.ms': 100, 'group.consumer.heartbeat.interval.ms': 100 });
    expect([c.groupConsumerSessionTimeoutMs, c.groupConsumerHeartbeatIntervalMs]).to.deep.equal([1_500, 100]);
  });
  it("takes the share groups' group.share.* settings (Kafka's defaults), and values within their bounds; shareGroupBoundsOf gives them", () => {
    expect(shareGroupBoundsOf(parseBrokerConfig({}))).to.deep.equal(DEFAULT_SHARE_GROUP_BOUNDS);
    const c = parseBrokerConfig({
      'group.share.min.session.timeout.ms': 1_000,
      'group.share.session.timeout.ms': 1_500,
      'group.share.min.heartbeat.interval.ms': 100,
      'group.share.heartbeat.interval.ms': 100,
      'group.share.min.record.lock.duration.ms': 1_000,
      'group.share.record.lock.duration.ms': 1_000,
      'group.share.delivery.count.limit': 10,
      'group.share.partition.max.record.locks': 10_000,
    });
    expect(shareGroupBoundsOf(c)).to.deep.include({ sessionTimeoutMs: 1_500, heartbeatIntervalMs: 100, recordLockDurationMs: 1_000, minRecordLockDurationMs: 1_000, deliveryCountLimit: 10, partitionMaxRecordLocks: 10_000 });
    expect(() => parseBrokerConfig({ 'group.share.record.lock.duration.ms': 1_000 })).to.throw(ConfigError, /group\.share\.record\.lock\.duration\.ms: must be greater than or equal to group\.share\.min\.record\.lock\.duration\.ms/);
    expect(() => parseBrokerConfig({ 'group.share.delivery.count.limit': 11 })).to.throw(ConfigError, /11 is not valid: must be <= 10/);
  });
  for (const [input, key] of bad) {
    it(`refuses ${JSON.stringify(input)} naming ${key}`, () => {
      try {
        parseBrokerConfig(input);
        expect.fail('accepted');
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        expect((err as ConfigError).key).to.equal(key);
      }
    });
  }
});
