/**
 * A watchdog for long soaks: a worker thread that ends the process when the main thread's event
 * loop has not turned for `limitMs`. A loop starved by code that never yields (a promise chain
 * that settles without I/O, forever) stops every timer, mocha's timeout included, so without it
 * such a run would hang instead of failing. The message goes to fd 2 directly: a worker's
 * process.stderr is relayed through the main thread, which is the one not running.
 */
import { Worker } from 'node:worker_threads';

const WATCHER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const beats = new Int32Array(workerData.shared);
let last = Atomics.load(beats, 0);
let seen = Date.now();
setInterval(() => {
  const now = Atomics.load(beats, 0);
  if (now !== last) { last = now; seen = Date.now(); return; }
  if (Date.now() - seen < workerData.limitMs) return;
  fs.writeSync(2, '\\n[watchdog] the main thread has not turned its event loop for ' + (Date.now() - seen) + ' ms during ' + workerData.what + ': something on it spins without yielding; ending the process\\n');
  process.kill(process.pid, 'SIGKILL');
}, 250);
`;

export interface LoopWatchdog {
  stop(): Promise<void>;
}

/** Starts watching; the main thread beats every 100 ms while its loop turns. */
export function startLoopWatchdog(limitMs: number, what: string): LoopWatchdog {
  const shared = new SharedArrayBuffer(4);
  const beats = new Int32Array(shared);
  // no --import hooks in the watcher: they would wait on the main thread it watches
  const worker = new Worker(WATCHER, { eval: true, execArgv: [], workerData: { shared, limitMs, what } });
  worker.unref();
  const timer = setInterval(() => Atomics.add(beats, 0, 1), 100);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}
