/**
 * Group configs in the controller (group-config-changes.ts, AlterGroupConfigs and the GroupConfig
 * records): set and delete per group over what is there, Kafka's checks against the controller's
 * consumer and share group settings (every share.* key taken and refused with Kafka's messages),
 * refusals per group, validateOnly, snapshots, durability across a restart, and the metadata the
 * brokers get.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { groupConfigChanges } from '../../../actors/controller/group-config-changes.js';
import { MetadataRecordError, applyRecord, emptyMetadata, toClusterMetadata } from '../../../actors/controller/metadata-state.js';
import { fromImage, toImage } from '../../../actors/controller/metadata-snapshot.js';
import { DEFAULT_CONSUMER_GROUP_TIMEOUTS, DEFAULT_SHARE_GROUP_BOUNDS } from '../../../actors/group-coordinator/group-configs.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ControllerHarness } from './harness.js';

const BOUNDS = DEFAULT_CONSUMER_GROUP_TIMEOUTS;

describe('actors/controller: group configs', () => {
  describe('records', () => {
    it("GroupConfig replaces a group's map; an empty map removes it; the metadata and snapshots carry them", () => {
      const s1 = applyRecord(emptyMetadata(), { type: 'GroupConfig', group: 'g1', config: { 'consumer.session.timeout.ms': '50000' } });
      const s2 = applyRecord(s1, { type: 'GroupConfig', group: 'g2', config: { 'consumer.heartbeat.interval.ms': '6000' } });
      expect(toClusterMetadata(s2, 'n').groupConfigs).to.deep.equal({ g1: { 'consumer.session.timeout.ms': '50000' }, g2: { 'consumer.heartbeat.interval.ms': '6000' } });
      expect(toClusterMetadata(fromImage(toImage(s2)), 'n').groupConfigs).to.deep.equal(toClusterMetadata(s2, 'n').groupConfigs);
      const s3 = applyRecord(s2, { type: 'GroupConfig', group: 'g1', config: {} });
      expect(toClusterMetadata(s3, 'n').groupConfigs).to.deep.equal({ g2: { 'consumer.heartbeat.interval.ms': '6000' } });
      expect(() => applyRecord(s3, { type: 'GroupConfig', group: '', config: {} })).to.throw(MetadataRecordError, /group id/);
    });

    it('reads a snapshot image written before group configs were kept', () => {
      const image = toImage(emptyMetadata()) as Partial<ReturnType<typeof toImage>>;
      delete image.groupConfigs;
      expect(fromImage(image as ReturnType<typeof toImage>).groupConfigs.size).to.equal(0);
    });
  });

  describe('changes (pure)', () => {
    it('sets and deletes keys over what is there; no record when nothing changes', () => {
      const state = applyRecord(emptyMetadata(), { type: 'GroupConfig', group: 'g', config: { 'consumer.session.timeout.ms': '50000', 'consumer.heartbeat.interval.ms': '6000' } });
      const r = groupConfigChanges(state, [{ group: 'g', set: { 'consumer.session.timeout.ms': '55000' }, delete: ['consumer.heartbeat.interval.ms'] }, { group: 'other', delete: ['consumer.session.timeout.ms'] }], BOUNDS);
      expect(r.results.map((x) => x.errorCode)).to.deep.equal([0, 0]);
      expect(r.records).to.deep.equal([{ type: 'GroupConfig', group: 'g', config: { 'consumer.session.timeout.ms': '55000' } }]);
      const all = groupConfigChanges(state, [{ group: 'g', delete: ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms'] }], BOUNDS);
      expect(all.records).to.deep.equal([{ type: 'GroupConfig', group: 'g', config: {} }]);
    });

    const refusals: [string, unknown, number, RegExp][] = [
      ['a group without a name', { set: {} }, ErrorCode.INVALID_REQUEST, /Group name must not be empty/],
      ['an empty group name', { group: '', set: {} }, ErrorCode.INVALID_REQUEST, /Group name must not be empty/],
      ['an unknown key', { group: 'g', set: { 'streams.session.timeout.ms': '50000' } }, ErrorCode.INVALID_CONFIG, /Unknown group config name: streams.session.timeout.ms/],
      ['a value that is not an integer', { group: 'g', set: { 'consumer.session.timeout.ms': 'soon' } }, ErrorCode.INVALID_CONFIG, /Invalid value "soon" for configuration consumer.session.timeout.ms/],
      ['a value below 1', { group: 'g', set: { 'consumer.heartbeat.interval.ms': '0' } }, ErrorCode.INVALID_CONFIG, /at least 1/],
      ['a session timeout below group.consumer.min.session.timeout.ms', { group: 'g', set: { 'consumer.session.timeout.ms': '44999' } }, ErrorCode.INVALID_CONFIG, /consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms/],
      ['a session timeout above group.consumer.max.session.timeout.ms', { group: 'g', set: { 'consumer.session.timeout.ms': '60001' } }, ErrorCode.INVALID_CONFIG, /less than or equal to group.consumer.max.session.timeout.ms/],
      ['a heartbeat interval below group.consumer.min.heartbeat.interval.ms', { group: 'g', set: { 'consumer.heartbeat.interval.ms': '4999' } }, ErrorCode.INVALID_CONFIG, /greater than or equal to group.consumer.min.heartbeat.interval.ms/],
      ['a heartbeat interval above group.consumer.max.heartbeat.interval.ms', { group: 'g', set: { 'consumer.heartbeat.interval.ms': '15001' } }, ErrorCode.INVALID_CONFIG, /less than or equal to group.consumer.max.heartbeat.interval.ms/],
      ['a value that is not a string', { group: 'g', set: { 'consumer.session.timeout.ms': 50000 } }, ErrorCode.INVALID_REQUEST, /strings/],
    ];
    for (const [what, group, code, why] of refusals) {
      it(`refuses ${what}, alone`, () => {
        const r = groupConfigChanges(emptyMetadata(), [group, { group: 'fine', set: { 'consumer.session.timeout.ms': '50000' } }], BOUNDS);
        expect(r.results[0]!.errorCode).to.equal(code);
        expect(r.results[0]!.errorMessage).to.match(why);
        expect(r.results[1]!.errorCode).to.equal(0);
        expect(r.records).to.deep.equal([{ type: 'GroupConfig', group: 'fine', config: { 'consumer.session.timeout.ms': '50000' } }]);
      });
    }

    describe('share group keys (share.*: Kafka 4.2 GroupConfig, with 4.3\'s delivery count limit and record locks)', () => {
      const one = (key: string, value: string, shareBounds = DEFAULT_SHARE_GROUP_BOUNDS) => groupConfigChanges(emptyMetadata(), [{ group: 'g', set: { [key]: value } }], BOUNDS, shareBounds).results[0]!;
      const taken: [string, string][] = [
        ['share.session.timeout.ms', '45000'],
        ['share.session.timeout.ms', '60000'],
        ['share.heartbeat.interval.ms', '5000'],
        ['share.heartbeat.interval.ms', '15000'],
        ['share.record.lock.duration.ms', '15000'],
        ['share.record.lock.duration.ms', ' 60000 '],
        ['share.auto.offset.reset', 'latest'],
        ['share.auto.offset.reset', 'earliest'],
        ['share.auto.offset.reset', ' earliest '],
        ['share.auto.offset.reset', 'by_duration:PT1H'],
        ['share.auto.offset.reset', 'by_duration:P1DT2H3M4.5S'],
        ['share.auto.offset.reset', 'by_duration:pt0,5s'],
        ['share.auto.offset.reset', 'by_duration:PT0S'],
        ['share.auto.offset.reset', 'by_duration:-PT0S'],
        ['share.auto.offset.reset', 'by_duration:PT1H-30M'],
        ['share.isolation.level', 'read_uncommitted'],
        ['share.isolation.level', 'read_committed'],
        ['share.delivery.count.limit', '2'],
        ['share.delivery.count.limit', '10'],
        ['share.partition.max.record.locks', '100'],
        ['share.partition.max.record.locks', '10000'],
      ];
      for (const [key, value] of taken) {
        it(`takes ${key}=${JSON.stringify(value)}`, () => {
          expect(one(key, value)).to.deep.equal({ group: 'g', errorCode: ErrorCode.NONE, errorMessage: null });
        });
      }

      const reset = (v: string) =>
        `Invalid value ${JSON.stringify(v)} for configuration share.auto.offset.reset: Invalid value \`${v.trim()}\` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`;
      const refused: [string, string, string][] = [
        ['share.session.timeout.ms', '0', 'Invalid value "0" for configuration share.session.timeout.ms: Value must be at least 1'],
        ['share.session.timeout.ms', 'soon', 'Invalid value "soon" for configuration share.session.timeout.ms: Not a number of type INT'],
        ['share.session.timeout.ms', '2147483648', 'Invalid value "2147483648" for configuration share.session.timeout.ms: Not a number of type INT'],
        ['share.session.timeout.ms', '44999', 'share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms (45000)'],
        ['share.session.timeout.ms', '60001', 'share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms (60000)'],
        ['share.heartbeat.interval.ms', '-1', 'Invalid value "-1" for configuration share.heartbeat.interval.ms: Value must be at least 1'],
        ['share.heartbeat.interval.ms', '1.5', 'Invalid value "1.5" for configuration share.heartbeat.interval.ms: Not a number of type INT'],
        ['share.heartbeat.interval.ms', '4999', 'share.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms (5000)'],
        ['share.heartbeat.interval.ms', '15001', 'share.heartbeat.interval.ms must be less than or equal to group.share.max.heartbeat.interval.ms (15000)'],
        ['share.record.lock.duration.ms', '999', 'Invalid value "999" for configuration share.record.lock.duration.ms: Value must be at least 1000'],
        ['share.record.lock.duration.ms', '14999', 'share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms (15000)'],
        ['share.record.lock.duration.ms', '60001', 'share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms (60000)'],
        ['share.delivery.count.limit', '1', 'Invalid value "1" for configuration share.delivery.count.limit: Value must be at least 2'],
        ['share.delivery.count.limit', '11', 'share.delivery.count.limit must be less than or equal to 10'],
        ['share.partition.max.record.locks', '99', 'Invalid value "99" for configuration share.partition.max.record.locks: Value must be at least 100'],
        ['share.partition.max.record.locks', '10001', 'share.partition.max.record.locks must be less than or equal to 10000'],
        ['share.isolation.level', 'READ_COMMITTED', 'Invalid value "READ_COMMITTED" for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted'],
        ['share.isolation.level', 'committed', 'Invalid value "committed" for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted'],
        ...['none', 'LATEST', 'Earliest', '', 'by_duration', 'by_duration:', 'by_duration:-PT1H', 'by_duration:PT-1S', 'by_duration:PT', 'by_duration:P', 'by_duration:P1H', 'by_duration:1H', 'BY_DURATION:PT1H', 'by_duration: PT1H', 'by_duration:PT1.1234567891S', 'by_duration:PT9223372036854775808S', 'by_duration:P106751991167301D'].map(
          (v): [string, string, string] => ['share.auto.offset.reset', v, reset(v)],
        ),
      ];
      for (const [key, value, message] of refused) {
        it(`refuses ${key}=${JSON.stringify(value)} with Kafka's message`, () => {
          expect(one(key, value)).to.deep.equal({ group: 'g', errorCode: ErrorCode.INVALID_CONFIG, errorMessage: message });
        });
      }

      it("checks the share heartbeat below the share session timeout with the group's values laid over the defaults", () => {
        const wide = { ...DEFAULT_SHARE_GROUP_BOUNDS, minSessionTimeoutMs: 1_000, maxHeartbeatIntervalMs: 30_000 };
        expect(one('share.heartbeat.interval.ms', '30000', wide).errorCode).to.equal(ErrorCode.NONE);
        const state = applyRecord(emptyMetadata(), { type: 'GroupConfig', group: 'g', config: { 'share.heartbeat.interval.ms': '20000' } });
        const r = groupConfigChanges(state, [{ group: 'g', set: { 'share.session.timeout.ms': '20000' } }], BOUNDS, wide);
        expect(r.results[0]).to.deep.include({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'share.session.timeout.ms must be greater than share.heartbeat.interval.ms' });
        expect(r.records).to.deep.equal([]);
        expect(groupConfigChanges(state, [{ group: 'g', set: { 'share.session.timeout.ms': '20001' } }], BOUNDS, wide).results[0]!.errorCode).to.equal(ErrorCode.NONE);
      });

      it("checks against the share bounds given (the controller's group.share.*), not Kafka's defaults", () => {
        const low = { ...DEFAULT_SHARE_GROUP_BOUNDS, minSessionTimeoutMs: 1_000, minHeartbeatIntervalMs: 100, heartbeatIntervalMs: 500, minRecordLockDurationMs: 1_000, maxRecordLockDurationMs: 30_000 };
        expect(one('share.session.timeout.ms', '2000', low).errorCode).to.equal(ErrorCode.NONE);
        expect(one('share.heartbeat.interval.ms', '100', low).errorCode).to.equal(ErrorCode.NONE);
        expect(one('share.record.lock.duration.ms', '1000', low).errorCode).to.equal(ErrorCode.NONE);
        expect(one('share.record.lock.duration.ms', '30001', low).errorMessage).to.equal('share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms (30000)');
        expect(one('share.session.timeout.ms', '999', low).errorMessage).to.equal('share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms (1000)');
      });

      it('takes consumer and share keys together and keeps a share group\'s keys when others change; the first bad value names its key', () => {
        const both = { 'consumer.session.timeout.ms': '50000', 'share.auto.offset.reset': 'earliest', 'share.isolation.level': 'read_committed', 'share.delivery.count.limit': '3' };
        const r = groupConfigChanges(emptyMetadata(), [{ group: 'g', set: both }], BOUNDS, DEFAULT_SHARE_GROUP_BOUNDS);
        expect(r.records).to.deep.equal([{ type: 'GroupConfig', group: 'g', config: both }]);
        const state = applyRecord(emptyMetadata(), r.records[0]!);
        const next = groupConfigChanges(state, [{ group: 'g', set: { 'share.record.lock.duration.ms': '20000' }, delete: ['share.isolation.level'] }], BOUNDS, DEFAULT_SHARE_GROUP_BOUNDS);
        expect(next.records).to.deep.equal([{ type: 'GroupConfig', group: 'g', config: { 'consumer.session.timeout.ms': '50000', 'share.auto.offset.reset': 'earliest', 'share.delivery.count.limit': '3', 'share.record.lock.duration.ms': '20000' } }]);
        // values are checked in Kafka's order of the keys, whatever the order given
        const bad = groupConfigChanges(emptyMetadata(), [{ group: 'g', set: { 'share.isolation.level': 'x', 'share.session.timeout.ms': 'y' } }], BOUNDS, DEFAULT_SHARE_GROUP_BOUNDS);
        expect(bad.results[0]!.errorMessage).to.match(/^Invalid value "y" for configuration share\.session\.timeout\.ms/);
      });
    });

    it("checks the heartbeat below the session timeout with the group's values laid over the defaults", () => {
      const wide = { ...BOUNDS, minSessionTimeoutMs: 1_000, maxHeartbeatIntervalMs: 30_000 };
      // the heartbeat alone against the default session timeout (45 s)
      expect(groupConfigChanges(emptyMetadata(), [{ group: 'g', set: { 'consumer.heartbeat.interval.ms': '30000' } }], wide).results[0]!.errorCode).to.equal(0);
      const state = applyRecord(emptyMetadata(), { type: 'GroupConfig', group: 'g', config: { 'consumer.heartbeat.interval.ms': '20000' } });
      // a session timeout at or below the group's own heartbeat interval is refused
      const r = groupConfigChanges(state, [{ group: 'g', set: { 'consumer.session.timeout.ms': '20000' } }], wide);
      expect(r.results[0]).to.deep.include({ errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms' });
      expect(r.records).to.deep.equal([]);
      expect(groupConfigChanges(state, [{ group: 'g', set: { 'consumer.session.timeout.ms': '20001' } }], wide).results[0]!.errorCode).to.equal(0);
    });

    it('refuses a group named twice (the second)', () => {
      const r = groupConfigChanges(emptyMetadata(), [{ group: 'g', set: { 'consumer.session.timeout.ms': '50000' } }, { group: 'g', set: { 'consumer.session.timeout.ms': '55000' } }], BOUNDS);
      expect(r.results.map((x) => x.errorCode)).to.deep.equal([0, ErrorCode.INVALID_REQUEST]);
      expect(r.records).to.have.length(1);
    });
  });

  describe('handler', () => {
    let h: ControllerHarness;
    let dir: string | null = null;
    afterEach(async () => {
      await h?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = null;
    });

    it('commits, tells the brokers, survives a restart; validateOnly changes nothing', async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-group-configs-'));
      h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
      h.clearInboxes();
      const dry = await h.ask<'AlterGroupConfigsResponse'>({ type: 'AlterGroupConfigs', groups: [{ group: 'g', set: { 'consumer.session.timeout.ms': '50000' } }], validateOnly: true });
      expect(dry.groups).to.deep.equal([{ group: 'g', errorCode: 0, errorMessage: null }]);
      expect((await h.metadata()).groupConfigs).to.deep.equal({});
      const r = await h.ask<'AlterGroupConfigsResponse'>({ type: 'AlterGroupConfigs', groups: [{ group: 'g', set: { 'consumer.session.timeout.ms': '50000' } }, { group: 'h', set: { 'consumer.session.timeout.ms': '1' } }] });
      expect(r.groups.map((x) => x.errorCode)).to.deep.equal([0, ErrorCode.INVALID_CONFIG]);
      await h.settle();
      for (const id of [1, 2]) expect(h.received(id, 'UpdateMetadataRequest').at(-1)?.metadata.groupConfigs).to.deep.equal({ g: { 'consumer.session.timeout.ms': '50000' } });
      await h.restartController();
      expect((await h.metadata()).groupConfigs).to.deep.equal({ g: { 'consumer.session.timeout.ms': '50000' } });
    });

    it("checks share keys against the controller's own group.share.* bounds", async () => {
      const config = { 'group.share.min.session.timeout.ms': 1_000, 'group.share.min.heartbeat.interval.ms': 100, 'group.share.heartbeat.interval.ms': 500, 'group.share.min.record.lock.duration.ms': 1_000, 'group.share.record.lock.duration.ms': 2_000 };
      h = await ControllerHarness.start({ brokers: [1], args: { config } });
      const r = await h.ask<'AlterGroupConfigsResponse'>({
        type: 'AlterGroupConfigs',
        groups: [
          { group: 'g', set: { 'share.session.timeout.ms': '2000', 'share.record.lock.duration.ms': '1000', 'share.auto.offset.reset': 'earliest' } },
          { group: 'h', set: { 'share.session.timeout.ms': '999' } },
        ],
      });
      expect(r.groups).to.deep.equal([
        { group: 'g', errorCode: 0, errorMessage: null },
        { group: 'h', errorCode: ErrorCode.INVALID_CONFIG, errorMessage: 'share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms (1000)' },
      ]);
      expect((await h.metadata()).groupConfigs).to.deep.equal({ g: { 'share.session.timeout.ms': '2000', 'share.record.lock.duration.ms': '1000', 'share.auto.offset.reset': 'earliest' } });
    });

    it("checks against the controller's own group.consumer bounds", async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { config: { 'group.consumer.min.session.timeout.ms': 1_000, 'group.consumer.min.heartbeat.interval.ms': 100 } } });
      const r = await h.ask<'AlterGroupConfigsResponse'>({ type: 'AlterGroupConfigs', groups: [{ group: 'g', set: { 'consumer.session.timeout.ms': '2000', 'consumer.heartbeat.interval.ms': '200' } }] });
      expect(r.groups).to.deep.equal([{ group: 'g', errorCode: 0, errorMessage: null }]);
      expect((await h.metadata()).groupConfigs).to.deep.equal({ g: { 'consumer.session.timeout.ms': '2000', 'consumer.heartbeat.interval.ms': '200' } });
    });
  });
});
