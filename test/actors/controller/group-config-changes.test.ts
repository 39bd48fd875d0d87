/**
 * Group configs in the controller (group-config-changes.ts, AlterGroupConfigs and the GroupConfig
 * records): set and delete per group over what is there, Kafka's checks against the controller's
 * consumer group settings, refusals per group, validateOnly, snapshots, durability across a
 * restart, and the metadata the brokers get.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { groupConfigChanges } from '../../../actors/controller/group-config-changes.js';
import { MetadataRecordError, applyRecord, emptyMetadata, toClusterMetadata } from '../../../actors/controller/metadata-state.js';
import { fromImage, toImage } from '../../../actors/controller/metadata-snapshot.js';
import { DEFAULT_CONSUMER_GROUP_TIMEOUTS } from '../../../actors/group-coordinator/group-configs.js';
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
      ['an unknown key', { group: 'g', set: { 'share.session.timeout.ms': '50000' } }, ErrorCode.INVALID_CONFIG, /Unknown group config name: share.session.timeout.ms/],
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

    it("checks against the controller's own group.consumer bounds", async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { config: { 'group.consumer.min.session.timeout.ms': 1_000, 'group.consumer.min.heartbeat.interval.ms': 100 } } });
      const r = await h.ask<'AlterGroupConfigsResponse'>({ type: 'AlterGroupConfigs', groups: [{ group: 'g', set: { 'consumer.session.timeout.ms': '2000', 'consumer.heartbeat.interval.ms': '200' } }] });
      expect(r.groups).to.deep.equal([{ group: 'g', errorCode: 0, errorMessage: null }]);
      expect((await h.metadata()).groupConfigs).to.deep.equal({ g: { 'consumer.session.timeout.ms': '2000', 'consumer.heartbeat.interval.ms': '200' } });
    });
  });
});
