/**
 * Raft (Ongaro & Ousterhout, "In Search of an Understandable Consensus Algorithm") as a pure
 * state machine: no I/O and no clock of its own. Every input (a peer's message, an election
 * timeout, a heartbeat tick, a proposal) returns the effects the caller must carry out, in order:
 * persist the term and vote, truncate and append to the durable log, send to peers, reset the
 * election timer, report commits and leadership. The quorum actor (quorum.ts) executes them and
 * finishes each input's disk writes before it takes the next, so what this core holds in memory
 * is what is durable by the time any peer hears of it.
 *
 * Roles: Follower --(election timeout)--> Candidate; Candidate --(election timeout)--> Candidate
 * (a new term); Candidate --(votes of a majority)--> Leader; Candidate --(a leader of its term, or
 * any higher term)--> Follower; Leader --(a higher term)--> Follower; Follower --(a higher
 * term)--> Follower. A leader ignores election timeouts; votes reaching a follower or a leader
 * are ignored; a second leader in one term is a bug, logged by the caller and ignored.
 *
 * Beyond the paper's core: a new leader appends an empty entry of its term, whose commit commits
 * everything before it (the leader is "ready" then, §8); a follower that has heard from a leader
 * within the minimum election timeout refuses votes without taking their term (leader
 * stickiness, thesis §4.2.3), so a voter that was cut off cannot depose a working leader when it
 * returns; a rejected append carries the follower's hint of where logs diverge, so the leader
 * backs up a term at a time rather than an entry at a time.
 *
 * Snapshots (§7): the caller compacts the log up to an index its state machine has applied
 * (`compact`); the entries up to it are gone, and the snapshot's index and term stand in for
 * them. A follower that needs an entry the leader no longer has gets InstallSnapshot (the
 * caller attaches the snapshot's data): it keeps the entries after the snapshot when it holds
 * the snapshot's last entry, or else drops its whole log, and reports the snapshot installed.
 */
import { assertNever } from '../../src/runtime/assert-never.js';

/** One replicated entry; its index is its position in the log, from 1. */
export interface RaftEntry<T> {
  readonly term: number;
  readonly data: T;
}

export const RaftRole = Object.freeze({
  Follower: 'Follower',
  Candidate: 'Candidate',
  Leader: 'Leader',
} as const);
export type RaftRole = (typeof RaftRole)[keyof typeof RaftRole];

export type RaftMsg<T> =
  | { type: 'VoteRequest'; term: number; candidateId: number; lastLogIndex: number; lastLogTerm: number }
  | { type: 'VoteResponse'; term: number; voterId: number; granted: boolean }
  | { type: 'AppendEntries'; term: number; leaderId: number; prevLogIndex: number; prevLogTerm: number; entries: RaftEntry<T>[]; leaderCommit: number }
  /** `matchIndex`: on success the last index the follower holds from this append; on failure its hint (the leader retries from hint + 1). */
  | { type: 'AppendEntriesResponse'; term: number; followerId: number; success: boolean; matchIndex: number }
  /** The leader's snapshot of everything up to lastIncludedIndex (`data`: the caller's). */
  | { type: 'InstallSnapshot'; term: number; leaderId: number; lastIncludedIndex: number; lastIncludedTerm: number; data: unknown }
  | { type: 'InstallSnapshotResponse'; term: number; followerId: number; matchIndex: number };

export type RaftEffect<T> =
  | { kind: 'persistVote'; term: number; votedFor: number | null }
  /** Drop every entry after `afterIndex`, then append `entries` (at afterIndex + 1 onwards). */
  | { kind: 'writeLog'; afterIndex: number; entries: RaftEntry<T>[] }
  | { kind: 'send'; to: number; msg: RaftMsg<T> }
  | { kind: 'resetElectionTimer' }
  /** Entries (from, to] are committed, in order. */
  | { kind: 'committed'; from: number; to: number }
  /** The leader known for `term` changed (null: none known). */
  | { kind: 'leader'; term: number; leaderId: number | null }
  /** This node leads `term` and its first entry of the term is committed: the log is complete. */
  | { kind: 'leaderReady'; term: number }
  /** Send `to` the snapshot (the caller's data) at index/term. */
  | { kind: 'sendSnapshot'; to: number; index: number; term: number }
  /**
   * Make the leader's snapshot durable and current: everything up to `index` is `data`;
   * `keepFrom` entries after it stay in the log (or none: the log was dropped).
   */
  | { kind: 'installSnapshot'; index: number; term: number; data: unknown; logKept: boolean };

export interface RaftPersisted {
  term: number;
  votedFor: number | null;
}

/** Most entries in one AppendEntries (a follower far behind catches up over several). */
export const MAX_ENTRIES_PER_APPEND = 256;

export class RaftCore<T> {
  role: RaftRole = RaftRole.Follower;
  term: number;
  votedFor: number | null;
  leaderId: number | null = null;
  commitIndex = 0;
  /** Entries snapshotIndex+1 .. lastIndex. */
  private readonly log: RaftEntry<T>[];
  /** The last index (and its term) the snapshot covers; 0 when there is none. */
  snapshotIndex: number;
  snapshotTerm: number;
  private votes = new Set<number>();
  private readonly nextIndex = new Map<number, number>();
  private readonly matchIndex = new Map<number, number>();
  /** Index of this leader's first entry of its term (its commit makes it ready); 0: not leader. */
  private termStartIndex = 0;
  private ready = false;
  /** Clock time this node last heard from the leader of its term (followers). */
  private lastLeaderContact = Number.NEGATIVE_INFINITY;
  /** Leader: clock time each follower last answered an append. */
  private readonly lastContact = new Map<number, number>();
  /**
   * Leader: each follower's last successful answer to an append of this term (its time, and the
   * leader's last index then) and when it was last caught up, for Kafka's DescribeQuorum.
   */
  private readonly followerFetches = new Map<number, { at: number; leaderEnd: number; caughtUpAt: number | null }>();
  /** Leader: when each follower was last sent the snapshot (not again within an election timeout). */
  private readonly snapshotSentAt = new Map<number, number>();
  /** The clock time of the latest input (for inputs that carry none). */
  private now = 0;

  constructor(
    readonly selfId: number,
    readonly voters: readonly number[],
    persisted: RaftPersisted,
    log: readonly RaftEntry<T>[],
    /** What the new leader's first entry carries. */
    private readonly emptyData: () => T,
    /** The minimum election timeout: within it of a leader's last word, a follower refuses votes. */
    private readonly minElectionTimeoutMs: number,
    /** The snapshot the log starts after (its entries are the ones after it). */
    snapshot: { index: number; term: number } = { index: 0, term: 0 },
  ) {
    if (!voters.includes(selfId)) throw new Error(`voter ${selfId} is not among the voters [${voters.join(', ')}]`);
    this.term = persisted.term;
    this.votedFor = persisted.votedFor;
    this.log = [...log];
    this.snapshotIndex = snapshot.index;
    this.snapshotTerm = snapshot.term;
    // what a snapshot holds was committed
    this.commitIndex = snapshot.index;
  }

  get lastIndex(): number {
    return this.snapshotIndex + this.log.length;
  }

  get lastTerm(): number {
    return this.termAt(this.lastIndex);
  }

  /** The term of the entry at `index` (0 for index 0; -1 when unknown or compacted away). */
  termAt(index: number): number {
    if (index === this.snapshotIndex) return index <= 0 ? 0 : this.snapshotTerm;
    if (index < this.snapshotIndex) return -1;
    return this.log[index - this.snapshotIndex - 1]?.term ?? -1;
  }

  entry(index: number): RaftEntry<T> | undefined {
    return index > this.snapshotIndex ? this.log[index - this.snapshotIndex - 1] : undefined;
  }

  /** Entries (from, to], in order (those still in the log). */
  entries(from: number, to: number): RaftEntry<T>[] {
    const base = this.snapshotIndex;
    return this.log.slice(Math.max(0, from - base), Math.max(0, to - base));
  }

  /**
   * Drops the entries up to `index` (committed, and applied by the caller, whose snapshot now
   * holds them). Returns false when there is nothing to drop or `index` is not committed.
   */
  compact(index: number): boolean {
    if (index <= this.snapshotIndex || index > this.commitIndex) return false;
    const term = this.termAt(index);
    this.log.splice(0, index - this.snapshotIndex);
    this.snapshotIndex = index;
    this.snapshotTerm = term;
    return true;
  }

  /** True once this node leads and its log is known complete (its first entry of the term committed). */
  get isReadyLeader(): boolean {
    return this.role === RaftRole.Leader && this.ready;
  }

  private get majority(): number {
    return Math.floor(this.voters.length / 2) + 1;
  }

  private peers(): number[] {
    return this.voters.filter((v) => v !== this.selfId);
  }

  /** At start: a lone voter leads at once; otherwise wait for a leader, or time out and stand. */
  start(now: number): RaftEffect<T>[] {
    this.now = now;
    if (this.voters.length === 1) return this.stand(now);
    return [{ kind: 'resetElectionTimer' }];
  }

  /** The election timer fired. */
  electionTimeout(now: number): RaftEffect<T>[] {
    this.now = now;
    if (this.role === RaftRole.Leader) return [];
    return this.stand(now);
  }

  /**
   * The leader's heartbeat: an append (maybe empty) to every follower. A leader that has not
   * heard from a majority within the minimum election timeout steps down (check-quorum): cut
   * off, it could not commit anyway, and the others may have elected a new leader.
   */
  heartbeat(now: number): RaftEffect<T>[] {
    this.now = now;
    if (this.role !== RaftRole.Leader) return [];
    const inTouch = 1 + this.peers().filter((p) => now - (this.lastContact.get(p) ?? Number.NEGATIVE_INFINITY) < this.minElectionTimeoutMs).length;
    if (inTouch < this.majority) return this.stepDown(this.term);
    return this.peers().map((p) => this.appendTo(p));
  }

  /** A leader adds `data` at the end of its log. Null when this node does not lead. */
  propose(data: T): { index: number; effects: RaftEffect<T>[] } | null {
    if (this.role !== RaftRole.Leader) return null;
    const entry: RaftEntry<T> = { term: this.term, data };
    const index = this.lastIndex + 1;
    this.log.push(entry);
    this.matchIndex.set(this.selfId, index);
    const effects: RaftEffect<T>[] = [{ kind: 'writeLog', afterIndex: index - 1, entries: [entry] }];
    for (const p of this.peers()) {
      // only peers that are caught up get it now; the others get it on their next append
      if (this.nextIndex.get(p) === index) effects.push(this.appendTo(p));
    }
    effects.push(...this.advanceCommit());
    return { index, effects };
  }

  /**
   * Takes back the leader's last entry when it could not be made durable. Only before anyone
   * heard of it: the caller runs a proposal's log write before its sends and retracts on failure.
   */
  retract(index: number): void {
    if (this.role !== RaftRole.Leader || index !== this.lastIndex || index === this.termStartIndex) throw new Error(`raft: cannot retract entry ${index}`);
    this.log.pop();
    this.matchIndex.set(this.selfId, this.lastIndex);
    // a lone voter counted it committed with the proposal; that commit was never reported
    if (this.commitIndex >= index) this.commitIndex = index - 1;
  }

  /** Each voter's last index known to match the leader's log (null when this node does not lead). */
  progress(): Map<number, number> | null {
    if (this.role !== RaftRole.Leader) return null;
    return new Map(this.voters.map((v) => [v, v === this.selfId ? this.lastIndex : (this.matchIndex.get(v) ?? 0)]));
  }

  /** Leader: clock time `voter` last answered an append (null: never, or not leading). */
  lastContactAt(voter: number): number | null {
    return this.role === RaftRole.Leader ? (this.lastContact.get(voter) ?? null) : null;
  }

  /**
   * Leader: Kafka's view of a follower (KIP-836): when it last took an append of this term (a
   * Kafka follower's fetch), and when it last held everything this leader had (null: not known;
   * null for both when this node does not lead or `voter` is itself).
   */
  followerFetch(voter: number): { lastFetchAt: number | null; lastCaughtUpAt: number | null } | null {
    if (this.role !== RaftRole.Leader || voter === this.selfId) return null;
    const f = this.followerFetches.get(voter);
    return { lastFetchAt: f?.at ?? null, lastCaughtUpAt: f?.caughtUpAt ?? null };
  }

  handle(msg: RaftMsg<T>, now: number): RaftEffect<T>[] {
    this.now = now;
    switch (msg.type) {
      case 'VoteRequest':
        return this.onVoteRequest(msg, now);
      case 'VoteResponse':
        return this.onVoteResponse(msg, now);
      case 'AppendEntries':
        return this.onAppendEntries(msg, now);
      case 'AppendEntriesResponse':
        return this.onAppendResponse(msg, now);
      case 'InstallSnapshot':
        return this.onInstallSnapshot(msg, now);
      case 'InstallSnapshotResponse':
        return this.onAppendResponse({ type: 'AppendEntriesResponse', term: msg.term, followerId: msg.followerId, success: true, matchIndex: msg.matchIndex }, now);
      default:
        return assertNever(msg, 'raft message');
    }
  }

  // ---------------------------------------------------------------- elections

  private stand(now: number): RaftEffect<T>[] {
    this.role = RaftRole.Candidate;
    this.term += 1;
    this.votedFor = this.selfId;
    this.votes = new Set([this.selfId]);
    const effects: RaftEffect<T>[] = [{ kind: 'persistVote', term: this.term, votedFor: this.selfId }];
    if (this.leaderId !== null) {
      this.leaderId = null;
      effects.push({ kind: 'leader', term: this.term, leaderId: null });
    }
    if (this.votes.size >= this.majority) return [...effects, ...this.becomeLeader(now)];
    effects.push({ kind: 'resetElectionTimer' });
    const request: RaftMsg<T> = { type: 'VoteRequest', term: this.term, candidateId: this.selfId, lastLogIndex: this.lastIndex, lastLogTerm: this.lastTerm };
    for (const p of this.peers()) effects.push({ kind: 'send', to: p, msg: request });
    return effects;
  }

  private becomeLeader(now: number): RaftEffect<T>[] {
    this.role = RaftRole.Leader;
    this.leaderId = this.selfId;
    this.ready = false;
    this.followerFetches.clear();
    for (const p of this.peers()) {
      this.nextIndex.set(p, this.lastIndex + 1);
      this.matchIndex.set(p, 0);
      this.lastContact.set(p, now); // a new leader gets one timeout to hear from its followers
    }
    const effects: RaftEffect<T>[] = [{ kind: 'leader', term: this.term, leaderId: this.selfId }];
    const proposed = this.propose(this.emptyData())!;
    this.termStartIndex = proposed.index;
    // the first append goes to every peer, caught up or not
    const sent = new Set(proposed.effects.flatMap((e) => (e.kind === 'send' ? [e.to] : [])));
    effects.push(...proposed.effects);
    for (const p of this.peers()) if (!sent.has(p)) effects.push(this.appendTo(p));
    return effects;
  }

  /** A message of a higher term: take it, forget the vote, follow. */
  private stepDown(term: number): RaftEffect<T>[] {
    const effects: RaftEffect<T>[] = [];
    const wasLeading = this.role !== RaftRole.Follower;
    if (term > this.term) {
      this.term = term;
      this.votedFor = null;
      effects.push({ kind: 'persistVote', term, votedFor: null });
    }
    this.role = RaftRole.Follower;
    this.termStartIndex = 0;
    this.ready = false;
    if (this.leaderId !== null) {
      this.leaderId = null;
      effects.push({ kind: 'leader', term: this.term, leaderId: null });
    }
    if (wasLeading) effects.push({ kind: 'resetElectionTimer' });
    return effects;
  }

  private onVoteRequest(m: Extract<RaftMsg<T>, { type: 'VoteRequest' }>, now: number): RaftEffect<T>[] {
    const refuse = (effects: RaftEffect<T>[] = []): RaftEffect<T>[] => [
      ...effects,
      { kind: 'send', to: m.candidateId, msg: { type: 'VoteResponse', term: this.term, voterId: this.selfId, granted: false } },
    ];
    if (!this.voters.includes(m.candidateId)) return [];
    if (m.term < this.term) return refuse();
    // leader stickiness: a working leader is not deposed by a voter that lost touch
    // (a leader is its own contact: it refuses while it leads; check-quorum makes it step down
    // when it has lost its followers)
    if (this.role === RaftRole.Leader) return refuse();
    if (this.role === RaftRole.Follower && this.leaderId !== null && now - this.lastLeaderContact < this.minElectionTimeoutMs) return refuse();
    const effects = m.term > this.term ? this.stepDown(m.term) : [];
    const upToDate = m.lastLogTerm > this.lastTerm || (m.lastLogTerm === this.lastTerm && m.lastLogIndex >= this.lastIndex);
    if ((this.votedFor === null || this.votedFor === m.candidateId) && upToDate && this.role === RaftRole.Follower) {
      this.votedFor = m.candidateId;
      effects.push(
        { kind: 'persistVote', term: this.term, votedFor: m.candidateId },
        { kind: 'resetElectionTimer' },
        { kind: 'send', to: m.candidateId, msg: { type: 'VoteResponse', term: this.term, voterId: this.selfId, granted: true } },
      );
      return effects;
    }
    return refuse(effects);
  }

  private onVoteResponse(m: Extract<RaftMsg<T>, { type: 'VoteResponse' }>, now: number): RaftEffect<T>[] {
    if (m.term > this.term) return this.stepDown(m.term);
    if (this.role !== RaftRole.Candidate || m.term !== this.term || !m.granted) return [];
    this.votes.add(m.voterId);
    return this.votes.size >= this.majority ? this.becomeLeader(now) : [];
  }

  // ---------------------------------------------------------------- replication

  private appendTo(peer: number): RaftEffect<T> {
    const next = this.nextIndex.get(peer) ?? this.lastIndex + 1;
    // what it needs next was compacted away: the snapshot instead (once per election timeout;
    // meanwhile an empty append keeps it following)
    if (next <= this.snapshotIndex) {
      const sent = this.snapshotSentAt.get(peer);
      if (sent === undefined || this.now - sent >= this.minElectionTimeoutMs) {
        this.snapshotSentAt.set(peer, this.now);
        return { kind: 'sendSnapshot', to: peer, index: this.snapshotIndex, term: this.snapshotTerm };
      }
      return { kind: 'send', to: peer, msg: { type: 'AppendEntries', term: this.term, leaderId: this.selfId, prevLogIndex: this.snapshotIndex, prevLogTerm: this.snapshotTerm, entries: [], leaderCommit: this.commitIndex } };
    }
    const prevLogIndex = next - 1;
    const entries = this.entries(prevLogIndex, prevLogIndex + MAX_ENTRIES_PER_APPEND);
    return {
      kind: 'send',
      to: peer,
      msg: { type: 'AppendEntries', term: this.term, leaderId: this.selfId, prevLogIndex, prevLogTerm: this.termAt(prevLogIndex), entries, leaderCommit: this.commitIndex },
    };
  }

  private onAppendEntries(m: Extract<RaftMsg<T>, { type: 'AppendEntries' }>, now: number): RaftEffect<T>[] {
    const reply = (success: boolean, matchIndex: number): RaftEffect<T> => ({
      kind: 'send',
      to: m.leaderId,
      msg: { type: 'AppendEntriesResponse', term: this.term, followerId: this.selfId, success, matchIndex },
    });
    if (m.term < this.term) return [reply(false, this.lastIndex)];
    const effects: RaftEffect<T>[] = [];
    if (m.term > this.term || this.role === RaftRole.Candidate) effects.push(...this.stepDown(m.term));
    else if (this.role === RaftRole.Leader) return []; // two leaders in one term cannot happen; ignored
    this.lastLeaderContact = now;
    if (this.leaderId !== m.leaderId) {
      this.leaderId = m.leaderId;
      effects.push({ kind: 'leader', term: this.term, leaderId: m.leaderId });
    }
    effects.push({ kind: 'resetElectionTimer' });
    if (m.prevLogIndex < this.snapshotIndex) {
      // what this node compacted is committed, so it matches the leader's: skip that part
      const skip = this.snapshotIndex - m.prevLogIndex;
      if (skip >= m.entries.length) return [...effects, reply(true, m.prevLogIndex + m.entries.length)];
      m = { ...m, prevLogIndex: this.snapshotIndex, prevLogTerm: this.snapshotTerm, entries: m.entries.slice(skip) };
    }
    // log matching: the entry before the new ones must agree
    if (m.prevLogIndex > this.lastIndex) return [...effects, reply(false, this.lastIndex)];
    if (this.termAt(m.prevLogIndex) !== m.prevLogTerm) {
      // back up past every entry of the conflicting term
      const bad = this.termAt(m.prevLogIndex);
      let i = m.prevLogIndex - 1;
      while (i > this.commitIndex && this.termAt(i) === bad) i--;
      return [...effects, reply(false, i)];
    }
    // skip what is already there; truncate at the first entry that disagrees
    let at = m.prevLogIndex;
    let k = 0;
    while (k < m.entries.length && at + 1 <= this.lastIndex && this.termAt(at + 1) === m.entries[k]!.term) {
      at++;
      k++;
    }
    if (k < m.entries.length) {
      if (at < this.commitIndex) throw new Error(`raft: leader ${m.leaderId} would overwrite committed entry ${at + 1}`);
      const fresh = m.entries.slice(k);
      this.log.length = at - this.snapshotIndex;
      this.log.push(...fresh);
      effects.push({ kind: 'writeLog', afterIndex: at, entries: fresh });
    }
    const matchIndex = m.prevLogIndex + m.entries.length;
    const newCommit = Math.min(m.leaderCommit, matchIndex);
    if (newCommit > this.commitIndex) {
      effects.push({ kind: 'committed', from: this.commitIndex, to: newCommit });
      this.commitIndex = newCommit;
    }
    effects.push(reply(true, matchIndex));
    return effects;
  }

  private onInstallSnapshot(m: Extract<RaftMsg<T>, { type: 'InstallSnapshot' }>, now: number): RaftEffect<T>[] {
    const reply = (matchIndex: number): RaftEffect<T> => ({ kind: 'send', to: m.leaderId, msg: { type: 'InstallSnapshotResponse', term: this.term, followerId: this.selfId, matchIndex } });
    if (m.term < this.term) return [{ kind: 'send', to: m.leaderId, msg: { type: 'AppendEntriesResponse', term: this.term, followerId: this.selfId, success: false, matchIndex: this.lastIndex } }];
    const effects: RaftEffect<T>[] = [];
    if (m.term > this.term || this.role === RaftRole.Candidate) effects.push(...this.stepDown(m.term));
    else if (this.role === RaftRole.Leader) return [];
    this.lastLeaderContact = now;
    if (this.leaderId !== m.leaderId) {
      this.leaderId = m.leaderId;
      effects.push({ kind: 'leader', term: this.term, leaderId: m.leaderId });
    }
    effects.push({ kind: 'resetElectionTimer' });
    // already covered by what this node committed
    if (m.lastIncludedIndex <= this.commitIndex) return [...effects, reply(m.lastIncludedIndex)];
    const logKept = this.termAt(m.lastIncludedIndex) === m.lastIncludedTerm;
    if (logKept) this.log.splice(0, m.lastIncludedIndex - this.snapshotIndex);
    else this.log.length = 0;
    this.snapshotIndex = m.lastIncludedIndex;
    this.snapshotTerm = m.lastIncludedTerm;
    this.commitIndex = m.lastIncludedIndex;
    effects.push({ kind: 'installSnapshot', index: m.lastIncludedIndex, term: m.lastIncludedTerm, data: m.data, logKept }, reply(m.lastIncludedIndex));
    return effects;
  }

  private onAppendResponse(m: Extract<RaftMsg<T>, { type: 'AppendEntriesResponse' }>, now: number): RaftEffect<T>[] {
    if (m.term > this.term) return this.stepDown(m.term);
    if (this.role !== RaftRole.Leader || m.term !== this.term || !this.nextIndex.has(m.followerId)) return [];
    this.lastContact.set(m.followerId, now);
    if (m.success) {
      this.noteFetch(m.followerId, m.matchIndex, now);
      if (m.matchIndex > (this.matchIndex.get(m.followerId) ?? 0)) this.matchIndex.set(m.followerId, m.matchIndex);
      this.nextIndex.set(m.followerId, Math.max(this.nextIndex.get(m.followerId)!, m.matchIndex + 1));
      const effects = this.advanceCommit();
      // more to send: keep the follower streaming until it has everything
      if (this.nextIndex.get(m.followerId)! <= this.lastIndex) effects.push(this.appendTo(m.followerId));
      return effects;
    }
    const next = Math.max(1, Math.min(this.nextIndex.get(m.followerId)! - 1, m.matchIndex + 1));
    this.nextIndex.set(m.followerId, next);
    return [this.appendTo(m.followerId)];
  }

  /**
   * Kafka's LeaderState.updateFollowerState: a follower holding all the leader has is caught up
   * now; one holding what the leader had at its previous answer was caught up then.
   */
  private noteFetch(follower: number, end: number, now: number): void {
    const f = this.followerFetches.get(follower);
    let caughtUpAt = f?.caughtUpAt ?? null;
    if (end >= this.lastIndex) caughtUpAt = now;
    else if (f && f.leaderEnd > 0 && end >= f.leaderEnd) caughtUpAt = Math.max(caughtUpAt ?? f.at, f.at);
    this.followerFetches.set(follower, { at: now, leaderEnd: this.lastIndex, caughtUpAt });
  }

  private advanceCommit(): RaftEffect<T>[] {
    if (this.role !== RaftRole.Leader) return [];
    const matches = this.voters.map((v) => (v === this.selfId ? this.lastIndex : (this.matchIndex.get(v) ?? 0))).sort((a, b) => b - a);
    const n = matches[this.majority - 1]!;
    // only an entry of the leader's own term is committed by counting (§5.4.2)
    if (n <= this.commitIndex || this.termAt(n) !== this.term) return [];
    const effects: RaftEffect<T>[] = [{ kind: 'committed', from: this.commitIndex, to: n }];
    this.commitIndex = n;
    if (!this.ready && n >= this.termStartIndex) {
      this.ready = true;
      effects.push({ kind: 'leaderReady', term: this.term });
    }
    return effects;
  }
}
