/**
 * Raft (Ongaro & Ousterhout, "In Search of an Understandable Consensus Algorithm") as a pure
 * state machine: no I/O and no clock of its own. Every input (a peer's message, an election
 * timeout, a heartbeat tick, a proposal) returns the effects the caller must carry out, in order:
 * persist the term and vote, truncate and append to the durable log, send to peers, reset the
 * election timer, report commits and leadership. The quorum actor (quorum.ts) executes them and
 * finishes each input's disk writes before it takes the next, so what this core holds in memory
 * is what is durable by the time any peer hears of it.
 *
 * Roles (pre-vote, thesis §9.6 and Kafka's KIP-996): Follower --(election timeout)-->
 * Prospective (it asks the voters whether they would vote for it in the next term, changing
 * nothing); Prospective --(pre-votes of a majority, its own included)--> Candidate (a new
 * term); Prospective --(refusals of a majority)--> Follower; Prospective --(election
 * timeout)--> Prospective (asking again); Prospective --(a leader of its term, or any higher
 * term)--> Follower; Candidate --(election timeout: a split vote)--> Prospective; Candidate
 * --(votes of a majority)--> Leader; Candidate --(a leader of its term, or any higher term)-->
 * Follower; Leader --(a higher term)--> Follower; Follower --(a higher term)--> Follower. So a
 * voter cut off from a working leader never raises its term (the others, hearing from their
 * leader, refuse it), and it cannot depose that leader when it returns. A leader ignores
 * election timeouts; votes reaching a follower or a leader are ignored, pre-votes reaching
 * anyone but a prospective voter too; a second leader in one term is a bug, logged by the
 * caller and ignored.
 * Membership adds: Follower, Prospective or Candidate --(a voter set without it, from an entry
 * or a snapshot, once the entry taking it out is committed or if it was never in)--> Observer;
 * Observer --(a voter set
 * with it, or the entry taking it out truncated)--> Follower; Observer --(election timeout)-->
 * Observer (it asks the members it knows for the leader: Observe); Leader --(the entry removing
 * it commits)--> Observer (it resigns: EndEpoch to the voters); Follower --(EndEpoch of its
 * leader naming it first)--> Candidate (no pre-votes: its leader chose it). Ignored: an
 * EndEpoch not from its leader of its term. An observer never stands; it votes as a follower
 * does (a candidate whose newer set counts it could not win otherwise). A voter whose removal
 * is in its log but not committed may still stand and lead (counting the set without
 * it): with the most complete log it may be the only one who can commit the removal. As a
 * prospective voter its own pre-vote does not count, and it announces itself as an observer
 * does, so that when it was in fact removed (a restart forgets what was committed) it neither
 * raises its term for nothing nor misses the leader.
 *
 * Beyond the paper's core: a new leader appends an empty entry of its term, whose commit commits
 * everything before it (the leader is "ready" then, §8); a follower that has heard from a leader
 * within the minimum election timeout refuses votes and pre-votes without taking their term (leader
 * stickiness, thesis §4.2.3), so a voter that was cut off cannot depose a working leader when it
 * returns; a rejected append carries the follower's hint of where logs diverge, so the leader
 * backs up a term at a time rather than an entry at a time.
 *
 * Snapshots (§7): the caller compacts the log up to an index its state machine has applied
 * (`compact`); the entries up to it are gone, and the snapshot's index and term stand in for
 * them. A follower that needs an entry the leader no longer has gets InstallSnapshot (the
 * caller attaches the snapshot's data): it keeps the entries after the snapshot when it holds
 * the snapshot's last entry, or else drops its whole log, and reports the snapshot installed.
 *
 * Membership (thesis §4.1, as KRaft's KIP-853): the voter set in force is the one the latest
 * voters entry of this node's log names, committed or not, else the snapshot's, else the initial
 * one (voter-history.ts); the caller's `membership` says which entries name voters, so the core
 * never reads its data otherwise. Commits and elections count majorities of the set in force.
 * The leader changes it one server at a time: only once an entry of its own term is committed
 * and no earlier change is uncommitted (`voterChangeBlocked`), adding only an observer it has
 * heard from within an election timeout and that is caught up (`checkAddVoter`), never removing
 * the last voter (`checkRemoveVoter`); it proposes the new set as an entry. Observers (nodes
 * outside the set: controllers waiting to be added, removed ones) announce themselves with
 * Observe, to the leader or to any voter (which passes it on to its leader once); the leader
 * replicates to them as to its followers but does not count them, and forgets one it has not
 * heard from for OBSERVER_TIMEOUT_ELECTIONS election timeouts. A voter it removes becomes an
 * observer it keeps replicating to, so the removed node learns it is out and stops standing. A
 * leader that removes itself leads (not counting itself) until the entry commits, then resigns:
 * it tells the voters the commit and ends its term (EndEpoch), naming the most caught-up voter
 * first, who stands at once. A voter answers a candidate outside its own set as any other (the
 * candidate may hold a newer set, one adding it); a leader answered with a higher term by an
 * observer (a removed voter that stood before it learned it was out) forgets it rather than
 * stepping down.
 */
import { assertNever } from '../../src/runtime/assert-never.js';
import { VoterHistory, type RaftMember } from './voter-history.js';

export type { RaftMember } from './voter-history.js';

/** One replicated entry; its index is its position in the log, from 1. */
export interface RaftEntry<T> {
  readonly term: number;
  readonly data: T;
}

export const RaftRole = Object.freeze({
  Follower: 'Follower',
  /** A voter whose election timer fired, asking for pre-votes before it stands (KIP-996). */
  Prospective: 'Prospective',
  Candidate: 'Candidate',
  Leader: 'Leader',
  Observer: 'Observer',
} as const);
export type RaftRole = (typeof RaftRole)[keyof typeof RaftRole];

export type RaftMsg<T, V extends RaftMember = RaftMember> =
  /** `preVote`: would the voter grant it (`term` the candidate would take), changing nothing (thesis §9.6). */
  | { type: 'VoteRequest'; term: number; candidateId: number; lastLogIndex: number; lastLogTerm: number; preVote?: boolean }
  | { type: 'VoteResponse'; term: number; voterId: number; granted: boolean; preVote?: boolean }
  | { type: 'AppendEntries'; term: number; leaderId: number; prevLogIndex: number; prevLogTerm: number; entries: RaftEntry<T>[]; leaderCommit: number }
  /** `matchIndex`: on success the last index the follower holds from this append; on failure its hint (the leader retries from hint + 1). */
  | { type: 'AppendEntriesResponse'; term: number; followerId: number; success: boolean; matchIndex: number }
  /** The leader's snapshot of everything up to lastIncludedIndex (`data`: the caller's; `voters`: the set in force there, null for the initial one). */
  | { type: 'InstallSnapshot'; term: number; leaderId: number; lastIncludedIndex: number; lastIncludedTerm: number; data: unknown; voters: V[] | null }
  | { type: 'InstallSnapshotResponse'; term: number; followerId: number; matchIndex: number }
  /** A node outside the voter set asks to follow (to the leader, or to a voter that passes it on once: `forwarded`). */
  | { type: 'Observe'; observer: V; lastLogIndex: number; forwarded: boolean }
  /** The leader of `term` resigned (it removed itself); `successors`: the voters, most caught up first (who stands at once). */
  | { type: 'EndEpoch'; term: number; leaderId: number; successors: number[] };

export type RaftEffect<T, V extends RaftMember = RaftMember> =
  | { kind: 'persistVote'; term: number; votedFor: number | null }
  /** Drop every entry after `afterIndex`, then append `entries` (at afterIndex + 1 onwards). */
  | { kind: 'writeLog'; afterIndex: number; entries: RaftEntry<T>[] }
  | { kind: 'send'; to: number; msg: RaftMsg<T, V> }
  | { kind: 'resetElectionTimer' }
  /** Entries (from, to] are committed, in order. */
  | { kind: 'committed'; from: number; to: number }
  /** The leader known for `term` changed (null: none known). */
  | { kind: 'leader'; term: number; leaderId: number | null }
  /** This node leads `term` and its first entry of the term is committed: the log is complete. */
  | { kind: 'leaderReady'; term: number }
  /** Send `to` the snapshot (the caller's data) at index/term, holding the voter set `voters` (null: the initial one). */
  | { kind: 'sendSnapshot'; to: number; index: number; term: number; voters: V[] | null }
  /**
   * Make the leader's snapshot durable and current: everything up to `index` is `data`;
   * `keepFrom` entries after it stay in the log (or none: the log was dropped).
   */
  | { kind: 'installSnapshot'; index: number; term: number; data: unknown; logKept: boolean }
  /** The voter set in force changed (an entry appended or truncated, a snapshot installed); `role` is this node's now. */
  | { kind: 'voters'; voters: V[]; role: RaftRole };

export interface RaftPersisted {
  term: number;
  votedFor: number | null;
}

/** How the caller's entries name voter sets (KRaft's VotersRecord); the caller writes such entries itself. */
export interface RaftMembership<T, V extends RaftMember> {
  /** The voter set `data` names (the last, if several), or null when it names none. */
  votersOf(data: T): readonly V[] | null;
}

/** No voter set is ever named: the initial one stands for good. */
const STATIC_MEMBERSHIP: RaftMembership<unknown, never> = { votersOf: () => null };

/** Why a voter change cannot be made now (the caller answers with Kafka's code for it). */
export type VoterChangeRefusal =
  | 'NotLeader'
  /** No entry of the leader's term is committed yet (Kafka: the high watermark is unknown). */
  | 'NotReady'
  /** An earlier change is not committed yet. */
  | 'ChangePending'
  | 'DuplicateVoter'
  | 'VoterNotFound'
  /** The leader has not heard from the observer lately, or it is not caught up. */
  | 'NotCaughtUp';

export type VoterChangeCheck<V> = { ok: true; voters: V[] } | { ok: false; refusal: VoterChangeRefusal; message: string };

function sameIds(a: readonly RaftMember[], b: readonly RaftMember[]): boolean {
  return a === b || (a.length === b.length && a.every((v, i) => v.id === b[i]!.id));
}

/** Most entries in one AppendEntries (a follower far behind catches up over several). */
export const MAX_ENTRIES_PER_APPEND = 256;

/** A leader forgets an observer it has not heard from for this many (minimum) election timeouts. */
export const OBSERVER_TIMEOUT_ELECTIONS = 10;

export class RaftCore<T, V extends RaftMember = RaftMember> {
  role: RaftRole;
  term: number;
  votedFor: number | null;
  leaderId: number | null = null;
  commitIndex = 0;
  /** Entries snapshotIndex+1 .. lastIndex. */
  private readonly log: RaftEntry<T>[];
  /** The last index (and its term) the snapshot covers; 0 when there is none. */
  snapshotIndex: number;
  snapshotTerm: number;
  private readonly history: VoterHistory<V>;
  private readonly membership: RaftMembership<T, V>;
  /** Every member this node has heard of, by id (voters of any set, observers, contacts). */
  private readonly known = new Map<number, V>();
  private votes = new Set<number>();
  /** Prospective: the term it would stand in, and the voters that granted or refused it a pre-vote. */
  private prospectTerm: number | null = null;
  private preVotes = new Set<number>();
  private preVoteRefusals = new Set<number>();
  /** Leader: the next index to send and the last index known to match, for every follower and observer. */
  private readonly nextIndex = new Map<number, number>();
  private readonly matchIndex = new Map<number, number>();
  /** Leader: the observers it replicates to (not counted in majorities). */
  private readonly observers = new Map<number, V>();
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
    /** The initial voter set (the topology's), in force until an entry or the snapshot names another. */
    initialVoters: readonly V[],
    persisted: RaftPersisted,
    log: readonly RaftEntry<T>[],
    /** What the new leader's first entry carries. */
    private readonly emptyData: () => T,
    /** The minimum election timeout: within it of a leader's last word, a follower refuses votes. */
    private readonly minElectionTimeoutMs: number,
    /** The snapshot the log starts after (its entries are the ones after it), and the voter set it holds. */
    snapshot: { index: number; term: number; voters?: readonly V[] | null } = { index: 0, term: 0 },
    opts: {
      /** Which entries name voter sets (none, by default: the initial set is fixed). */
      membership?: RaftMembership<T, V>;
      /** Members to ask for the leader while this node observes, beyond the voters it knows. */
      contacts?: readonly V[];
    } = {},
  ) {
    this.term = persisted.term;
    this.votedFor = persisted.votedFor;
    this.log = [...log];
    this.snapshotIndex = snapshot.index;
    this.snapshotTerm = snapshot.term;
    // what a snapshot holds was committed
    this.commitIndex = snapshot.index;
    this.membership = opts.membership ?? (STATIC_MEMBERSHIP as RaftMembership<T, V>);
    this.history = new VoterHistory<V>(initialVoters, snapshot.voters ?? null);
    this.log.forEach((e, i) => this.noteEntry(this.snapshotIndex + i + 1, e));
    for (const v of [...(opts.contacts ?? []), ...this.history.members()]) this.known.set(v.id, v);
    this.role = this.mayStand ? RaftRole.Follower : RaftRole.Observer;
  }

  get lastIndex(): number {
    return this.snapshotIndex + this.log.length;
  }

  get lastTerm(): number {
    return this.termAt(this.lastIndex);
  }

  /** The voter set in force. */
  get voters(): readonly V[] {
    return this.history.current;
  }

  /** The voter set the snapshot holds (null: the initial one). */
  get snapshotVoters(): readonly V[] | null {
    return this.history.snapshotVoters;
  }

  isVoter(id: number): boolean {
    return this.history.includes(id);
  }

  /**
   * Whether this node may stand for election: it is a voter, or the entry taking it out is not
   * committed as far as it knows (until then the quorum may need it to lead and commit that
   * entry, thesis §4.2.2: with its log the most complete, no one else can win).
   */
  private get mayStand(): boolean {
    return this.isVoter(this.selfId) || this.removalPending;
  }

  /** The latest voters entry takes this node out, and it does not know that entry committed. */
  private get removalPending(): boolean {
    const at = this.history.latestIndex;
    return !this.isVoter(this.selfId) && at > this.commitIndex && this.history.at(at - 1).some((v) => v.id === this.selfId);
  }

  /** A member this node has heard of (a voter of any set it has seen, an observer, a contact). */
  member(id: number): V | undefined {
    return this.known.get(id);
  }

  /** Leader: the observers it replicates to, by id (empty when not leading). */
  observerIds(): number[] {
    return this.role === RaftRole.Leader ? [...this.observers.keys()].sort((a, b) => a - b) : [];
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
    this.history.compactedTo(index);
    return true;
  }

  /** True once this node leads and its log is known complete (its first entry of the term committed). */
  get isReadyLeader(): boolean {
    return this.role === RaftRole.Leader && this.ready;
  }

  private get majority(): number {
    return Math.floor(this.voters.length / 2) + 1;
  }

  /** The other voters. */
  private peers(): number[] {
    return this.voters.filter((v) => v.id !== this.selfId).map((v) => v.id);
  }

  /** Leader: everyone it replicates to (the other voters and the observers). */
  private replicas(): number[] {
    return [...this.peers(), ...this.observers.keys()];
  }

  /**
   * At start: an observer asks for the leader; a voter announces itself too (the leader learns
   * what the caller keeps of it, e.g. its directory id), then a lone voter leads at once, others
   * wait for a leader, or time out and stand.
   */
  start(now: number): RaftEffect<T, V>[] {
    this.now = now;
    const announce = this.observe();
    if (this.role === RaftRole.Observer) return announce;
    const sends = announce.filter((e) => e.kind === 'send');
    if (this.voters.length === 1 && this.isVoter(this.selfId)) return [...sends, ...this.stand(now)];
    return [...sends, { kind: 'resetElectionTimer' }];
  }

  /**
   * The election timer fired: a follower, a candidate (its election split) or a prospective
   * voter asks for pre-votes again (KIP-996), and stands once a majority would vote for it; an
   * observer asks again for the leader. A voter whose removal is pending also asks for the
   * leader, as an observer does: most likely removed already (a restart forgets what was
   * committed), it can still follow a leader of the term it has.
   */
  electionTimeout(now: number): RaftEffect<T, V>[] {
    this.now = now;
    if (this.role === RaftRole.Leader) return [];
    if (this.role === RaftRole.Follower || this.role === RaftRole.Candidate || this.role === RaftRole.Prospective) return this.prospect(now);
    if (this.role === RaftRole.Observer) {
      const effects: RaftEffect<T, V>[] = [];
      if (this.leaderId !== null) {
        // nothing from the leader for a whole timeout: it may be gone
        this.leaderId = null;
        effects.push({ kind: 'leader', term: this.term, leaderId: null });
      }
      return [...effects, ...this.observe()];
    }
    return assertNever(this.role);
  }

  /**
   * The leader's heartbeat: an append (maybe empty) to every follower and observer. A leader
   * that has not heard from a majority within the minimum election timeout steps down
   * (check-quorum): cut off, it could not commit anyway, and the others may have elected a new
   * leader. Observers silent for OBSERVER_TIMEOUT_ELECTIONS timeouts are forgotten.
   */
  heartbeat(now: number): RaftEffect<T, V>[] {
    this.now = now;
    if (this.role !== RaftRole.Leader) return [];
    const self = this.isVoter(this.selfId) ? 1 : 0;
    const inTouch = self + this.peers().filter((p) => now - (this.lastContact.get(p) ?? Number.NEGATIVE_INFINITY) < this.minElectionTimeoutMs).length;
    if (inTouch < this.majority) return this.stepDown(this.term);
    for (const id of [...this.observers.keys()]) {
      if (now - (this.lastContact.get(id) ?? Number.NEGATIVE_INFINITY) >= OBSERVER_TIMEOUT_ELECTIONS * this.minElectionTimeoutMs) this.forget(id);
    }
    return this.replicas().map((p) => this.appendTo(p));
  }

  /**
   * A leader adds `data` at the end of its log. Null when this node does not lead. An entry
   * naming voters takes effect at once (committed or not); the caller checks
   * `voterChangeBlocked` first: proposing one while a change is blocked is a bug.
   */
  propose(data: T): { index: number; effects: RaftEffect<T, V>[] } | null {
    if (this.role !== RaftRole.Leader) return null;
    const named = this.membership.votersOf(data);
    if (named) {
      const blocked = this.voterChangeBlocked();
      if (blocked) throw new Error(`raft: a voter change proposed while blocked: ${blocked.message}`);
    }
    const entry: RaftEntry<T> = { term: this.term, data };
    const index = this.lastIndex + 1;
    const before = this.voters;
    this.log.push(entry);
    this.noteEntry(index, entry);
    this.matchIndex.set(this.selfId, index);
    const effects: RaftEffect<T, V>[] = [{ kind: 'writeLog', afterIndex: index - 1, entries: [entry] }];
    if (named) effects.push(...this.leaderVotersChanged(before));
    for (const p of this.replicas()) {
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
    const before = this.voters;
    this.log.pop();
    this.history.truncatedAfter(index - 1);
    if (!sameIds(this.voters, before)) this.leaderVotersChanged(before);
    this.matchIndex.set(this.selfId, this.lastIndex);
    // a lone voter counted it committed with the proposal; that commit was never reported
    if (this.commitIndex >= index) this.commitIndex = index - 1;
  }

  // ---------------------------------------------------------------- voter changes

  /**
   * Why this node cannot start a voter change now (null: it can), Kafka's first checks: it must
   * lead, have committed an entry of its term (so it knows every earlier change), and hold no
   * uncommitted change (one at a time).
   */
  voterChangeBlocked(): { refusal: VoterChangeRefusal; message: string } | null {
    if (this.role !== RaftRole.Leader) return { refusal: 'NotLeader', message: `${this.selfId} does not lead the quorum` };
    if (!this.ready) return { refusal: 'NotReady', message: `leader ${this.selfId} has not committed an entry of its term ${this.term} yet` };
    if (this.history.latestIndex > this.commitIndex) {
      return { refusal: 'ChangePending', message: `the voter change at index ${this.history.latestIndex} is not committed yet (committed up to ${this.commitIndex})` };
    }
    return null;
  }

  /**
   * Whether the observer `id` can be added now, and the voter set with it (Kafka's AddVoterHandler
   * checks): not a voter already, heard from within an election timeout and caught up then (it
   * held all the leader had). `matches` narrows which observer is meant (e.g. its directory).
   */
  checkAddVoter(id: number, now: number, matches: (v: V) => boolean = () => true): VoterChangeCheck<V> {
    const blocked = this.voterChangeBlocked();
    if (blocked) return { ok: false, ...blocked };
    if (this.isVoter(id)) return { ok: false, refusal: 'DuplicateVoter', message: `${id} is already a voter (voters: ${this.voterList()})` };
    const observer = this.observers.get(id);
    if (!observer || !matches(observer)) return { ok: false, refusal: 'NotCaughtUp', message: `the leader has not heard from ${id}: it must run and follow the quorum as an observer first` };
    const heard = this.lastContact.get(id) ?? Number.NEGATIVE_INFINITY;
    const caughtUpAt = this.followerFetches.get(id)?.caughtUpAt ?? null;
    if (now - heard >= this.minElectionTimeoutMs) return { ok: false, refusal: 'NotCaughtUp', message: `the leader has not heard from ${id} for ${now - heard} ms` };
    if (caughtUpAt === null || now - caughtUpAt >= this.minElectionTimeoutMs) {
      return { ok: false, refusal: 'NotCaughtUp', message: `${id} is behind the leader's log (it holds up to ${this.matchIndex.get(id) ?? 0} of ${this.lastIndex})` };
    }
    return { ok: true, voters: [...this.voters, observer] };
  }

  /** Whether voter `id` can be removed now, and the voter set without it; never the last voter. */
  checkRemoveVoter(id: number, matches: (v: V) => boolean = () => true): VoterChangeCheck<V> {
    const blocked = this.voterChangeBlocked();
    if (blocked) return { ok: false, ...blocked };
    const voter = this.voters.find((v) => v.id === id);
    if (!voter || !matches(voter)) return { ok: false, refusal: 'VoterNotFound', message: `${id} is not a voter (voters: ${this.voterList()})` };
    if (this.voters.length === 1) return { ok: false, refusal: 'VoterNotFound', message: `${id} is the last voter` };
    return { ok: true, voters: this.voters.filter((v) => v.id !== id) };
  }

  private voterList(): string {
    return this.voters.map((v) => v.id).join(', ');
  }

  /** Records what an entry at `index` says of the voters. */
  private noteEntry(index: number, e: RaftEntry<T>): void {
    const named = this.membership.votersOf(e.data);
    if (!named) return;
    this.history.appended(index, named);
    for (const v of named) this.known.set(v.id, v);
  }

  /**
   * The leader's set changed (its own entry, or one it took back): new voters are followed as
   * peers (an observer keeps its progress), removed ones become observers it keeps replicating
   * to, so they learn they are out.
   */
  private leaderVotersChanged(before: readonly V[]): RaftEffect<T, V>[] {
    for (const v of this.voters) {
      if (v.id === this.selfId) continue;
      this.observers.delete(v.id);
      if (!this.nextIndex.has(v.id)) {
        this.nextIndex.set(v.id, this.lastIndex);
        this.matchIndex.set(v.id, 0);
        this.lastContact.set(v.id, this.now); // one timeout to hear from it
      }
    }
    for (const v of before) {
      if (v.id === this.selfId || this.isVoter(v.id)) continue;
      this.observers.set(v.id, v);
    }
    return [{ kind: 'voters', voters: [...this.voters], role: this.role }];
  }

  /**
   * After a follower's or observer's log or commit index changed: the voter set in force may be
   * another (told as a 'voters' effect), and with it whether this node may stand
   * (Follower <-> Observer; a candidate taken out observes).
   */
  private afterLogChange(before: readonly V[]): RaftEffect<T, V>[] {
    const effects: RaftEffect<T, V>[] = [];
    const stand = this.mayStand;
    if (!stand && (this.role === RaftRole.Follower || this.role === RaftRole.Candidate || this.role === RaftRole.Prospective)) {
      this.role = RaftRole.Observer;
      this.prospectTerm = null;
      this.votes.clear();
    } else if (stand && this.role === RaftRole.Observer) {
      this.role = RaftRole.Follower;
      effects.push({ kind: 'resetElectionTimer' });
    }
    if (!sameIds(this.voters, before)) effects.unshift({ kind: 'voters', voters: [...this.voters], role: this.role });
    return effects;
  }

  /** Leader: stop replicating to `id`. */
  private forget(id: number): void {
    this.observers.delete(id);
    this.nextIndex.delete(id);
    this.matchIndex.delete(id);
    this.lastContact.delete(id);
    this.followerFetches.delete(id);
    this.snapshotSentAt.delete(id);
  }

  // ---------------------------------------------------------------- observers

  /** Asks every member this node knows to be followed (the leader, or a voter who knows it). */
  private observe(): RaftEffect<T, V>[] {
    const self = this.known.get(this.selfId) ?? ({ id: this.selfId } as V);
    const effects: RaftEffect<T, V>[] = [];
    for (const id of this.known.keys()) {
      if (id !== this.selfId) effects.push({ kind: 'send', to: id, msg: { type: 'Observe', observer: self, lastLogIndex: this.lastIndex, forwarded: false } });
    }
    effects.push({ kind: 'resetElectionTimer' });
    return effects;
  }

  /**
   * Follower/Candidate/Prospective -> Prospective (KIP-996, thesis §9.6): asks the voters whether
   * they would vote for it in the next term, changing nothing, and stands once a majority would
   * (its own pre-vote counts while it is a voter: a lone voter stands at once). A voter that
   * lost touch with a working leader so never raises its term: the others, hearing from their
   * leader, refuse. One whose removal is pending also asks the members it knows for the leader.
   */
  private prospect(now: number): RaftEffect<T, V>[] {
    const effects: RaftEffect<T, V>[] = [];
    if (this.leaderId !== null) {
      this.leaderId = null;
      effects.push({ kind: 'leader', term: this.term, leaderId: null });
    }
    this.role = RaftRole.Prospective;
    this.votes.clear();
    this.prospectTerm = this.term + 1;
    this.preVotes = new Set(this.isVoter(this.selfId) ? [this.selfId] : []);
    this.preVoteRefusals = new Set();
    if (this.preVotes.size >= this.majority) return [...effects, ...this.stand(now)];
    const request: RaftMsg<T, V> = { type: 'VoteRequest', term: this.prospectTerm, candidateId: this.selfId, lastLogIndex: this.lastIndex, lastLogTerm: this.lastTerm, preVote: true };
    for (const p of this.peers()) effects.push({ kind: 'send', to: p, msg: request });
    if (this.removalPending) return [...effects, ...this.observe()];
    return [...effects, { kind: 'resetElectionTimer' }];
  }

  /** Leader: follow the observer from now on. Others pass it on to the leader they know, once. */
  private onObserve(m: Extract<RaftMsg<T, V>, { type: 'Observe' }>, now: number): RaftEffect<T, V>[] {
    const id = m.observer.id;
    if (id === this.selfId) return [];
    this.known.set(id, m.observer);
    if (this.role !== RaftRole.Leader) {
      if (m.forwarded || this.leaderId === null || this.leaderId === this.selfId || !this.known.has(this.leaderId)) return [];
      return [{ kind: 'send', to: this.leaderId, msg: { ...m, forwarded: true } }];
    }
    if (!this.isVoter(id) && !this.observers.has(id)) {
      this.observers.set(id, m.observer);
      this.nextIndex.set(id, Math.max(1, Math.min(this.lastIndex + 1, m.lastLogIndex + 1)));
      this.matchIndex.set(id, 0);
    } else if (this.observers.has(id)) {
      this.observers.set(id, m.observer);
    }
    this.lastContact.set(id, now);
    return [this.appendTo(id)];
  }

  /** Each voter's last index known to match the leader's log (null when this node does not lead). */
  progress(): Map<number, number> | null {
    if (this.role !== RaftRole.Leader) return null;
    return new Map(this.voters.map((v) => [v.id, v.id === this.selfId ? this.lastIndex : (this.matchIndex.get(v.id) ?? 0)]));
  }

  /** Leader: the last index known to match its log for any follower or observer (null: not leading, or unknown). */
  matchOf(id: number): number | null {
    if (this.role !== RaftRole.Leader) return null;
    return id === this.selfId ? this.lastIndex : (this.matchIndex.get(id) ?? null);
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

  handle(msg: RaftMsg<T, V>, now: number): RaftEffect<T, V>[] {
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
      case 'Observe':
        return this.onObserve(msg, now);
      case 'EndEpoch':
        return this.onEndEpoch(msg, now);
      default:
        return assertNever(msg, 'raft message');
    }
  }

  // ---------------------------------------------------------------- elections

  private stand(now: number): RaftEffect<T, V>[] {
    this.prospectTerm = null;
    this.role = RaftRole.Candidate;
    this.term += 1;
    this.votedFor = this.selfId;
    this.votes = new Set([this.selfId]);
    const effects: RaftEffect<T, V>[] = [{ kind: 'persistVote', term: this.term, votedFor: this.selfId }];
    if (this.leaderId !== null) {
      this.leaderId = null;
      effects.push({ kind: 'leader', term: this.term, leaderId: null });
    }
    if (this.wonElection()) return [...effects, ...this.becomeLeader(now)];
    effects.push({ kind: 'resetElectionTimer' });
    const request: RaftMsg<T, V> = { type: 'VoteRequest', term: this.term, candidateId: this.selfId, lastLogIndex: this.lastIndex, lastLogTerm: this.lastTerm };
    for (const p of this.peers()) effects.push({ kind: 'send', to: p, msg: request });
    return effects;
  }

  private becomeLeader(now: number): RaftEffect<T, V>[] {
    this.role = RaftRole.Leader;
    this.leaderId = this.selfId;
    this.ready = false;
    this.followerFetches.clear();
    this.observers.clear();
    this.nextIndex.clear();
    this.matchIndex.clear();
    this.lastContact.clear();
    for (const p of this.peers()) {
      this.nextIndex.set(p, this.lastIndex + 1);
      this.matchIndex.set(p, 0);
      this.lastContact.set(p, now); // a new leader gets one timeout to hear from its followers
    }
    const effects: RaftEffect<T, V>[] = [{ kind: 'leader', term: this.term, leaderId: this.selfId }];
    const proposed = this.propose(this.emptyData())!;
    this.termStartIndex = proposed.index;
    // the first append goes to every peer, caught up or not
    const sent = new Set(proposed.effects.flatMap((e) => (e.kind === 'send' ? [e.to] : [])));
    effects.push(...proposed.effects);
    for (const p of this.peers()) if (!sent.has(p)) effects.push(this.appendTo(p));
    return effects;
  }

  /** A message of a higher term (or check-quorum): take it, forget the vote, follow (observe, outside the set). */
  private stepDown(term: number): RaftEffect<T, V>[] {
    const effects: RaftEffect<T, V>[] = [];
    const wasLeading = this.role === RaftRole.Leader || this.role === RaftRole.Candidate;
    if (term > this.term) {
      this.term = term;
      this.votedFor = null;
      effects.push({ kind: 'persistVote', term, votedFor: null });
    }
    this.role = this.mayStand ? RaftRole.Follower : RaftRole.Observer;
    this.prospectTerm = null;
    this.termStartIndex = 0;
    this.ready = false;
    this.observers.clear();
    if (this.leaderId !== null) {
      this.leaderId = null;
      effects.push({ kind: 'leader', term: this.term, leaderId: null });
    }
    if (wasLeading) effects.push({ kind: 'resetElectionTimer' });
    return effects;
  }

  /**
   * The entry removing this leader committed: it tells the voters the commit, ends its term
   * naming them most caught up first (the first stands at once), and observes from now on.
   */
  private resign(): RaftEffect<T, V>[] {
    const peers = this.peers();
    const effects: RaftEffect<T, V>[] = peers.map((p) => this.appendTo(p));
    const successors = [...peers].sort((a, b) => (this.matchIndex.get(b) ?? 0) - (this.matchIndex.get(a) ?? 0) || a - b);
    for (const p of peers) effects.push({ kind: 'send', to: p, msg: { type: 'EndEpoch', term: this.term, leaderId: this.selfId, successors } });
    return [...effects, ...this.stepDown(this.term)];
  }

  private onVoteRequest(m: Extract<RaftMsg<T, V>, { type: 'VoteRequest' }>, now: number): RaftEffect<T, V>[] {
    const refuse = (effects: RaftEffect<T, V>[] = []): RaftEffect<T, V>[] => [
      ...effects,
      { kind: 'send', to: m.candidateId, msg: { type: 'VoteResponse', term: this.term, voterId: this.selfId, granted: false } },
    ];
    // Membership plays no part (thesis §4.1, as Kafka): a candidate outside this node's set,
    // and this node outside the candidate's, may each hold a newer set than the other (an
    // entry adding them not received yet); an observer refusing would leave a candidate that
    // counts it unable to win. Stickiness below keeps a removed node from deposing a leader.
    if (m.preVote) return this.onPreVoteRequest(m, now);
    if (m.term < this.term) return refuse();
    // leader stickiness: a working leader is not deposed by a voter that lost touch
    // (a leader is its own contact: it refuses while it leads; check-quorum makes it step down
    // when it has lost its followers)
    if (this.role === RaftRole.Leader) return refuse();
    const following = this.role === RaftRole.Follower || this.role === RaftRole.Observer || this.role === RaftRole.Prospective;
    if (following && this.leaderId !== null && now - this.lastLeaderContact < this.minElectionTimeoutMs) return refuse();
    const effects = m.term > this.term ? this.stepDown(m.term) : [];
    const upToDate = m.lastLogTerm > this.lastTerm || (m.lastLogTerm === this.lastTerm && m.lastLogIndex >= this.lastIndex);
    const canVote = this.role === RaftRole.Follower || this.role === RaftRole.Observer || this.role === RaftRole.Prospective;
    if ((this.votedFor === null || this.votedFor === m.candidateId) && upToDate && canVote) {
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

  /** Would this node vote for the candidate in the term it names? Answered, nothing changed. */
  private onPreVoteRequest(m: Extract<RaftMsg<T, V>, { type: 'VoteRequest' }>, now: number): RaftEffect<T, V>[] {
    const following = this.role === RaftRole.Follower || this.role === RaftRole.Observer;
    const sticky = this.role === RaftRole.Leader || (following && this.leaderId !== null && now - this.lastLeaderContact < this.minElectionTimeoutMs);
    const upToDate = m.lastLogTerm > this.lastTerm || (m.lastLogTerm === this.lastTerm && m.lastLogIndex >= this.lastIndex);
    const granted = m.term > this.term && !sticky && upToDate;
    return [{ kind: 'send', to: m.candidateId, msg: { type: 'VoteResponse', term: this.term, voterId: this.selfId, granted, preVote: true } }];
  }

  private onVoteResponse(m: Extract<RaftMsg<T, V>, { type: 'VoteResponse' }>, now: number): RaftEffect<T, V>[] {
    if (m.term > this.term) return this.stepDown(m.term);
    if (m.preVote) {
      if (this.role !== RaftRole.Prospective || this.prospectTerm !== this.term + 1 || !this.isVoter(m.voterId)) return [];
      if (!m.granted) {
        // refused by a majority: it cannot win; it waits as a follower for a leader or its next timeout
        this.preVoteRefusals.add(m.voterId);
        if (this.preVoteRefusals.size < this.majority) return [];
        this.role = RaftRole.Follower;
        this.prospectTerm = null;
        return [];
      }
      this.preVotes.add(m.voterId);
      return this.preVotes.size >= this.majority ? this.stand(now) : [];
    }
    if (this.role !== RaftRole.Candidate || m.term !== this.term || !m.granted || !this.isVoter(m.voterId)) return [];
    this.votes.add(m.voterId);
    return this.wonElection() ? this.becomeLeader(now) : [];
  }

  /** The votes of a majority of the set in force (its own counts only while it is in the set). */
  private wonElection(): boolean {
    return [...this.votes].filter((id) => this.isVoter(id)).length >= this.majority;
  }

  /** The leader of this term resigned: no leader now, no stickiness; its first successor stands at once. */
  private onEndEpoch(m: Extract<RaftMsg<T, V>, { type: 'EndEpoch' }>, now: number): RaftEffect<T, V>[] {
    if (m.term !== this.term || this.leaderId !== m.leaderId || this.role === RaftRole.Leader) return [];
    this.leaderId = null;
    this.lastLeaderContact = Number.NEGATIVE_INFINITY;
    const effects: RaftEffect<T, V>[] = [{ kind: 'leader', term: this.term, leaderId: null }];
    if (this.role === RaftRole.Follower && m.successors[0] === this.selfId) return [...effects, ...this.stand(now)];
    return [...effects, { kind: 'resetElectionTimer' }];
  }

  // ---------------------------------------------------------------- replication

  private appendTo(peer: number): RaftEffect<T, V> {
    const next = this.nextIndex.get(peer) ?? this.lastIndex + 1;
    // what it needs next was compacted away: the snapshot instead (once per election timeout;
    // meanwhile an empty append keeps it following)
    if (next <= this.snapshotIndex) {
      const sent = this.snapshotSentAt.get(peer);
      if (sent === undefined || this.now - sent >= this.minElectionTimeoutMs) {
        this.snapshotSentAt.set(peer, this.now);
        const voters = this.history.snapshotVoters;
        return { kind: 'sendSnapshot', to: peer, index: this.snapshotIndex, term: this.snapshotTerm, voters: voters ? [...voters] : null };
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

  private onAppendEntries(m: Extract<RaftMsg<T, V>, { type: 'AppendEntries' }>, now: number): RaftEffect<T, V>[] {
    const reply = (success: boolean, matchIndex: number): RaftEffect<T, V> => ({
      kind: 'send',
      to: m.leaderId,
      msg: { type: 'AppendEntriesResponse', term: this.term, followerId: this.selfId, success, matchIndex },
    });
    if (m.term < this.term) return [reply(false, this.lastIndex)];
    const effects: RaftEffect<T, V>[] = [];
    if (m.term > this.term || this.role === RaftRole.Candidate || this.role === RaftRole.Prospective) effects.push(...this.stepDown(m.term));
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
    const before = this.voters;
    if (k < m.entries.length) {
      if (at < this.commitIndex) throw new Error(`raft: leader ${m.leaderId} would overwrite committed entry ${at + 1}`);
      const fresh = m.entries.slice(k);
      this.log.length = at - this.snapshotIndex;
      this.history.truncatedAfter(at);
      this.log.push(...fresh);
      fresh.forEach((e, i) => this.noteEntry(at + i + 1, e));
      effects.push({ kind: 'writeLog', afterIndex: at, entries: fresh });
    }
    const matchIndex = m.prevLogIndex + m.entries.length;
    const newCommit = Math.min(m.leaderCommit, matchIndex);
    if (newCommit > this.commitIndex) {
      effects.push({ kind: 'committed', from: this.commitIndex, to: newCommit });
      this.commitIndex = newCommit;
    }
    effects.push(...this.afterLogChange(before), reply(true, matchIndex));
    return effects;
  }

  private onInstallSnapshot(m: Extract<RaftMsg<T, V>, { type: 'InstallSnapshot' }>, now: number): RaftEffect<T, V>[] {
    const reply = (matchIndex: number): RaftEffect<T, V> => ({ kind: 'send', to: m.leaderId, msg: { type: 'InstallSnapshotResponse', term: this.term, followerId: this.selfId, matchIndex } });
    if (m.term < this.term) return [{ kind: 'send', to: m.leaderId, msg: { type: 'AppendEntriesResponse', term: this.term, followerId: this.selfId, success: false, matchIndex: this.lastIndex } }];
    const effects: RaftEffect<T, V>[] = [];
    if (m.term > this.term || this.role === RaftRole.Candidate || this.role === RaftRole.Prospective) effects.push(...this.stepDown(m.term));
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
    const before = this.voters;
    if (logKept) this.log.splice(0, m.lastIncludedIndex - this.snapshotIndex);
    else this.log.length = 0;
    this.history.installed(m.lastIncludedIndex, m.voters, logKept);
    for (const v of m.voters ?? []) this.known.set(v.id, v);
    this.snapshotIndex = m.lastIncludedIndex;
    this.snapshotTerm = m.lastIncludedTerm;
    this.commitIndex = m.lastIncludedIndex;
    effects.push({ kind: 'installSnapshot', index: m.lastIncludedIndex, term: m.lastIncludedTerm, data: m.data, logKept }, ...this.afterLogChange(before), reply(m.lastIncludedIndex));
    return effects;
  }

  private onAppendResponse(m: Extract<RaftMsg<T, V>, { type: 'AppendEntriesResponse' }>, now: number): RaftEffect<T, V>[] {
    if (m.term > this.term) {
      // an observer of a higher term (a removed voter that stood before it learned it was out)
      // does not depose the leader: the leader stops replicating to it
      if (this.role === RaftRole.Leader && !this.isVoter(m.followerId)) {
        this.forget(m.followerId);
        return [];
      }
      return this.stepDown(m.term);
    }
    if (this.role !== RaftRole.Leader || m.term !== this.term || !this.nextIndex.has(m.followerId)) return [];
    this.lastContact.set(m.followerId, now);
    if (m.success) {
      this.noteFetch(m.followerId, m.matchIndex, now);
      if (m.matchIndex > (this.matchIndex.get(m.followerId) ?? 0)) this.matchIndex.set(m.followerId, m.matchIndex);
      this.nextIndex.set(m.followerId, Math.max(this.nextIndex.get(m.followerId)!, m.matchIndex + 1));
      const effects = this.advanceCommit();
      // more to send: keep the follower streaming until it has everything
      if (this.role === RaftRole.Leader && this.nextIndex.get(m.followerId)! <= this.lastIndex) effects.push(this.appendTo(m.followerId));
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

  /** Commits what a majority of the voter set in force holds (the leader counts only while it is a voter). */
  private advanceCommit(): RaftEffect<T, V>[] {
    if (this.role !== RaftRole.Leader) return [];
    const matches = this.voters.map((v) => (v.id === this.selfId ? this.lastIndex : (this.matchIndex.get(v.id) ?? 0))).sort((a, b) => b - a);
    const n = matches[this.majority - 1]!;
    // only an entry of the leader's own term is committed by counting (§5.4.2)
    if (n <= this.commitIndex || this.termAt(n) !== this.term) return [];
    const effects: RaftEffect<T, V>[] = [{ kind: 'committed', from: this.commitIndex, to: n }];
    this.commitIndex = n;
    if (!this.ready && n >= this.termStartIndex) {
      this.ready = true;
      effects.push({ kind: 'leaderReady', term: this.term });
    }
    // the entry that removed this leader committed: it resigns
    if (!this.isVoter(this.selfId) && this.history.latestIndex <= n) effects.push(...this.resign());
    return effects;
  }
}
