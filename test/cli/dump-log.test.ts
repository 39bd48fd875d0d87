/**
 * `samsa dump-log`: Kafka's batch, record, offset index and time index lines from segment bytes
 * made here (sequences, a compressed batch, a transaction marker, a gap, trailing bytes, a
 * damaged CRC, index entries that do not match the log), the command lines that cannot work
 * (exit 2), and the command on the segment files of a running cluster's broker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { batchLine, dumpIndexFile, dumpLogFile, dumpTimeIndexFile, fileList } from '../../src/cli/commands/dump-log.js';
import { setBaseOffset, setPartitionLeaderEpoch, storedCrcOf } from '../../src/protocol/batch-header.js';
import { ControlType, encodeTxnMarker } from '../../src/protocol/control-records.js';
import { encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { CliCluster, runCli } from './cli-harness.js';

const T0 = 1_700_000_000_000;
const bytes = (s: string) => Buffer.from(s, 'utf8');

/** Offsets 0-1 (a producer's, sequences 10-11), 3-4 (gzip; offset 2 missing), 5 (a COMMIT marker). */
function segment(): { log: Buffer; a: Buffer; b: Buffer; m: Buffer } {
  const a = encodeRecordBatch({
    baseOffset: 0,
    partitionLeaderEpoch: 3,
    producerId: 7,
    producerEpoch: 1,
    baseSequence: 10,
    records: [
      { key: bytes('k1'), value: bytes('v1'), timestamp: T0, headers: [{ key: 'h', value: null }] },
      { value: bytes('v2'), timestamp: T0 + 5 },
    ],
  });
  const b = encodeRecordBatch({ baseOffset: 3, partitionLeaderEpoch: 3, compression: 'gzip', records: [{ value: bytes('x'), timestamp: T0 + 10 }, { value: bytes('y'), timestamp: T0 + 10 }] });
  const m = encodeTxnMarker({ producerId: 7, producerEpoch: 1, type: ControlType.COMMIT, coordinatorEpoch: 4, timestamp: T0 + 20 });
  setBaseOffset(m, 0, 5);
  setPartitionLeaderEpoch(m, 0, 3);
  return { log: Buffer.concat([a, b, m]), a, b, m };
}

describe('cli/commands/dump-log: the lines', () => {
  it("prints a batch as Kafka's tool: offsets, count, sequences, producer, flags, position, time, size, codec, crc", () => {
    const { log, a, b, m } = segment();
    const dump = dumpLogFile('/any/00000000000000000000.log', log, { deep: false, printData: false });
    expect(dump.out).to.deep.equal([
      'Log starting offset: 0',
      `baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 10 lastSequence: 11 producerId: 7 producerEpoch: 1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: ${T0 + 5} size: ${a.length} magic: 2 compresscodec: none crc: ${storedCrcOf(a, 0)} isvalid: true`,
      `baseOffset: 3 lastOffset: 4 count: 2 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: ${a.length} CreateTime: ${T0 + 10} size: ${b.length} magic: 2 compresscodec: gzip crc: ${storedCrcOf(b, 0)} isvalid: true`,
      `baseOffset: 5 lastOffset: 5 count: 1 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 1 partitionLeaderEpoch: 3 isTransactional: true isControl: true deleteHorizonMs: OptionalLong.empty position: ${a.length + b.length} CreateTime: ${T0 + 20} size: ${m.length} magic: 2 compresscodec: none crc: ${storedCrcOf(m, 0)} isvalid: true`,
    ]);
    expect(dump.err).to.deep.equal([]);
    // sequences wrap to 0 after 2^31 - 1, as Kafka's
    const wrapping = encodeRecordBatch({ producerId: 1, producerEpoch: 0, baseSequence: 2 ** 31 - 1, records: [{ value: bytes('a') }, { value: bytes('b') }] });
    expect(batchLine(wrapping, 0, wrapping.length)).to.contain(` baseSequence: ${2 ** 31 - 1} lastSequence: 0 `);
    const deep = dumpLogFile('00000000000000000000.log', wrapping, { deep: true, printData: false }).out;
    expect(deep.map((l) => / sequence: (-?\d+)/.exec(l)?.[1]).filter(Boolean)).to.deep.equal([String(2 ** 31 - 1), '0']);
  });

  it('deep: a line per record (the marker with its type and epoch), with --print-data-log keys and payloads; gaps on stderr', () => {
    const { log } = segment();
    const deep = dumpLogFile('00000000000000000000.log', log, { deep: true, printData: true });
    const records = deep.out.filter((l) => l.startsWith('|'));
    expect(records).to.deep.equal([
      `| offset: 0 CreateTime: ${T0} keySize: 2 valueSize: 2 sequence: 10 headerKeys: [h] key: k1 payload: v1`,
      `| offset: 1 CreateTime: ${T0 + 5} keySize: -1 valueSize: 2 sequence: 11 headerKeys: [] payload: v2`,
      `| offset: 3 CreateTime: ${T0 + 10} keySize: -1 valueSize: 1 sequence: -1 headerKeys: [] payload: x`,
      `| offset: 4 CreateTime: ${T0 + 10} keySize: -1 valueSize: 1 sequence: -1 headerKeys: [] payload: y`,
      `| offset: 5 CreateTime: ${T0 + 20} keySize: 4 valueSize: 6 sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 4`,
    ]);
    // each batch line comes before its records
    expect(deep.out[1]).to.match(/^baseOffset: 0 /);
    expect(deep.out[4]).to.match(/^baseOffset: 3 /);
    expect(deep.err).to.deep.equal([`Non-consecutive offsets in ${path.resolve('00000000000000000000.log')}`, '  1 is followed by 3']);
    const plain = dumpLogFile('00000000000000000000.log', log, { deep: true, printData: false });
    expect(plain.out.filter((l) => l.startsWith('|'))[0]).to.equal(`| offset: 0 CreateTime: ${T0} keySize: 2 valueSize: 2 sequence: 10 headerKeys: [h]`);
  });

  it('counts the bytes after the last whole batch, names the base offset, and tells a damaged CRC', () => {
    const { log, a } = segment();
    const torn = dumpLogFile('/x/00000000000000000042.log', Buffer.concat([log, Buffer.alloc(10, 1)]), { deep: false, printData: false });
    expect(torn.out[0]).to.equal('Log starting offset: 42');
    expect(torn.out.at(-1)).to.equal('Found 10 invalid bytes at the end of 00000000000000000042.log');
    const damaged = Buffer.from(a);
    damaged[damaged.length - 1]! ^= 0xff;
    expect(batchLine(damaged, 0, damaged.length)).to.match(/ isvalid: false$/);
  });

  it('an offset index: offset / position per entry, stopping at a zero entry, entries not naming their batch reported', () => {
    const { log, a } = segment();
    const index = Buffer.alloc(32);
    [
      [1, 0],
      [4, a.length],
      [2, a.length],
    ].forEach(([rel, pos], i) => {
      index.writeInt32BE(rel!, i * 8);
      index.writeInt32BE(pos!, i * 8 + 4);
    });
    const dump = dumpIndexFile('/x/00000000000000000000.index', index, log);
    expect(dump.out).to.deep.equal(['offset: 1 position: 0', `offset: 4 position: ${a.length}`, `offset: 2 position: ${a.length}`]);
    expect(dump.err).to.deep.equal([`Mismatches in :${path.resolve('/x/00000000000000000000.index')}`, '  Index offset: 2, log offset: 4']);
    expect(dumpIndexFile('/x/00000000000000000000.index', index, null).err).to.deep.equal([]);
    expect(dumpIndexFile('/x/00000000000000000100.index', Buffer.alloc(0), null).out).to.deep.equal(['/x/00000000000000000100.index is empty.']);
  });

  it('a time index: timestamp / offset per entry, offsets from the base', () => {
    const t = Buffer.alloc(36);
    t.writeBigInt64BE(BigInt(T0 + 5), 0);
    t.writeInt32BE(1, 8);
    t.writeBigInt64BE(BigInt(T0 + 10), 12);
    t.writeInt32BE(4, 20);
    expect(dumpTimeIndexFile('/x/00000000000000000010.timeindex', t).out).to.deep.equal([`timestamp: ${T0 + 5} offset: 11`, `timestamp: ${T0 + 10} offset: 14`]);
  });

  it('--files: comma-separated, each occurrence added', () => {
    expect(fileList(['a.log,b.index', 'c.timeindex', ''])).to.deep.equal(['a.log', 'b.index', 'c.timeindex']);
  });
});

describe('cli: dump-log', function () {
  this.timeout(60_000);
  let cli: CliCluster;
  let dir: string;

  before(async () => {
    cli = await CliCluster.start(1);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-dump-log-'));
  });
  after(async () => {
    await cli?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses command lines that cannot work (exit 2); an unreadable file is exit 1, an unknown one ignored', async () => {
    const none = await runCli(['dump-log'], { inProcess: true });
    expect(none.code).to.equal(2);
    expect(none.stderr).to.contain('--files is required');
    const missing = await runCli(['dump-log', '--files', path.join(dir, '00000000000000000000.log')], { inProcess: true });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('cannot read');
    const other = path.join(dir, 'notes.txt');
    fs.writeFileSync(other, 'x');
    const unknown = await runCli(['dump-log', '--files', other], { inProcess: true });
    expect(unknown.code).to.equal(0);
    expect(unknown.stdout).to.equal(`Dumping ${other}\n`);
    expect(unknown.stderr).to.contain(`Ignoring unknown file ${other}`);
  });

  it("dumps a broker's segment files: the batches and records produced, its offset and time index", async () => {
    await cli.cluster.client.createTopic('dumped', 1, 1, { 'segment.bytes': 300, 'index.interval.bytes': 1 });
    // offsets 0-1 and 2 in the first segment, 3 rolls it (closing its indexes), 4 after
    await cli.cluster.client.produce('dumped', 0, ['alpha', 'beta']);
    await cli.cluster.client.produce('dumped', 0, ['delta']);
    await cli.cluster.client.produce('dumped', 0, ['x'.repeat(150)]);
    await cli.cluster.client.produce('dumped', 0, ['gamma']);
    const partDir = path.join(cli.cluster.logDir(1), 'dumped-0');
    const first = path.join(partDir, '00000000000000000000');
    const r = await runCli(['dump-log', '--files', `${first}.log,${first}.index,${first}.timeindex`, '--print-data-log'], { inProcess: true });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).to.deep.equal([`Dumping ${first}.log`, 'Log starting offset: 0']);
    expect(lines[2]).to.match(/^baseOffset: 0 lastOffset: 1 count: 2 .* position: 0 CreateTime: \d+ size: \d+ magic: 2 compresscodec: \w+ crc: \d+ isvalid: true$/);
    expect(lines[3]).to.match(/^\| offset: 0 CreateTime: \d+ keySize: -1 valueSize: 5 sequence: -?\d+ headerKeys: \[\] payload: alpha$/);
    expect(lines[4]).to.match(/^\| offset: 1 .* payload: beta$/);
    const size = Number(/ size: (\d+) /.exec(lines[2]!)![1]);
    const second = new RegExp(`^baseOffset: 2 lastOffset: 2 count: 1 .* position: ${size} CreateTime: (\\d+) `).exec(lines[5]!);
    expect(second, lines[5]).to.not.equal(null);
    expect(lines[6]).to.match(/^\| offset: 2 .* payload: delta$/);
    // the offset index names the second batch by its last offset; the time index its timestamp
    expect(lines.slice(7)).to.deep.equal([`Dumping ${first}.index`, `offset: 2 position: ${size}`, `Dumping ${first}.timeindex`, `timestamp: ${second![1]} offset: 2`]);
    // without --print-data-log or --deep-iteration: the batches only
    const shallow = await runCli(['dump-log', '--files', `${first}.log`], { inProcess: true });
    expect(shallow.stdout.trim().split('\n').map((l) => l.split(' ')[0])).to.deep.equal(['Dumping', 'Log', 'baseOffset:', 'baseOffset:']);
  });
});
