/**
 * benchmarks/lib/perf-props.ts: --producer-props / --consumer-props, checked by the clients' own
 * config parsers, with the keys a tool sets from its own flags refused.
 */
import { expect } from 'chai';
import { CONSUMER_KEYS_OWNED, PRODUCER_KEYS_OWNED, clientProps } from '../../benchmarks/lib/perf-props.js';
import { defaultProduceOptions, producerConfigOf } from '../../benchmarks/perf-produce.js';
import { parseProducerConfig } from '../../actors/producer/producer-config.js';
import { parseConsumerConfig } from '../../actors/consumer/consumer-config.js';

const usageError = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('no error');
};

describe('benchmarks/perf-props', () => {
  const checkProducer = (acks: 0 | 1 | -1) => (c: Record<string, string>) => void parseProducerConfig(producerConfigOf({ ...defaultProduceOptions({ acks }), producerProps: c }));

  it('gives the key=value pairs, checked by the producer with the flags\' settings', () => {
    expect(clientProps('producer-props', ['enable.idempotence=true', 'buffer.memory=8388608'], PRODUCER_KEYS_OWNED, checkProducer(-1))).to.deep.equal({ 'enable.idempotence': 'true', 'buffer.memory': '8388608' });
    expect(clientProps('producer-props', [], PRODUCER_KEYS_OWNED, checkProducer(1))).to.deep.equal({});
    // the pairs come after the flags' settings
    expect(producerConfigOf({ ...defaultProduceOptions({ acks: -1 }), producerProps: { 'max.in.flight.requests.per.connection': '2' } })).to.include({ acks: -1, 'batch.size': 16_384, 'max.in.flight.requests.per.connection': '2' });
  });

  it('refuses, as usage errors naming the key: a bad pair, an unknown key, a bad value, a pair that cannot go with the flags', () => {
    const cases: [string[], RegExp][] = [
      [['linger'], /--producer-props takes key=value, got 'linger'/],
      [['a=1', 'a=2'], /--producer-props sets a more than once/],
      [['nope=1'], /--producer-props nope: unknown producer config key/],
      [['buffer.memory=lots'], /--producer-props buffer\.memory/],
      [['enable.idempotence=true'], /--producer-props acks: .*enable\.idempotence/],
    ];
    for (const [pairs, says] of cases) {
      const e = usageError(() => clientProps('producer-props', pairs, PRODUCER_KEYS_OWNED, checkProducer(1)));
      expect(e.name, pairs.join(' ')).to.equal('UsageError');
      expect(e.message).to.match(says);
    }
  });

  it('refuses the keys a tool sets from its own flags, saying which flag', () => {
    for (const [key, flag] of [['acks', '--acks'], ['batch.size', '--batch-size'], ['linger.ms', '--linger-ms'], ['compression.type', '--compression'], ['partitioner.sticky.bytes', '--sticky-bytes']]) {
      expect(usageError(() => clientProps('producer-props', [`${key}=1`], PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.equal(`--producer-props ${key}: set it with ${flag}`);
    }
    const checkConsumer = (c: Record<string, string>) => void parseConsumerConfig({ ...c, 'group.id': 'g' });
    expect(usageError(() => clientProps('consumer-props', ['group.id=mine'], CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props group.id: each run forms a group of its own');
    expect(usageError(() => clientProps('consumer-props', ['max.poll.records=5'], CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props max.poll.records: set it with --max-poll-records');
    expect(clientProps('consumer-props', ['fetch.min.bytes=1024'], CONSUMER_KEYS_OWNED, checkConsumer)).to.deep.equal({ 'fetch.min.bytes': '1024' });
  });
});
