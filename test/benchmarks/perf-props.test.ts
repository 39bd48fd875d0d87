/**
 * benchmarks/lib/perf-props.ts: --producer-props / --consumer-props and the .properties files of
 * --producer-config / --consumer-config under them, checked by the clients' own config parsers;
 * the keys a tool has flags for set those flags (foldFlagKeys), the keys a run relies on refused.
 */
import { expect } from 'chai';
import { scratchDir, usageErrorOf } from '../helpers/usage-errors.js';
import { CONSUMER_KEYS_OF_FLAGS, CONSUMER_KEYS_OWNED, PRODUCER_KEYS_OF_FLAGS, PRODUCER_KEYS_OWNED, clientProps, foldFlagKeys, refuseUnclaimedKeys } from '../../benchmarks/lib/perf-props.js';
import { parseAcks, parseFlags } from '../../benchmarks/lib/perf-args.js';
import { CONSUME_FLAGS } from '../../benchmarks/perf-consume.js';
import { PRODUCE_FLAGS, defaultProduceOptions, producerConfigOf } from '../../benchmarks/perf-produce.js';
import { PRODUCER_CONFIG_KEYS, parseProducerConfig } from '../../actors/producer/producer-config.js';
import { CONSUMER_CONFIG_KEYS, parseConsumerConfig } from '../../actors/consumer/consumer-config.js';

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

  it("sets the flags of the keys a tool has flags for, as Kafka's tools take them, and leaves those keys out of the configs", () => {
    const sameAcks = (flag: string, a: unknown, b: unknown) => (flag === 'acks' ? parseAcks(String(a)) === parseAcks(String(b)) : a === b);
    const f = parseFlags(['--records', '10'], PRODUCE_FLAGS);
    const src = { flag: 'producer-props', pairs: ['acks=all', 'batch.size=65536', 'linger.ms=10', 'compression.type=lz4', 'partitioner.sticky.bytes=32768', 'buffer.memory=8388608'] };
    foldFlagKeys(f, PRODUCE_FLAGS, src, PRODUCER_KEYS_OF_FLAGS, sameAcks);
    expect([f.acks, f['batch-size'], f['linger-ms'], f.compression, f['sticky-bytes']]).to.deep.equal(['all', 65_536, 10, 'lz4', 32_768]);
    // as if given: what depends on a flag being given sees them
    expect(['acks', 'batch-size', 'linger-ms', 'compression', 'sticky-bytes'].every((k) => f.given.has(k))).to.equal(true);
    expect(clientProps(src, PRODUCER_KEYS_OWNED, checkProducer(-1), PRODUCER_KEYS_OF_FLAGS)).to.deep.equal({ 'buffer.memory': '8388608' });
    // the flag given too: the same value (acks -1 is acks all) is fine, another is refused
    const g = parseFlags(['--acks', '-1', '--linger-ms', '5'], PRODUCE_FLAGS);
    foldFlagKeys(g, PRODUCE_FLAGS, { flag: 'producer-props', pairs: ['acks=all', 'linger.ms=5'] }, PRODUCER_KEYS_OF_FLAGS, sameAcks);
    expect([g.acks, g['linger-ms']]).to.deep.equal(['-1', 5]);
    expect(usageErrorOf(() => foldFlagKeys(g, PRODUCE_FLAGS, { flag: 'producer-props', pairs: ['linger.ms=20'] }, PRODUCER_KEYS_OF_FLAGS, sameAcks)).message).to.equal('--producer-props linger.ms=20 and --linger-ms 5 disagree: give one');
    // a value the flag would refuse, refused as the flag refuses it
    for (const [pair, says] of [
      ['acks=2', "--producer-props acks=2: --acks must be one of 0, 1, -1, all, got '2'"],
      ['batch.size=big', "--producer-props batch.size=big: --batch-size expects a number, got 'big'"],
      ['compression.type=brotli', "--producer-props compression.type=brotli: --compression must be one of none, gzip, snappy, lz4, zstd, got 'brotli'"],
    ]) {
      expect(usageErrorOf(() => foldFlagKeys(parseFlags([], PRODUCE_FLAGS), PRODUCE_FLAGS, { flag: 'producer-props', pairs: [pair!] }, PRODUCER_KEYS_OF_FLAGS, sameAcks)).message).to.equal(says);
    }
    // Kafka's command lines name the cluster in the configs: bootstrap.servers is --bootstrap-server
    const b = parseFlags([], PRODUCE_FLAGS);
    foldFlagKeys(b, PRODUCE_FLAGS, { flag: 'producer-props', pairs: ['bootstrap.servers=127.0.0.1:9093'] }, PRODUCER_KEYS_OF_FLAGS, sameAcks);
    expect(b['bootstrap-server']).to.equal('127.0.0.1:9093');
    expect(b.given.has('bootstrap-server')).to.equal(true);
    // the consumer's: group.id is --group, check.crcs a true or false
    const c = parseFlags([], CONSUME_FLAGS);
    foldFlagKeys(c, CONSUME_FLAGS, { flag: 'consumer-props', pairs: ['group.id=mine', 'max.poll.records=5', 'max.partition.fetch.bytes=65536', 'check.crcs=false'] }, CONSUMER_KEYS_OF_FLAGS);
    expect([c.group, c['max-poll-records'], c['max-partition-fetch-bytes'], c['check-crcs']]).to.deep.equal(['mine', 5, 65_536, false]);
    expect(usageErrorOf(() => foldFlagKeys(parseFlags([], CONSUME_FLAGS), CONSUME_FLAGS, { flag: 'consumer-props', pairs: ['check.crcs=maybe'] }, CONSUMER_KEYS_OF_FLAGS)).message).to.equal("--consumer-props check.crcs=maybe: --check-crcs is true or false, got 'maybe'");
    // in any case, as Kafka reads a boolean config
    const t = parseFlags(['--check-crcs', 'false'], CONSUME_FLAGS);
    foldFlagKeys(t, CONSUME_FLAGS, { flag: 'consumer-props', pairs: ['check.crcs=FALSE'] }, CONSUMER_KEYS_OF_FLAGS);
    expect(t['check-crcs']).to.equal(false);
  });

  it('refuses the keys a run relies on, saying why', () => {
    const checkConsumer = (c: Record<string, string>) => void parseConsumerConfig({ ...c, 'group.id': 'g' });
    expect(usageErrorOf(() => clientProps({ flag: 'consumer-props', pairs: ['enable.auto.commit=true'] }, CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props enable.auto.commit: a run commits nothing, so that every run reads the topic from its start (with --group it commits where it stopped)');
    expect(usageErrorOf(() => clientProps({ flag: 'consumer-props', pairs: ['auto.offset.reset=latest'] }, CONSUMER_KEYS_OWNED, checkConsumer)).message).to.equal('--consumer-props auto.offset.reset: a run reads the topic from its start (--from-latest: the records produced while it waits)');
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
      // a key a flag of the tool sets, in the file: it sets the flag, and a flag that disagrees names the file
      const owned = file('owned.properties', 'linger.ms=20\n');
      const flags = parseFlags([], PRODUCE_FLAGS);
      foldFlagKeys(flags, PRODUCE_FLAGS, { ...src, file: owned, pairs: [] }, PRODUCER_KEYS_OF_FLAGS);
      expect(flags['linger-ms']).to.equal(20);
      expect(clientProps({ ...src, file: owned, pairs: [] }, PRODUCER_KEYS_OWNED, checkProducer(1), PRODUCER_KEYS_OF_FLAGS)).to.deep.equal({});
      const g = parseFlags(['--linger-ms', '1'], PRODUCE_FLAGS);
      expect(usageErrorOf(() => foldFlagKeys(g, PRODUCE_FLAGS, { ...src, file: owned, pairs: [] }, PRODUCER_KEYS_OF_FLAGS)).message).to.equal(`--producer-config ${owned}: linger.ms=20 and --linger-ms 1 disagree: give one`);
      // the pairs over the file
      const h = parseFlags([], PRODUCE_FLAGS);
      foldFlagKeys(h, PRODUCE_FLAGS, { ...src, file: owned, pairs: ['linger.ms=30'] }, PRODUCER_KEYS_OF_FLAGS);
      expect(h['linger-ms']).to.equal(30);
      // one file for two clients (kafka-e2e-latency's): each takes the keys it has, and a key neither has is refused
      const shared = file('both.properties', 'client.id=x\nfetch.min.bytes=1\nbuffer.memory=8388608\n');
      const asProducer = { flag: 'producer-props', pairs: [], fileFlag: 'client-config', file: shared, fileKeys: PRODUCER_CONFIG_KEYS };
      const asConsumer = { flag: 'consumer-props', pairs: [], fileFlag: 'client-config', file: shared, fileKeys: CONSUMER_CONFIG_KEYS };
      expect(clientProps(asProducer, {}, checkProducer(1))).to.deep.equal({ 'client.id': 'x', 'buffer.memory': '8388608' });
      expect(clientProps(asConsumer, {}, (c) => void parseConsumerConfig({ ...c, 'group.id': 'g' }))).to.deep.equal({ 'client.id': 'x', 'fetch.min.bytes': '1' });
      expect(() => refuseUnclaimedKeys('client-config', shared, PRODUCER_CONFIG_KEYS, CONSUMER_CONFIG_KEYS)).to.not.throw();
      const strayFile = file('stray.properties', 'fetch.min.bytes=1\nnope=1\nnor.this=2\n');
      expect(usageErrorOf(() => refuseUnclaimedKeys('client-config', strayFile, PRODUCER_CONFIG_KEYS, CONSUMER_CONFIG_KEYS)).message).to.equal(`--client-config ${strayFile}: nope, nor.this: keys neither the producer nor the consumer has`);
      const consumer = file('consumer.properties', 'fetch.min.bytes=2048\n');
      const checkConsumer = (c: Record<string, string>) => void parseConsumerConfig({ ...c, 'group.id': 'g' });
      expect(clientProps({ flag: 'consumer-props', pairs: [], fileFlag: 'consumer-config', file: consumer }, CONSUMER_KEYS_OWNED, checkConsumer)).to.deep.equal({ 'fetch.min.bytes': '2048' });
    });
  });
});
