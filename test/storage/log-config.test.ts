import { expect } from 'chai';
import { ConfigError, DEFAULT_LOG_CONFIG, KAFKA_LONG_MAX, LOG_CONFIG_KEYS, deletesByRetention, isCompacted, logConfigToKafka, parseLogConfig } from '../../src/storage/log-config.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('storage/log-config', () => {
  it("has Kafka's defaults", () => {
    const c = parseLogConfig();
    expect(c.segmentBytes).to.equal(1073741824);
    expect(c.segmentMs).to.equal(604800000);
    expect(c.segmentIndexBytes).to.equal(10485760);
    expect(c.indexIntervalBytes).to.equal(4096);
    expect(c.retentionMs).to.equal(604800000);
    expect(c.retentionBytes).to.equal(Infinity);
    expect(c.flushMessages).to.equal(Infinity);
    expect(c.flushMs).to.equal(Infinity);
    expect(c.messageTimestampType).to.equal('CreateTime');
    expect(c.maxMessageBytes).to.equal(1048588);
    expect(c).to.deep.equal(DEFAULT_LOG_CONFIG);
  });

  it('parses every key from numbers and numeric strings', () => {
    const c = parseLogConfig({
      'segment.bytes': '1048576',
      'segment.ms': 60000,
      'segment.index.bytes': 4096,
      'index.interval.bytes': '0',
      'retention.ms': '3600000',
      'retention.bytes': 1 << 30,
      'flush.messages': '1',
      'flush.ms': 1000,
      'message.timestamp.type': 'LogAppendTime',
      'max.message.bytes': '2000000',
      'cleanup.policy': 'compact',
      'delete.retention.ms': '1000',
      'min.cleanable.dirty.ratio': '0.25',
      'min.compaction.lag.ms': 5000,
      'max.compaction.lag.ms': '600000',
    });
    expect(c).to.deep.equal({
      segmentBytes: 1048576,
      segmentMs: 60000,
      segmentIndexBytes: 4096,
      indexIntervalBytes: 0,
      retentionMs: 3600000,
      retentionBytes: 1 << 30,
      flushMessages: 1,
      flushMs: 1000,
      messageTimestampType: 'LogAppendTime',
      maxMessageBytes: 2000000,
      cleanupPolicy: 'compact',
      deleteRetentionMs: 1000,
      minCleanableDirtyRatio: 0.25,
      minCompactionLagMs: 5000,
      maxCompactionLagMs: 600000,
    });
  });

  it("reads cleanup.policy as Kafka's list, in any order and case, as one spelling", () => {
    expect(parseLogConfig({}).cleanupPolicy).to.equal('delete');
    expect(parseLogConfig({ 'cleanup.policy': 'Delete, compact' }).cleanupPolicy).to.equal('compact,delete');
    expect(parseLogConfig({ 'cleanup.policy': 'compact,delete' }).cleanupPolicy).to.equal('compact,delete');
    expect(parseLogConfig({ 'cleanup.policy': ['compact'] }).cleanupPolicy).to.equal('compact');
    expect(deletesByRetention(parseLogConfig({ 'cleanup.policy': 'compact' }))).to.equal(false);
    expect(isCompacted(parseLogConfig({ 'cleanup.policy': 'compact' }))).to.equal(true);
    expect(deletesByRetention(parseLogConfig({ 'cleanup.policy': 'delete,compact' }))).to.equal(true);
    expect(isCompacted(parseLogConfig({ 'cleanup.policy': 'delete,compact' }))).to.equal(true);
    expect(isCompacted(parseLogConfig({}))).to.equal(false);
  });

  it('reads -1 retention as infinite and Long.MAX_VALUE as never', () => {
    const c = parseLogConfig({ 'retention.ms': -1, 'retention.bytes': '-1', 'flush.messages': KAFKA_LONG_MAX, 'flush.ms': BigInt(KAFKA_LONG_MAX) });
    expect(c.retentionMs).to.equal(Infinity);
    expect(c.retentionBytes).to.equal(Infinity);
    expect(c.flushMessages).to.equal(Infinity);
    expect(c.flushMs).to.equal(Infinity);
  });

  it('layers overrides over a base config', () => {
    const base = parseLogConfig({ 'segment.bytes': 4096 });
    const c = parseLogConfig({ 'retention.ms': 10 }, base);
    expect(c.segmentBytes).to.equal(4096);
    expect(c.retentionMs).to.equal(10);
  });

  it('rejects an unknown key, naming it', () => {
    const err = configError(() => parseLogConfig({ 'segment.byte': 10 }));
    expect(err.key).to.equal('segment.byte');
    expect(err.message).to.contain('segment.byte').and.contain('unknown');
  });

  const bad: [string, unknown][] = [
    ['segment.bytes', 13],
    ['segment.bytes', 2 ** 31],
    ['segment.bytes', 'big'],
    ['segment.bytes', 1.5],
    ['segment.ms', 0],
    ['segment.index.bytes', 4],
    ['index.interval.bytes', -1],
    ['retention.ms', -2],
    ['retention.bytes', -5],
    ['flush.messages', 0],
    ['flush.ms', -1],
    ['message.timestamp.type', 'WallClock'],
    ['max.message.bytes', -1],
    ['max.message.bytes', null],
    ['cleanup.policy', ''],
    ['cleanup.policy', 'compact,compact'],
    ['cleanup.policy', 'shred'],
    ['cleanup.policy', 7],
    ['delete.retention.ms', -1],
    ['min.cleanable.dirty.ratio', 1.5],
    ['min.cleanable.dirty.ratio', '-0.1'],
    ['min.cleanable.dirty.ratio', 'half'],
    ['min.compaction.lag.ms', -1],
    ['max.compaction.lag.ms', 0],
  ];
  for (const [key, value] of bad) {
    it(`rejects ${key}=${String(value)}, naming the key`, () => {
      const err = configError(() => parseLogConfig({ [key]: value }));
      expect(err.key).to.equal(key);
      expect(err.message.startsWith(`${key}: `)).to.equal(true);
    });
  }

  it('round-trips through Kafka key/value form', () => {
    const c = parseLogConfig({ 'retention.ms': -1, 'flush.ms': 5, 'message.timestamp.type': 'LogAppendTime', 'cleanup.policy': 'delete,compact', 'min.cleanable.dirty.ratio': 0.1 });
    const kv = logConfigToKafka(c);
    expect(Object.keys(kv).sort()).to.deep.equal([...LOG_CONFIG_KEYS].sort());
    expect(kv['retention.ms']).to.equal('-1');
    expect(kv['flush.messages']).to.equal(KAFKA_LONG_MAX);
    expect(parseLogConfig(kv)).to.deep.equal(c);
  });
});
