/**
 * Runs a command-line codec (zstd, lz4) once over many inputs instead of once per input: each
 * input is written to a file of a fresh directory, the tool is given all of them, and each
 * output is read from the file the tool names after its input. A process started from the test
 * process cost ~150 ms on a loaded 2-core machine, so tests that started one per input and level
 * (up to 172 of them) ran for 16 s and more there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ToolOverFiles {
  /** The command, e.g. 'zstd'. */
  cmd: string;
  /** Its options, before the files. */
  args: string[];
  inputs: Uint8Array[];
  /** The inputs' file name suffix ('.zst' for zstd -d; '' for the plain inputs of a compression). */
  suffix: string;
  /** The output file the tool writes for an input file. */
  output: (input: string) => string;
}

/** The tool's output for each input, in order; throws with the tool's stderr when it fails. */
export function toolOverFiles(t: ToolOverFiles): Buffer[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `samsa-${t.cmd}-`));
  try {
    const files = t.inputs.map((data, i) => {
      const file = path.join(dir, `${i}${t.suffix}`);
      fs.writeFileSync(file, data);
      return file;
    });
    if (files.length === 0) return [];
    const r = spawnSync(t.cmd, [...t.args, ...files], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`${t.cmd} ${t.args.join(' ')} exited with ${r.status}: ${r.stderr.toString()}`);
    return files.map((f) => fs.readFileSync(t.output(f)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** zstd compresses each input with `args` (a level, --no-check, ...), one frame per input. */
export function zstdCompressEach(args: string[], inputs: Uint8Array[]): Buffer[] {
  return toolOverFiles({ cmd: 'zstd', args: ['-q', '-f', ...args], inputs, suffix: '', output: (f) => `${f}.zst` });
}

/** zstd decompresses each frame. */
export function zstdDecompressEach(frames: Uint8Array[]): Buffer[] {
  return toolOverFiles({ cmd: 'zstd', args: ['-d', '-q', '-f'], inputs: frames, suffix: '.zst', output: (f) => f.slice(0, -'.zst'.length) });
}

/** lz4 compresses each input with `args` into a frame of its own. */
export function lz4CompressEach(args: string[], inputs: Uint8Array[]): Buffer[] {
  return toolOverFiles({ cmd: 'lz4', args: ['-m', '-q', '-f', ...args], inputs, suffix: '', output: (f) => `${f}.lz4` });
}

/** lz4 decompresses each frame. */
export function lz4DecompressEach(frames: Uint8Array[]): Buffer[] {
  return toolOverFiles({ cmd: 'lz4', args: ['-d', '-m', '-q', '-f'], inputs: frames, suffix: '.lz4', output: (f) => f.slice(0, -'.lz4'.length) });
}
