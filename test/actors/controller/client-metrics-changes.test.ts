/**
 * Client metrics subscriptions in the controller (client-metrics-changes.ts and the
 * ClientMetricsConfig records, KIP-714): keys set and deleted over what is there, a subscription
 * gone with its last key, Kafka's checks (ClientMetricsConfigs.validate) refusing per
 * subscription, snapshots carrying them (and images from before they were kept), and the
 * metadata the brokers get.
 */
import { expect } from 'chai';
import { clientMetricsChanges } from '../../../actors/controller/client-metrics-changes.js';
import { MetadataRecordError, applyRecord, emptyMetadata, toClusterMetadata } from '../../../actors/controller/metadata-state.js';
import { fromImage, toImage } from '../../../actors/controller/metadata-snapshot.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

describe('actors/controller: client metrics subscriptions', () => {
  it("ClientMetricsConfig replaces a subscription's keys; an empty map removes it; the metadata and snapshots carry them", () => {
    const s1 = applyRecord(emptyMetadata(), { type: 'ClientMetricsConfig', name: 'a', config: { metrics: '*' } });
    const s2 = applyRecord(s1, { type: 'ClientMetricsConfig', name: 'b', config: { 'interval.ms': '1000' } });
    expect(toClusterMetadata(s2, 'n').clientMetrics).to.deep.equal({ a: { metrics: '*' }, b: { 'interval.ms': '1000' } });
    expect(toClusterMetadata(fromImage(toImage(s2)), 'n').clientMetrics).to.deep.equal(toClusterMetadata(s2, 'n').clientMetrics);
    expect(toClusterMetadata(applyRecord(s2, { type: 'ClientMetricsConfig', name: 'a', config: {} }), 'n').clientMetrics).to.deep.equal({ b: { 'interval.ms': '1000' } });
    expect(() => applyRecord(s2, { type: 'ClientMetricsConfig', name: '', config: {} })).to.throw(MetadataRecordError, /needs a name/);
    const old = toImage(emptyMetadata()) as Partial<ReturnType<typeof toImage>>;
    delete old.clientMetrics;
    expect(fromImage(old as ReturnType<typeof toImage>).clientMetrics.size).to.equal(0);
  });

  it('sets and deletes keys over what is there; no record when nothing changes; gone with its last key', () => {
    const state = applyRecord(emptyMetadata(), { type: 'ClientMetricsConfig', name: 's', config: { metrics: 'org.apache.kafka.producer.', 'interval.ms': '5000' } });
    const r = clientMetricsChanges(state, [
      { name: 's', set: { 'interval.ms': '1000', match: 'client_id=app-.*' }, delete: ['metrics'] },
      { name: 'untouched', delete: ['metrics'] },
    ]);
    expect(r.results).to.deep.equal([
      { name: 's', errorCode: 0, errorMessage: null },
      { name: 'untouched', errorCode: 0, errorMessage: null },
    ]);
    expect(r.records).to.deep.equal([{ type: 'ClientMetricsConfig', name: 's', config: { 'interval.ms': '1000', match: 'client_id=app-.*' } }]);
    expect(clientMetricsChanges(state, [{ name: 's', delete: ['metrics', 'interval.ms'] }]).records).to.deep.equal([{ type: 'ClientMetricsConfig', name: 's', config: {} }]);
  });

  const refusals: [string, unknown, number, RegExp][] = [
    ['no name', { set: { metrics: '*' } }, ErrorCode.INVALID_REQUEST, /Subscription name can't be empty/],
    ['an unknown key', { name: 'x', set: { colour: 'red' } }, ErrorCode.INVALID_REQUEST, /Unknown client metrics configuration: colour/],
    ['an interval below 100 ms', { name: 'x', set: { 'interval.ms': '99' } }, ErrorCode.INVALID_REQUEST, /between 100 and 3600000/],
    ['an interval over an hour', { name: 'x', set: { 'interval.ms': '3600001' } }, ErrorCode.INVALID_REQUEST, /between 100 and 3600000/],
    ['an interval that is not a number', { name: 'x', set: { 'interval.ms': '1e3' } }, ErrorCode.INVALID_CONFIG, /Not a number of type INT/],
    ['a selector Kafka does not have', { name: 'x', set: { match: 'client_rack=a' } }, ErrorCode.INVALID_CONFIG, /Illegal client matching pattern: client_rack=a/],
    ['a pattern without a value', { name: 'x', set: { match: 'client_id' } }, ErrorCode.INVALID_CONFIG, /Illegal client matching pattern: client_id/],
    ['a regex that does not compile', { name: 'x', set: { match: 'client_id=[' } }, ErrorCode.INVALID_CONFIG, /Illegal client matching pattern/],
    ['a value that is not a string', { name: 'x', set: { metrics: null } }, ErrorCode.INVALID_REQUEST, /Null value not supported for client metrics configs/],
    ['deleted keys that are not strings', { name: 'x', delete: [1] }, ErrorCode.INVALID_REQUEST, /deleted keys must be strings/],
  ];
  for (const [what, change, code, says] of refusals) {
    it(`refuses ${what}, and only that subscription`, () => {
      const r = clientMetricsChanges(emptyMetadata(), [change, { name: 'fine', set: { metrics: '*' } }]);
      expect(r.results[0]!.errorCode).to.equal(code);
      expect(r.results[0]!.errorMessage).to.match(says);
      expect(r.results[1]!.errorCode).to.equal(ErrorCode.NONE);
      expect(r.records).to.deep.equal([{ type: 'ClientMetricsConfig', name: 'fine', config: { metrics: '*' } }]);
    });
  }

  it('refuses a subscription named twice in one request', () => {
    const r = clientMetricsChanges(emptyMetadata(), [{ name: 'x', set: { metrics: '*' } }, { name: 'x', set: { 'interval.ms': '1000' } }]);
    expect(r.results.map((x) => [x.errorCode, x.errorMessage])).to.deep.equal([
      [ErrorCode.NONE, null],
      [ErrorCode.INVALID_REQUEST, "subscription 'x' is named twice"],
    ]);
  });
});
