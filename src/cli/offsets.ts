/**
 * The earliest or latest offset of every partition of a topic, asked of each partition's
 * leader (ListOffsets), for plans such as `samsa groups --reset-offsets` that must show offsets
 * before changing anything. Retries on a moved leader with fresh metadata.
 */
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, type ListOffsetsResult, type ReplicaMsg } from '../../actors/partition-replica/messages.js';
import { SamsaError } from '../client/errors.js';
import { replicaPath } from '../protocol/cluster.js';
import { ErrorCode, errorName } from '../protocol/errors.js';
import { isFailure, type ActorRef } from '../runtime/types.js';
import type { Connection } from './cluster.js';

const ATTEMPTS = 5;
const TIMEOUT_MS = 10_000;

export async function topicOffsets(conn: Connection, topic: string, which: 'earliest' | 'latest'): Promise<Map<number, number>> {
  const timestamp = which === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP;
  const out = new Map<number, number>();
  let last = { code: ErrorCode.NONE as number, message: '' };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 200 * attempt));
    const md = await conn.metadata();
    const t = md.topics.find((x) => x.name === topic);
    if (!t) throw new SamsaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic '${topic}' does not exist`);
    const nodes = new Map(md.brokers.map((b) => [b.brokerId, b.node]));
    const missing = t.partitions.filter((p) => !out.has(p.partition));
    const answers = await Promise.all(
      missing.map(async (p) => {
        const node = p.leader >= 0 ? nodes.get(p.leader) : undefined;
        if (node === undefined) return { p: p.partition, code: ErrorCode.LEADER_NOT_AVAILABLE as number, message: `${topic}-${p.partition} has no leader` };
        const ref: ActorRef<ReplicaMsg> = { node, path: replicaPath(p.leader, topic, p.partition) };
        const r = await conn.client.system.ask<ListOffsetsResult>(ref, { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1 }, { timeoutMs: TIMEOUT_MS });
        if (isFailure(r)) return { p: p.partition, code: r.errorCode, message: r.message };
        if (r.errorCode !== ErrorCode.NONE) return { p: p.partition, code: r.errorCode, message: `${topic}-${p.partition}: ${errorName(r.errorCode)}` };
        out.set(p.partition, r.offset);
        return null;
      }),
    );
    const failed = answers.find((a) => a !== null);
    if (!failed) return out;
    last = { code: failed.code, message: failed.message };
  }
  throw new SamsaError(last.code, `cannot read the ${which} offsets of ${topic}: ${last.message}`);
}
