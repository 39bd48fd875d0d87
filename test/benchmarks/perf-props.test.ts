/**
 * benchmarks/lib/perf-props.ts: --producer-props / --consumer-props and the .properties files of
 * --producer-config / --consumer-config under them, checked by the clients' own config parsers,
 * with the keys a tool sets from its own flags refused.
 */
import { expect } from 'chai';
import { scratchDir, usageErrorOf } from '../helpers/usage-errors.js';
import { CONSUMER_KEYS_OWNED, PRODUCER_KEYS_OWNED, clientProps } from '../../benchmarks/lib/perf-props.js';
import { defaultProduceOptions, producerConfigOf } from '../../benchmarks/perf-produce.js';
import { parseProducerConfig } from '../../actors/producer/producer-config.js';
import { parseConsumerConfig } from '../../actors/consumer/consumer-config.js';

describe('benchmarks/perf-props', () => {
  const checkProducer = (acks: 0 | 1 | -1) => (c: Record<string, string>) => void parseProducerConfig(producerConfigOf({ ...defaultProduceOptions({ acks }), producerProps: c }));

  it('gives the key=value pairs, checked by the producer with the flags\' settings', () => {
    expect(clientProps({ flag: 'producer-props', pairs: ['enable.idempotence=true', 'buffer.memory=8388608'] }, PRODUCER_KEYS_OWNED, checkProducer(-1))).to.deep.equal({ 'enable.idempotence': 'true', 'buffer.memory': '8388608' });
    expect(clientProps({ flag: 'producer-props', pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1))).to.deep.equal({});
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
      const e = usageErrorOf(() => clientProps({ flag: 'producer-props', pairs }, PRODUCER_KEYS_OWNED, checkProducer(1)));
      expect(e.name, pairs.join(' ')).to.equal('UsageError');
      expect(e.message).to.match(says);
    }
  });

  it('refuses the keys a tool sets from its own flags, saying which flag', () => {
    for (const [key, flag] of [['acks', '--acks'], ['batch.size', '--batch-size'], ['linger.ms', '--linger-ms'], ['compression.type', '--compression'], ['partitioner.sticky.bytes', '--sticky-bytes']]) {
      expect(usageErrorOf(() => clientProps({ flag: 'producer-props', pairs: [`${key}=1`] }, PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.equal(`--producer-props ${key}: set it with ${flag}`);
    }
    const checkConsumer = (c: Record<string, string>) => void parseConsumerConfig({ ...c, 'group.id': 'g' });
    expect(usageErrorOf(() => clientProps({ flag: 'consumer-props', pairs: ['group.id=mine'] }, CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props group.id: set it with --group (without it each run forms a group of its own)');
    expect(usageErrorOf(() => clientProps({ flag: 'consumer-props', pairs: ['max.poll.records=5'] }, CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props max.poll.records: set it with --max-poll-records');
    expect(clientProps({ flag: 'consumer-props', pairs: ['fetch.min.bytes=1024'] }, CONSUMER_KEYS_OWNED, checkConsumer)).to.deep.equal({ 'fetch.min.bytes': '1024' });
  });

  describe('with a config file', () => {
    let scratch: ReturnType<typeof scratchDir>;
    before(() => {
      scratch = scratchDir('samsa-perf-props-');
    });
    after(() => scratch.remove());
    const file = (name: string, text: string): string => scratch.file(name, text);

    it("the perf tools' configs: the file's keys under the command line's, each checked and blamed where it came from", () => {
      const checkProducer = (acks: 0 | 1 | -1) => (c: Record<string, string>) => void parseProducerConfig(producerConfigOf({ ...defaultProduceOptions({ acks }), producerProps: c }));
      const f = file('producer.properties', '# the team\'s settings\nbuffer.memory=8388608\nmax.in.flight.requests.per.connection=3\n');
      const src = { flag: 'producer-props', fileFlag: 'producer-config', file: f };
      expect(clientProps({ ...src, pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1))).to.deep.equal({ 'buffer.memory': '8388608', 'max.in.flight.requests.per.connection': '3' });
      expect(clientProps({ ...src, pairs: ['max.in.flight.requests.per.connection=1', 'retries=2'] }, PRODUCER_KEYS_OWNED, checkProducer(1))).to.deep.equal({
        'buffer.memory': '8388608',
        'max.in.flight.requests.per.connection': '1',
        retries: '2',
      });
      // a bad key or value of the file names the file; of the pairs, the pairs
      const badFile = file('bad-value.properties', 'buffer.memory=lots\n');
      expect(usageErrorOf(() => clientProps({ ...src, file: badFile, pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.match(new RegExp(`^--producer-config ${badFile}: buffer\\.memory: `));
      expect(usageErrorOf(() => clientProps({ ...src, file: badFile, pairs: ['buffer.memory=nope'] }, PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.match(/^--producer-props buffer\.memory: /);
      const unknown = file('unknown.properties', 'sasl.mechanism=PLAIN\n');
      expect(usageErrorOf(() => clientProps({ ...src, file: unknown, pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.match(new RegExp(`^--producer-config ${unknown}: sasl\\.mechanism: unknown producer config key`));
      // a key a flag of the tool sets, in the file
      const owned = file('owned.properties', 'linger.ms=20\n');
      expect(usageErrorOf(() => clientProps({ ...src, file: owned, pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1))).message).to.equal(`--producer-config ${owned}: linger.ms: set it with --linger-ms`);
      const consumer = file('consumer.properties', 'fetch.min.bytes=2048\n');
      const checkConsumer = (c: Record<string, string>) => void parseConsumerConfig({ ...c, 'group.id': 'g' });
      expect(clientProps({ flag: 'consumer-props', pairs: [], fileFlag: 'consumer-config', file: consumer }, CONSUMER_KEYS_OWNED, checkConsumer)).to.deep.equal({ 'fetch.min.bytes': '2048' });
    });
  });
});
