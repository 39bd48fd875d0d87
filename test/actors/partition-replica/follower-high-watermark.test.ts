/**
 * KIP-1166's wake-up rule as the broker's fetch purgatory applies it (a follower's fetch that
 * found fewer than minBytes is answered when a partition's high watermark is above the one it
 * sent), and the replica fetcher sending its high watermark only from metadata.version 4.1-IV1
 * on (a fake leader records its fetches; the injected clock, no sleeps).
 */
import { expect } from 'chai';
import { followerHighWatermarkMoved, type FetchRequest } from '../../../actors/broker/delayed-fetch.js';
import type { BrokerMsg, FetchPartition, FetchPartitionResult } from '../../../actors/broker/messages.js';
import type { ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import { replicaFetcher, type FetcherMsg } from '../../../actors/broker/replica-fetcher.js';
import { followerHighWatermarkBehind } from '../../../actors/partition-replica/follower-high-watermark.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';

const part = (partition: number, highWatermark?: number): FetchPartition => {
  const p: FetchPartition = { topic: 't', partition, fetchOffset: 5, currentLeaderEpoch: 0, lastFetchedEpoch: 0, partitionMaxBytes: 1 << 20 };
  if (highWatermark !== undefined) p.highWatermark = highWatermark;
  return p;
};
const fetch = (replicaId: number, partitions: FetchPartition[]): FetchRequest => ({ type: 'Fetch', replicaId, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, partitions });
const result = (partition: number, highWatermark: number, errorCode: number = ErrorCode.NONE): FetchPartitionResult => ({
  topic: 't',
  partition,
  errorCode,
  highWatermark,
  logStartOffset: 0,
  logEndOffset: 5,
  records: new Uint8Array(0),
});

describe('KIP-1166: the leader answers a follower fetch whose high watermark is behind', () => {
  it("the rule: the leader's high watermark above the one sent (-1: none known); not the same one, not when none was sent", () => {
    expect(followerHighWatermarkBehind(4, 5)).to.equal(true);
    expect(followerHighWatermarkBehind(-1, 0)).to.equal(true);
    expect(followerHighWatermarkBehind(5, 5)).to.equal(false);
    expect(followerHighWatermarkBehind(6, 5)).to.equal(false);
    expect(followerHighWatermarkBehind(undefined, 5)).to.equal(false);
  });

  it('the purgatory completes a follower fetch with an older high watermark for any of its partitions, records or not', () => {
    expect(followerHighWatermarkMoved(fetch(2, [part(0, 4)]), [result(0, 5)])).to.equal(true);
    expect(followerHighWatermarkMoved(fetch(2, [part(0, 5), part(1, 2)]), [result(0, 5), result(1, 3)])).to.equal(true);
  });

  it('it does not complete one that sent the same high watermark, one that sent none (below 4.1-IV1), nor for a partition in error', () => {
    expect(followerHighWatermarkMoved(fetch(2, [part(0, 5), part(1, 3)]), [result(0, 5), result(1, 3)])).to.equal(false);
    expect(followerHighWatermarkMoved(fetch(2, [part(0)]), [result(0, 5)])).to.equal(false);
    expect(followerHighWatermarkMoved(fetch(2, [part(0, 4)]), [result(0, 5, ErrorCode.NOT_LEADER_OR_FOLLOWER)])).to.equal(false);
  });

  it("a consumer's fetch is unaffected, whatever its partitions carry", () => {
    expect(followerHighWatermarkMoved(fetch(-1, [part(0, 0)]), [result(0, 5)])).to.equal(false);
  });
});

interface FakeLeader {
  fetches: Message[];
  /** Answers given so far; after `answer` of them the fetches wait (the fetcher stops looping). */
  answered: number;
  answer: number;
  highWatermark: number;
}

const fakeLeader = defineActor<FakeLeader, Message & { type: 'Fetch' | 'Seen' }>({
  kind: 'fake-leader',
  supervision: 'resume',
  init: () => ({ fetches: [], answered: 0, answer: 2, highWatermark: 7 }),
  handlers: {
    Fetch: (s, m, ctx) => {
      s.fetches.push(m);
      const token = ctx.deferReply();
      if (s.answered >= s.answer || !token) return;
      s.answered++;
      const parts = (m as unknown as FetchRequest).partitions;
      ctx.replyTo(token, { type: 'FetchResponse', errorCode: ErrorCode.NONE, partitions: parts.map((p) => result(p.partition, s.highWatermark)) });
    },
    Seen: (s, _m, ctx) => ctx.reply({ type: 'Seen', fetches: s.fetches } as never),
  },
});

/** The local replica: takes the leader's high watermark, no records. */
const fakeReplica = defineActor<null, Message & { type: 'AppendAsFollower' }>({
  kind: 'fake-replica',
  supervision: 'resume',
  init: () => null,
  handlers: {
    AppendAsFollower: (_s, _m, ctx) => ctx.reply({ type: 'AppendAsFollowerResult', errorCode: ErrorCode.NONE, logEndOffset: 5, lastFetchedEpoch: 0, logStartOffset: 0 } as never),
  },
});

describe('KIP-1166: the replica fetcher sends its high watermark from metadata.version 4.1-IV1 on', function () {
  this.timeout(10_000);
  let sys: ActorSystem;
  beforeEach(() => {
    sys = new ActorSystem({ nodeId: 'b2', clock: new FakeClock(), strictSerialization: true });
  });
  afterEach(async () => {
    await sys.stop();
  });

  /** The partitions of the fetches the fetcher sent, once it sent `n`. */
  async function fetchesOf(sendHighWatermark: () => boolean, n: number): Promise<FetchPartition[][]> {
    const leader = sys.spawn(fakeLeader, { name: 'leader' }) as unknown as ActorRef<BrokerMsg>;
    const replica = sys.spawn(fakeReplica, { name: 'replica' }) as unknown as ActorRef<ReplicaMsg>;
    const fetcher: ActorRef<FetcherMsg> = sys.spawn(replicaFetcher, {
      name: 'fetcher',
      args: { brokerId: 2, leaderId: 1, leader, replicaRef: () => replica, maxWaitMs: 500, minBytes: 1, partitionMaxBytes: 1 << 20, responseMaxBytes: 1 << 20, backoffMs: 100, requestTimeoutMs: 1_000, sendHighWatermark },
    });
    sys.send(fetcher, { type: 'AddPartitions', partitions: [{ topic: 't', partition: 0, fetchOffset: 5, lastFetchedEpoch: 0, currentLeaderEpoch: 0, logStartOffset: 0 }] });
    const seen = await checkFor(async () => {
      const r = (await sys.ask(leader as unknown as ActorRef<Message>, { type: 'Seen' })) as unknown as { fetches: { partitions: FetchPartition[] }[] };
      return r.fetches.length >= n ? r.fetches : null;
    });
    return seen.map((f) => f.partitions);
  }

  it('at 4.1-IV1: -1 before it knows one, then the high watermark the leader last gave it', async () => {
    const fetches = await fetchesOf(() => true, 3);
    expect(fetches.map((ps) => ps[0]!.highWatermark)).to.deep.equal([-1, 7, 7]);
  });

  it('below 4.1-IV1 (a cluster at 4.1-IV0): no high watermark, as before', async () => {
    const fetches = await fetchesOf(() => false, 3);
    for (const ps of fetches) expect(ps[0]).to.not.have.property('highWatermark');
  });
});
