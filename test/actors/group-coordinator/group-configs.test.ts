/**
 * The group config keys and their parsers (actors/group-coordinator/group-configs.ts): Kafka's
 * keys in its order, ISO-8601 durations as Java's Duration.parse reads them, share.auto.offset.reset
 * (latest, earliest, by_duration with its milliseconds) and share.isolation.level as Kafka reads
 * them, and a share group's settings (share-group-settings.ts) carrying them over the defaults.
 */
import { expect } from 'chai';
import { GROUP_CONFIG_DEFS, GROUP_CONFIG_KEYS, parseIsoDurationMs, parseShareAutoOffsetReset, parseShareIsolationLevel } from '../../../actors/group-coordinator/group-configs.js';
import { DEFAULT_SHARE_GROUP_DEFAULTS, shareGroupSettings } from '../../../actors/share-partition/share-group-settings.js';

describe('actors/group-coordinator/group-configs', () => {
  it("has Kafka's group keys, consumer then share, in the order of Kafka's GroupConfig, with their types and where their defaults come from", () => {
    expect(GROUP_CONFIG_KEYS).to.deep.equal([
      'consumer.session.timeout.ms',
      'consumer.heartbeat.interval.ms',
      'share.session.timeout.ms',
      'share.heartbeat.interval.ms',
      'share.record.lock.duration.ms',
      'share.delivery.count.limit',
      'share.partition.max.record.locks',
      'share.auto.offset.reset',
      'share.isolation.level',
    ]);
    expect(Object.entries(GROUP_CONFIG_DEFS).map(([k, d]) => [k, d.type, d.brokerKey, d.default])).to.deep.equal([
      ['consumer.session.timeout.ms', 'INT', 'group.consumer.session.timeout.ms', '45000'],
      ['consumer.heartbeat.interval.ms', 'INT', 'group.consumer.heartbeat.interval.ms', '5000'],
      ['share.session.timeout.ms', 'INT', 'group.share.session.timeout.ms', '45000'],
      ['share.heartbeat.interval.ms', 'INT', 'group.share.heartbeat.interval.ms', '5000'],
      ['share.record.lock.duration.ms', 'INT', 'group.share.record.lock.duration.ms', '30000'],
      ['share.delivery.count.limit', 'INT', 'group.share.delivery.count.limit', '5'],
      ['share.partition.max.record.locks', 'INT', 'group.share.partition.max.record.locks', '2000'],
      ['share.auto.offset.reset', 'STRING', null, 'latest'],
      ['share.isolation.level', 'STRING', null, 'read_uncommitted'],
    ]);
  });

  it("reads ISO-8601 durations as Java's Duration.parse: days, hours, minutes, seconds with a fraction, each signed, in milliseconds", () => {
    const cases: [string, number][] = [
      ['PT1H', 3_600_000],
      ['P2D', 172_800_000],
      ['P1DT2H3M4.5S', 93_784_500],
      ['PT0.0005S', 0.5],
      ['pt0,5s', 500],
      ['PT1.S', 1_000],
      ['PT0S', 0],
      ['+PT10M', 600_000],
      ['-PT1H', -3_600_000],
      ['PT1H-30M', 1_800_000],
      ['PT-0.5S', -500],
      ['-PT-1S', 1_000],
      ['P-1DT24H', 0],
    ];
    for (const [text, ms] of cases) expect(parseIsoDurationMs(text), text).to.equal(ms);
    for (const text of ['', 'P', 'PT', 'P1H', 'PT1D', '1H', 'PT.5S', 'PT1.1234567891S', 'P1W', 'P1Y', 'PT1H ', ' PT1H', 'PT9223372036854775808S', 'P106751991167301D']) {
      expect(parseIsoDurationMs(text), text).to.equal(null);
    }
    // the largest a Duration holds still parses
    expect(parseIsoDurationMs('PT9223372036854775807S')).to.be.greaterThan(9e21);
  });

  it('reads share.auto.offset.reset as Kafka (trimmed, case-sensitive): latest, earliest, by_duration with a duration not negative (its milliseconds, rounded up)', () => {
    expect(parseShareAutoOffsetReset('latest')).to.equal('latest');
    expect(parseShareAutoOffsetReset(' earliest ')).to.equal('earliest');
    expect(parseShareAutoOffsetReset('by_duration:PT1H')).to.deep.equal({ byDurationMs: 3_600_000 });
    expect(parseShareAutoOffsetReset('by_duration:P1DT0.25S')).to.deep.equal({ byDurationMs: 86_400_250 });
    expect(parseShareAutoOffsetReset('by_duration:PT0.0001S')).to.deep.equal({ byDurationMs: 1 });
    expect(parseShareAutoOffsetReset('by_duration:-PT0S')).to.deep.equal({ byDurationMs: 0 });
    for (const v of ['none', 'LATEST', 'by_duration', 'by_duration:', 'by_duration:-PT1S', 'by_duration:PT-0.001S', 'By_duration:PT1H', 'by_duration: PT1H', 'earliest,latest']) {
      expect(parseShareAutoOffsetReset(v), v).to.equal(null);
    }
    expect(parseShareIsolationLevel(' read_committed')).to.equal('read_committed');
    expect(parseShareIsolationLevel('read_uncommitted')).to.equal('read_uncommitted');
    expect(parseShareIsolationLevel('READ_COMMITTED')).to.equal(null);
  });

  it("gives a share group's settings its own share.auto.offset.reset (by_duration's milliseconds too) and share.isolation.level over the defaults", () => {
    const d = { ...DEFAULT_SHARE_GROUP_DEFAULTS, recordLockDurationMs: 20_000 };
    expect(shareGroupSettings(undefined, d)).to.deep.include({ autoOffsetReset: 'latest', isolationLevel: 'read_uncommitted', recordLockDurationMs: 20_000 });
    expect(shareGroupSettings({ 'share.auto.offset.reset': 'earliest' }, d).autoOffsetReset).to.equal('earliest');
    const byDuration = shareGroupSettings({ 'share.auto.offset.reset': 'by_duration:PT30M', 'share.isolation.level': 'read_committed', 'share.record.lock.duration.ms': '45000' }, d);
    expect(byDuration).to.deep.include({ autoOffsetReset: { byDurationMs: 1_800_000 }, isolationLevel: 'read_committed', recordLockDurationMs: 45_000 });
    expect(byDuration.limits.lockDurationMs).to.equal(45_000);
    // a value that does not parse (the controller refuses those) falls back to the default
    expect(shareGroupSettings({ 'share.auto.offset.reset': 'EARLIEST', 'share.isolation.level': 'committed' }, d)).to.deep.include({ autoOffsetReset: 'latest', isolationLevel: 'read_uncommitted' });
  });
});
