/**
 * Names the calling OS thread, so `top -H`, `ps -L`, `perf` and the benchmarks' per-thread CPU
 * report can tell a worker node's thread from the main thread and from V8's and libuv's helper
 * threads (all of which are otherwise called "node").
 *
 * Linux only: the name is written to /proc/thread-self/comm, which the kernel keeps to 15 bytes.
 * Elsewhere, or when /proc is not mounted, nothing happens.
 */
import fs from 'node:fs';

/** The most bytes a Linux thread name holds. */
export const THREAD_NAME_MAX = 15;

/**
 * The name as the kernel will keep it: printable ASCII (anything else becomes '_'), at most
 * THREAD_NAME_MAX bytes. Throws on an empty name.
 */
export function threadNameFor(name: string): string {
  if (name.length === 0) throw new RangeError('a thread name cannot be empty');
  return name.replace(/[^\x20-\x7e]/g, '_').slice(0, THREAD_NAME_MAX);
}

/** Names the calling thread; returns the name it took, or null where threads cannot be named. */
export function nameThisThread(name: string): string | null {
  const n = threadNameFor(name);
  if (process.platform !== 'linux') return null;
  try {
    fs.writeFileSync('/proc/thread-self/comm', n);
    return n;
  } catch {
    return null;
  }
}

/** The calling thread's name (Linux), or null. */
export function thisThreadName(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    return fs.readFileSync('/proc/thread-self/comm', 'utf8').trimEnd();
  } catch {
    return null;
  }
}
