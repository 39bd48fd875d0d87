/**
 * `samsa dump-log`: the contents of samsa's segment files like Kafka's kafka-dump-log tool
 * (DumpLogSegments), read from disk without a cluster: a `.log` file's record batches (Kafka's
 * RecordBatch v2, as samsa stores them) one line each, with --deep-iteration (or
 * --print-data-log) each record, and with --print-data-log its key and value as UTF-8; an
 * `.index` file's offset / position entries (checked against the `.log` beside it, mismatches on
 * stderr as Kafka's), a `.timeindex` file's timestamp / offset entries. Lines as Kafka's tool
 * prints them. Each file is read whole (a debugging tool, for segments of ordinary size).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  COMPRESSION_CODEC_MASK,
  computeBatchCrc,
  CONTROL_FLAG_MASK,
  deleteHorizonFrom,
  iterateBatches,
  lastOffsetOf,
  readBatchHeader,
  readInt32BE,
  readInt64BE,
  RECORD_BATCH_OVERHEAD,
  TIMESTAMP_TYPE_MASK,
  TimestampType,
  TRANSACTIONAL_FLAG_MASK,
} from '../../protocol/batch-header.js';
import { compressionName } from '../../protocol/compression.js';
import { ControlType } from '../../protocol/control-records.js';
import { decodeRecordBatch, type DecodedRecordBatch } from '../../protocol/record-batch.js';
import type { Args, OptionSpec } from '../args.js';
import { HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const options: OptionSpec[] = [
  { name: 'files', kind: 'list', value: 'file,file,...', help: 'the segment files to dump (.log, .index, .timeindex), separated by commas; may be given more than once' },
  { name: 'deep-iteration', kind: 'flag', help: 'print each record of every batch, not only the batches' },
  { name: 'print-data-log', kind: 'flag', help: "print the records' keys and values (UTF-8) too; implies --deep-iteration" },
  HELP_OPTION,
];

const INT32_MAX = 2 ** 31 - 1;

/** What a dump printed: stdout lines and stderr lines. */
export interface Dump {
  out: string[];
  err: string[];
}

/** Kafka's DefaultRecordBatch.incrementSequence: sequences wrap to 0 after Int.MaxValue. */
function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

/** The base offset a segment file's name carries (`00000000000000000042.log`: 42). */
export function baseOffsetOfFile(file: string): number {
  const base = path.basename(file).split('.')[0]!;
  if (!/^\d+$/.test(base)) throw new CliError(`${file}: the name does not start with a base offset (segment files are named <20-digit offset>.log / .index / .timeindex)`);
  return Number(base);
}

function timestampTypeName(attributes: number): string {
  return (attributes & TIMESTAMP_TYPE_MASK) !== 0 ? 'LogAppendTime' : 'CreateTime';
}

/** Kafka's printBatchLevel line for the v2 batch at `pos`, `position` bytes into the file. */
export function batchLine(buf: Uint8Array, pos: number, size: number): string {
  const h = readBatchHeader(buf, pos);
  const lastOffset = h.baseOffset + h.lastOffsetDelta;
  const lastSequence = h.baseSequence === -1 ? -1 : incrementSequence(h.baseSequence, h.lastOffsetDelta);
  const horizon = deleteHorizonFrom(h.attributes, h.baseTimestamp);
  const valid = size >= RECORD_BATCH_OVERHEAD && computeBatchCrc(buf, pos) === h.crc;
  return (
    `baseOffset: ${h.baseOffset} lastOffset: ${lastOffset} count: ${h.recordsCount} baseSequence: ${h.baseSequence} lastSequence: ${lastSequence}` +
    ` producerId: ${h.producerId} producerEpoch: ${h.producerEpoch} partitionLeaderEpoch: ${h.partitionLeaderEpoch}` +
    ` isTransactional: ${(h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0} isControl: ${(h.attributes & CONTROL_FLAG_MASK) !== 0} deleteHorizonMs: ${horizon === null ? 'OptionalLong.empty' : `OptionalLong[${horizon}]`}` +
    ` position: ${pos} ${timestampTypeName(h.attributes)}: ${h.maxTimestamp} size: ${size} magic: ${h.magic}` +
    ` compresscodec: ${compressionName(h.attributes & COMPRESSION_CODEC_MASK)} crc: ${h.crc} isvalid: ${valid}`
  );
}

/** Kafka's record lines (`| offset: ...`) of a decoded batch; with `printData` the key and value as UTF-8. */
export function recordLines(b: DecodedRecordBatch, printData: boolean): string[] {
  const type = b.timestampType === TimestampType.LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime';
  return b.records.map((r) => {
    const delta = r.offset - b.baseOffset;
    const sequence = b.baseSequence === -1 ? -1 : incrementSequence(b.baseSequence, delta);
    let line = `| offset: ${r.offset} ${type}: ${r.timestamp} keySize: ${r.key ? r.key.length : -1} valueSize: ${r.value ? r.value.length : -1}`;
    line += ` sequence: ${sequence} headerKeys: [${r.headers.map((x) => x.key).join(',')}]`;
    if (b.control) {
      const typeId = r.key && r.key.length >= 4 ? r.key.readInt16BE(2) : -1;
      if (typeId === ControlType.ABORT || typeId === ControlType.COMMIT) {
        const epoch = r.value && r.value.length >= 6 ? r.value.readInt32BE(2) : -1;
        line += ` endTxnMarker: ${typeId === ControlType.ABORT ? 'ABORT' : 'COMMIT'} coordinatorEpoch: ${epoch}`;
      } else line += ` controlType: UNKNOWN(${typeId})`;
    } else if (printData) {
      if (r.key) line += ` key: ${r.key.toString('utf8')}`;
      if (r.value) line += ` payload: ${r.value.toString('utf8')}`;
    }
    return line;
  });
}

/**
 * Kafka's dumpLog of a `.log` file's bytes: its starting offset, a line per batch, with `deep`
 * the records under each, and the bytes after the last whole batch; offsets that do not follow
 * one another (deep only) reported on stderr.
 */
export function dumpLogFile(file: string, bytes: Uint8Array, opts: { deep: boolean; printData: boolean }): Dump {
  const dump: Dump = { out: [`Log starting offset: ${baseOffsetOfFile(file)}`], err: [] };
  const gaps: [number, number][] = [];
  let lastOffset = -1;
  const it = iterateBatches(bytes);
  let step = it.next();
  while (!step.done) {
    const { pos, size } = step.value;
    dump.out.push(batchLine(bytes, pos, size));
    if (opts.deep) {
      let batch: DecodedRecordBatch;
      try {
        batch = decodeRecordBatch(bytes, pos);
      } catch (e) {
        dump.err.push(`${file}: the batch at position ${pos} cannot be read: ${(e as Error).message}`);
        step = it.next();
        continue;
      }
      for (const r of batch.records) {
        if (lastOffset !== -1 && r.offset !== lastOffset + 1) gaps.push([lastOffset, r.offset]);
        lastOffset = r.offset;
      }
      dump.out.push(...recordLines(batch, opts.printData));
    }
    step = it.next();
  }
  const trailing = bytes.length - step.value;
  if (trailing > 0) dump.out.push(`Found ${trailing} invalid bytes at the end of ${path.basename(file)}`);
  if (gaps.length > 0) dump.err.push(`Non-consecutive offsets in ${path.resolve(file)}`, ...gaps.map(([a, b]) => `  ${a} is followed by ${b}`));
  return dump;
}

/**
 * Kafka's dumpIndex of an `.index` file's bytes (8-byte entries: offset relative to the base,
 * position): `offset: N position: P` each, stopping at a zero entry after the first as Kafka's
 * (a preallocated tail); with the segment's `.log` bytes each entry is checked to name the last
 * offset of the batch at its position, mismatches on stderr.
 */
export function dumpIndexFile(file: string, bytes: Uint8Array, log: Uint8Array | null): Dump {
  const dump: Dump = { out: [], err: [] };
  const base = baseOffsetOfFile(file);
  const entries = Math.floor(bytes.length / 8);
  if (entries === 0) return { out: [`${file} is empty.`], err: [] };
  const mismatches: [number, number][] = [];
  for (let i = 0; i < entries; i++) {
    const offset = base + readInt32BE(bytes, i * 8);
    const position = readInt32BE(bytes, i * 8 + 4);
    if (offset === base && i > 0) break;
    if (log) {
      const first = iterateBatches(log, position).next();
      const found = first.done ? -1 : lastOffsetOf(log, position);
      if (found !== offset) mismatches.push([offset, found]);
    }
    dump.out.push(`offset: ${offset} position: ${position}`);
  }
  // Kafka lists them newest first
  if (mismatches.length > 0) dump.err.push(`Mismatches in :${path.resolve(file)}`, ...mismatches.reverse().map(([i, l]) => `  Index offset: ${i}, log offset: ${l}`));
  return dump;
}

/** Kafka's dumpTimeIndex of a `.timeindex` file's bytes (12-byte entries: timestamp, relative offset): `timestamp: T offset: N` each. */
export function dumpTimeIndexFile(file: string, bytes: Uint8Array): Dump {
  const dump: Dump = { out: [], err: [] };
  const base = baseOffsetOfFile(file);
  for (let i = 0; i + 12 <= bytes.length; i += 12) {
    const timestamp = readInt64BE(bytes, i);
    const offset = base + readInt32BE(bytes, i + 8);
    if (offset === base && i > 0) break;
    dump.out.push(`timestamp: ${timestamp} offset: ${offset}`);
  }
  return dump;
}

function read(file: string): Uint8Array {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function readIfThere(file: string): Uint8Array | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** The --files values: comma-separated, each option occurrence added, empty entries skipped. */
export function fileList(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).filter((f) => f !== '');
}

async function run(args: Args): Promise<number> {
  const files = fileList(args.list('files') ?? []);
  if (files.length === 0) throw new UsageError('--files is required: the segment files to dump, separated by commas');
  const printData = args.has('print-data-log');
  const deep = printData || args.has('deep-iteration');
  for (const file of files) {
    out(`Dumping ${file}`);
    const suffix = path.extname(file);
    let dump: Dump;
    if (suffix === '.log') dump = dumpLogFile(file, read(file), { deep, printData });
    else if (suffix === '.index') {
      const bytes = read(file);
      dump = dumpIndexFile(file, bytes, readIfThere(path.join(path.dirname(file), `${path.basename(file).split('.')[0]}.log`)));
    } else if (suffix === '.timeindex') dump = dumpTimeIndexFile(file, read(file));
    else dump = { out: [], err: [`Ignoring unknown file ${file}`] };
    for (const line of dump.out) out(line);
    for (const line of dump.err) err(line);
  }
  return EXIT_OK;
}

export const dumpLogCommand: Command = {
  name: 'dump-log',
  summary: "print the record batches and records of samsa's segment files, and their offset and time indexes",
  usage: ['--files file,file,... [--deep-iteration] [--print-data-log]'],
  description:
    "Reads segment files from a broker's log dir (<log dir>/<topic>-<partition>/<base offset>.log, .index, .timeindex) without a cluster, as Kafka's kafka-dump-log does, and prints them as Kafka's tool does. A .log file: its starting offset, then a line per record batch (baseOffset, lastOffset, count, base and last sequence, producer id and epoch, partition leader epoch, isTransactional, isControl, delete horizon, position in the file, CreateTime or LogAppendTime (the batch's max timestamp), size, magic, compresscodec, crc and whether it matches); with --deep-iteration a `| offset: ...` line per record (transaction markers with their type and coordinator epoch), with --print-data-log its key and payload as UTF-8; bytes after the last whole batch are counted. An .index file: `offset: N position: P` per entry, checked against the .log beside it (mismatches on stderr). A .timeindex file: `timestamp: T offset: N` per entry. Other files are ignored with a line on stderr (samsa keeps no .txnindex or producer snapshot files).\n\nExits 1 when a file cannot be read.",
  options,
  examples: ['samsa dump-log --files data/broker-1/events-0/00000000000000000000.log --print-data-log', 'samsa dump-log --files data/broker-1/events-0/00000000000000000000.index,data/broker-1/events-0/00000000000000000000.timeindex'],
  run,
};
