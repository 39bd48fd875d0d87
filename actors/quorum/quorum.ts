/**
 * The metadata quorum actor: one per controller, a child of it (QUORUM_PATH), running Raft
 * (raft-core.ts) with the quorum actors of the other controllers so that the metadata log is
 * replicated and one controller at a time is active. A quorum of one leads at once.
 *
 * The voter set is the one the latest QuorumVoters record of this controller's log names
 * (committed or not), else its snapshot's, else the topology's (`voters`); a controller outside
 * it observes: it follows the leader, announcing itself with Observe to the controllers it
 * knows, and never stands. Voters are added and removed one at a time (KIP-853): the active
 * controller asks CheckVoterChange, then appends the new set as a QuorumVoters record.
 *
 * Owned state: the Raft core (term, vote, role, voter sets, log in memory, commit index), the
 * durable metadata log (metadata-log.ts) and election state and directory id (quorum-state.ts)
 * when there is a metadata dir, the Appends waiting for their commit, the election and heartbeat
 * timers.
 *
 * Handles: VoteRequest, VoteResponse, AppendEntries, AppendEntriesResponse, InstallSnapshot,
 * InstallSnapshotResponse, Observe, EndEpoch (from the other quorum actors), ElectionTimeout and
 * QuorumHeartbeat (its timers), Append (from its controller: answered with AppendResult once
 * committed, or once written here when it asks so, NOT_CONTROLLER when this controller does not lead or stops leading first,
 * REQUEST_TIMED_OUT for a voter change while another is uncommitted, KAFKA_STORAGE_ERROR when
 * the batch could not be written), CheckVoterChange (VoterChangeCheck), TakeSnapshot and
 * DescribeQuorum.
 *
 * Emits: Raft messages to the other controllers (voters and observers); QuorumCommitted,
 * QuorumLeader, QuorumReady and QuorumSnapshot to its controller, in the order the core decides
 * them.
 *
 * Every input's effects run in order before the next input is taken, awaiting each disk write,
 * so no peer hears of a vote or an entry before it is durable here. A follower whose disk write
 * fails crashes and restarts from what is on disk; a leader whose write fails takes the entry
 * back (no one has seen it) and answers the Append with the error.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { CONTROLLER_PATH } from '../../src/protocol/cluster.js';
import { arrayOf, defineActor, objectOf, type ActorContext, type BaseContext, type ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Message } from '../../src/runtime/types.js';
import { MetadataLog, MetadataLogCorruptError, notJsonSafe } from '../controller/metadata-log.js';
import { MetadataSnapshotError, isImage, readSnapshot, writeSnapshot, type MetadataSnapshot } from '../controller/metadata-snapshot.js';
import { isKnownRecordType, type MetadataRecord } from '../controller/metadata-state.js';
import { newTopicId } from '../../src/protocol/topic-id.js';
import type { CommittedEntry, QuorumEvent, QuorumMsg, QuorumReply, QuorumVoter, QuorumVoterStatus } from './messages.js';
import { QuorumStateError, readQuorumState, writeQuorumState } from './quorum-state.js';
import { RaftCore, RaftRole, type RaftEffect, type RaftMembership, type VoterChangeCheck, type VoterChangeRefusal } from './raft-core.js';
import { assertNever } from '../../src/runtime/assert-never.js';

export const QUORUM_NAME = 'quorum';
export const QUORUM_PATH = `${CONTROLLER_PATH}/${QUORUM_NAME}`;

export interface QuorumArgs {
  voterId: number;
  /** The initial voters (the topology's quorum), in force until the log or the snapshot names another set. */
  voters: readonly QuorumVoter[];
  /** Other controllers to ask for the leader while this one observes, beyond the voters it knows. */
  contacts?: readonly QuorumVoter[];
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
  /** This controller as the quorum knows it: its id, node and directory id. */
  readonly self: QuorumVoter & { readonly directoryId: string };
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

/** Which records name a voter set: QuorumVoters (the last of a batch). */
export const METADATA_MEMBERSHIP: RaftMembership<MetadataRecord[], QuorumVoter> = {
  votersOf(records) {
    let named: QuorumVoter[] | null = null;
    for (const r of records) if (r.type === 'QuorumVoters') named = r.voters;
    return named;
  },
};

function memberNode(s: QuorumState, id: number | null): string | null {
  if (id === null) return null;
  return id === s.self.id ? s.self.node : (s.core.member(id)?.node ?? null);
}

function sendTo(s: QuorumState, ctx: Ctx, id: number, msg: QuorumMsg): void {
  const node = memberNode(s, id);
  if (node) ctx.send({ node, path: QUORUM_PATH }, msg);
  else ctx.log.warn('no node known for a quorum member: message dropped', { to: id, type: msg.type });
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
        if (s.args.metadataDir) await writeQuorumState(s.args.metadataDir, s.args.voterId, { term: e.term, votedFor: e.votedFor }, s.self.directoryId);
        break;
      case 'writeLog':
        if (s.log) {
          await s.log.truncateTo(e.afterIndex - s.log.start.index);
          await s.log.appendEntries(e.entries.map((x) => ({ term: x.term, records: x.data })));
        }
        break;
      case 'sendSnapshot': {
        if (!s.snapshot || s.snapshot.index !== e.index) break;
        sendTo(s, ctx, e.to, { type: 'InstallSnapshot', term: s.core.term, leaderId: s.args.voterId, lastIncludedIndex: e.index, lastIncludedTerm: e.term, data: s.snapshot, voters: e.voters });
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
      case 'send':
        sendTo(s, ctx, e.to, e.msg);
        break;
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
        // a lone voter heartbeats too: it replicates to observers
        if (self) ctx.timers.startPeriodic(HEARTBEAT_TIMER, heartbeatIntervalMs(s.args.electionTimeoutMs), { type: 'QuorumHeartbeat' });
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
        tell(s, ctx, { type: 'QuorumLeader', term: e.term, leaderId: e.leaderId, leaderNode: memberNode(s, e.leaderId) });
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
        ctx.log.info('metadata quorum voter set changed', { voters: e.voters.map((v) => v.id), role: e.role, voterId: s.args.voterId });
        break;
      default:
        assertNever(e, 'raft effect');
    }
  }
}

async function init(ctx: Ctx, args: QuorumArgs): Promise<QuorumState> {
  let log: MetadataLog | null = null;
  let entries: { term: number; data: MetadataRecord[] }[] = [];
  let election = { term: 0, votedFor: null as number | null };
  let snapshot: MetadataSnapshot | null = null;
  // a metadata dir gets its directory id once, kept in its election state; in memory, one per start
  let directoryId = newTopicId();
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
      const state = await readQuorumState(args.metadataDir, args.voterId);
      election = { term: state.term, votedFor: state.votedFor };
      if (state.directoryId) directoryId = state.directoryId;
      else await writeQuorumState(args.metadataDir, args.voterId, election, directoryId);
      // a log written before the quorum (terms 0) or by a later term than the state recorded
      const lastTerm = entries.at(-1)?.term ?? 0;
      if (lastTerm > election.term) election = { term: lastTerm, votedFor: null };
    } catch (err) {
      await log.close().catch(() => undefined);
      throw err;
    }
  }
  const self = { id: args.voterId, node: ctx.nodeId, directoryId };
  const core = new RaftCore<MetadataRecord[], QuorumVoter>(
    args.voterId,
    args.voters,
    election,
    entries,
    () => [],
    args.electionTimeoutMs,
    snapshot ? { index: snapshot.index, term: snapshot.term, voters: snapshot.image.quorumVoters ?? null } : undefined,
    { membership: METADATA_MEMBERSHIP, contacts: [self, ...(args.contacts ?? [])] },
  );
  const s: QuorumState = { args, core, self, log, pending: new Map(), random: args.random ?? Math.random, snapshot };
  // what the snapshot holds first, then the commits after it
  if (snapshot) tell(s, ctx, { type: 'QuorumSnapshot', index: snapshot.index, term: snapshot.term, image: snapshot.image });
  if (core.role === RaftRole.Observer) ctx.log.info('not a voter of the metadata quorum: observing', { voterId: args.voterId, voters: core.voters.map((v) => v.id) });
  await run(s, ctx, core.start(ctx.clock.now()));
  return s;
}

/** A Raft message whose data no controller could use: dropped with a warning. */
function refuseBadData(ctx: BaseContext<QuorumMsg>, what: string): void {
  ctx.log.warn(`${what} dropped`);
}

/** The records of a batch: objects with a type (isKnownRecordType checks the type). */
const RECORDS = arrayOf(objectOf({ type: 'string' }));

/** Why these records cannot enter the log (a type no controller applies, a value the log cannot hold), or null. */
function badRecords(records: readonly unknown[]): string | null {
  if (!records.every(isKnownRecordType)) return 'a record of an unknown type';
  const unsafe = notJsonSafe(records);
  return unsafe === null ? null : `a record with ${unsafe}, which the metadata log cannot hold`;
}

async function handleAppend(s: QuorumState, m: Extract<QuorumMsg, { type: 'Append' }>, ctx: ActorContext<QuorumMsg>): Promise<void> {
  const bad = badRecords(m.records);
  if (bad !== null) return ctx.reply<QuorumReply>({ type: 'AppendResult', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: bad, index: -1, leaderId: s.core.leaderId });
  const blocked = METADATA_MEMBERSHIP.votersOf(m.records) ? s.core.voterChangeBlocked() : null;
  if (blocked && blocked.refusal !== 'NotLeader') {
    return ctx.reply<QuorumReply>({ type: 'AppendResult', errorCode: refusalCode(blocked.refusal), errorMessage: blocked.message, index: -1, leaderId: s.core.leaderId });
  }
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
  const onceWritten = m.ack === 'written';
  if (token && !onceWritten) s.pending.set(proposed.index, token);
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
  if (token && onceWritten) ctx.replyTo<QuorumReply>(token, { type: 'AppendResult', errorCode: ErrorCode.NONE, index: proposed.index, leaderId: s.args.voterId });
  await run(s, ctx, rest);
}

/** Kafka's error code for why a voter change cannot be made (AddVoterHandler, RemoveVoterHandler). */
function refusalCode(r: VoterChangeRefusal): number {
  switch (r) {
    case 'NotLeader':
      return ErrorCode.NOT_CONTROLLER;
    case 'NotReady':
    case 'ChangePending':
    case 'NotCaughtUp':
      return ErrorCode.REQUEST_TIMED_OUT;
    case 'DuplicateVoter':
      return ErrorCode.DUPLICATE_VOTER;
    case 'VoterNotFound':
      return ErrorCode.VOTER_NOT_FOUND;
    default:
      return assertNever(r, 'voter change refusal');
  }
}

/** CheckVoterChange: Kafka's checks for adding or removing a voter now, and the set after it. */
function handleCheckVoterChange(s: QuorumState, m: Extract<QuorumMsg, { type: 'CheckVoterChange' }>, ctx: ActorContext<QuorumMsg>): void {
  const dir = m.directoryId ?? null;
  // a directory id given must be the controller's, where its own is known
  const matches = (v: QuorumVoter) => {
    const own = directoryOf(s, v);
    return dir === null || own === undefined || own === dir;
  };
  const check: VoterChangeCheck<QuorumVoter> = m.change === 'add' ? s.core.checkAddVoter(m.voterId, ctx.clock.now(), matches) : s.core.checkRemoveVoter(m.voterId, matches);
  // the new set names each voter's directory id where it is known (its own announcement)
  const named = (v: QuorumVoter): QuorumVoter => {
    const directoryId = directoryOf(s, v);
    return directoryId === undefined ? { id: v.id, node: v.node } : { id: v.id, node: v.node, directoryId };
  };
  ctx.reply<QuorumReply>(check.ok ? { type: 'VoterChangeCheck', errorCode: ErrorCode.NONE, voters: check.voters.map(named) } : { type: 'VoterChangeCheck', errorCode: refusalCode(check.refusal), errorMessage: check.message, voters: [] });
}

/** A controller's directory id: as a voter set names it, else as it announced itself (this one's own), if known. */
function directoryOf(s: QuorumState, v: QuorumVoter): string | undefined {
  if (v.id === s.self.id) return s.self.directoryId;
  return v.directoryId ?? s.core.member(v.id)?.directoryId;
}

/** The controller's state at `index`: written as the snapshot, and the log compacted up to it. */
async function handleTakeSnapshot(s: QuorumState, m: Extract<QuorumMsg, { type: 'TakeSnapshot' }>, ctx: Ctx): Promise<void> {
  if (!isImage(m.image)) return refuseBadData(ctx, 'TakeSnapshot without a metadata image');
  if (m.index <= s.core.snapshotIndex || m.index > s.core.commitIndex) return;
  const unsafe = notJsonSafe(m.image);
  if (unsafe !== null) return refuseBadData(ctx, `TakeSnapshot with ${unsafe} in its image, which a snapshot cannot hold`);
  const at = { index: m.index, term: s.core.termAt(m.index) };
  if (s.args.metadataDir) await writeSnapshot(s.args.metadataDir, { ...at, image: m.image });
  s.snapshot = { ...at, image: m.image };
  s.core.compact(m.index);
  if (s.log) await s.log.compactTo(at);
  ctx.log.info('metadata snapshot taken; log compacted', { index: at.index, term: at.term, entriesLeft: s.core.lastIndex - at.index });
}

function describe(s: QuorumState, now: number): QuorumReply {
  const leading = s.core.role === RaftRole.Leader;
  const status = (v: QuorumVoter): QuorumVoterStatus => {
    const self = v.id === s.args.voterId;
    const at = self ? now : s.core.lastContactAt(v.id);
    // as Kafka's leader reports itself: fetched and caught up now
    const fetch = self && leading ? { lastFetchAt: now, lastCaughtUpAt: now } : s.core.followerFetch(v.id);
    const directoryId = directoryOf(s, v) ?? null;
    return {
      id: v.id,
      node: v.node,
      directoryId,
      logEndIndex: s.core.matchOf(v.id) ?? -1,
      lastContactMs: at === null || !leading ? -1 : now - at,
      lastFetchTimestamp: fetch?.lastFetchAt ?? -1,
      lastCaughtUpTimestamp: fetch?.lastCaughtUpAt ?? -1,
    };
  };
  return {
    type: 'QuorumDescription',
    errorCode: ErrorCode.NONE,
    voterId: s.args.voterId,
    role: s.core.role,
    term: s.core.term,
    leaderId: s.core.leaderId,
    commitIndex: s.core.commitIndex,
    highWatermark: leading && !s.core.isReadyLeader ? -1 : s.core.commitIndex,
    lastIndex: s.core.lastIndex,
    snapshotIndex: s.core.snapshotIndex,
    voters: s.core.voters.map(status),
    observers: s.core.observerIds().flatMap((id) => {
      const m = s.core.member(id);
      return m ? [status(m)] : [];
    }),
  };
}

export const quorum = defineActor<QuorumState, QuorumMsg, QuorumArgs>({
  kind: 'quorum',
  // Raft is the controllers'; a client may only look. Terms, ids and indexes are safe integers:
  // they are counted with and kept as JSON (a bigint from msgpack is neither)
  clientMessages: { DescribeQuorum: true },
  // its controller's (its parent) and its own timers': never another node's
  localMessages: ['Append', 'TakeSnapshot', 'CheckVoterChange', 'ElectionTimeout', 'QuorumHeartbeat'],
  init,
  // A failed disk write restarts the actor from what is on disk; a corrupt log or someone
  // else's election state cannot heal by restarting.
  supervision: {
    decide: (err) => (err instanceof MetadataLogCorruptError || err instanceof QuorumStateError || err instanceof MetadataSnapshotError ? 'stop' : 'restart'),
    maxRestarts: 5,
    withinMs: 60_000,
  },
  schema: {
    VoteRequest: { term: 'safeInteger', candidateId: 'safeInteger', lastLogIndex: 'safeInteger', lastLogTerm: 'safeInteger' },
    VoteResponse: { term: 'safeInteger', voterId: 'safeInteger', granted: 'boolean' },
    AppendEntries: { term: 'safeInteger', leaderId: 'safeInteger', prevLogIndex: 'safeInteger', prevLogTerm: 'safeInteger', entries: arrayOf(objectOf({ term: 'safeInteger', data: RECORDS })), leaderCommit: 'safeInteger' },
    AppendEntriesResponse: { term: 'safeInteger', followerId: 'safeInteger', success: 'boolean', matchIndex: 'safeInteger' },
    InstallSnapshot: { term: 'safeInteger', leaderId: 'safeInteger', lastIncludedIndex: 'safeInteger', lastIncludedTerm: 'safeInteger', data: objectOf({ image: 'object' }), voters: 'array?' },
    InstallSnapshotResponse: { term: 'safeInteger', followerId: 'safeInteger', matchIndex: 'safeInteger' },
    Observe: { observer: 'object', lastLogIndex: 'safeInteger', forwarded: 'boolean' },
    EndEpoch: { term: 'safeInteger', leaderId: 'safeInteger', successors: 'array' },
    TakeSnapshot: { index: 'safeInteger', image: 'object' },
    Append: { records: RECORDS, ack: 'string?' },
    CheckVoterChange: { change: 'string', voterId: 'safeInteger', directoryId: 'string?' },
  },
  handlers: {
    VoteRequest: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    VoteResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    AppendEntries: (s, m, ctx) => {
      // a record no controller could apply, or the log could not hold, never enters the log (the schema checks the shape)
      for (const e of m.entries) {
        // a leader of term T sends entries of terms up to T (a line of another term is unreadable or a lie)
        if (e.term < 0 || e.term > m.term) return refuseBadData(ctx, `AppendEntries of term ${m.term} with an entry of term ${e.term}`);
        const bad = badRecords(e.data);
        if (bad !== null) return refuseBadData(ctx, `AppendEntries with ${bad}`);
      }
      return run(s, ctx, s.core.handle(m, ctx.clock.now()));
    },
    AppendEntriesResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    InstallSnapshot: (s, m, ctx) => {
      if (!isImage((m.data as { image?: unknown }).image)) return refuseBadData(ctx, 'InstallSnapshot without a metadata image');
      const unsafe = notJsonSafe(m.data);
      if (unsafe !== null) return refuseBadData(ctx, `InstallSnapshot with ${unsafe} in its image, which a snapshot cannot hold`);
      return run(s, ctx, s.core.handle(m, ctx.clock.now()));
    },
    InstallSnapshotResponse: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    Observe: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    EndEpoch: (s, m, ctx) => run(s, ctx, s.core.handle(m, ctx.clock.now())),
    CheckVoterChange: handleCheckVoterChange,
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
