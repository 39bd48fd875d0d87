/**
 * Finding hanging transactions, as Kafka's `kafka-transactions.sh find-hanging` does (KIP-664):
 * a transaction open on a partition (DescribeProducers names its first offset) for longer than
 * the longest transaction timeout the cluster allows, that no transaction coordinator will end.
 * Such a transaction holds the partition's last stable offset, so read_committed consumers stop
 * there, and the log cleaner and retention cannot pass it. It hangs when:
 * - no coordinator lists a transactional id for its producer id (the id expired or moved to
 *   another producer id), or the id it lists cannot be described any more;
 * - the id's coordinator tells a transaction whose partitions do not include this one (it
 *   names every partition of an ongoing transaction, and those still waiting for their marker
 *   while it prepares a commit or an abort).
 * `abortTransaction` ends one with an ABORT marker.
 */
import type { ActiveProducer } from '../../actors/partition-replica/messages.js';
import { ErrorCode, errorName } from '../protocol/errors.js';
import type { Admin, TransactionDescription } from './admin.js';
import { SamsaError } from './errors.js';

/** A transaction open on one partition, as that partition's replica tells it. */
export interface OpenTransaction {
  topic: string;
  partition: number;
  producer: ActiveProducer;
}

/** Where to look: a topic (one partition of it, or all), a broker's replicas, or both. */
export interface FindHangingOptions {
  topic?: string;
  partition?: number;
  /** The broker whose replicas are asked (every partition it hosts, unless a topic is named); else each partition's leader. */
  brokerId?: number;
  /** Only transactions open longer than this (Kafka's --max-transaction-timeout; 15 minutes by default). */
  maxTransactionTimeoutMs?: number;
}

export const DEFAULT_MAX_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

/**
 * Which of the open transactions hang (pure: the lookups are given). `idsByProducer` holds the
 * transactional id a coordinator lists for a producer id; `descriptions` each such id's
 * transaction, null when its coordinator no longer knows the id.
 */
export function hangingTransactions(
  open: readonly OpenTransaction[],
  idsByProducer: ReadonlyMap<number, string>,
  descriptions: ReadonlyMap<string, TransactionDescription | null>,
): OpenTransaction[] {
  return open.filter((t) => {
    const id = idsByProducer.get(t.producer.producerId);
    if (id === undefined) return true;
    const d = descriptions.get(id);
    if (!d) return true;
    return !d.topicPartitions.some((p) => p.topic === t.topic && p.partition === t.partition);
  });
}

function check(opts: FindHangingOptions): void {
  if (opts.topic === undefined && opts.brokerId === undefined) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'findHangingTransactions: give a topic or a broker id to limit the search');
  if (opts.partition !== undefined && opts.topic === undefined) throw new SamsaError(ErrorCode.INVALID_REQUEST, 'findHangingTransactions: a partition needs its topic');
  if (opts.partition !== undefined && (!Number.isSafeInteger(opts.partition) || opts.partition < 0)) {
    throw new SamsaError(ErrorCode.INVALID_REQUEST, `findHangingTransactions: partition ${String(opts.partition)} is not a partition number`);
  }
  if (opts.brokerId !== undefined && (!Number.isSafeInteger(opts.brokerId) || opts.brokerId < 0)) {
    throw new SamsaError(ErrorCode.INVALID_REQUEST, `findHangingTransactions: broker id ${String(opts.brokerId)} is not a broker id`);
  }
  const t = opts.maxTransactionTimeoutMs;
  if (t !== undefined && (!Number.isSafeInteger(t) || t < 0)) throw new SamsaError(ErrorCode.INVALID_REQUEST, `findHangingTransactions: maxTransactionTimeoutMs must be a non-negative integer, got ${String(t)}`);
}

/** The partitions to search, by topic: the one named, a topic's (on the broker, when named), or every partition the broker hosts. */
async function partitionsToSearch(admin: Admin, opts: FindHangingOptions): Promise<Map<string, number[]>> {
  if (opts.topic !== undefined && opts.partition !== undefined) return new Map([[opts.topic, [opts.partition]]]);
  const { topics } = await admin.fetchTopicMetadata(opts.topic !== undefined ? { topics: [opts.topic] } : {});
  if (opts.topic !== undefined && !topics.some((t) => t.name === opts.topic)) throw new SamsaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `unknown topic ${opts.topic}`);
  const out = new Map<string, number[]>();
  for (const t of topics) {
    const partitions = t.partitions.filter((p) => opts.brokerId === undefined || p.replicas.includes(opts.brokerId)).map((p) => p.partition);
    if (partitions.length > 0) out.set(t.name, partitions);
  }
  return out;
}

/**
 * The transactions that hang on the partitions searched, as Kafka's find-hanging tool finds
 * them: the open transactions older than `maxTransactionTimeoutMs` (by their producer's last
 * timestamp), less those a coordinator will still end. A partition that cannot be asked throws.
 */
export async function findHangingTransactions(admin: Admin, opts: FindHangingOptions, nowMs: number): Promise<OpenTransaction[]> {
  check(opts);
  const maxMs = opts.maxTransactionTimeoutMs ?? DEFAULT_MAX_TRANSACTION_TIMEOUT_MS;
  const candidates: OpenTransaction[] = [];
  for (const [topic, partitions] of await partitionsToSearch(admin, opts)) {
    const described = await admin.describeProducers(topic, partitions, opts.brokerId !== undefined ? { brokerId: opts.brokerId } : {});
    for (const p of described.partitions) {
      if (p.errorCode !== ErrorCode.NONE) {
        const on = opts.brokerId !== undefined ? `broker ${opts.brokerId}` : 'its leader';
        throw new SamsaError(p.errorCode, `failed to describe the producers of ${topic}-${p.partition} on ${on}: ${errorName(p.errorCode)}`);
      }
      for (const producer of p.producers) {
        if (producer.currentTxnStartOffset >= 0 && nowMs - producer.lastTimestamp > maxMs) candidates.push({ topic, partition: p.partition, producer });
      }
    }
  }
  if (candidates.length === 0) return [];
  const producerIds = [...new Set(candidates.map((c) => c.producer.producerId))];
  const { transactions } = await admin.listTransactions({ producerIds });
  const idsByProducer = new Map<number, string>();
  for (const t of transactions) if (producerIds.includes(t.producerId)) idsByProducer.set(t.producerId, t.transactionalId);
  const descriptions = new Map<string, TransactionDescription | null>();
  const ids = [...new Set(idsByProducer.values())];
  if (ids.length > 0) {
    for (const d of (await admin.describeTransactions(ids)).transactions) {
      if (d.errorCode === ErrorCode.TRANSACTIONAL_ID_NOT_FOUND) descriptions.set(d.transactionalId, null);
      else if (d.errorCode !== ErrorCode.NONE) throw new SamsaError(d.errorCode, `failed to describe transactional id ${d.transactionalId}: ${errorName(d.errorCode)}`);
      else descriptions.set(d.transactionalId, d);
    }
  }
  return hangingTransactions(candidates, idsByProducer, descriptions);
}
