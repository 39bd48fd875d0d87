/**
 * Helpers for tests of command-line checks: the UsageError a call throws, and files in a
 * directory of the test's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';

/** The error `fn` throws, which must be a UsageError (exit 2); fails the test when it throws nothing. */
export function usageErrorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    expect((e as Error).name, (e as Error).message).to.equal('UsageError');
    return e as Error;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

/** A temporary directory for a suite: `file(name, text)` writes a file there and gives its path; `remove()` deletes it all. */
export function scratchDir(prefix: string): { readonly dir: string; file(name: string, text: string): string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      return f;
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
