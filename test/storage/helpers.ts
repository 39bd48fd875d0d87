/**
 * Shared helpers of the storage tests: temporary directories (removed after each test), a
 * logger that captures what it is given, open descriptor counts, and record batch builders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import winston from 'winston';
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
