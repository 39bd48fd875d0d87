/**
 * V8's heap growing factor for a process that runs brokers.
 *
 * V8 starts a full collection when the heap, counted together with the memory of ArrayBuffers
 * ("external" memory), outgrows its size after the last full collection by a factor it picks
 * itself (about 1.1-2 with a small, busy heap). A broker's heap is small (~11 MB) while the
 * buffers it moves are not: under replication each worker-thread broker allocated ~250 MB/s of
 * them (produce requests, reads for followers, fetch responses; a port transfers a fresh buffer
 * per batch) and ran a mark-compact every ~120-170 ms, most of them freeing only buffers. With
 * `--heap-growing-percent=300` (the next full collection at 4x the size after the last) a
 * 3-broker RF 3 run does 9-13 mark-compacts instead of 27-80 and produces ~16% more records/s
 * (alternating pairs).
 *
 * The setting is V8's, for the whole process (every worker thread too), and can be changed at
 * any time. A client in the same process once produced ~9% less with it (RF 1 pairs), so
 * `samsa start`, whose process runs brokers alone, sets BROKER_HEAP_GROWING_PERCENT, and a
 * topology started in an application's own process sets it only when it says so (`runtime`).
 * Since the collector fixes of a later round that cost no longer shows (the perf tools, client
 * and brokers in one process, now run with it: benchmarks/lib/perf-cluster.ts), but what it does
 * to an application's own threads is the application's call.
 */
import v8 from 'node:v8';

/** What `samsa start` uses unless the topology says otherwise. */
export const BROKER_HEAP_GROWING_PERCENT = 300;

/** V8 itself picks the factor (V8's default). */
export const V8_DEFAULT_HEAP_GROWING = 0;

const MAX_PERCENT = 1000;

let current = V8_DEFAULT_HEAP_GROWING;

/**
 * Sets the heap growing factor to 1 + percent / 100 (0: V8 picks it, its default). Throws a
 * RangeError for anything but an integer in [0, 1000].
 */
export function setHeapGrowingPercent(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0 || percent > MAX_PERCENT) {
    throw new RangeError(`heapGrowingPercent must be an integer in [0, ${MAX_PERCENT}], got ${String(percent)}`);
  }
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  current = percent;
}

/** The value last set through setHeapGrowingPercent (0 when never). */
export function heapGrowingPercent(): number {
  return current;
}
