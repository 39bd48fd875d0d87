/**
 * Dynamic broker configs in the controller (broker-configs.ts, AlterBrokerConfigs and the
 * BrokerConfig records): set and delete per broker or for the cluster-wide default, refusals per
 * resource (not a broker id, named twice, a key that cannot change at run time, a bad value),
 * validateOnly, durability across a restart, and the metadata the brokers get.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { brokerConfigChanges } from '../../../actors/controller/broker-configs.js';
import { MetadataRecordError, applyRecord, emptyMetadata, toClusterMetadata } from '../../../actors/controller/metadata-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ControllerHarness } from './harness.js';

describe('actors/controller: dynamic broker configs', () => {
  describe('records', () => {
    it('BrokerConfig replaces a resource\'s map; an empty map removes it; the metadata carries them', () => {
      const s1 = applyRecord(emptyMetadata(), { type: 'BrokerConfig', resource: '', config: { 'log.retention.ms': '1000' } });
      const s2 = applyRecord(s1, { type: 'BrokerConfig', resource: '2', config: { 'compression.type': 'lz4' } });
      expect(toClusterMetadata(s2, 'n').brokerConfigs).to.deep.equal({ '': { 'log.retention.ms': '1000' }, '2': { 'compression.type': 'lz4' } });
      const s3 = applyRecord(s2, { type: 'BrokerConfig', resource: '', config: {} });
      expect(toClusterMetadata(s3, 'n').brokerConfigs).to.deep.equal({ '2': { 'compression.type': 'lz4' } });
      expect(() => applyRecord(s3, { type: 'BrokerConfig', resource: 'b1', config: {} })).to.throw(MetadataRecordError, /not a broker id/);
    });
  });

  describe('changes (pure)', () => {
    it('sets and deletes keys over what is there; no record when nothing changes', () => {
      const state = applyRecord(emptyMetadata(), { type: 'BrokerConfig', resource: '1', config: { 'log.retention.ms': '1000', 'compression.type': 'gzip' } });
      const r = brokerConfigChanges(state, [{ resource: '1', set: { 'log.segment.bytes': '1048576' }, delete: ['compression.type'] }, { resource: '', set: {}, delete: ['min.insync.replicas'] }]);
      expect(r.results.map((x) => x.errorCode)).to.deep.equal([0, 0]);
      expect(r.records).to.deep.equal([{ type: 'BrokerConfig', resource: '1', config: { 'log.retention.ms': '1000', 'log.segment.bytes': '1048576' } }]);
    });

    const refusals: [string, unknown, number, RegExp][] = [
      ['a resource that is not a broker id', { resource: 'b1', set: {} }, ErrorCode.INVALID_REQUEST, /not a broker id/],
      ['a resource without a name', { set: {} }, ErrorCode.INVALID_REQUEST, /broker id/],
      ['a key that cannot change at run time', { resource: '1', set: { 'replica.fetch.max.bytes': '1' } }, ErrorCode.INVALID_REQUEST, /cannot be changed while the broker runs/],
      ['an unknown key', { resource: '1', set: { 'no.such.key': '1' } }, ErrorCode.INVALID_REQUEST, /unknown broker config key/],
      ['deleting a key that cannot change', { resource: '1', delete: ['broker.heartbeat.interval.ms'] }, ErrorCode.INVALID_REQUEST, /not a dynamic broker config/],
      ['a bad value', { resource: '', set: { 'log.retention.ms': 'soon' } }, ErrorCode.INVALID_CONFIG, /log.retention.ms/],
      ['a bad compression type', { resource: '', set: { 'compression.type': 'brotli' } }, ErrorCode.INVALID_CONFIG, /compression.type/],
      ['a compression level outside its codec\'s range', { resource: '', set: { 'compression.lz4.level': '18' } }, ErrorCode.INVALID_CONFIG, /compression\.lz4\.level: 18 is not a lz4 level: must be an integer from 1 to 17/],
      ['a value that is not a string', { resource: '', set: { 'min.insync.replicas': 2 } }, ErrorCode.INVALID_REQUEST, /strings/],
    ];
    for (const [what, resource, code, why] of refusals) {
      it(`refuses ${what}, alone`, () => {
        const r = brokerConfigChanges(emptyMetadata(), [resource, { resource: '3', set: { 'min.insync.replicas': '2' } }]);
        expect(r.results[0]!.errorCode).to.equal(code);
        expect(r.results[0]!.errorMessage).to.match(why);
        expect(r.results[1]!.errorCode).to.equal(0);
        expect(r.records).to.deep.equal([{ type: 'BrokerConfig', resource: '3', config: { 'min.insync.replicas': '2' } }]);
      });
    }

    it('refuses a resource named twice (the second)', () => {
      const r = brokerConfigChanges(emptyMetadata(), [{ resource: '', set: { 'log.retention.ms': '1' } }, { resource: '', set: { 'log.retention.ms': '2' } }]);
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
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-broker-configs-'));
      h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
      h.clearInboxes();
      const dry = await h.ask<'AlterBrokerConfigsResponse'>({ type: 'AlterBrokerConfigs', resources: [{ resource: '', set: { 'log.retention.ms': '5000' } }], validateOnly: true });
      expect(dry.resources).to.deep.equal([{ resource: '', errorCode: 0, errorMessage: null }]);
      // a new cluster starts with eligible leader replicas on, so with the cluster-wide min.insync.replicas (KIP-966)
      const initial = { '': { 'min.insync.replicas': '1' } };
      expect((await h.metadata()).brokerConfigs).to.deep.equal(initial);
      const r = await h.ask<'AlterBrokerConfigsResponse'>({ type: 'AlterBrokerConfigs', resources: [{ resource: '', set: { 'log.retention.ms': '5000' } }, { resource: '2', set: { 'compression.type': 'lz4' } }] });
      expect(r.resources.map((x) => x.errorCode)).to.deep.equal([0, 0]);
      await h.settle();
      const after = { '': { 'min.insync.replicas': '1', 'log.retention.ms': '5000' }, '2': { 'compression.type': 'lz4' } };
      for (const id of [1, 2]) expect(h.received(id, 'UpdateMetadataRequest').at(-1)?.metadata.brokerConfigs).to.deep.equal(after);
      await h.restartController();
      expect((await h.metadata()).brokerConfigs).to.deep.equal(after);
    });
  });
});
