/**
 * Counts the blocking positional reads (`fs.readSync`) made while a function runs: how a test
 * tells a read answered from memory from one that went to the file.
 */
import fs from 'node:fs';

export async function readsDuring<T>(fn: () => T | Promise<T>): Promise<{ value: T; reads: number }> {
  const original = fs.readSync;
  let reads = 0;
  (fs as { readSync: typeof fs.readSync }).readSync = ((...args: Parameters<typeof fs.readSync>) => {
    reads++;
    return original.apply(fs, args);
  }) as typeof fs.readSync;
  try {
    return { value: await fn(), reads };
  } finally {
    (fs as { readSync: typeof fs.readSync }).readSync = original;
  }
}
