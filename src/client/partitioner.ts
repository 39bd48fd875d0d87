/**
 * The producer's partitioner, as Kafka's: an explicit partition is used as given; a keyed record
 * goes to `toPositive(murmur2(keyBytes)) % numPartitions` (the Java DefaultPartitioner, so keyed
 * records land on the same partitions as with Kafka's clients); a keyless record goes to the
 * topic's current "sticky" partition, which moves to another partition when the producer
 * reports a batch of it sent before it was full (`onNewBatch`, KIP-480's StickyPartitionCache),
 * or once the full batches it closed for it hold `switchAfterBytes` (`onBatchClosed`; see
 * StickyPartitionerOptions), so keyless records fill whole batches and runs of them. Pure and
 * synchronous; the random source is injectable for tests.
 */
import { murmur2, toPositive } from './murmur2.js';

export { murmur2, toPositive } from './murmur2.js';

/** A record key as the producer accepts it: bytes, or a string taken as its UTF-8 bytes. */
export type RecordKey = Uint8Array | string;

const utf8 = new TextEncoder();

/** The bytes the partitioner hashes for `key` (a string is UTF-8 encoded, like KafkaJS does). */
export function keyBytes(key: RecordKey): Uint8Array {
  return typeof key === 'string' ? utf8.encode(key) : key;
}

function checkPartitionCount(numPartitions: number): void {
  if (!Number.isInteger(numPartitions) || numPartitions < 1) {
    throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`);
  }
}

/** Kafka's partition for a keyed record: `toPositive(murmur2(key)) % numPartitions`. */
export function partitionForKey(key: RecordKey, numPartitions: number): number {
  checkPartitionCount(numPartitions);
  return toPositive(murmur2(keyBytes(key))) % numPartitions;
}

export interface StickyPartitionerOptions {
  /** A uniform number in [0, 1); Math.random by default. */
  random?: () => number;
  /**
   * Bytes of closed batches a sticky partition takes before keyless records move on (the
   * producer's partitioner.sticky.bytes). Kafka's built-in partitioner switches after batch.size
   * bytes; a longer run puts several consecutive batches of one partition into a request, which
   * its leader appends with one write. 0 (the default here) switches after every closed batch.
   */
  switchAfterBytes?: number;
  /**
   * Batches waiting to be sent for a partition (Kafka's partitioner.adaptive.partitioning):
   * when given, the next sticky partition is drawn at random and kept with probability
   * 1 / (1 + its waiting batches), so runs go less often to partitions whose leaders are behind.
   */
  queueLength?: (topic: string, partition: number) => number;
}

/** Draws for an adaptive choice before the least loaded partition drawn is taken. */
const MAX_ADAPTIVE_DRAWS = 8;

/**
 * One sticky partition per topic for keyless records (Kafka's StickyPartitionCache).
 * `partition` returns the topic's current choice, picking one on first use; `onNewBatch` moves
 * the topic to another random partition, but only if `prevPartition` is still the sticky one
 * (a stale notification from an older batch changes nothing).
 *
 * `available` lists the partitions that currently have a leader; when given and non-empty the
 * choice is made among them, otherwise among all `numPartitions`.
 */
export class StickyPartitioner {
  private readonly sticky = new Map<string, number>();
  /** Bytes of closed batches the topic's current sticky partition has taken. */
  private readonly run = new Map<string, number>();
  private readonly random: () => number;
  private readonly switchAfterBytes: number;
  private readonly queueLength: ((topic: string, partition: number) => number) | undefined;
  /** The last `available` list seen and its valid candidates (callers pass the same array until metadata changes). */
  private lastAvailable: readonly number[] | undefined;
  private lastCount = 0;
  private lastCandidates: readonly number[] = [];

  constructor(options: StickyPartitionerOptions = {}) {
    this.random = options.random ?? Math.random;
    const bytes = options.switchAfterBytes ?? 0;
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`switchAfterBytes must be a non-negative integer, got ${bytes}`);
    this.switchAfterBytes = bytes;
    this.queueLength = options.queueLength;
  }

  /** The partition for the next keyless record of `topic`. */
  partition(topic: string, numPartitions: number, available?: readonly number[]): number {
    checkPartitionCount(numPartitions);
    const current = this.sticky.get(topic);
    if (current !== undefined && current < numPartitions) return current;
    return this.choose(topic, current, numPartitions, available);
  }

  /**
   * A batch for `prevPartition` of `topic` was completed (sent or full): if that is still the
   * sticky partition, switch to a different one (when there is more than one to choose from).
   * Returns the topic's sticky partition after the call.
   */
  onNewBatch(topic: string, prevPartition: number, numPartitions: number, available?: readonly number[]): number {
    checkPartitionCount(numPartitions);
    const current = this.sticky.get(topic);
    if (current === undefined || current === prevPartition || current >= numPartitions) {
      return this.choose(topic, current, numPartitions, available);
    }
    return current;
  }

  /**
   * The producer closed a batch of `batchBytes` for `partition` of `topic` (samsa's producer
   * reports its full batches here, each as batch.size or its own size when larger, and a batch
   * sent before it was full with `onNewBatch`). When that is the sticky partition its run grows by `batchBytes`, and once the
   * run holds `switchAfterBytes` the topic moves on as with `onNewBatch`. A batch of another
   * partition changes nothing. Returns the topic's sticky partition after the call.
   */
  onBatchClosed(topic: string, partition: number, batchBytes: number, numPartitions: number, available?: readonly number[]): number {
    checkPartitionCount(numPartitions);
    const current = this.sticky.get(topic);
    if (current === undefined || current >= numPartitions) return this.choose(topic, current, numPartitions, available);
    if (current !== partition) return current;
    const run = (this.run.get(topic) ?? 0) + batchBytes;
    if (run >= this.switchAfterBytes) return this.choose(topic, current, numPartitions, available);
    this.run.set(topic, run);
    return current;
  }

  /** The current sticky partition of `topic`, if one was chosen. */
  current(topic: string): number | undefined {
    return this.sticky.get(topic);
  }

  /** Forgets the topic's sticky partition (e.g. after the topic was deleted). */
  forget(topic: string): void {
    this.sticky.delete(topic);
    this.run.delete(topic);
  }

  private randomIndex(n: number): number {
    const i = Math.floor(this.random() * n);
    return i >= n ? n - 1 : i < 0 ? 0 : i;
  }

  private choose(topic: string, old: number | undefined, numPartitions: number, available?: readonly number[]): number {
    const candidates = this.candidates(numPartitions, available);
    let next: number;
    if (candidates.length === 0) {
      // No partition has a leader (or none was said to): any partition, the send will wait or fail.
      next = this.pickDifferent(numPartitions, (i) => i, old);
    } else if (candidates.length === 1) {
      next = candidates[0]!;
    } else {
      next = this.pickAdaptive(topic, candidates.length, (i) => candidates[i]!, old);
    }
    this.sticky.set(topic, next);
    this.run.delete(topic);
    return next;
  }

  /**
   * The valid partitions of `available`. A frozen list (the metadata cache hands out the same
   * frozen array until metadata changes) is filtered once, not once per batch: O(1) instead of
   * O(partitions) per batch.
   */
  private candidates(numPartitions: number, available: readonly number[] | undefined): readonly number[] {
    if (!available) return [];
    if (available === this.lastAvailable && numPartitions === this.lastCount) return this.lastCandidates;
    const c = available.filter((p) => Number.isInteger(p) && p >= 0 && p < numPartitions);
    if (!Object.isFrozen(available)) return c;
    this.lastAvailable = available;
    this.lastCount = numPartitions;
    this.lastCandidates = c;
    return c;
  }

  /**
   * `pickDifferent`, weighted by `queueLength` when there is one: a drawn partition is kept with
   * probability 1 / (1 + its waiting batches), else drawn again (rejection sampling, so the
   * choice is in proportion to that weight); after MAX_ADAPTIVE_DRAWS the least loaded one drawn.
   */
  private pickAdaptive(topic: string, n: number, at: (i: number) => number, old: number | undefined): number {
    const load = this.queueLength;
    if (!load) return this.pickDifferent(n, at, old);
    let least = -1;
    let leastLoad = Infinity;
    for (let draw = 0; draw < MAX_ADAPTIVE_DRAWS; draw++) {
      const p = this.pickDifferent(n, at, old);
      const waiting = load(topic, p);
      if (waiting <= 0 || this.random() * (1 + waiting) < 1) return p;
      if (waiting < leastLoad) {
        least = p;
        leastLoad = waiting;
      }
    }
    return least;
  }

  /** A random element (via `at`) of n choices, other than `old` when there is another one. */
  private pickDifferent(n: number, at: (i: number) => number, old: number | undefined): number {
    const first = at(this.randomIndex(n));
    if (first !== old || n === 1) return first;
    // Draw among the other n - 1 choices: uniform, and it always terminates.
    const oldIndex = Array.from({ length: n }, (_, i) => at(i)).indexOf(old);
    const j = this.randomIndex(n - 1);
    return at(j >= oldIndex ? j + 1 : j);
  }
}

/** What the partitioner needs to place one record. */
export interface PartitionRequest {
  topic: string;
  numPartitions: number;
  /** An explicit partition: used as given (it must exist). */
  partition?: number | null;
  /** The record key; null or absent means keyless (sticky partitioning). */
  key?: RecordKey | null;
  /** Partitions that currently have a leader (for keyless records). */
  availablePartitions?: readonly number[];
}

/**
 * Kafka's default partitioning: explicit partition, else murmur2 of the key, else the sticky
 * partition. Throws RangeError for an explicit partition outside [0, numPartitions) (Kafka's
 * producer rejects such a record too).
 */
export class DefaultPartitioner {
  private readonly sticky: StickyPartitioner;

  constructor(options: StickyPartitionerOptions = {}) {
    this.sticky = new StickyPartitioner(options);
  }

  partition(request: PartitionRequest): number {
    const { topic, numPartitions, partition, key, availablePartitions } = request;
    checkPartitionCount(numPartitions);
    if (partition !== undefined && partition !== null) {
      if (!Number.isInteger(partition) || partition < 0 || partition >= numPartitions) {
        throw new RangeError(
          `Invalid partition given with record: ${partition} is not in the range [0...${numPartitions}) of topic ${topic}`,
        );
      }
      return partition;
    }
    if (key !== undefined && key !== null) return partitionForKey(key, numPartitions);
    return this.sticky.partition(topic, numPartitions, availablePartitions);
  }

  /** See StickyPartitioner.onBatchClosed. */
  onBatchClosed(topic: string, partition: number, batchBytes: number, numPartitions: number, availablePartitions?: readonly number[]): number {
    return this.sticky.onBatchClosed(topic, partition, batchBytes, numPartitions, availablePartitions);
  }

  /** See StickyPartitioner.onNewBatch. */
  onNewBatch(topic: string, prevPartition: number, numPartitions: number, availablePartitions?: readonly number[]): number {
    return this.sticky.onNewBatch(topic, prevPartition, numPartitions, availablePartitions);
  }
}
