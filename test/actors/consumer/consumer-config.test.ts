/**
 * The consumer's config keys for the group protocol: group.protocol (classic by default, Kafka's
 * case-insensitive names), group.remote.assignor (only with consumer, as Kafka's ConsumerConfig
 * insists), retry.backoff.max.ms, and the metrics' sample window and count.
 */
import { expect } from 'chai';
import { ConsumerConfigError, parseConsumerConfig } from '../../../actors/consumer/consumer-config.js';

describe('actors/consumer config: group.protocol', () => {
  it('is classic by default, with no remote assignor and Kafka\'s retry.backoff.max.ms', () => {
    const c = parseConsumerConfig({ 'group.id': 'g' });
    expect(c).to.include({ groupProtocol: 'classic', groupRemoteAssignor: null, retryBackoffMaxMs: 1_000 });
  });

  it('takes consumer in any case, with a remote assignor', () => {
    const c = parseConsumerConfig({ 'group.id': 'g', 'group.protocol': 'CONSUMER', 'group.remote.assignor': 'range' });
    expect(c).to.include({ groupProtocol: 'consumer', groupRemoteAssignor: 'range' });
    expect(parseConsumerConfig({ 'group.id': 'g', 'group.protocol': 'consumer', 'group.remote.assignor': '' }).groupRemoteAssignor).to.equal(null);
  });

  it('refuses another protocol, and a remote assignor with the classic protocol, naming the key', () => {
    expect(() => parseConsumerConfig({ 'group.id': 'g', 'group.protocol': 'share' })).to.throw(ConsumerConfigError, /^group\.protocol: must be classic or consumer/);
    expect(() => parseConsumerConfig({ 'group.id': 'g', 'group.remote.assignor': 'uniform' })).to.throw(ConsumerConfigError, /^group\.remote\.assignor: cannot be set when group\.protocol=classic/);
  });

  it("metrics.sample.window.ms and metrics.num.samples: Kafka's 30 s x 2, at least 1 each", () => {
    expect(parseConsumerConfig({ 'group.id': 'g' })).to.include({ metricsSampleWindowMs: 30_000, metricsNumSamples: 2 });
    expect(parseConsumerConfig({ 'group.id': 'g', 'metrics.sample.window.ms': 5_000, 'metrics.num.samples': 3 })).to.include({ metricsSampleWindowMs: 5_000, metricsNumSamples: 3 });
    expect(() => parseConsumerConfig({ 'group.id': 'g', 'metrics.sample.window.ms': 0 })).to.throw('metrics.sample.window.ms: ');
    expect(() => parseConsumerConfig({ 'group.id': 'g', 'metrics.num.samples': 0 })).to.throw('metrics.num.samples: ');
  });
});
