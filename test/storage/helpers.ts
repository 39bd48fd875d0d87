/**
 * Shared helpers of the storage tests: temporary directories (removed after each test), a
 * logger that captures what it is given, open descriptor counts, and record batch builders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
import { baseOffsetOf, iterateBatches, lastOffsetOf } from '../../src/protocol/batch-header.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import type { Logger } from '../../src/runtime/logger.js';

const created: string[] = [];

/** A fresh directory under the OS temp dir; removed by cleanupTmpDirs(). */
export function tmpDir(label = 'storage'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `samsa-${label}-`));
  created.push(dir);
  return dir;
}

export function cleanupTmpDirs(): void {
  while (created.length > 0) fs.rmSync(created.pop()!, { recursive: true, force: true });
}

export interface CapturedLog {
  level: string;
  message: string;
  [key: string]: unknown;
}

/** A winston logger keeping every entry in `entries`. */
export function captureLogger(): { logger: Logger; entries: CapturedLog[] } {
  const entries: CapturedLog[] = [];
  const sink = new Writable({
    objectMode: true,
    write(chunk: CapturedLog, _enc, done) {
      entries.push(chunk);
      done();
    },
  });
  const logger = winston.createLogger({
    level: 'debug',
    format: winston.format((info) => info)(),
    transports: [new winston.transports.Stream({ stream: sink })],
  });
  return { logger, entries };
}

/** Descriptors this process holds (Linux), or -1 where /proc is unavailable. */
export function openFdCount(): number {
  try {
    return fs.readdirSync('/proc/self/fd').length;
  } catch {
    return -1;
  }
}

// ---- record batches ----

export interface BatchSpec {
  /** Record values (utf-8). */
  values: string[];
  /** Per-record timestamps, or one for all; default -1 (no timestamp). */
  timestamps?: number[] | number;
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  compression?: 'none' | 'gzip';
}

/** A valid RecordBatch v2 holding `spec.values`. */
export function batch(spec: BatchSpec | string[]): Buffer {
  const s: BatchSpec = Array.isArray(spec) ? { values: spec } : spec;
  const ts = s.timestamps;
  const records = s.values.map((v, i) => ({
    value: Buffer.from(v),
    ...(ts === undefined ? {} : { timestamp: Array.isArray(ts) ? ts[i]! : ts }),
  }));
  return encodeRecordBatch({
    records,
    baseOffset: s.baseOffset ?? 0,
    partitionLeaderEpoch: s.partitionLeaderEpoch ?? -1,
    compression: s.compression ?? 'none',
  });
}

/** A batch of `count` records of `size` bytes each (filled with a pattern derived from `seed`). */
export function sizedBatch(count: number, size: number, seed = 0): Buffer {
  const values: string[] = [];
  for (let i = 0; i < count; i++) values.push(String.fromCharCode(97 + ((seed + i) % 26)).repeat(size));
  return batch(values);
}

export interface DecodedValue {
  offset: number;
  value: string;
  timestamp: number;
}

/** Decodes every batch in `buf` (which must hold whole batches) into (offset, value) pairs. */
export function decodeAll(buf: Buffer): DecodedValue[] {
  const out: DecodedValue[] = [];
  for (const b of decodeRecordBatches(buf)) {
    for (const r of b.records) out.push({ offset: r.offset, value: r.value ? r.value.toString() : '', timestamp: r.timestamp });
  }
  return out;
}

/** Offsets of the batches in `buf` as [baseOffset, lastOffset] pairs. */
export function batchRanges(buf: Buffer): [number, number][] {
  const out: [number, number][] = [];
  for (const frame of iterateBatches(buf)) out.push([baseOffsetOf(buf, frame.pos), lastOffsetOf(buf, frame.pos)]);
  return out;
}
