/**
 * kcat (librdkafka) against samsa's Kafka listeners, run as a real process: metadata (-L),
 * produce (-P, keys, headers, gzip, snappy, lz4 and zstd, auto-created topics), samsa's gzip,
 * snappy, lz4 and zstd batches read by librdkafka and librdkafka's zstd batches read by samsa,
 * consume from the beginning (-C -e), a compacted topic (keyless records refused, gaps and
 * emptied batches read past), and consume in a group (-G) with its offsets committed. .ci/run installs kcat (Debian package kcat).
 */
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { KafkaCaller } from '../helpers/raw-kafka.js';
import { hasCommand } from '../helpers/has-command.js';
import { runKcat, type KcatRun as Run } from '../helpers/kcat.js';

function kcatAvailable(): boolean {
  return hasCommand('kcat', ['-V']);
}

describe('kcat against samsa', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let bootstrap: string;

  // a consumer run (-C, -G) with -e ends on a fetch that finds nothing new: librdkafka's default
  // fetch.wait.max.ms (500) would hold every such run that long on the broker
  const quickEnd = (args: string[]) => (args[0] === '-C' || args[0] === '-G' ? ['-X', 'fetch.wait.max.ms=20'] : []);
  const kcat = (args: string[], input?: string, timeoutMs = 30_000): Promise<Run> => runKcat(['-b', bootstrap, ...quickEnd(args), ...args], input, timeoutMs);

  before(async function () {
    if (!kcatAvailable()) {
      if (process.env.SAMSA_SKIP_KCAT === '1') this.skip();
      throw new Error('kcat is not installed (Debian: apt-get install kcat; .ci/run installs it). Set SAMSA_SKIP_KCAT=1 to skip these tests.');
    }
    c = await startKafkaCluster({
      brokers: 3,
      brokerConfig: { 'log.cleaner.backoff.ms': 100 },
      topics: [
        { name: 'kc', partitions: 3, replicationFactor: 3 },
        { name: 'kc-topic-lz4', partitions: 1, replicationFactor: 3, config: { 'compression.type': 'lz4' } },
        { name: 'kc-compacted', partitions: 1, replicationFactor: 3, config: { 'cleanup.policy': 'compact', 'segment.bytes': 1024, 'min.cleanable.dirty.ratio': '0.01' } },
        // created here as auto-creation would (one partition, RF 3): librdkafka looks for a topic
        // it does not know about once a second; '-P to a topic that does not exist' tests that path
        ...['kc-gzip', 'kc-snappy', 'kc-lz4', 'kc-zstd', 'kc-ours-gzip', 'kc-ours-snappy', 'kc-ours-lz4', 'kc-ours-zstd', 'kc-idem', 'kc-group'].map((name) => ({ name, partitions: 1, replicationFactor: 3 })),
      ],
    });
    bootstrap = c.bootstrap.join(',');
  });
  after(async () => {
    await c?.stop();
  });

  it('-L lists every broker at its Kafka address, the controller, and each partition with leader, replicas and ISR', async () => {
    const r = await kcat(['-L', '-t', 'kc']);
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.contain('3 brokers:');
    for (const [i, addr] of c.bootstrap.entries()) expect(r.out).to.match(new RegExp(`broker ${i + 1} at ${addr.replace(/\./g, '\\.')}`));
    expect(r.out).to.contain('(controller)');
    expect(r.out).to.contain('topic "kc" with 3 partitions:');
    for (let p = 0; p < 3; p++) expect(r.out).to.match(new RegExp(`partition ${p}, leader \\d, replicas: \\d,\\d,\\d, isrs: \\d,\\d,\\d`));
  });

  it('-P produces keyed records with headers that -C -e reads back from the beginning', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `key${i}:value-${i}`);
    const p = await kcat(['-P', '-t', 'kc', '-K:', '-H', 'origin=kcat'], lines.join('\n') + '\n');
    expect(p.code, p.err).to.equal(0);
    const r = await kcat(['-C', '-t', 'kc', '-o', 'beginning', '-e', '-f', '%k=%s|%h|%p|%o\\n']);
    expect(r.code, r.err).to.equal(0);
    const got = r.out.trim().split('\n').map((l) => l.split('|'));
    expect(got.map((g) => g[0]).sort()).to.deep.equal(lines.map((l) => l.replace(':', '=')).sort());
    for (const g of got) expect(g[1]).to.equal('origin=kcat');
    // per partition, offsets are 0..n-1 in order, and one key always lands on one partition
    const byPartition = new Map<string, number[]>();
    for (const g of got) byPartition.set(g[2]!, [...(byPartition.get(g[2]!) ?? []), Number(g[3])]);
    for (const offsets of byPartition.values()) expect(offsets).to.deep.equal(offsets.map((_, i) => i));
  });

  /** The leader of `topic`'s partition 0, connected. */
  async function leaderOf(topic: string): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: topic }], allowAutoTopicCreation: false });
      return await KafkaCaller.connect(c.bootstrap[md.topics[0].partitions[0].leaderId - 1]!);
    } finally {
      k.end();
    }
  }

  /** The stored bytes of `topic`'s partition 0 from offset 0, as a Fetch returns them. */
  async function storedRecords(topic: string): Promise<Buffer> {
    const leader = await leaderOf(topic);
    try {
      const f = await leader.call(ApiKeys.Fetch, 11, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      return f.responses[0].partitions[0].records as Buffer;
    } finally {
      leader.end();
    }
  }

  const compressible = Array.from({ length: 200 }, (_, i) => `line ${i} of a compressible ${'text '.repeat(10)}end`);

  // librdkafka before 2.11.1 compresses gzip, snappy and lz4 only for brokers that list Produce
  // v0, which samsa (like Kafka 4) does not: it sends those batches uncompressed instead
  const librdkafka = /librdkafka (\d+)\.(\d+)\.(\d+)/.exec(spawnSync('kcat', ['-V']).stdout?.toString() ?? '');
  const compressesForProduceV3 = librdkafka !== null && Number(librdkafka[1]) * 1e6 + Number(librdkafka[2]) * 1e3 + Number(librdkafka[3]) >= 2_011_001;

  for (const [codec, id] of [['gzip', 1], ['snappy', 2], ['lz4', 3]] as const) {
    it(`-P -z ${codec}: every record lands and reads back, in ${codec} batches where librdkafka compresses for a Produce v3 floor`, async () => {
      const topic = `kc-${codec}`;
      const p = await kcat(['-P', '-t', topic, '-z', codec], compressible.join('\n') + '\n');
      expect(p.code, p.err).to.equal(0);
      const r = await kcat(['-C', '-t', topic, '-o', 'beginning', '-e']);
      expect(r.out.trim().split('\n')).to.deep.equal(compressible);
      const batches = decodeRecordBatches(await storedRecords(topic));
      expect(new Set(batches.map((b) => b.compression))).to.deep.equal(new Set([compressesForProduceV3 ? id : 0]));
      expect(batches.flatMap((b) => b.records.map((rec) => String(rec.value)))).to.deep.equal(compressible);
    });

    it(`kcat reads ${codec} batches that samsa's encoder wrote`, async () => {
      const topic = `kc-ours-${codec}`;
      await kcat(['-P', '-t', topic], 'first\n');
      const leader = await leaderOf(topic);
      try {
        const records = encodeRecordBatch({ compression: codec, records: compressible.map((v) => ({ value: Buffer.from(v) })) });
        expect(records.readInt16BE(21) & 7).to.equal(id);
        const res = await leader.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] });
        expect(res.responses[0].partitionResponses[0].errorCode).to.equal(0);
      } finally {
        leader.end();
      }
      const r = await kcat(['-C', '-t', topic, '-o', 'beginning', '-e']);
      expect(r.code, r.err).to.equal(0);
      expect(r.out.trim().split('\n')).to.deep.equal(['first', ...compressible]);
    });
  }

  it("a topic with compression.type lz4 stores kcat's plain batches as lz4, and kcat reads them back", async () => {
    const p = await kcat(['-P', '-t', 'kc-topic-lz4'], compressible.join('\n') + '\n');
    expect(p.code, p.err).to.equal(0);
    const batches = decodeRecordBatches(await storedRecords('kc-topic-lz4'));
    expect(new Set(batches.map((b) => b.compression))).to.deep.equal(new Set([3]));
    const r = await kcat(['-C', '-t', 'kc-topic-lz4', '-o', 'beginning', '-e']);
    expect(r.out.trim().split('\n')).to.deep.equal(compressible);
  });

  it("kcat reads zstd batches that samsa's encoder wrote", async () => {
    await kcat(['-P', '-t', 'kc-ours-zstd'], 'first\n');
    const leader = await leaderOf('kc-ours-zstd');
    try {
      const records = encodeRecordBatch({ compression: 'zstd', records: compressible.map((v) => ({ value: Buffer.from(v) })) });
      expect(records.readInt16BE(21) & 7).to.equal(4);
      const res = await leader.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: 'kc-ours-zstd', partitionData: [{ index: 0, records }] }] });
      expect(res.responses[0].partitionResponses[0].errorCode).to.equal(0);
    } finally {
      leader.end();
    }
    const r = await kcat(['-C', '-t', 'kc-ours-zstd', '-o', 'beginning', '-e']);
    expect(r.code, r.err).to.equal(0);
    expect(r.out.trim().split('\n')).to.deep.equal(['first', ...compressible]);
  });

  it('-P -z zstd: stored in zstd batches as sent, read back by kcat and by samsa\'s zstd reader', async () => {
    const p = await kcat(['-P', '-t', 'kc-zstd', '-z', 'zstd'], compressible.join('\n') + '\n');
    expect(p.code, p.err).to.equal(0);
    const r = await kcat(['-C', '-t', 'kc-zstd', '-o', 'beginning', '-e']);
    expect(r.out.trim().split('\n')).to.deep.equal(compressible);
    const batches = decodeRecordBatches(await storedRecords('kc-zstd'));
    expect(new Set(batches.map((b) => b.compression))).to.deep.equal(new Set([4]));
    expect(batches.flatMap((b) => b.records.map((rec) => String(rec.value)))).to.deep.equal(compressible);
  });

  it('-P with enable.idempotence=true (InitProducerId, sequence numbers) writes every record once', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `idem-${i}`);
    const p = await kcat(['-P', '-t', 'kc-idem', '-p', '0', '-X', 'enable.idempotence=true'], lines.join('\n') + '\n');
    expect(p.code, p.err).to.equal(0);
    const r = await kcat(['-C', '-t', 'kc-idem', '-o', 'beginning', '-e']);
    expect(r.out.trim().split('\n')).to.deep.equal(lines);
    // the stored batches carry kcat's producer id and sequences
    const batches = decodeRecordBatches(await storedRecords('kc-idem'));
    expect(batches.length).to.be.at.least(1);
    expect(batches.every((b) => b.producerId >= 0 && b.baseSequence >= 0)).to.equal(true);
    expect(batches[0]!.baseSequence).to.equal(0);
  });

  it('a compacted topic: kcat\'s keyless records are refused, and -C reads the latest value of each key across the gaps', async () => {
    const keyless = await kcat(['-P', '-t', 'kc-compacted', '-p', '0'], 'no key here\n');
    // librdkafka's text for INVALID_RECORD (87)
    expect(keyless.err).to.contain('Broker failed to validate record');
    // idempotent batches of a few records: the cleaner keeps a producer's last batch, emptied, for its sequence
    const latest = new Map<string, string>();
    for (let round = 0; round < 6; round++) {
      const lines = Array.from({ length: 10 }, (_, k) => `user${k}:round${round}-${k}`);
      for (const l of lines) latest.set(l.split(':')[0]!, l.split(':')[1]!);
      const p = await kcat(['-P', '-t', 'kc-compacted', '-p', '0', '-K:', '-X', 'enable.idempotence=true', '-X', 'batch.num.messages=5'], lines.join('\n') + '\n');
      expect(p.code, p.err).to.equal(0);
    }
    const filler = Array.from({ length: 20 }, (_, i) => `filler${i}:${'f'.repeat(30)}`);
    for (const l of filler) latest.set(l.split(':')[0]!, l.split(':')[1]!);
    expect((await kcat(['-P', '-t', 'kc-compacted', '-p', '0', '-K:', '-X', 'batch.num.messages=5'], filler.join('\n') + '\n')).code).to.equal(0);
    const total = 80;
    let lines: string[] = [];
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const r = await kcat(['-C', '-t', 'kc-compacted', '-o', 'beginning', '-e', '-f', '%k=%s@%o\\n']);
      expect(r.code, r.err).to.equal(0);
      lines = r.out.trim().split('\n');
      if (lines.length < total - 20) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(lines.length).to.be.lessThan(total - 20);
    const seen = new Map<string, string>();
    let previous = -1;
    for (const line of lines) {
      const [kv, offset] = line.split('@');
      expect(Number(offset)).to.be.greaterThan(previous);
      previous = Number(offset);
      const [k, v] = kv!.split('=');
      seen.set(k!, v!);
    }
    expect(seen).to.deep.equal(latest);
    // each kcat run was a producer of its own: its last batch stayed, emptied, and kcat read past it
    const batches = decodeRecordBatches(await storedRecords('kc-compacted'));
    expect(batches.some((b) => b.records.length === 0 && b.producerId >= 0)).to.equal(true);
  });

  it('-P to a topic that does not exist creates it (auto.create.topics.enable)', async () => {
    const p = await kcat(['-P', '-t', 'kc-auto'], 'x\ny\n');
    expect(p.code, p.err).to.equal(0);
    const l = await kcat(['-L', '-t', 'kc-auto']);
    expect(l.out).to.contain('topic "kc-auto" with 1 partitions:');
    const r = await kcat(['-C', '-t', 'kc-auto', '-o', 'beginning', '-e']);
    expect(r.out.trim().split('\n')).to.deep.equal(['x', 'y']);
  });

  it('-G consumes in a group, commits, and a second run of the group finds nothing new', async () => {
    await kcat(['-P', '-t', 'kc-group', '-K:'], Array.from({ length: 12 }, (_, i) => `k${i}:g${i}`).join('\n') + '\n');
    const first = await kcat(['-G', 'kc-readers', 'kc-group', '-o', 'beginning', '-e', '-f', '%s\\n']);
    expect(first.code, first.err).to.equal(0);
    expect(first.out.trim().split('\n').sort()).to.deep.equal(Array.from({ length: 12 }, (_, i) => `g${i}`).sort());
    expect(first.err).to.match(/Group kc-readers rebalanced .*assigned: kc-group \[0\]/);
    await kcat(['-P', '-t', 'kc-group'], 'late\n');
    // without -o the group starts from its committed offsets (kcat applies -o to every assignment)
    const second = await kcat(['-G', 'kc-readers', 'kc-group', '-e', '-f', '%s\\n']);
    expect(second.code, second.err).to.equal(0);
    expect(second.out.trim()).to.equal('late');
  });
});
