/**
 * The Raft core on a simulated network: every role transition (legal and ignored), vote and
 * append rules, commit counting, catch-up, truncation of a diverged log, leader stickiness and
 * check-quorum, and a randomized run with partitions and drops that checks Raft's safety
 * properties (one leader per term; a committed entry never changes). Membership (KIP-853):
 * observers follow and never stand, voters added and removed one at a time with Kafka's checks,
 * a leader removing itself resigns after the commit, truncation and snapshots carry the set, and
 * the randomized run again with voters added and removed at random.
 */
import { expect } from 'chai';
import { MAX_ENTRIES_PER_APPEND, RaftCore, RaftRole, type RaftEffect, type RaftEntry, type RaftMember, type RaftMembership, type RaftMsg } from '../../../actors/quorum/raft-core.js';

type Data = string[];
const MIN_TIMEOUT = 100;

function ids(...xs: number[]): RaftMember[] {
  return xs.map((id) => ({ id }));
}

/** An entry naming voters is ['voters:1,2,3'] (entryFor makes one). */
const membership: RaftMembership<Data, RaftMember> & { entryFor(voters: readonly RaftMember[]): Data } = {
  votersOf: (data) => (data.length === 1 && data[0]!.startsWith('voters:') ? ids(...data[0]!.slice(7).split(',').map(Number)) : null),
  entryFor: (voters) => [`voters:${voters.map((v) => v.id).join(',')}`],
};

interface SimSnapshot {
  index: number;
  term: number;
  /** The state machine at `index`: every entry's data up to it. */
  applied: RaftEntry<Data>[];
  /** The voter set it holds (null: the initial one). */
  voters: RaftMember[] | null;
}

interface SimNode {
  core: RaftCore<Data>;
  persisted: { term: number; votedFor: number | null };
  /** The entries after snap.index, as written. */
  disk: RaftEntry<Data>[];
  snap: SimSnapshot;
  applied: RaftEntry<Data>[];
  deadline: number;
  up: boolean;
  readyTerms: number[];
  /** The voter sets it was told of ('voters' effects), in order. */
  voterChanges: number[][];
}

/** A cluster of cores on a fake clock; messages queue until delivered. */
class Sim {
  now = 0;
  readonly nodes = new Map<number, SimNode>();
  queue: { from: number; to: number; msg: RaftMsg<Data> }[] = [];
  /** Pairs that cannot talk (both directions). */
  cut = new Set<string>();
  leadersByTerm = new Map<number, number>();
  private seed = 7;

  /** `ids`: the initial voters, each a node; `observers`: nodes started outside the set. */
  constructor(
    readonly ids: number[],
    observers: number[] = [],
  ) {
    for (const id of [...ids, ...observers]) this.boot(id, { term: 0, votedFor: null }, [], { index: 0, term: 0, applied: [], voters: null });
  }

  /** Every node, voter or not. */
  get all(): number[] {
    return [...this.nodes.keys()];
  }

  /** Starts a node outside the voter set: it observes. */
  addNode(id: number): void {
    this.boot(id, { term: 0, votedFor: null }, [], { index: 0, term: 0, applied: [], voters: null });
  }

  random(): number {
    this.seed = (this.seed * 1103515245 + 12345) & 0x7fffffff;
    return this.seed / 0x7fffffff;
  }

  boot(id: number, persisted: { term: number; votedFor: number | null }, disk: RaftEntry<Data>[], snap: SimSnapshot): void {
    const core = new RaftCore<Data>(id, ids(...this.ids), persisted, disk, () => [], MIN_TIMEOUT, { index: snap.index, term: snap.term, voters: snap.voters }, { membership });
    const n: SimNode = { core, persisted: { ...persisted }, disk: [...disk], snap, applied: [...snap.applied], deadline: Infinity, up: true, readyTerms: [], voterChanges: [] };
    this.nodes.set(id, n);
    this.run(id, core.start(this.now));
  }

  /** Restart from what the node made durable: its snapshot, log and vote. */
  restart(id: number): void {
    const n = this.nodes.get(id)!;
    this.boot(id, n.persisted, n.disk, n.snap);
  }

  /** The node snapshots its state machine at its commit index and compacts its log. */
  compact(id: number): boolean {
    const n = this.nodes.get(id)!;
    const index = n.core.commitIndex;
    const before = n.snap.index;
    if (!n.core.compact(index)) return false;
    const voters = n.core.snapshotVoters;
    n.snap = { index, term: n.core.snapshotTerm, applied: n.applied.slice(0, index), voters: voters ? [...voters] : null };
    n.disk.splice(0, index - before);
    return true;
  }

  node(id: number): SimNode {
    return this.nodes.get(id)!;
  }

  run(id: number, effects: RaftEffect<Data>[]): void {
    const n = this.nodes.get(id)!;
    for (const e of effects) {
      switch (e.kind) {
        case 'persistVote':
          n.persisted = { term: e.term, votedFor: e.votedFor };
          break;
        case 'writeLog':
          n.disk.length = e.afterIndex - n.snap.index;
          n.disk.push(...e.entries);
          break;
        case 'sendSnapshot':
          this.queue.push({ from: id, to: e.to, msg: { type: 'InstallSnapshot', term: n.core.term, leaderId: id, lastIncludedIndex: e.index, lastIncludedTerm: e.term, data: n.snap.applied.slice(0, e.index), voters: e.voters } });
          break;
        case 'installSnapshot': {
          const before = n.snap.index;
          n.snap = { index: e.index, term: e.term, applied: [...(e.data as RaftEntry<Data>[])], voters: n.core.snapshotVoters ? [...n.core.snapshotVoters] : null };
          if (e.logKept) n.disk.splice(0, e.index - before);
          else n.disk = [];
          n.applied = [...n.snap.applied];
          break;
        }
        case 'send':
          this.queue.push({ from: id, to: e.to, msg: e.msg });
          break;
        case 'resetElectionTimer':
          n.deadline = this.now + MIN_TIMEOUT + Math.floor(this.random() * MIN_TIMEOUT);
          break;
        case 'committed':
          for (let i = e.from + 1; i <= e.to; i++) n.applied[i - 1] = n.core.entry(i)!;
          break;
        case 'leader':
          if (e.leaderId === id) {
            const prev = this.leadersByTerm.get(e.term);
            if (prev !== undefined && prev !== id) throw new Error(`two leaders in term ${e.term}: ${prev} and ${id}`);
            this.leadersByTerm.set(e.term, id);
          }
          break;
        case 'leaderReady':
          n.readyTerms.push(e.term);
          break;
        case 'voters':
          n.voterChanges.push(e.voters.map((v) => v.id));
          break;
      }
    }
  }

  deliverAll(maxSteps = 10_000): void {
    for (let i = 0; i < maxSteps && this.queue.length > 0; i++) this.deliverOne();
  }

  deliverOne(): void {
    const { from, to, msg } = this.queue.shift()!;
    const n = this.nodes.get(to);
    if (!n || !n.up || !this.nodes.get(from)!.up || this.cut.has(`${from}-${to}`)) return;
    this.run(to, n.core.handle(msg, this.now));
  }

  /** Advances the clock by `ms` in steps, firing election timeouts and the leader's heartbeats. */
  advance(ms: number, step = 10): void {
    for (let t = 0; t < ms; t += step) {
      this.now += step;
      for (const [id, n] of this.nodes) {
        if (!n.up) continue;
        if (n.core.role === RaftRole.Leader && this.now % 30 === 0) this.run(id, n.core.heartbeat(this.now));
        if (n.core.role !== RaftRole.Leader && this.now >= n.deadline) this.run(id, n.core.electionTimeout(this.now));
      }
      this.deliverAll();
    }
  }

  leader(): number | null {
    const leaders = [...this.nodes].filter(([, n]) => n.up && n.core.role === RaftRole.Leader).map(([id]) => id);
    const top = leaders.sort((a, b) => this.node(b).core.term - this.node(a).core.term)[0];
    return top ?? null;
  }

  propose(id: number, data: Data): number {
    const r = this.node(id).core.propose(data);
    if (!r) throw new Error(`${id} does not lead`);
    this.run(id, r.effects);
    return r.index;
  }

  isolate(id: number): void {
    for (const o of this.all) if (o !== id) this.cut.add(`${id}-${o}`).add(`${o}-${id}`);
  }

  heal(): void {
    this.cut.clear();
  }
}

function sends(effects: RaftEffect<Data>[], type: RaftMsg<Data>['type']): RaftMsg<Data>[] {
  return effects.flatMap((e) => (e.kind === 'send' && e.msg.type === type ? [e.msg] : []));
}

/** An election timeout, then pre-votes granted by `by`: the core stands. Returns the effects of the last answer. */
function standAfterPreVotes(core: RaftCore<Data>, now: number, ...by: number[]): RaftEffect<Data>[] {
  core.electionTimeout(now);
  expect(core.role).to.equal(RaftRole.Prospective);
  const term = core.term;
  let effects: RaftEffect<Data>[] = [];
  for (const voterId of by) effects = core.handle({ type: 'VoteResponse', term, voterId, granted: true, preVote: true }, now);
  return effects;
}

describe('actors/quorum/raft-core', () => {
  describe('role transitions', () => {
    it('a lone voter leads at once, and its first entry commits at once (ready)', () => {
      const sim = new Sim([1]);
      const n = sim.node(1);
      expect(n.core.role).to.equal(RaftRole.Leader);
      expect(n.core.term).to.equal(1);
      expect(n.persisted).to.deep.equal({ term: 1, votedFor: 1 });
      expect(n.readyTerms).to.deep.equal([1]);
      expect(n.core.commitIndex).to.equal(1);
      const i = sim.propose(1, ['a']);
      expect(i).to.equal(2);
      expect(n.core.commitIndex).to.equal(2);
      expect(n.applied.map((e) => e.data)).to.deep.equal([[], ['a']]);
    });

    it('Follower -> Prospective on an election timeout: pre-vote requests for the next term, nothing persisted, the timer reset (KIP-996)', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: 2 }, [{ term: 4, data: [] }], () => [], MIN_TIMEOUT);
      core.handle({ type: 'AppendEntries', term: 4, leaderId: 2, prevLogIndex: 1, prevLogTerm: 4, entries: [], leaderCommit: 1 }, 0);
      const effects = core.electionTimeout(200);
      expect([core.role, core.term, core.votedFor, core.leaderId]).to.deep.equal([RaftRole.Prospective, 4, 2, null]);
      expect(effects.filter((e) => e.kind === 'persistVote')).to.deep.equal([]);
      expect(effects).to.deep.include({ kind: 'leader', term: 4, leaderId: null });
      expect(effects).to.deep.include({ kind: 'resetElectionTimer' });
      expect(sends(effects, 'VoteRequest')).to.deep.equal([2, 3].map(() => ({ type: 'VoteRequest', term: 5, candidateId: 1, lastLogIndex: 1, lastLogTerm: 4, preVote: true })));
      expect(sends(effects, 'Observe')).to.deep.equal([]);
    });

    it('Prospective -> Candidate with the pre-votes of a majority, its own counted: a new term, its own vote, persisted before any request goes out', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.electionTimeout(0);
      const effects = core.handle({ type: 'VoteResponse', term: 4, voterId: 3, granted: true, preVote: true }, 1);
      expect(core.role).to.equal(RaftRole.Candidate);
      expect(core.term).to.equal(5);
      const persistAt = effects.findIndex((e) => e.kind === 'persistVote');
      const firstSend = effects.findIndex((e) => e.kind === 'send');
      expect(effects[persistAt]).to.deep.equal({ kind: 'persistVote', term: 5, votedFor: 1 });
      expect(persistAt).to.be.lessThan(firstSend);
      expect(sends(effects, 'VoteRequest')).to.deep.equal([2, 3].map(() => ({ type: 'VoteRequest', term: 5, candidateId: 1, lastLogIndex: 0, lastLogTerm: 0 })));
    });

    it('Prospective -> Follower when a majority refuses: its term unchanged, and later grants ignored', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3, 4, 5), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.electionTimeout(0);
      const refuse = (voterId: number) => core.handle({ type: 'VoteResponse', term: 4, voterId, granted: false, preVote: true }, 1);
      refuse(2);
      refuse(3);
      expect(core.role).to.equal(RaftRole.Prospective);
      expect(refuse(4)).to.deep.equal([]);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Follower, 4]);
      expect(core.handle({ type: 'VoteResponse', term: 4, voterId: 5, granted: true, preVote: true }, 2)).to.deep.equal([]);
      expect(core.role).to.equal(RaftRole.Follower);
    });

    it('Prospective -> Prospective on another timeout: it asks again, its term unchanged', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.electionTimeout(0);
      const effects = core.electionTimeout(200);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Prospective, 4]);
      expect(sends(effects, 'VoteRequest')).to.have.length(2);
      // grants of the earlier round still count toward the same next term
      core.handle({ type: 'VoteResponse', term: 4, voterId: 2, granted: true, preVote: true }, 201);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Candidate, 5]);
    });

    it('Prospective -> Follower on an append from a leader of its term, or on any message of a higher term', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.electionTimeout(0);
      core.handle({ type: 'AppendEntries', term: 4, leaderId: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 1);
      expect([core.role, core.term, core.leaderId]).to.deep.equal([RaftRole.Follower, 4, 2]);
      const other = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      other.electionTimeout(0);
      // a voter of a later term answers the pre-vote: the prospective voter takes that term
      const effects = other.handle({ type: 'VoteResponse', term: 7, voterId: 2, granted: false, preVote: true }, 1);
      expect([other.role, other.term, other.votedFor]).to.deep.equal([RaftRole.Follower, 7, null]);
      expect(effects).to.deep.include({ kind: 'persistVote', term: 7, votedFor: null });
    });

    it('a prospective voter grants votes (it has not voted in the term asked for) and pre-votes', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.electionTimeout(0);
      const answer = (effects: RaftEffect<Data>[]) => (sends(effects, 'VoteResponse')[0] as Extract<RaftMsg<Data>, { type: 'VoteResponse' }>).granted;
      expect(answer(core.handle({ type: 'VoteRequest', term: 5, candidateId: 2, lastLogIndex: 0, lastLogTerm: 0, preVote: true }, 1))).to.equal(true);
      expect(core.role).to.equal(RaftRole.Prospective);
      expect(answer(core.handle({ type: 'VoteRequest', term: 5, candidateId: 2, lastLogIndex: 0, lastLogTerm: 0 }, 2))).to.equal(true);
      expect([core.role, core.term, core.votedFor]).to.deep.equal([RaftRole.Follower, 5, 2]);
    });

    it('a voter cut off from a working leader never raises its term, and the leader keeps its term when it returns', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const term = sim.node(leader).core.term;
      const [cut] = [1, 2, 3].filter((id) => id !== leader);
      sim.cut.add(`${leader}-${cut}`).add(`${cut}-${leader}`);
      sim.advance(2_000);
      expect(sim.node(cut!).core.term).to.equal(term);
      expect([RaftRole.Prospective, RaftRole.Follower]).to.include(sim.node(cut!).core.role);
      sim.heal();
      sim.advance(300);
      expect([sim.leader(), sim.node(leader).core.term, sim.node(cut!).core.leaderId]).to.deep.equal([leader, term, leader]);
    });

    it('Candidate -> Prospective on another timeout (a split vote): it asks for pre-votes for the term after its own', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(core, 0, 2);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Candidate, 1]);
      const effects = core.electionTimeout(200);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Prospective, 1]);
      expect(sends(effects, 'VoteRequest').map((m) => (m as Extract<RaftMsg<Data>, { type: 'VoteRequest' }>).term)).to.deep.equal([2, 2]);
      // a vote of the term it stood in, arriving late, no longer counts
      expect(core.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 201)).to.deep.equal([]);
      expect(core.role).to.equal(RaftRole.Prospective);
    });

    it('Candidate -> Leader with the votes of a majority; it appends an empty entry of its term to every peer', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(core, 0, 2);
      const effects = core.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 1);
      expect(core.role).to.equal(RaftRole.Leader);
      expect(effects[0]).to.deep.equal({ kind: 'leader', term: 1, leaderId: 1 });
      const appends = sends(effects, 'AppendEntries');
      expect(appends).to.have.length(2);
      expect((appends[0] as Extract<RaftMsg<Data>, { type: 'AppendEntries' }>).entries).to.deep.equal([{ term: 1, data: [] }]);
    });

    it('Candidate -> Follower on an append from a leader of its term', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(core, 0, 2);
      core.handle({ type: 'AppendEntries', term: 1, leaderId: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 1);
      expect(core.role).to.equal(RaftRole.Follower);
      expect(core.leaderId).to.equal(2);
      expect(core.term).to.equal(1);
    });

    it('Candidate -> Follower on any message of a higher term, forgetting its vote', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(core, 0, 2);
      const effects = core.handle({ type: 'VoteResponse', term: 3, voterId: 2, granted: false }, 1);
      expect(core.role).to.equal(RaftRole.Follower);
      expect(effects).to.deep.include({ kind: 'persistVote', term: 3, votedFor: null });
    });

    it('Leader -> Follower on a higher term', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const core = sim.node(leader).core;
      const effects = core.handle({ type: 'AppendEntriesResponse', term: core.term + 1, followerId: leader === 1 ? 2 : 1, success: false, matchIndex: 0 }, sim.now);
      expect(core.role).to.equal(RaftRole.Follower);
      expect(effects).to.deep.include({ kind: 'leader', term: core.term, leaderId: null });
    });

    it('Follower -> Follower on a higher term', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 2, votedFor: 3 }, [], () => [], MIN_TIMEOUT);
      core.handle({ type: 'AppendEntries', term: 5, leaderId: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 1);
      expect(core.role).to.equal(RaftRole.Follower);
      expect([core.term, core.votedFor, core.leaderId]).to.deep.equal([5, null, 2]);
    });

    it('ignored: a leader does not stand again on an election timeout', () => {
      const sim = new Sim([1]);
      expect(sim.node(1).core.electionTimeout(1_000)).to.deep.equal([]);
      expect(sim.node(1).core.term).to.equal(1);
    });

    it('ignored: a follower does not lead on votes it never asked for, nor a candidate on stale ones', () => {
      const follower = new RaftCore<Data>(1, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      expect(follower.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 0)).to.deep.equal([]);
      expect(follower.role).to.equal(RaftRole.Follower);
      const candidate = new RaftCore<Data>(1, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(candidate, 0, 2); // term 2
      candidate.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 1);
      expect(candidate.role).to.equal(RaftRole.Candidate);
    });

    it('ignored: a second leader of the same term', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const core = sim.node(leader).core;
      const other = leader === 1 ? 2 : 1;
      expect(core.handle({ type: 'AppendEntries', term: core.term, leaderId: other, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, sim.now)).to.deep.equal([]);
      expect(core.role).to.equal(RaftRole.Leader);
    });
  });

  describe('votes', () => {
    const req = (o: Partial<Extract<RaftMsg<Data>, { type: 'VoteRequest' }>> = {}): RaftMsg<Data> => ({ type: 'VoteRequest', term: 2, candidateId: 2, lastLogIndex: 0, lastLogTerm: 0, ...o });
    const granted = (effects: RaftEffect<Data>[]) => (sends(effects, 'VoteResponse')[0] as Extract<RaftMsg<Data>, { type: 'VoteResponse' }>).granted;

    it('grants one vote per term, persisting it before answering', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      const effects = core.handle(req(), 0);
      expect(granted(effects)).to.equal(true);
      const persist = effects.findIndex((e) => e.kind === 'persistVote' && e.votedFor === 2);
      expect(persist).to.be.lessThan(effects.findIndex((e) => e.kind === 'send'));
      expect(granted(core.handle(req({ candidateId: 3 }), 0))).to.equal(false);
      expect(granted(core.handle(req(), 0))).to.equal(true); // the same candidate asking again
    });

    it('refuses a lower term, and a candidate whose log is behind', () => {
      const log: RaftEntry<Data>[] = [{ term: 1, data: [] }, { term: 3, data: ['x'] }];
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 3, votedFor: null }, log, () => [], MIN_TIMEOUT);
      expect(granted(core.handle(req({ term: 2 }), 0))).to.equal(false);
      expect(granted(core.handle(req({ term: 4, lastLogIndex: 5, lastLogTerm: 2 }), 0))).to.equal(false);
      expect(granted(core.handle(req({ term: 4, lastLogIndex: 1, lastLogTerm: 3 }), 0))).to.equal(false);
      expect(core.term).to.equal(4);
      expect(granted(core.handle(req({ term: 4, candidateId: 3, lastLogIndex: 2, lastLogTerm: 3 }), 0))).to.equal(true);
    });

    it('leader stickiness: a follower that just heard from its leader refuses without taking the term', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.handle({ type: 'AppendEntries', term: 1, leaderId: 3, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 1_000);
      expect(granted(core.handle(req({ term: 9 }), 1_050))).to.equal(false);
      expect(core.term).to.equal(1);
      expect(granted(core.handle(req({ term: 9 }), 1_000 + MIN_TIMEOUT))).to.equal(true);
    });

    it('membership plays no part: a candidate outside its set, and an observer asked, vote as any other (either may hold the older set)', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      expect(granted(core.handle(req({ candidateId: 7, term: 5 }), 0))).to.equal(true);
      expect(core.term).to.equal(5);
      const observer = new RaftCore<Data>(4, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      expect(observer.role).to.equal(RaftRole.Observer);
      const effects = observer.handle(req({ term: 5 }), 0);
      expect(granted(effects)).to.equal(true);
      expect(effects).to.deep.include({ kind: 'persistVote', term: 5, votedFor: 2 });
      expect([observer.role, observer.term, observer.votedFor]).to.deep.equal([RaftRole.Observer, 5, 2]);
      // sticky as a follower: it just heard from its leader
      observer.handle({ type: 'AppendEntries', term: 5, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 100);
      expect(granted(observer.handle(req({ term: 6, candidateId: 3 }), 150))).to.equal(false);
    });
  });

  describe('replication', () => {
    it('elects one leader among three; entries commit once a majority holds them', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      expect(leader).to.not.equal(null);
      expect(sim.node(leader).readyTerms).to.have.length(1);
      for (const id of [1, 2, 3]) expect(sim.node(id).core.leaderId).to.equal(leader);
      const down = [1, 2, 3].find((x) => x !== leader)!;
      sim.node(down).up = false;
      const i = sim.propose(leader, ['a']);
      sim.deliverAll();
      expect(sim.node(leader).core.commitIndex).to.equal(i); // two of three
      sim.advance(100);
      for (const id of [1, 2, 3].filter((x) => x !== down)) expect(sim.node(id).applied.at(-1)?.data).to.deep.equal(['a']);
    });

    it('does not commit without a majority', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      for (const id of [1, 2, 3]) if (id !== leader) sim.node(id).up = false;
      const i = sim.propose(leader, ['a']);
      sim.deliverAll();
      expect(sim.node(leader).core.commitIndex).to.be.lessThan(i);
    });

    it('a follower that was down catches up over several appends', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const late = [1, 2, 3].find((x) => x !== leader)!;
      sim.node(late).up = false;
      for (let i = 0; i < MAX_ENTRIES_PER_APPEND * 2 + 10; i++) sim.propose(leader, [`r${i}`]);
      sim.deliverAll();
      sim.node(late).up = true;
      sim.advance(200);
      expect(sim.node(late).disk.length).to.equal(sim.node(leader).disk.length);
      expect(sim.node(late).applied.length).to.equal(sim.node(leader).core.commitIndex);
    });

    it('a new leader overwrites a follower entry that never committed, and keeps every committed one', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const first = sim.leader()!;
      const committed = sim.propose(first, ['kept']);
      sim.advance(60);
      expect(sim.node(first).core.commitIndex).to.equal(committed);
      // the leader writes an entry no one else gets, then dies
      sim.isolate(first);
      const lost = sim.propose(first, ['lost']);
      sim.node(first).up = false;
      sim.heal();
      sim.advance(600);
      const second = sim.leader()!;
      expect(second).to.not.equal(first);
      sim.propose(second, ['new']);
      sim.advance(100);
      // the old leader returns: its unreplicated entry is replaced
      sim.node(first).up = true;
      sim.restart(first);
      sim.advance(400);
      const disk = sim.node(first).disk.map((e) => e.data);
      expect(disk).to.deep.include(['kept']);
      expect(disk).to.deep.include(['new']);
      expect(disk).to.not.deep.include(['lost']);
      expect(sim.node(first).disk.length).to.equal(sim.node(second).disk.length);
      expect(lost).to.be.greaterThan(committed);
    });

    it('check-quorum: a leader cut off from the others steps down; the others elect a new one', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const first = sim.leader()!;
      sim.isolate(first);
      sim.advance(600);
      expect(sim.node(first).core.role).to.not.equal(RaftRole.Leader);
      const second = sim.leader()!;
      expect(second).to.not.equal(first);
      sim.heal();
      sim.advance(300);
      expect(sim.node(first).core.leaderId).to.equal(second);
    });

    it('a restarted voter keeps its term and vote', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const { term, votedFor } = sim.node(2).core;
      sim.restart(2);
      expect(sim.node(2).core.term).to.equal(term);
      expect(sim.node(2).core.votedFor).to.equal(votedFor);
    });
  });

  describe("Kafka's DescribeQuorum times (KIP-836)", () => {
    const ack = (followerId: number, matchIndex: number, success = true): RaftMsg<Data> => ({ type: 'AppendEntriesResponse', term: 1, followerId, success, matchIndex });

    it("the leader keeps each follower's last fetch (a successful append answer) and when it last held all the leader had, as Kafka's LeaderState", () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      core.start(0);
      expect(core.followerFetch(2)).to.equal(null);
      standAfterPreVotes(core, 200, 2);
      core.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 210);
      expect(core.role).to.equal(RaftRole.Leader);
      expect(core.lastIndex).to.equal(1);
      // not heard from yet in this term; the leader itself is not a follower
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: null, lastCaughtUpAt: null });
      expect(core.followerFetch(1)).to.equal(null);

      // holds all the leader has: caught up now
      core.handle(ack(2, 1), 220);
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: 220, lastCaughtUpAt: 220 });
      core.propose(['a']);
      core.propose(['b']);
      // holds 2 of 3: behind, still caught up as of 220
      core.handle(ack(2, 2), 240);
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: 240, lastCaughtUpAt: 220 });
      core.propose(['c']);
      // holds 3 of 4, all the leader had at its previous answer (240): caught up as of then
      core.handle(ack(2, 3), 260);
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: 260, lastCaughtUpAt: 240 });
      core.handle(ack(2, 4), 270);
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: 270, lastCaughtUpAt: 270 });
      // a refused append (diverged log) is no fetch
      core.handle(ack(2, 0, false), 280);
      expect(core.followerFetch(2)!.lastFetchAt).to.equal(270);
      // the other follower's own
      core.handle(ack(3, 2), 290);
      expect(core.followerFetch(3)).to.deep.equal({ lastFetchAt: 290, lastCaughtUpAt: null });

      // a leader of a later term starts over; a follower keeps none
      core.handle({ type: 'AppendEntriesResponse', term: 5, followerId: 3, success: false, matchIndex: 0 }, 300);
      expect(core.role).to.equal(RaftRole.Follower);
      expect(core.followerFetch(2)).to.equal(null);
      standAfterPreVotes(core, 600, 2);
      core.handle({ type: 'VoteResponse', term: 6, voterId: 2, granted: true }, 610);
      expect(core.role).to.equal(RaftRole.Leader);
      expect(core.followerFetch(2)).to.deep.equal({ lastFetchAt: null, lastCaughtUpAt: null });
    });
  });

  describe('snapshots', () => {
    it('compacts only what is committed; indexes and terms carry on past the snapshot', () => {
      const sim = new Sim([1]);
      for (let i = 0; i < 5; i++) sim.propose(1, [`r${i}`]);
      const core = sim.node(1).core;
      expect(core.compact(core.commitIndex + 1)).to.equal(false);
      expect(sim.compact(1)).to.equal(true);
      expect([core.snapshotIndex, core.lastIndex, core.termAt(core.snapshotIndex), core.termAt(1)]).to.deep.equal([6, 6, 1, -1]);
      expect(sim.propose(1, ['after'])).to.equal(7);
      expect(core.entry(7)?.data).to.deep.equal(['after']);
      expect(core.entries(0, 7).map((e) => e.data)).to.deep.equal([['after']]);
      sim.restart(1);
      expect(sim.node(1).core.lastIndex).to.equal(8); // the new term's empty entry after it
      expect(sim.node(1).applied.map((e) => e.data)).to.deep.equal([[], ['r0'], ['r1'], ['r2'], ['r3'], ['r4'], ['after'], []]);
    });

    it('a follower behind the leader\'s snapshot gets InstallSnapshot, then the entries after it', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const late = [1, 2, 3].find((x) => x !== leader)!;
      sim.node(late).up = false;
      for (let i = 0; i < 20; i++) sim.propose(leader, [`r${i}`]);
      sim.deliverAll();
      expect(sim.compact(leader)).to.equal(true);
      sim.propose(leader, ['tail']);
      sim.node(late).up = true;
      sim.advance(300);
      const n = sim.node(late);
      expect(n.snap.index).to.equal(sim.node(leader).snap.index);
      expect(n.core.lastIndex).to.equal(sim.node(leader).core.lastIndex);
      expect(n.applied.map((e) => e.data)).to.deep.equal(sim.node(leader).applied.map((e) => e.data));
      expect(n.applied.at(-1)?.data).to.deep.equal(['tail']);
    });

    it('a follower keeps the entries after the snapshot when it holds the snapshot\'s last entry, and drops a log that disagrees', () => {
      const log: RaftEntry<Data>[] = [1, 1, 1, 2].map((term, i) => ({ term, data: [`e${i + 1}`] }));
      const keep = new RaftCore<Data>(2, ids(1, 2, 3), { term: 2, votedFor: null }, log, () => [], MIN_TIMEOUT);
      const kept = keep.handle({ type: 'InstallSnapshot', term: 2, leaderId: 1, lastIncludedIndex: 3, lastIncludedTerm: 1, data: 'state@3', voters: null }, 0);
      expect(kept).to.deep.include({ kind: 'installSnapshot', index: 3, term: 1, data: 'state@3', logKept: true });
      expect([keep.snapshotIndex, keep.lastIndex, keep.commitIndex, keep.termAt(4)]).to.deep.equal([3, 4, 3, 2]);
      const drop = new RaftCore<Data>(2, ids(1, 2, 3), { term: 2, votedFor: null }, log, () => [], MIN_TIMEOUT);
      const dropped = drop.handle({ type: 'InstallSnapshot', term: 3, leaderId: 1, lastIncludedIndex: 3, lastIncludedTerm: 3, data: 'state@3', voters: null }, 0);
      expect(dropped).to.deep.include({ kind: 'installSnapshot', index: 3, term: 3, data: 'state@3', logKept: false });
      expect([drop.snapshotIndex, drop.lastIndex, drop.term]).to.deep.equal([3, 3, 3]);
      // an old snapshot changes nothing
      expect(sends(drop.handle({ type: 'InstallSnapshot', term: 3, leaderId: 1, lastIncludedIndex: 2, lastIncludedTerm: 1, data: 'old', voters: null }, 1), 'InstallSnapshotResponse')).to.have.length(1);
      expect(drop.snapshotIndex).to.equal(3);
    });
  });

  describe('membership (KIP-853: one voter at a time)', () => {
    const voterIds = (core: RaftCore<Data>) => core.voters.map((v) => v.id);
    const others = (sim: Sim, leader: number) => sim.ids.filter((x) => x !== leader);
    const change = (sim: Sim, leader: number, check: ReturnType<RaftCore<Data>['checkAddVoter']>): number => {
      if (!check.ok) throw new Error(`refused: ${check.refusal}: ${check.message}`);
      return sim.propose(leader, membership.entryFor(check.voters));
    };

    it('Observer: a node outside the set follows the leader (appends, not counted) and never stands', () => {
      const sim = new Sim([1, 2, 3], [4]);
      const n4 = sim.node(4);
      expect(n4.core.role).to.equal(RaftRole.Observer);
      sim.advance(400);
      const leader = sim.leader()!;
      for (let i = 0; i < 5; i++) sim.propose(leader, [`r${i}`]);
      sim.advance(100);
      expect(n4.core.lastIndex).to.equal(sim.node(leader).core.lastIndex);
      expect(n4.applied.map((e) => e.data)).to.deep.equal(sim.node(leader).applied.map((e) => e.data));
      expect(n4.core.leaderId).to.equal(leader);
      expect(sim.node(leader).core.observerIds()).to.deep.equal([4]);
      expect(sim.node(leader).core.progress()!.has(4)).to.equal(false);
      // cut off, it asks for the leader again and again; it never takes a term of its own
      const term = n4.core.term;
      sim.isolate(4);
      sim.advance(2_000);
      expect([n4.core.role, n4.core.term, n4.persisted.votedFor]).to.deep.equal([RaftRole.Observer, term, null]);
      const effects = n4.core.electionTimeout(sim.now);
      expect(effects.filter((e) => e.kind === 'persistVote')).to.deep.equal([]);
      expect(sends(effects, 'Observe').map((m) => (m as Extract<RaftMsg<Data>, { type: 'Observe' }>).observer.id)).to.deep.equal([4, 4, 4]);
      sim.heal();
      sim.advance(400);
      expect(n4.core.leaderId).to.equal(sim.leader());
    });

    it('Observe: the leader follows the observer; a voter passes it on to its leader once; a passed-on one goes no further', () => {
      const follower = new RaftCore<Data>(2, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT);
      follower.handle({ type: 'AppendEntries', term: 1, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 0);
      const observe: RaftMsg<Data> = { type: 'Observe', observer: { id: 4 }, lastLogIndex: 0, forwarded: false };
      expect(follower.handle(observe, 1)).to.deep.equal([{ kind: 'send', to: 1, msg: { ...observe, forwarded: true } }]);
      expect(follower.handle({ ...observe, forwarded: true }, 1)).to.deep.equal([]);
      const leader = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT);
      standAfterPreVotes(leader, 0, 2);
      leader.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 1);
      const effects = leader.handle({ ...observe, forwarded: true }, 2);
      expect(sends(effects, 'AppendEntries')).to.have.length(1);
      expect(effects[0]).to.deep.include({ kind: 'send', to: 4 });
      expect(leader.observerIds()).to.deep.equal([4]);
    });

    it('adding a voter: the change is in force once appended and commits with a majority of the new set; the observer becomes a follower', () => {
      const sim = new Sim([1, 2, 3], [4]);
      sim.advance(400);
      const leader = sim.leader()!;
      for (let i = 0; i < 5; i++) sim.propose(leader, [`r${i}`]);
      sim.advance(100);
      const check = sim.node(leader).core.checkAddVoter(4, sim.now);
      expect(check).to.deep.include({ ok: true, voters: ids(1, 2, 3, 4) });
      // two old voters down: the leader and the new voter are 2 of 4, no majority
      const [a, b] = others(sim, leader);
      sim.node(a!).up = false;
      sim.node(b!).up = false;
      const index = change(sim, leader, check);
      expect(voterIds(sim.node(leader).core)).to.deep.equal([1, 2, 3, 4]);
      expect(sim.node(leader).voterChanges.at(-1)).to.deep.equal([1, 2, 3, 4]);
      sim.deliverAll();
      expect(sim.node(4).core.role).to.equal(RaftRole.Follower);
      expect(voterIds(sim.node(4).core)).to.deep.equal([1, 2, 3, 4]);
      expect(sim.node(leader).core.commitIndex).to.be.lessThan(index);
      expect(sim.node(leader).core.observerIds()).to.deep.equal([]);
      // a third of the four: committed
      sim.node(a!).up = true;
      sim.advance(30);
      expect(sim.node(leader).core.commitIndex).to.be.at.least(index);
      expect(sim.node(leader).core.progress()!.get(4)).to.be.at.least(index);
    });

    it("refused, as Kafka's AddVoterHandler and RemoveVoterHandler: not the leader, a duplicate, an unknown, silent or lagging observer, an unknown voter, the last voter", () => {
      const sim = new Sim([1, 2, 3], [4]);
      sim.advance(400);
      const leader = sim.leader()!;
      const core = sim.node(leader).core;
      const [a] = others(sim, leader);
      expect(sim.node(a!).core.checkAddVoter(4, sim.now)).to.deep.include({ ok: false, refusal: 'NotLeader' });
      expect(core.checkAddVoter(a!, sim.now)).to.deep.include({ ok: false, refusal: 'DuplicateVoter' });
      expect(core.checkAddVoter(9, sim.now)).to.deep.include({ ok: false, refusal: 'NotCaughtUp' });
      expect(core.checkAddVoter(4, sim.now, () => false)).to.deep.include({ ok: false, refusal: 'NotCaughtUp' });
      expect(core.checkRemoveVoter(9)).to.deep.include({ ok: false, refusal: 'VoterNotFound' });
      expect(core.checkRemoveVoter(a!, () => false)).to.deep.include({ ok: false, refusal: 'VoterNotFound' });
      // the observer stopped answering
      sim.node(4).up = false;
      sim.advance(MIN_TIMEOUT + 30);
      expect(core.checkAddVoter(4, sim.now)).to.deep.include({ ok: false, refusal: 'NotCaughtUp' });
      sim.node(4).up = true;
      sim.advance(100);
      expect(core.checkAddVoter(4, sim.now)).to.deep.include({ ok: true });
      // the last voter
      const lone = new Sim([1]);
      expect(lone.node(1).core.checkRemoveVoter(1)).to.deep.include({ ok: false, refusal: 'VoterNotFound' });
    });

    it('refused: an observer behind the leader is not caught up', () => {
      const core = new RaftCore<Data>(1, ids(1), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      core.start(0);
      for (let i = 0; i < 5; i++) core.propose([`r${i}`]);
      core.handle({ type: 'Observe', observer: { id: 2 }, lastLogIndex: 0, forwarded: false }, 10);
      core.handle({ type: 'AppendEntriesResponse', term: 1, followerId: 2, success: true, matchIndex: 2 }, 20);
      expect(core.checkAddVoter(2, 20)).to.deep.include({ ok: false, refusal: 'NotCaughtUp' });
      core.handle({ type: 'AppendEntriesResponse', term: 1, followerId: 2, success: true, matchIndex: 6 }, 30);
      expect(core.checkAddVoter(2, 30)).to.deep.include({ ok: true, voters: ids(1, 2) });
    });

    it('refused: a new leader that has not committed an entry of its term yet (Kafka: no high watermark)', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 0, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      standAfterPreVotes(core, 0, 2);
      core.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true }, 1);
      expect(core.role).to.equal(RaftRole.Leader);
      expect(core.checkRemoveVoter(3)).to.deep.include({ ok: false, refusal: 'NotReady' });
      core.handle({ type: 'AppendEntriesResponse', term: 1, followerId: 2, success: true, matchIndex: 1 }, 2);
      expect(core.checkRemoveVoter(3)).to.deep.include({ ok: true, voters: ids(1, 2) });
    });

    it('refused: a second change while one is uncommitted (and proposing one anyway is a bug)', () => {
      const sim = new Sim([1, 2, 3], [4]);
      sim.advance(400);
      const leader = sim.leader()!;
      const core = sim.node(leader).core;
      const [a, b] = others(sim, leader);
      const index = change(sim, leader, core.checkRemoveVoter(a!));
      expect(core.checkAddVoter(4, sim.now)).to.deep.include({ ok: false, refusal: 'ChangePending' });
      expect(core.checkRemoveVoter(b!)).to.deep.include({ ok: false, refusal: 'ChangePending' });
      expect(() => core.propose(membership.entryFor(ids(leader)))).to.throw(/voter change proposed while blocked/);
      sim.deliverAll();
      expect(core.commitIndex).to.be.at.least(index);
      expect(core.checkAddVoter(4, sim.now)).to.deep.include({ ok: true });
    });

    it('removing a follower: it becomes an observer the leader keeps replicating to, and never stands again', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const [gone, kept] = others(sim, leader);
      const index = change(sim, leader, sim.node(leader).core.checkRemoveVoter(gone!));
      sim.advance(60);
      expect(sim.node(leader).core.commitIndex).to.be.at.least(index);
      expect(voterIds(sim.node(leader).core)).to.deep.equal([leader, kept!].sort());
      expect(sim.node(gone!).core.role).to.equal(RaftRole.Observer);
      expect(sim.node(leader).core.observerIds()).to.deep.equal([gone]);
      const term = sim.node(gone!).core.term;
      sim.isolate(gone!);
      sim.advance(1_000);
      expect([sim.node(gone!).core.role, sim.node(gone!).core.term]).to.deep.equal([RaftRole.Observer, term]);
      // the two left commit on their own, and the observer, back, gets what they commit
      sim.heal();
      const i = sim.propose(sim.leader()!, ['after']);
      sim.advance(300);
      expect(sim.node(gone!).core.commitIndex).to.be.at.least(i);
    });

    it('removing the leader: it leads, not counting itself, until the change commits, then resigns; the most caught-up voter stands at once', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const first = sim.leader()!;
      const core = sim.node(first).core;
      const term = core.term;
      const index = change(sim, first, core.checkRemoveVoter(first));
      expect(core.role).to.equal(RaftRole.Leader);
      expect(voterIds(core)).to.deep.equal(others(sim, first));
      // both others needed (a majority of two); one of them is slow
      const [a, b] = others(sim, first);
      sim.node(b!).up = false;
      sim.deliverAll();
      expect([core.role, core.commitIndex < index]).to.deep.equal([RaftRole.Leader, true]);
      sim.node(b!).up = true;
      sim.advance(30); // the next heartbeat
      expect(core.role).to.equal(RaftRole.Observer);
      expect(core.commitIndex).to.be.at.least(index);
      // no election timeout passed: the successor stood on the EndEpoch
      const second = sim.leader()!;
      expect(second).to.be.oneOf([a, b]);
      expect(sim.node(second).core.term).to.equal(term + 1);
      expect(voterIds(sim.node(second).core)).to.deep.equal([a!, b!].sort());
      const i = sim.propose(second, ['after']);
      sim.advance(400);
      // the old leader follows it as an observer
      expect(core.leaderId).to.equal(second);
      expect(core.commitIndex).to.be.at.least(i);
      expect(sim.node(second).core.observerIds()).to.deep.equal([first]);
    });

    it('a lone voter grows to two, then removes itself: the other leads alone', () => {
      const sim = new Sim([1], [2]);
      sim.propose(1, ['a']);
      sim.advance(100);
      change(sim, 1, sim.node(1).core.checkAddVoter(2, sim.now));
      sim.advance(60);
      expect(voterIds(sim.node(2).core)).to.deep.equal([1, 2]);
      expect(sim.node(2).core.role).to.equal(RaftRole.Follower);
      change(sim, 1, sim.node(1).core.checkRemoveVoter(1));
      sim.advance(60);
      expect(sim.node(1).core.role).to.equal(RaftRole.Observer);
      expect(sim.leader()).to.equal(2);
      expect(voterIds(sim.node(2).core)).to.deep.equal([2]);
      // alone, it commits on its own
      const i = sim.propose(2, ['b']);
      expect(sim.node(2).core.commitIndex).to.equal(i);
    });

    it('truncating an uncommitted voters entry restores the set before it, and the role with it', () => {
      const e = (term: number, data: Data): RaftEntry<Data> => ({ term, data });
      // observer 4: leader 1 of term 1 adds it (uncommitted): it is a voter, a follower
      const core = new RaftCore<Data>(4, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      expect(core.role).to.equal(RaftRole.Observer);
      let effects = core.handle({ type: 'AppendEntries', term: 1, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [e(1, []), e(1, ['voters:1,2,3,4'])], leaderCommit: 1 }, 0);
      expect(effects).to.deep.include({ kind: 'voters', voters: ids(1, 2, 3, 4), role: RaftRole.Follower });
      expect([core.role, voterIds(core)]).to.deep.equal([RaftRole.Follower, [1, 2, 3, 4]]);
      // leader 2 of term 2 never had it: its entry at index 2 replaces it
      effects = core.handle({ type: 'AppendEntries', term: 2, leaderId: 2, prevLogIndex: 1, prevLogTerm: 1, entries: [e(2, [])], leaderCommit: 1 }, 10);
      expect(effects).to.deep.include({ kind: 'voters', voters: ids(1, 2, 3), role: RaftRole.Observer });
      expect([core.role, voterIds(core)]).to.deep.equal([RaftRole.Observer, [1, 2, 3]]);
    });

    it('a voter whose removal is appended but not committed may still stand (the quorum may need it to lead); once committed it observes', () => {
      const e = (term: number, data: Data): RaftEntry<Data> => ({ term, data });
      const core = new RaftCore<Data>(3, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      let effects = core.handle({ type: 'AppendEntries', term: 1, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [e(1, []), e(1, ['voters:1,2'])], leaderCommit: 1 }, 0);
      expect(effects).to.deep.include({ kind: 'voters', voters: ids(1, 2), role: RaftRole.Follower });
      // the leader is gone before the entry commits: this node holds the most complete log and
      // stands, counting a majority of {1, 2} without itself (after their pre-votes)
      effects = core.electionTimeout(500);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Prospective, 1]);
      expect(sends(effects, 'VoteRequest')).to.have.length(2);
      core.handle({ type: 'VoteResponse', term: 1, voterId: 1, granted: true, preVote: true }, 501);
      expect(core.role).to.equal(RaftRole.Prospective);
      effects = core.handle({ type: 'VoteResponse', term: 1, voterId: 2, granted: true, preVote: true }, 501);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Candidate, 2]);
      expect(sends(effects, 'VoteRequest').length).to.equal(2);
      effects = core.handle({ type: 'VoteResponse', term: 2, voterId: 1, granted: true }, 501);
      expect(core.role).to.equal(RaftRole.Candidate);
      effects = core.handle({ type: 'VoteResponse', term: 2, voterId: 2, granted: true }, 502);
      expect(core.role).to.equal(RaftRole.Leader);
      // it leads until its first entry (and so the removal) commits, then resigns
      core.handle({ type: 'AppendEntriesResponse', term: 2, followerId: 1, success: true, matchIndex: 3 }, 510);
      expect(core.role).to.equal(RaftRole.Leader);
      effects = core.handle({ type: 'AppendEntriesResponse', term: 2, followerId: 2, success: true, matchIndex: 3 }, 511);
      expect(core.role).to.equal(RaftRole.Observer);
      expect(sends(effects, 'EndEpoch')).to.have.length(2);
      // a follower learning the commit of its own removal observes
      const f = new RaftCore<Data>(3, ids(1, 2, 3), { term: 1, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      f.handle({ type: 'AppendEntries', term: 1, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [e(1, []), e(1, ['voters:1,2'])], leaderCommit: 1 }, 0);
      expect(f.role).to.equal(RaftRole.Follower);
      f.handle({ type: 'AppendEntries', term: 1, leaderId: 1, prevLogIndex: 2, prevLogTerm: 1, entries: [], leaderCommit: 2 }, 10);
      expect(f.role).to.equal(RaftRole.Observer);
      expect(f.electionTimeout(500).filter((x) => x.kind === 'persistVote')).to.deep.equal([]);
    });

    it('a voter that restarts with its removal in its log (the commit forgotten) asks for pre-votes, keeps its term, finds the leader and observes', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const [gone] = others(sim, leader);
      change(sim, leader, sim.node(leader).core.checkRemoveVoter(gone!));
      sim.advance(100);
      sim.restart(gone!);
      const n = sim.node(gone!);
      expect([n.core.role, n.core.commitIndex]).to.deep.equal([RaftRole.Follower, 0]);
      const term = n.core.term;
      const effects = n.core.electionTimeout(sim.now);
      expect(effects.filter((e) => e.kind === 'persistVote')).to.deep.equal([]);
      expect(sends(effects, 'VoteRequest').every((m) => (m as Extract<RaftMsg<Data>, { type: 'VoteRequest' }>).preVote === true)).to.equal(true);
      expect(sends(effects, 'Observe')).to.have.length.greaterThan(0);
      sim.run(gone!, effects);
      sim.advance(400);
      expect([n.core.role, n.core.term, sim.leader()]).to.deep.equal([RaftRole.Observer, term, leader]);
      expect(sim.node(leader).core.observerIds()).to.deep.equal([gone]);
    });

    it('a leader that loses its quorum before its own removal commits stands again (after pre-votes) and commits it: no deadlock', () => {
      const sim = new Sim([1, 2]);
      sim.advance(400);
      const first = sim.leader()!;
      const other = first === 1 ? 2 : 1;
      sim.isolate(first);
      change(sim, first, sim.node(first).core.checkRemoveVoter(first));
      sim.advance(200); // check-quorum: it steps down, the removal uncommitted
      expect(sim.node(first).core.role).to.not.equal(RaftRole.Leader);
      expect(voterIds(sim.node(other).core)).to.deep.equal([1, 2]);
      sim.heal();
      sim.advance(1_000);
      expect(sim.leader()).to.equal(other);
      expect(voterIds(sim.node(other).core)).to.deep.equal([other]);
      expect(sim.node(first).core.role).to.equal(RaftRole.Observer);
    });

    it('pre-votes change nothing on the voter asked: granted only for a later term, a log as complete, and no leader heard lately', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 3, votedFor: null }, [{ term: 3, data: [] }], () => [], MIN_TIMEOUT);
      const pre = (o: Partial<Extract<RaftMsg<Data>, { type: 'VoteRequest' }>>) => core.handle({ type: 'VoteRequest', term: 4, candidateId: 2, lastLogIndex: 1, lastLogTerm: 3, preVote: true, ...o }, 1_000);
      const answer = (effects: RaftEffect<Data>[]) => sends(effects, 'VoteResponse')[0] as Extract<RaftMsg<Data>, { type: 'VoteResponse' }>;
      expect(answer(pre({}))).to.deep.equal({ type: 'VoteResponse', term: 3, voterId: 1, granted: true, preVote: true });
      expect(answer(pre({ term: 3 })).granted).to.equal(false);
      expect(answer(pre({ lastLogIndex: 0, lastLogTerm: 0 })).granted).to.equal(false);
      expect([core.term, core.votedFor]).to.deep.equal([3, null]);
      core.handle({ type: 'AppendEntries', term: 3, leaderId: 3, prevLogIndex: 1, prevLogTerm: 3, entries: [], leaderCommit: 1 }, 950);
      expect(answer(pre({})).granted).to.equal(false);
    });

    it('EndEpoch: a follower of that leader and term named first stands at once; others wait a timeout; ignored from another leader or term', () => {
      const follower = () => {
        const core = new RaftCore<Data>(2, ids(2, 3), { term: 4, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
        core.handle({ type: 'AppendEntries', term: 4, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, entries: [], leaderCommit: 0 }, 0);
        return core;
      };
      const first = follower();
      const stood = first.handle({ type: 'EndEpoch', term: 4, leaderId: 1, successors: [2, 3] }, 10);
      expect([first.role, first.term]).to.deep.equal([RaftRole.Candidate, 5]);
      expect(sends(stood, 'VoteRequest')).to.have.length(1);
      const second = follower();
      expect(second.handle({ type: 'EndEpoch', term: 4, leaderId: 1, successors: [3, 2] }, 10)).to.deep.equal([
        { kind: 'leader', term: 4, leaderId: null },
        { kind: 'resetElectionTimer' },
      ]);
      // no stickiness left: it grants a vote at once
      expect((sends(second.handle({ type: 'VoteRequest', term: 5, candidateId: 3, lastLogIndex: 0, lastLogTerm: 0 }, 11), 'VoteResponse')[0] as Extract<RaftMsg<Data>, { type: 'VoteResponse' }>).granted).to.equal(true);
      const other = follower();
      expect(other.handle({ type: 'EndEpoch', term: 4, leaderId: 3, successors: [2] }, 10)).to.deep.equal([]);
      expect(other.handle({ type: 'EndEpoch', term: 3, leaderId: 1, successors: [2] }, 10)).to.deep.equal([]);
      expect([other.role, other.leaderId]).to.deep.equal([RaftRole.Follower, 1]);
    });

    it('ignored: pre-vote answers it did not ask for, or for another round', () => {
      const core = new RaftCore<Data>(1, ids(1, 2, 3), { term: 2, votedFor: null }, [], () => [], MIN_TIMEOUT, undefined, { membership });
      expect(core.handle({ type: 'VoteResponse', term: 2, voterId: 2, granted: true, preVote: true }, 0)).to.deep.equal([]);
      expect(core.handle({ type: 'VoteResponse', term: 2, voterId: 3, granted: true, preVote: true }, 0)).to.deep.equal([]);
      expect([core.role, core.term]).to.deep.equal([RaftRole.Follower, 2]);
    });

    it('elections count the set in force: after 4 joins {1, 2, 3}, two of the four elect no one; three do', () => {
      const sim = new Sim([1, 2, 3], [4]);
      sim.advance(400);
      const first = sim.leader()!;
      sim.advance(100);
      change(sim, first, sim.node(first).core.checkAddVoter(4, sim.now));
      sim.advance(60);
      for (const id of [1, 2, 3, 4]) expect(voterIds(sim.node(id).core)).to.deep.equal([1, 2, 3, 4]);
      const [a, b] = others(sim, first);
      // the leader and one other gone: two of four left (two of three would have been enough before)
      sim.node(first).up = false;
      sim.node(a!).up = false;
      sim.advance(1_500);
      expect(sim.leader() === first || sim.leader() === null || sim.node(sim.leader()!).up === false).to.equal(true);
      expect([sim.node(b!).core.role, sim.node(4).core.role]).to.not.include(RaftRole.Leader);
      sim.node(a!).up = true;
      sim.advance(1_000);
      expect([a, b, 4]).to.include(sim.leader());
    });

    it('a removed voter cut off before it heard of its removal never raises its term (refused pre-votes), and observes once back', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const [gone] = others(sim, leader);
      sim.isolate(gone!);
      change(sim, leader, sim.node(leader).core.checkRemoveVoter(gone!));
      const term = sim.node(leader).core.term;
      sim.advance(600);
      expect(sim.node(gone!).core.term).to.equal(term);
      expect(sim.node(gone!).core.role).to.not.equal(RaftRole.Candidate);
      sim.heal();
      sim.advance(1_000);
      expect([sim.leader(), sim.node(leader).core.term]).to.deep.equal([leader, term]);
      expect(sim.node(gone!).core.role).to.equal(RaftRole.Observer);
    });

    it('a leader answered with a higher term by an observer (a removed voter that stood) forgets it rather than stepping down', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const [gone] = others(sim, leader);
      change(sim, leader, sim.node(leader).core.checkRemoveVoter(gone!));
      sim.advance(100);
      const core = sim.node(leader).core;
      expect(core.observerIds()).to.deep.equal([gone]);
      expect(core.handle({ type: 'AppendEntriesResponse', term: core.term + 3, followerId: gone!, success: false, matchIndex: 0 }, sim.now)).to.deep.equal([]);
      expect([core.role, core.observerIds()]).to.deep.equal([RaftRole.Leader, []]);
    });

    it('the snapshot carries the set: a restart takes it from there; an observer that needs the snapshot gets it with the set', () => {
      const sim = new Sim([1, 2, 3]);
      sim.advance(400);
      const leader = sim.leader()!;
      const [gone] = others(sim, leader);
      change(sim, leader, sim.node(leader).core.checkRemoveVoter(gone!));
      for (let i = 0; i < 5; i++) sim.propose(leader, [`r${i}`]);
      sim.advance(100);
      const kept = others(sim, leader).find((x) => x !== gone)!;
      expect(sim.compact(kept)).to.equal(true);
      expect(sim.node(kept).snap.voters!.map((v) => v.id)).to.deep.equal([leader, kept].sort());
      sim.restart(kept);
      expect(voterIds(sim.node(kept).core)).to.deep.equal([leader, kept].sort());
      expect(sim.node(kept).core.role).to.equal(RaftRole.Follower);
      // a new node joins after the leader compacted past the change: the snapshot tells it the set
      expect(sim.compact(leader)).to.equal(true);
      sim.addNode(5);
      sim.advance(400);
      const n5 = sim.node(5);
      expect(n5.snap.index).to.be.greaterThan(0);
      expect(voterIds(n5.core)).to.deep.equal([leader, kept].sort());
      expect(n5.core.role).to.equal(RaftRole.Observer);
      change(sim, sim.leader()!, sim.node(sim.leader()!).core.checkAddVoter(5, sim.now));
      sim.advance(100);
      expect(n5.core.role).to.equal(RaftRole.Follower);
    });
  });

  /**
   * Random partitions, drops, restarts and compactions (and with `changes`, voters added and
   * removed by whoever leads); checks that what any node applied agrees with every other, entry
   * by entry (the Sim checks one leader per term), and that the voters converge once healed.
   */
  function randomRun(voters: number[], observers: number[], changes: boolean): Sim {
    const sim = new Sim(voters, observers);
    const nodes = sim.all;
    const pick = () => nodes[Math.floor(sim.random() * nodes.length)]!;
    const committedLog: string[] = [];
    let seq = 0;
    for (let round = 0; round < 300; round++) {
      const r = sim.random();
      if (r < 0.1) {
        sim.heal();
        sim.isolate(pick());
      } else if (r < 0.2) sim.heal();
      else if (r < 0.25) sim.restart(pick());
      else if (r < 0.3) {
        // drop a share of what is in flight
        sim.queue = sim.queue.filter(() => sim.random() > 0.3);
      } else if (r < 0.4) {
        sim.compact(pick());
      }
      const leader = sim.leader();
      if (leader !== null) {
        for (let k = 0; k < 3; k++) sim.propose(leader, [`e${seq++}`]);
        const core = sim.node(leader).core;
        if (changes && sim.random() < 0.15) {
          const id = pick();
          const check = core.isVoter(id) ? core.checkRemoveVoter(id) : core.checkAddVoter(id, sim.now);
          if (check.ok) sim.propose(leader, membership.entryFor(check.voters));
        }
      }
      sim.advance(50);
      for (const id of nodes) {
        const applied = sim.node(id).applied;
        for (let i = 0; i < applied.length; i++) {
          const e = applied[i];
          if (!e) continue;
          const data = e.data.join(',');
          if (committedLog[i] === undefined) committedLog[i] = data;
          else if (committedLog[i] !== data) expect.fail(`entry ${i + 1} on ${id} is [${data}], committed as [${committedLog[i]}]`);
        }
      }
    }
    sim.heal();
    sim.advance(1_000);
    const leader = sim.leader()!;
    const states = nodes.map((id) => {
      const c = sim.node(id).core;
      return `${id}: ${c.role} term ${c.term} last ${c.lastIndex}/${c.lastTerm} commit ${c.commitIndex} voters ${c.voters.map((v) => v.id).join(',')}`;
    });
    expect(leader, `no leader once healed:\n${states.join('\n')}`).to.not.equal(null);
    const final = sim.node(leader).core.commitIndex;
    expect(final).to.be.greaterThan(100);
    for (const v of sim.node(leader).core.voters) expect(sim.node(v.id).core.commitIndex).to.equal(final);
    return sim;
  }

  it('safety under random partitions, drops, restarts and compactions: one leader per term, committed entries never change', function () {
    this.timeout(60_000);
    randomRun([1, 2, 3], [], false);
    randomRun([1, 2, 3, 4, 5], [], false);
  });

  it('safety with voters added and removed at random as well', function () {
    this.timeout(60_000);
    let changed = 0;
    for (const [voters, observers] of [
      [[1, 2, 3], [4, 5]],
      [[1], [2, 3]],
      [[1, 2, 3, 4, 5], [6]],
    ] as const) {
      const sim = randomRun([...voters], [...observers], true);
      changed += Math.max(...sim.all.map((id) => sim.node(id).voterChanges.length));
    }
    expect(changed).to.be.greaterThan(10);
  });
});
