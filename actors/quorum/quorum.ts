/**
 * The metadata quorum actor: one per controller, a child of it (QUORUM_PATH), running Raft
 * (raft-core.ts) with the quorum actors of the other controllers so that the metadata log is
 * replicated and one controller at a time is active. A quorum of one leads at once.
 *
 * Owned state: the Raft core (term, vote, role, log in memory, commit index), the durable
 * metadata log (metadata-log.ts) and election state (quorum-state.ts) when there is a metadata
 * dir, the Appends waiting for their commit, the election and heartbeat timers.
 *
 * Handles: VoteRequest, VoteResponse, AppendEntries, AppendEntriesResponse (from the other
 * quorum actors), ElectionTimeout and QuorumHeartbeat (its timers), Append (from its controller:
 * answered with AppendResult once committed, NOT_CONTROLLER when this controller does not lead
 * or stops leading first, KAFKA_STORAGE_ERROR when the batch could not be written), and
 * DescribeQuorum.
 *
 * Emits: Raft messages to the other voters; QuorumCommitted, QuorumLeader and QuorumReady to
 * its controller, in the order the core decides them.
 *
 * Every input's effects run in order before the next input is taken, awaiting each disk write,
 * so no peer hears of a vote or an entry before it is durable here. A follower whose disk write
 * fails crashes and restarts from what is on disk; a leader whose write fails takes the entry
 * back (no one has seen it) and answers the Append with the error.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { CONTROLLER_PATH } from '../../src/protocol/cluster.js';
import { defineActor, type ActorContext, type BaseContext, type ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { MetadataLog, MetadataLogCorruptError } from '../controller/metadata-log.js';
import { MetadataSnapshotError, readSnapshot, writeSnapshot, type MetadataSnapshot } from '../controller/metadata-snapshot.js';
import type { MetadataRecord } from '../controller/metadata-state.js';
import type { CommittedEntry, QuorumEvent, QuorumMsg, QuorumReply, QuorumVoter } from './messages.js';
import { QuorumStateError, readQuorumState, writeQuorumState } from './quorum-state.js';
import { RaftCore, RaftRole, type RaftEffect } from './raft-core.js';
import { assertNever } from '../../src/runtime/assert-never.js';

export const QUORUM_NAME = 'quorum';
export const QUORUM_PATH = `${CONTROLLER_PATH}/${QUORUM_NAME}`;

export interface QuorumArgs {
  voterId: number;
  voters: readonly QuorumVoter[];
  /** Where the metadata log and election state live; null keeps them in memory. */
  metadataDir: string | null;
  /** Who hears QuorumCommitted / QuorumLeader / QuorumReady (the controller). */
  listener: ActorRef<Message>;
  electionTimeoutMs: number;
  /** Election jitter source in [0, 1) (tests fix it). */
  random?: () => number;
}

interface QuorumState {
  readonly args: QuorumArgs;
  readonly core: RaftCore<MetadataRecord[], QuorumVoter>;
  readonly log: MetadataLog | null;
  /** Appends waiting for their index to commit. */
  readonly pending: Map<number, ReplyToken>;
  /** The latest snapshot (sent to followers behind it). */
  snapshot: MetadataSnapshot | null;
  readonly random: () => number;
}

type Ctx = BaseContext<QuorumMsg>;

const ELECTION_TIMER = 'election';
const HEARTBEAT_TIMER = 'heartbeat';

export function quorumRef(v: QuorumVoter): ActorRef<QuorumMsg> {
  return { node: v.node, path: QUORUM_PATH };
}

function heartbeatIntervalMs(electionTimeoutMs: number): number {
  return Math.max(5, Math.floor(electionTimeoutMs / 5));
}

function voterNode(s: QuorumState, id: number | null): string | null {
  return id === null ? null : (s.args.voters.find((v) => v.id === id)?.node ?? null);
}

function tell(s: QuorumState, ctx: Ctx, event: QuorumEvent): void {
  ctx.send(s.args.listener, event);
}

function answerPending(s: QuorumState, ctx: Ctx, index: number, reply: QuorumReply): void {
  const token = s.pending.get(index);
  if (!token) return;
  s.pending.delete(index);
  ctx.replyTo(token, reply);
}

/** Carries out the core's effects in order; disk writes are awaited before what follows them. */
async function run(s: QuorumState, ctx: Ctx, effects: readonly RaftEffect<MetadataRecord[], QuorumVoter>[]): Promise<void> {
  for (const e of effects) {
    switch (e.kind) {
      case 'persistVote':
        if (s.args.metadataDir) await writeQuorumState(s.args.metadataDir, s.args.voterId, { term: e.term, votedFor: e.votedFor });
        break;
      case 'writeLog':
        if (s.log) {
          await s.log.truncateTo(e.afterIndex - s.log.start.index);
          await s.log.appendEntries(e.entries.map((x) => ({ term: x.term, records: x.data })));
        }
        break;
      case 'sendSnapshot': {
        const v = s.args.voters.find((x) => x.id === e.to);
        if (!v || !s.snapshot || s.snapshot.index !== e.index) break;
        ctx.send(quorumRef(v), { type: 'InstallSnapshot', term: s.core.term, leaderId: s.args.voterId, lastIncludedIndex: e.index, lastIncludedTerm: e.term, data: s.snapshot, voters: e.voters });
        ctx.log.info('sent the metadata snapshot to a follower behind it', { to: e.to, index: e.index });
        break;
      }
      case 'installSnapshot': {
        const snap = e.data as MetadataSnapshot;
        const at = { index: e.index, term: e.term };
        if (s.args.metadataDir) await writeSnapshot(s.args.metadataDir, { ...at, image: snap.image });
        if (s.log) {
          if (!e.logKept) await s.log.truncateTo(0);
          await s.log.compactTo(at);
        }
        s.snapshot = { ...at, image: snap.image };
        tell(s, ctx, { type: 'QuorumSnapshot', ...at, image: snap.image });
        ctx.log.info('installed the leader\'s metadata snapshot', { index: e.index, term: e.term, logKept: e.logKept });
        break;
      }
      case 'send': {
        const v = s.args.voters.find((x) => x.id === e.to);
        if (v) ctx.send(quorumRef(v), e.msg);
        break;
      }
      case 'resetElectionTimer':
        ctx.timers.startSingle(ELECTION_TIMER, Math.floor(s.args.electionTimeoutMs * (1 + s.random())), { type: 'ElectionTimeout' });
        break;
      case 'committed': {
        const entries: CommittedEntry[] = [];
        for (let i = e.from + 1; i <= e.to; i++) {
          const entry = s.core.entry(i)!;
          entries.push({ index: i, term: entry.term, records: entry.data });
        }
        tell(s, ctx, { type: 'QuorumCommitted', entries });
        for (let i = e.from + 1; i <= e.to; i++) answerPending(s, ctx, i, { type: 'AppendResult', errorCode: ErrorCode.NONE, index: i, leaderId: s.args.voterId });
        break;
      }
      case 'leader': {
        const self = e.leaderId === s.args.voterId;
        if (self && s.args.voters.length > 1) ctx.timers.startPeriodic(HEARTBEAT_TIMER, heartbeatIntervalMs(s.args.electionTimeoutMs), { type: 'QuorumHeartbeat' });
        if (!self) {
          ctx.timers.cancel(HEARTBEAT_TIMER);
          for (const index of [...s.pending.keys()]) {
            answerPending(s, ctx, index, {
              type: 'AppendResult',
              errorCode: ErrorCode.NOT_CONTROLLER,
              errorMessage: `controller ${s.args.voterId} stopped leading the metadata quorum before the batch committed`,
              index: -1,
              leaderId: e.leaderId,
            });
          }
        }
        if (self) ctx.timers.cancel(ELECTION_TIMER);
        tell(s, ctx, { type: 'QuorumLeader', term: e.term, leaderId: e.leaderId, leaderNode: voterNode(s, e.leaderId) });
        ctx.log.info(self ? 'leading the metadata quorum' : e.leaderId === null ? 'no metadata quorum leader known' : 'following a metadata quorum leader', {
          term: e.term,
          leaderId: e.leaderId,
          voterId: s.args.voterId,
        });
        break;
      }
      case 'leaderReady':
        tell(s, ctx, { type: 'QuorumReady', term: e.term });
        break;
      case 'voters':
        // the voter set is the topology's, fixed: never changes
        break;
      default:
        assertNever(e, 'raft effect');
    }
  }
}

async function init(ctx: Ctx, args: QuorumArgs): Promise<QuorumState> {
  const ids = args.voters.map((v) => v.id);
  if (!ids.includes(args.voterId)) throw new QuorumStateError(`controller ${args.voterId} is not among the quorum's voters [${ids.join(', ')}]`);
  let log: MetadataLog | null = null;
  let entries: { term: number; data: MetadataRecord[] }[] = [];
  let election = { term: 0, votedFor: null as number | null };
  let snapshot: MetadataSnapshot | null = null;
  if (args.metadataDir) {
    const opened = await MetadataLog.open(args.metadataDir);
    log = opened.log;
    try {
      if (opened.replay.truncatedBytes > 0) ctx.log.warn('dropped a torn tail of the metadata log', { file: log.file, bytes: opened.replay.truncatedBytes });
      snapshot = await readSnapshot(args.metadataDir);
      const start = opened.replay.start;
      if (start.index > (snapshot?.index ?? 0)) {
        throw new QuorumStateError(`${log.file} starts after index ${start.index}, but the snapshot beside it holds only up to ${snapshot?.index ?? 0}`);
      }
      entries = opened.replay.entries.map((e) => ({ term: e.term, data: e.records }));
      if (snapshot && snapshot.index > start.index) {
        // a snapshot taken (or installed) whose compaction did not happen before a crash
        entries = entries.slice(snapshot.index - start.index);
        await log.compactTo({ index: snapshot.index, term: snapshot.term });
      }
      election = await readQuorumState(args.metadataDir, args.voterId);
      // a log written before the quorum (terms 0) or by a later term than the state recorded
      const lastTerm = entries.at(-1)?.term ?? 0;
      if (lastTerm > election.term) election = { term: lastTerm, votedFor: null };
    } catch (err) {
      await log.close().catch(() => undefined);
      throw err;
    }
  }
  const core = new RaftCore<MetadataRecord[], QuorumVoter>(args.voterId, args.voters, election, entries, () => [], args.electionTimeoutMs, snapshot ? { index: snapshot.index, term: snapshot.term } : undefined);
  const s: QuorumState = { args, core, log, pending: new Map(), random: args.random ?? Math.random, snapshot };
  // what the snapshot holds first, then the commits after it
  if (snapshot) tell(s, ctx, { type: 'QuorumSnapshot', index: snapshot.index, term: snapshot.term, image: snapshot.image });
  await run(s, ctx, core.start(ctx.clock.now()));
  return s;
}

async function handleAppend(s: QuorumState, m: Extract<QuorumMsg, { type: 'Append' }>, ctx: ActorContext<QuorumMsg>): Promise<void> {
  const proposed = s.core.propose(m.records);
  if (!proposed) {
    return ctx.reply<QuorumReply>({
      type: 'AppendResult',
      errorCode: ErrorCode.NOT_CONTROLLER,
      errorMessage: `controller ${s.args.voterId} does not lead the metadata quorum`,
      index: -1,
      leaderId: s.core.leaderId,
    });
  }
  const token = ctx.deferReply();
  if (token) s.pending.set(proposed.index, token);
  const [write, ...rest] = proposed.effects;
  try {
    await run(s, ctx, [write!]);
  } catch (err) {
    s.core.retract(proposed.index);
    s.pending.delete(proposed.index);
    ctx.log.error('metadata log append failed', { error: (err as Error).message, records: m.records.length });
    if (token) ctx.replyTo<QuorumReply>(token, { type: 'AppendResult', errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: `the metadata log could not be written: ${(err as Error).message}`, index: -1, leaderId: s.args.voterId });
    return;
  }
  await run(s, ctx, rest);
}

/** The controller's state at `index`: written as the snapshot, and the log compacted up to it. */
async function handleTakeSnapshot(s: QuorumState, m: Extract<QuorumMsg, { type: 'TakeSnapshot' }>, ctx: Ctx): Promise<void> {
  if (m.index <= s.core.snapshotIndex || m.index > s.core.commitIndex) return;
  const at = { index: m.index, term: s.core.termAt(m.index) };
  if (s.args.metadataDir) await writeSnapshot(s.args.metadataDir, { ...at, image: m.image });
  s.snapshot = { ...at, image: m.image };
  s.core.compact(m.index);
  if (s.log) await s.log.compactTo(at);
  ctx.log.info('metadata snapshot taken; log compacted', { index: at.index, term: at.term, entriesLeft: s.core.lastIndex - at.index });
}

function describe(s: QuorumState, now: number): QuorumReply {
  const progress = s.core.progress();
  return {
    type: 'QuorumDescription',
    errorCode: ErrorCode.NONE,
    voterId: s.args.voterId,
    role: s.core.role,
    term: s.core.term,
    leaderId: s.core.leaderId,
    commitIndex: s.core.commitIndex,
    highWatermark: s.core.role === RaftRole.Leader && !s.core.isReadyLeader ? -1 : s.core.commitIndex,
    lastIndex: s.core.lastIndex,
    snapshotIndex: s.core.snapshotIndex,
    voters: s.args.voters.map((v) => {
      const at = v.id === s.args.voterId ? now : s.core.lastContactAt(v.id);
      // as Kafka's leader reports itself: fetched and caught up now
      const fetch = v.id === s.args.voterId && progress ? { lastFetchAt: now, lastCaughtUpAt: now } : s.core.followerFetch(v.id);
      return {
        id: v.id,
        node: v.node,
        logEndIndex: progress?.get(v.id) ?? -1,
        lastContactMs: at === null || !progress ? -1 : now - at,
        lastFetchTimestamp: fetch?.lastFetchAt ?? -1,
        lastCaughtUpTimestamp: fetch?.lastCaughtUpAt ?? -1,
      };
    }),
  };
}

export const quorum = defineActor<QuorumState, QuorumMsg, QuorumArgs>({
  kind: 'quorum',
  init,
  // A failed disk write restarts the actor from what is on disk; a corrupt log or someone
  // else's election state cannot heal by restarting.
  supervision: {
    decide: (err) => (err instanceof MetadataLogCorruptError || err instanceof QuorumStateError || err instanceof MetadataSnapshotError ? 'stop' : 'restart'),
    maxRestarts: 5,
    withinMs: 60_000,
  },
  schema: {
    VoteRequest: { term: 'integer', candidateId: 'integer', lastLogIndex: 'integer', lastLogTerm: 'integer' },
    VoteResponse: { term: 'integer', voterId: 'integer', granted: 'boolean' },
    AppendEntries: { term: 'integer', leaderId: 'integer', prevLogIndex: 'integer', prevLogTerm: 'integer', entries: 'array', leaderCommit: 'integer' },
    AppendEntriesResponse: { term: 'integer', followerId: 'integer', success: 'boolean', matchIndex: 'integer' },
    InstallSnapshot: { term: 'integer', leaderId: 'integer', lastIncludedIndex: 'integer', lastIncludedTerm: 'integer', data: 'object', voters: 'array?' },
    Observe: { observer: 'object', lastLogIndex: 'integer', forwarded: 'boolean' },
    EndEpoch: { term: 'integer', leaderId: 'integer', successors: 'array' },
    InstallSnapshotResponse: { term: 'integer', followerId: 'integer', matchIndex: 'integer' },
    TakeSnapshot: { index: 'integer', image: 'object' },
    Append: { records: 'array' },
  },
  handlers: {
    VoteRequest: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    VoteResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    AppendEntries: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    AppendEntriesResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    InstallSnapshot: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    InstallSnapshotResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    Observe: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    EndEpoch: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    TakeSnapshot: handleTakeSnapshot,
    ElectionTimeout: (s, _m, ctx) => run(s, ctx, s.core.electionTimeout(ctx.clock.now())),
    QuorumHeartbeat: (s, _m, ctx) => run(s, ctx, s.core.heartbeat(ctx.clock.now())),
    Append: handleAppend,
    DescribeQuorum: (s, _m, ctx) => ctx.reply(describe(s, ctx.clock.now())),
  },
  onStop: async (s) => {
    await s.log?.close();
  },
});
