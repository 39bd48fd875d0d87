/**
 * The broker's fetch purgatory (Kafka's DelayedFetch): a fetch that found fewer than minBytes
 * waits here until a partition it reads advances (new data or a new high watermark) or its
 * maxWaitMs passes. Indexed by partition so a wake-up touches only the fetches that care. A
 * follower's fetch that sent its high watermark (KIP-1166) is answered, whatever it found, once
 * a partition's high watermark is above the one it sent (`followerHighWatermarkMoved`).
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { ChurnTable } from '../../src/runtime/churn-table.js';
import type { ReplyToken } from '../../src/runtime/actor-definition.js';
import type { BrokerMsg, FetchPartitionResult } from './messages.js';
import { followerHighWatermarkBehind } from '../partition-replica/follower-high-watermark.js';

export type FetchRequest = Extract<BrokerMsg, { type: 'Fetch' }>;

export interface PendingFetch {
  readonly id: number;
  readonly req: FetchRequest;
  readonly token: ReplyToken | undefined;
  readonly deadline: number;
  /** A read of its partitions is out. */
  reading: boolean;
  /** A partition advanced while the read was out: read again rather than wait. */
  dirty: boolean;
  /** maxWaitMs passed: the next read answers whatever it finds. */
  expired: boolean;
  /** A read found too little and it waits for data or its deadline (the expiry timer looks at it). */
  parked: boolean;
  /** What the read that parked it found, partition by partition (request order). */
  lastResults: FetchPartitionResult[] | null;
}

/**
 * KIP-1166's rule for a fetch that found fewer than minBytes: a follower's is answered when a
 * partition's high watermark (as read, request order) is above the one the follower sent for it.
 * A consumer's fetch, or a follower's that sent none (below metadata.version 4.1-IV1), never is.
 */
export function followerHighWatermarkMoved(req: FetchRequest, results: readonly FetchPartitionResult[]): boolean {
  if (req.replicaId < 0) return false;
  const sent = req.partitions;
  for (let i = 0; i < results.length && i < sent.length; i++) {
    const r = results[i]!;
    if (r.errorCode === ErrorCode.NONE && followerHighWatermarkBehind(sent[i]!.highWatermark, r.highWatermark)) return true;
  }
  return false;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export class FetchPurgatory {
  private readonly pending = new ChurnTable<number, PendingFetch>();
  private readonly byPartition = new Map<string, Set<number>>();
  private nextId = 1;

  get size(): number {
    return this.pending.size;
  }

  add(req: FetchRequest, token: ReplyToken | undefined, now: number): PendingFetch {
    const p: PendingFetch = { id: this.nextId++, req, token, deadline: now + Math.max(0, req.maxWaitMs), reading: false, dirty: false, expired: false, parked: false, lastResults: null };
    this.pending.set(p.id, p);
    for (const fp of req.partitions) {
      const k = partitionKey(fp.topic, fp.partition);
      let ids = this.byPartition.get(k);
      if (!ids) this.byPartition.set(k, (ids = new Set()));
      ids.add(p.id);
    }
    return p;
  }

  get(id: number): PendingFetch | undefined {
    return this.pending.get(id);
  }

  /** Fetches that read this partition. */
  watching(topic: string, partition: number): PendingFetch[] {
    const ids = this.byPartition.get(partitionKey(topic, partition));
    if (!ids) return [];
    return [...ids].map((id) => this.pending.get(id)!).filter(Boolean);
  }

  remove(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    for (const fp of p.req.partitions) {
      const k = partitionKey(fp.topic, fp.partition);
      const ids = this.byPartition.get(k);
      ids?.delete(id);
      if (ids && ids.size === 0) this.byPartition.delete(k);
    }
  }

  all(): PendingFetch[] {
    return this.pending.values();
  }
}
