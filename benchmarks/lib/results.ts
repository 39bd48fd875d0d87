/**
 * Writes a benchmark's results as JSON to benchmarks/results/<name>.json (the directory is
 * created on demand and git-ignored), with a description of the machine and runtime so runs
 * from different machines can be told apart.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { crc32cImplementation, type Crc32cImplementation } from '../../src/protocol/crc32c.js';
import { heapGrowingPercent } from '../../src/runtime/heap-growth.js';
import { allocationSitePretenuring } from '../../src/runtime/pretenuring.js';

export interface BenchEnvironment {
  node: string;
  v8: string;
  platform: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  totalMemMiB: number;
  /** 1, 5 and 15 minute load averages when the run started: other work on the machine skews figures. */
  loadAverage: number[];
  /** Which CRC-32C checksummed the batches: 'hardware' (samsa's addon), 'node-rs' or 'js'. */
  crc32c: Crc32cImplementation;
  /** V8's allocation-site pretenuring when the environment was read (perf runs turn it off: pretenuring.ts). */
  allocationSitePretenuring: boolean;
  /** V8's heap growing percent when the environment was read (0: V8's own; perf runs use 300). */
  heapGrowingPercent: number;
  scale: number;
}

export function benchEnvironment(scale: number): BenchEnvironment {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    totalMemMiB: Math.round(os.totalmem() / (1024 * 1024)),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
    crc32c: crc32cImplementation,
    allocationSitePretenuring: allocationSitePretenuring(),
    heapGrowingPercent: heapGrowingPercent(),
    scale,
  };
}

/** The results directory, resolved from this file (no machine-specific path). */
export const resultsDir: URL = new URL('../results/', import.meta.url);

/** Writes `{ benchmark, date, environment, ...data }` and returns the file path. */
export async function writeResults(name: string, environment: BenchEnvironment, data: Record<string, unknown>): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const file = new URL(`${name}.json`, resultsDir);
  const payload = { benchmark: name, date: new Date().toISOString(), environment, ...data };
  await writeFile(file, JSON.stringify(payload, null, 2) + '\n');
  return fileURLToPath(file);
}
