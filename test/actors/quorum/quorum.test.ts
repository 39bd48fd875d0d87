/**
 * The quorum actor on its own: voter 1 of three on one in-process node, its peers absent (what
 * it sends them goes nowhere), driven by the Raft messages a test sends it. Checks what
 * DescribeQuorum reports of the high watermark as it becomes leader: none (-1) until an entry
 * of its own term is committed, since what it heard as a follower may be behind the quorum.
 */
import { expect } from 'chai';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { QUORUM_NAME, QUORUM_PATH, quorum, type QuorumArgs } from '../../../actors/quorum/quorum.js';
import type { QuorumEvent, QuorumMsg, QuorumReply, QuorumVoter } from '../../../actors/quorum/messages.js';
import type { MetadataRecord } from '../../../actors/controller/metadata-state.js';
import { CONTROLLER_PATH } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { InProcNetwork } from '../../../src/transport/inproc.js';
import { checkFor } from '../../helpers/check-for.js';

type Description = Extract<QuorumReply, { type: 'QuorumDescription' }>;

describe('actors/quorum', function () {
  let sys: ActorSystem;
  let q: ActorRef<QuorumMsg>;
  const describeQuorum = async () => (await sys.ask(q, { type: 'DescribeQuorum' })) as Description;
  /** Voter 1's election after `term`: its pre-vote and vote, each granted by voter 3; its description as leader. */
  const electedWithVoter3 = async (term: number): Promise<Description> => {
    sys.send(q, { type: 'ElectionTimeout' });
    await checkFor(async () => (await describeQuorum()).role === 'Prospective');
    sys.send(q, { type: 'VoteResponse', term, voterId: 3, granted: true, preVote: true });
    await checkFor(async () => (await describeQuorum()).role === 'Candidate');
    sys.send(q, { type: 'VoteResponse', term: term + 1, voterId: 3, granted: true });
    return checkFor(async () => {
      const r = await describeQuorum();
      return r.role === 'Leader' ? r : null;
    });
  };

  beforeEach(function () {
    sys = new ActorSystem({ nodeId: 'c1', strictSerialization: true });
    q = sys.spawn(quorum, {
      name: 'quorum',
      args: {
        voterId: 1,
        voters: [1, 2, 3].map((id) => ({ id, node: `c${id}` })),
        metadataDir: null,
        listener: { node: 'c1', path: '/nobody' },
        // long enough that only the test's messages move it
        electionTimeoutMs: 60_000,
      },
    }) as ActorRef<QuorumMsg>;
  });

  afterEach(async function () {
    await sys.stop();
  });

  it('a follower reports the commit index it has heard as its high watermark', async function () {
    sys.send(q, { type: 'AppendEntries', term: 1, leaderId: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [{ term: 1, data: [] }, { term: 1, data: [] }], leaderCommit: 1 });
    const d = await checkFor(async () => {
      const r = await describeQuorum();
      return r.lastIndex === 2 ? r : null;
    });
    expect(d).to.deep.include({ role: 'Follower', term: 1, leaderId: 2, commitIndex: 1, highWatermark: 1 });
  });

  it('a new leader reports no high watermark (-1) until an entry of its term is committed, then its commit index', async function () {
    // term 1 under leader 2: two entries, the first known committed
    sys.send(q, { type: 'AppendEntries', term: 1, leaderId: 2, prevLogIndex: 0, prevLogTerm: 0, entries: [{ term: 1, data: [] }, { term: 1, data: [] }], leaderCommit: 1 });
    await checkFor(async () => (await describeQuorum()).lastIndex === 2);
    // leader 2 is gone: voter 1 asks for pre-votes, and with voter 3's stands in term 2; voter 3 votes for it
    const leading = await electedWithVoter3(1);
    // its first entry of term 2 is at index 3, not yet on a majority: entry 2 may be committed, it cannot know
    expect(leading).to.deep.include({ term: 2, leaderId: 1, lastIndex: 3, commitIndex: 1, highWatermark: -1 });

    sys.send(q, { type: 'AppendEntriesResponse', term: 2, followerId: 3, success: true, matchIndex: 3 });
    const ready = await checkFor(async () => {
      const r = await describeQuorum();
      return r.commitIndex === 3 ? r : null;
    });
    expect(ready).to.deep.include({ role: 'Leader', highWatermark: 3 });
  });

  it("an Append is answered once committed, or with ack 'written' once written here, before a majority has it (KIP-1186)", async function () {
    const leading = await electedWithVoter3(0);
    const first = leading.lastIndex + 1;
    let committedAnswer: QuorumReply | undefined;
    void sys.ask(q, { type: 'Append', records: [] }, { timeoutMs: 10_000 }).then((r) => (committedAnswer = r as QuorumReply));
    const written = (await sys.ask(q, { type: 'Append', records: [], ack: 'written' }, { timeoutMs: 10_000 })) as QuorumReply;
    expect(written).to.deep.include({ type: 'AppendResult', errorCode: ErrorCode.NONE, index: first + 1, leaderId: 1 });
    // neither is on a majority yet: the first still waits
    const d = await describeQuorum();
    expect(d.lastIndex).to.equal(first + 1);
    expect(d.commitIndex).to.be.below(first);
    expect(committedAnswer).to.equal(undefined);
    sys.send(q, { type: 'AppendEntriesResponse', term: 1, followerId: 3, success: true, matchIndex: first + 1 });
    await checkFor(async () => committedAnswer !== undefined);
    expect(committedAnswer).to.deep.include({ type: 'AppendResult', errorCode: ErrorCode.NONE, index: first });
    expect((await describeQuorum()).commitIndex).to.equal(first + 1);
  });
});

/** A controller's stand-in: hosts a quorum actor at QUORUM_PATH and records what it tells. */
const quorumHost = defineActor<{ events: QuorumEvent[] }, QuorumEvent | { type: 'Ping' }, QuorumArgs & { events: QuorumEvent[] }>({
  kind: 'quorum-host',
  init: (ctx, args) => {
    const { events, ...quorumArgs } = args;
    ctx.spawn(quorum, { name: QUORUM_NAME, args: { ...quorumArgs, listener: ctx.self } });
    return { events };
  },
  supervision: 'resume',
  handlers: {
    QuorumCommitted: (s, m) => void s.events.push(m),
    QuorumLeader: (s, m) => void s.events.push(m),
    QuorumReady: (s, m) => void s.events.push(m),
    QuorumSnapshot: (s, m) => void s.events.push(m),
    Ping: (_s, _m, ctx) => ctx.reply({ type: 'Pong' }),
  },
});

describe('actors/quorum: voters added and removed (KIP-853)', function () {
  this.timeout(20_000);
  const ELECTION_MS = 300;
  let dir: string;
  let net: InProcNetwork;
  const systems = new Map<string, ActorSystem>();
  const events = new Map<string, QuorumEvent[]>();
  let client: ActorSystem;

  const start = (node: string, voterId: number, voters: QuorumVoter[]) => {
    const sys = new ActorSystem({ nodeId: node, strictSerialization: true });
    net.join(sys);
    systems.set(node, sys);
    events.set(node, []);
    sys.spawn(quorumHost, {
      name: CONTROLLER_PATH.slice(1),
      args: { voterId, voters, metadataDir: path.join(dir, node), listener: { node, path: CONTROLLER_PATH }, electionTimeoutMs: ELECTION_MS, random: () => (voterId - 1) * 0.3, events: events.get(node)! },
    });
  };
  const stop = async (node: string) => {
    const sys = systems.get(node)!;
    systems.delete(node);
    net.leave(sys);
    await sys.stop();
  };
  // from the quorum's own node, as its controller asks (Append, CheckVoterChange are taken from no other)
  const ask = async <T extends QuorumReply['type']>(node: string, msg: QuorumMsg) => (await systems.get(node)!.ask<QuorumReply>({ node, path: QUORUM_PATH }, msg, { timeoutMs: 10_000 })) as Extract<QuorumReply, { type: T }>;
  const describeAt = (node: string) => ask<'QuorumDescription'>(node, { type: 'DescribeQuorum' });
  const votersRecord = (voters: QuorumVoter[]): MetadataRecord[] => [{ type: 'QuorumVoters', voters }];

  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-quorum-members-'));
    net = new InProcNetwork({ strictSerialization: true });
    client = new ActorSystem({ nodeId: 'client', strictSerialization: true });
    net.join(client);
  });
  afterEach(async () => {
    for (const node of [...systems.keys()]) await stop(node);
    await client.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  });

  it('a controller outside the voter set observes: it announces itself, the leader replicates to it and lists it; then it is added, and the leader removes itself and hands over; the set survives restarts', async () => {
    const c1: QuorumVoter = { id: 1, node: 'c1' };
    start('c1', 1, [c1]);
    const leading = await checkFor(async () => {
      const d = await describeAt('c1');
      return d.role === 'Leader' && d.highWatermark > 0 ? d : null;
    });
    expect(leading.voters.map((v) => v.id)).to.deep.equal([1]);
    expect((await ask<'AppendResult'>('c1', { type: 'Append', records: [] })).errorCode).to.equal(ErrorCode.NONE);

    // controller 2 starts knowing only the topology's quorum {1}
    start('c2', 2, [c1]);
    const observing = await checkFor(async () => {
      const d = await describeAt('c2');
      return d.role === 'Observer' && d.leaderId === 1 && d.commitIndex === leading.commitIndex + 1 ? d : null;
    });
    expect(observing.voters.map((v) => v.id)).to.deep.equal([1]);
    const withObserver = await checkFor(async () => {
      const d = await describeAt('c1');
      return d.observers.length === 1 ? d : null;
    });
    expect(withObserver.observers[0]).to.deep.include({ id: 2, node: 'c2' });
    const dir2 = withObserver.observers[0]!.directoryId!;
    expect(dir2).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(events.get('c2')!.some((e) => e.type === 'QuorumCommitted')).to.equal(true);

    // a directory id that is not its own does not name it
    const wrong = await ask<'VoterChangeCheck'>('c1', { type: 'CheckVoterChange', change: 'add', voterId: 2, directoryId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(wrong.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    const add = await ask<'VoterChangeCheck'>('c1', { type: 'CheckVoterChange', change: 'add', voterId: 2, directoryId: dir2 });
    // the new set names each controller's directory id (voter 1's its own)
    const dir1 = leading.voters[0]!.directoryId!;
    expect(add).to.deep.include({ errorCode: ErrorCode.NONE, voters: [{ ...c1, directoryId: dir1 }, { id: 2, node: 'c2', directoryId: dir2 }] });
    expect((await ask<'AppendResult'>('c1', { type: 'Append', records: votersRecord(add.voters) })).errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await describeAt('c2')).role === 'Follower');
    expect((await describeAt('c1')).voters.map((v) => v.id)).to.deep.equal([1, 2]);

    // the leader removes itself: once that commits it resigns and controller 2 leads alone
    const remove = await ask<'VoterChangeCheck'>('c1', { type: 'CheckVoterChange', change: 'remove', voterId: 1 });
    expect(remove).to.deep.include({ errorCode: ErrorCode.NONE, voters: [{ id: 2, node: 'c2', directoryId: dir2 }] });
    expect((await ask<'AppendResult'>('c1', { type: 'Append', records: votersRecord(remove.voters) })).errorCode).to.equal(ErrorCode.NONE);
    await checkFor(async () => (await describeAt('c2')).role === 'Leader' && (await describeAt('c1')).role === 'Observer');
    // the old leader follows the new one, as an observer
    await checkFor(() => events.get('c1')!.some((e) => e.type === 'QuorumLeader' && e.leaderId === 2 && e.leaderNode === 'c2'));
    const handedOver = await checkFor(async () => {
      const d = await describeAt('c2');
      return d.observers.length === 1 ? d : null;
    });
    expect(handedOver.voters.map((v) => v.id)).to.deep.equal([2]);
    expect(handedOver.observers.map((v) => v.id)).to.deep.equal([1]);

    // both restart from their metadata dirs (the topology still says {1}): the log's set holds
    await stop('c1');
    await stop('c2');
    start('c1', 1, [c1]);
    start('c2', 2, [c1]);
    await checkFor(async () => (await describeAt('c2')).role === 'Leader' && (await describeAt('c1')).role === 'Observer');
    expect((await describeAt('c2')).voters.map((v) => [v.id, v.directoryId])).to.deep.equal([[2, dir2]]);
    expect(JSON.parse(await fsp.readFile(path.join(dir, 'c2', 'quorum-state.json'), 'utf8'))).to.deep.include({ voterId: 2, directoryId: dir2 });
  });

  it("refusals as Kafka's: NOT_CONTROLLER on a follower, DUPLICATE_VOTER, VOTER_NOT_FOUND (an unknown voter, the last one), REQUEST_TIMED_OUT for a controller never heard from and for a change while another is uncommitted", async () => {
    const voters: QuorumVoter[] = [1, 2, 3].map((id) => ({ id, node: `c${id}` }));
    for (const v of voters) start(v.node, v.id, voters);
    const leader = await checkFor(async () => {
      for (const v of voters) {
        const d = await describeAt(v.node);
        if (d.role === 'Leader' && d.highWatermark > 0) return v;
      }
      return null;
    });
    const follower = voters.find((v) => v.id !== leader.id)!;
    const check = (node: string, change: 'add' | 'remove', voterId: number) => ask<'VoterChangeCheck'>(node, { type: 'CheckVoterChange', change, voterId });
    expect((await check(follower.node, 'remove', 3)).errorCode).to.equal(ErrorCode.NOT_CONTROLLER);
    expect((await check(leader.node, 'add', follower.id)).errorCode).to.equal(ErrorCode.DUPLICATE_VOTER);
    expect((await check(leader.node, 'remove', 9)).errorCode).to.equal(ErrorCode.VOTER_NOT_FOUND);
    expect((await check(leader.node, 'add', 9)).errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    // a change appended but not committed (both followers gone): a second one is refused
    for (const v of voters) if (v.id !== leader.id) await stop(v.node);
    const first = systems.get(leader.node)!.ask<QuorumReply>({ node: leader.node, path: QUORUM_PATH }, { type: 'Append', records: votersRecord([leader, follower]) }, { timeoutMs: 10_000 });
    const second = await ask<'AppendResult'>(leader.node, { type: 'Append', records: votersRecord([leader]) });
    expect(second.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
    // check-quorum: the leader cut off steps down, and the first is answered NOT_CONTROLLER
    expect(((await first) as Extract<QuorumReply, { type: 'AppendResult' }>).errorCode).to.equal(ErrorCode.NOT_CONTROLLER);
  });
});
