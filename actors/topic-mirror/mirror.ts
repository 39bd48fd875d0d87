/**
 * The topic mirror: an example of a user-written actor placed by a topology. It consumes one
 * topic as a member of a consumer group and produces every record (key, value, headers,
 * timestamp) to another topic, committing its position only after the copies are acknowledged,
 * so a restart resumes where it left off and nothing is skipped (at least once).
 *
 * Transactions: the copies are plain records, so the mirror reads with isolation.level
 * read_committed by default (config.consumer may say otherwise): records of aborted transactions
 * are not copied, nor those of open ones until they commit, and transaction markers never are
 * (its consumer hands none out; the offsets it commits go past them).
 *
 * Owned state: its consumer and producer (child actors), the batch being copied, counters.
 * Handles: Pump (poll the source), Polled, Sent, Resend, Committed, DescribeMirror.
 * Emits: Poll and Commit to its consumer, Send to its producer.
 *
 * Topology entry:
 *   { "name": "mirror", "module": "actors/topic-mirror/mirror.ts", "node": "main",
 *     "config": { "source": "events", "target": "events-copy", "groupId": "mirror" } }
 */
import type { ConsumerMsg, PolledBatch, PollResult, TopicPartitionOffset } from '../consumer/messages.js';
import { consumer } from '../consumer/consumer.js';
import type { ProducerMsg, SendResult } from '../producer/messages.js';
import { producer } from '../producer/producer.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { BaseContext } from '../../src/runtime/actor-definition.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import type { BootstrapBroker } from '../../src/client/metadata-cache.js';

export interface MirrorArgs {
  source: string;
  target: string;
  groupId: string;
  /** Where to find the cluster; by default this node's metadata proxy (every topology node has one). */
  bootstrap?: BootstrapBroker[];
  /** Extra consumer / producer config (Kafka names). */
  consumer?: Record<string, unknown>;
  producer?: Record<string, unknown>;
}

export type MirrorMsg =
  | { type: 'Pump' }
  | { type: 'Polled'; result: PollResult | { type: 'Failure'; errorCode: number; message: string } }
  | { type: 'Sent'; result: SendResult | { type: 'Failure'; errorCode: number; message: string } }
  | { type: 'Resend' }
  | { type: 'Committed'; errorCode: number }
  | { type: 'DescribeMirror' };

interface MirrorState {
  args: MirrorArgs;
  consumer: ActorRef<ConsumerMsg>;
  producer: ActorRef<ProducerMsg>;
  /** The batch being copied, kept until its copies are acknowledged. */
  pending: PolledBatch[] | null;
  mirrored: number;
  failures: number;
}

function nextOffsets(batches: PolledBatch[]): TopicPartitionOffset[] {
  return batches.map((b) => ({ topic: b.topic, partition: b.partition, offset: b.records[b.records.length - 1]!.offset + 1 }));
}

function send(s: MirrorState, ctx: BaseContext<MirrorMsg>): void {
  const messages = s.pending!.flatMap((b) => b.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })));
  void ctx.ask<SendResult>(s.producer, { type: 'Send', topics: [{ topic: s.args.target, messages }] }, { timeoutMs: 180_000 }).then((result) => ctx.send(ctx.self, { type: 'Sent', result }));
}

export const topicMirror = defineActor<MirrorState, MirrorMsg, MirrorArgs>({
  kind: 'topic-mirror',
  clientMessages: { DescribeMirror: true },
  supervision: { maxRestarts: 5, withinMs: 60_000 },

  init(ctx, args) {
    if (!args?.source || !args.target || !args.groupId) throw new Error('topic-mirror needs config { source, target, groupId }');
    if (args.source === args.target) throw new Error('topic-mirror: source and target must differ');
    const bootstrap = args.bootstrap ?? [{ node: ctx.nodeId }];
    const c = ctx.spawn(consumer, {
      name: 'consumer',
      args: { bootstrap, config: { 'group.id': args.groupId, 'enable.auto.commit': false, 'auto.offset.reset': 'earliest', 'isolation.level': 'read_committed', ...(args.consumer ?? {}) } },
    });
    const p = ctx.spawn(producer, { name: 'producer', args: { bootstrap, config: { acks: 'all', ...(args.producer ?? {}) } } });
    void ctx.ask(c, { type: 'Subscribe', topics: [args.source], pattern: null }).then((r) => {
      if ((r as { errorCode?: number }).errorCode !== ErrorCode.NONE) ctx.log.error('mirror could not subscribe', { reply: r });
    });
    ctx.send(ctx.self, { type: 'Pump' });
    return { args, consumer: c, producer: p, pending: null, mirrored: 0, failures: 0 };
  },

  handlers: {
    Pump(s, _m, ctx) {
      void ctx
        .ask<PollResult>(s.consumer, { type: 'Poll', maxRecords: 500, timeoutMs: 1_000, processed: [] }, { timeoutMs: 30_000 })
        .then((result) => ctx.send(ctx.self, { type: 'Polled', result }));
    },

    Polled(s, m, ctx) {
      const r = m.result;
      if (isFailure(r as never) || r.errorCode !== ErrorCode.NONE) {
        ctx.log.warn('mirror poll failed; retrying', { errorCode: r.errorCode });
        ctx.timers.startSingle('retry', 500, { type: 'Pump' });
        return;
      }
      const batches = (r as PollResult).batches.filter((b) => b.records.length > 0);
      if (batches.length === 0) {
        ctx.send(ctx.self, { type: 'Pump' });
        return;
      }
      s.pending = batches;
      send(s, ctx);
    },

    Sent(s, m, ctx) {
      const r = m.result;
      if (isFailure(r as never) || r.errorCode !== ErrorCode.NONE) {
        s.failures++;
        ctx.log.warn('mirror copy failed; sending the batch again', { errorCode: r.errorCode });
        ctx.timers.startSingle('resend', 500, { type: 'Resend' });
        return;
      }
      const offsets = nextOffsets(s.pending!);
      s.mirrored += s.pending!.reduce((n, b) => n + b.records.length, 0);
      s.pending = null;
      void ctx
        .ask<{ type: string; errorCode: number }>(s.consumer, { type: 'Commit', offsets }, { timeoutMs: 30_000 })
        .then((c) => ctx.send(ctx.self, { type: 'Committed', errorCode: c.errorCode }));
    },

    Resend(s, _m, ctx) {
      if (s.pending) send(s, ctx);
    },

    Committed(_s, m, ctx) {
      if (m.errorCode !== ErrorCode.NONE) ctx.log.warn('mirror commit failed (records may be copied again after a restart)', { errorCode: m.errorCode });
      ctx.send(ctx.self, { type: 'Pump' });
    },

    DescribeMirror(s, _m, ctx) {
      ctx.reply({ type: 'MirrorDescription', source: s.args.source, target: s.args.target, mirrored: s.mirrored, failures: s.failures } as never);
    },
  },
});

export default topicMirror;
