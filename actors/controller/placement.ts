/**
 * Replica placement, following Kafka's assignment (AdminUtils.assignReplicasToBrokers): without
 * racks (no broker has one), rack-unaware; with racks, rack-aware (below).
 *
 * Rack-unaware (AdminUtils.assignReplicasToBrokersRackUnaware):
 *  - brokers are taken in ascending id order;
 *  - partition p's first replica is broker[(start + p) % n];
 *  - the j-th further replica is the first one moved on by `1 + (shift + j) % (n - 1)`;
 *  - the shift grows by one each time the partition id wraps around the broker count, so the
 *    followers of the second "round" land on different brokers than in the first.
 * Rack-aware (AdminUtils.assignReplicasToBrokersRackAware): the brokers are first arranged so
 * that racks alternate (racks in name order, each rack's brokers in id order, taking one from each
 * rack in turn); the first replica is placed as above on that list, and each further replica is the
 * next candidate on the shifted walk (the shift scaled by the number of racks) that is on a rack
 * without a replica of the partition yet (until every rack has one) and on a broker without one
 * (until every broker has one). A partition's replicas so span min(replication factor, racks)
 * racks, and leaders and replicas spread evenly over the brokers. Brokers without a rack count
 * as one rack of their own (KRaft's placer accepts such a mix; ZooKeeper-era Kafka refused it).
 *
 * `start` and `shift` are random in Kafka; here they come from a `PlacementRandom`, which a test
 * seeds (or fixes, like Kafka's fixedStartIndex) so placements are reproducible.
 */

/** Picks an integer in [0, n). */
export interface PlacementRandom {
  nextInt(n: number): number;
}

/**
 * A small seeded generator (mulberry32): same seed, same sequence. Not for cryptography, only
 * for spreading replicas reproducibly.
 */
export function seededRandom(seed: number): PlacementRandom {
  let a = seed >>> 0;
  return {
    nextInt(n: number): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      return Math.floor(r * n);
    },
  };
}

/** Math.random, for production placement when no seed is configured. */
export const defaultRandom: PlacementRandom = {
  nextInt: (n) => Math.floor(Math.random() * n),
};

export interface PlacementOptions {
  /** Index (into the sorted broker list) of partition `firstPartitionId`'s first replica. */
  startIndex: number;
  /** The replica shift of the first round of partitions. */
  replicaShift: number;
  /** The id of the first partition to place (non-zero when adding partitions to a topic). */
  firstPartitionId?: number;
}

/** Thrown only for arguments a caller should have validated first (a bug, not user input). */
export class PlacementError extends Error {
  override readonly name = 'PlacementError';
}

function replicaIndex(firstReplicaIndex: number, shift: number, j: number, n: number): number {
  const step = 1 + ((shift + j) % (n - 1));
  return (firstReplicaIndex + step) % n;
}

/**
 * Places `numPartitions` partitions with `replicationFactor` replicas each on `brokerIds`.
 * Returns, for each placed partition in order, its replicas with the preferred leader first.
 */
export function assignReplicasRackUnaware(
  brokerIds: readonly number[],
  numPartitions: number,
  replicationFactor: number,
  opts: PlacementOptions,
): number[][] {
  const brokers = [...new Set(brokerIds)].sort((a, b) => a - b);
  const n = brokers.length;
  if (numPartitions < 0 || !Number.isInteger(numPartitions)) throw new PlacementError(`bad partition count ${numPartitions}`);
  if (replicationFactor < 1 || !Number.isInteger(replicationFactor)) throw new PlacementError(`bad replication factor ${replicationFactor}`);
  if (replicationFactor > n) throw new PlacementError(`replication factor ${replicationFactor} larger than ${n} brokers`);
  const first = Math.max(0, opts.firstPartitionId ?? 0);
  const start = ((opts.startIndex % n) + n) % n;
  let shift = Math.max(0, opts.replicaShift);
  const out: number[][] = [];
  for (let i = 0; i < numPartitions; i++) {
    const partitionId = first + i;
    if (partitionId > 0 && partitionId % n === 0) shift += 1;
    const firstReplicaIndex = (partitionId + start) % n;
    const replicas = [brokers[firstReplicaIndex]!];
    for (let j = 0; j < replicationFactor - 1; j++) {
      replicas.push(brokers[replicaIndex(firstReplicaIndex, shift, j, n)]!);
    }
    out.push(replicas);
  }
  return out;
}

/** A broker as placement sees it. */
export interface PlacementBroker {
  readonly id: number;
  readonly rack: string | null;
}

/**
 * The broker ids with racks alternating: racks in name order (brokers without a rack last, as
 * one rack), each rack's brokers in id order, one from each rack in turn.
 */
export function rackAlternatedBrokerList(brokers: readonly PlacementBroker[]): number[] {
  const byRack = new Map<string, number[]>();
  const NO_RACK = '\u0000none';
  for (const b of brokers) {
    const rack = b.rack ?? NO_RACK;
    const list = byRack.get(rack) ?? [];
    if (!list.includes(b.id)) list.push(b.id);
    byRack.set(rack, list);
  }
  const racks = [...byRack.keys()].sort((a, b) => (a === NO_RACK ? 1 : b === NO_RACK ? -1 : a < b ? -1 : a > b ? 1 : 0));
  const queues = racks.map((r) => byRack.get(r)!.sort((a, b) => a - b));
  const total = queues.reduce((n, q) => n + q.length, 0);
  const out: number[] = [];
  for (let i = 0; out.length < total; i = (i + 1) % queues.length) {
    const next = queues[i]!.shift();
    if (next !== undefined) out.push(next);
  }
  return out;
}

/** Kafka's rack-aware placement over `brokers` (see the header). */
export function assignReplicasRackAware(brokers: readonly PlacementBroker[], numPartitions: number, replicationFactor: number, opts: PlacementOptions): number[][] {
  const arranged = rackAlternatedBrokerList(brokers);
  const n = arranged.length;
  if (numPartitions < 0 || !Number.isInteger(numPartitions)) throw new PlacementError(`bad partition count ${numPartitions}`);
  if (replicationFactor < 1 || !Number.isInteger(replicationFactor)) throw new PlacementError(`bad replication factor ${replicationFactor}`);
  if (replicationFactor > n) throw new PlacementError(`replication factor ${replicationFactor} larger than ${n} brokers`);
  const rackOf = new Map(brokers.map((b) => [b.id, b.rack ?? '\u0000none']));
  const numRacks = new Set(rackOf.values()).size;
  const start = ((opts.startIndex % n) + n) % n;
  let shift = Math.max(0, opts.replicaShift);
  const out: number[][] = [];
  for (let i = 0; i < numPartitions; i++) {
    const partitionId = Math.max(0, opts.firstPartitionId ?? 0) + i;
    if (partitionId > 0 && partitionId % n === 0) shift += 1;
    const firstReplicaIndex = (partitionId + start) % n;
    const leader = arranged[firstReplicaIndex]!;
    const replicas = [leader];
    const racksUsed = new Set([rackOf.get(leader)!]);
    for (let k = 0; replicas.length < replicationFactor; k++) {
      const candidate = n === 1 ? leader : arranged[replicaIndex(firstReplicaIndex, shift * numRacks, k, n)]!;
      const rack = rackOf.get(candidate)!;
      const rackFree = !racksUsed.has(rack) || racksUsed.size === numRacks;
      const brokerFree = !replicas.includes(candidate) || replicas.length === n;
      if (rackFree && brokerFree) {
        replicas.push(candidate);
        racksUsed.add(rack);
      }
    }
    out.push(replicas);
  }
  return out;
}

/** Rack-aware placement when any broker has a rack, rack-unaware otherwise. */
export function assignReplicas(brokers: readonly PlacementBroker[], numPartitions: number, replicationFactor: number, opts: PlacementOptions): number[][] {
  if (brokers.some((b) => b.rack !== null)) return assignReplicasRackAware(brokers, numPartitions, replicationFactor, opts);
  return assignReplicasRackUnaware(
    brokers.map((b) => b.id),
    numPartitions,
    replicationFactor,
    opts,
  );
}

/**
 * Start index and shift for a new topic: fixed (Kafka's fixedStartIndex semantics: both equal
 * the fixed index) or drawn from `random`.
 */
export function placementForNewTopic(brokerCount: number, random: PlacementRandom, fixedStartIndex: number | null): PlacementOptions {
  if (fixedStartIndex !== null && fixedStartIndex >= 0) return { startIndex: fixedStartIndex, replicaShift: fixedStartIndex };
  return { startIndex: random.nextInt(brokerCount), replicaShift: random.nextInt(brokerCount) };
}

/**
 * Start index for partitions added to an existing topic, as Kafka does it: the position of the
 * existing partition 0's preferred leader among the brokers (the first broker with an id at or
 * above it), used as a fixed start index (start and shift), with partition ids continuing after
 * the existing ones.
 */
export function placementForNewPartitions(brokerIds: readonly number[], partition0Leader: number, existingPartitions: number): PlacementOptions {
  const sorted = [...new Set(brokerIds)].sort((a, b) => a - b);
  const startIndex = Math.max(0, sorted.findIndex((id) => id >= partition0Leader));
  return { startIndex, replicaShift: startIndex, firstPartitionId: existingPartitions };
}
