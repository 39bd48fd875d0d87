/**
 * The quorum actor on its own: voter 1 of three on one in-process node, its peers absent (what
 * it sends them goes nowhere), driven by the Raft messages a test sends it. Checks what
 * DescribeQuorum reports of the high watermark as it becomes leader: none (-1) until an entry
 * of its own term is committed, since what it heard as a follower may be behind the quorum.
 */
import { expect } from 'chai';
import { quorum } from '../../../actors/quorum/quorum.js';
import type { QuorumMsg, QuorumReply } from '../../../actors/quorum/messages.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';

type Description = Extract<QuorumReply, { type: 'QuorumDescription' }>;

describe('actors/quorum', function () {
  let sys: ActorSystem;
  let q: ActorRef<QuorumMsg>;
  const describeQuorum = async () => (await sys.ask(q, { type: 'DescribeQuorum' })) as Description;

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
    // leader 2 is gone: voter 1 stands in term 2 and voter 3 votes for it
    sys.send(q, { type: 'ElectionTimeout' });
    await checkFor(async () => (await describeQuorum()).role === 'Candidate');
    sys.send(q, { type: 'VoteResponse', term: 2, voterId: 3, granted: true });
    const leading = await checkFor(async () => {
      const r = await describeQuorum();
      return r.role === 'Leader' ? r : null;
    });
    // its first entry of term 2 is at index 3, not yet on a majority: entry 2 may be committed, it cannot know
    expect(leading).to.deep.include({ term: 2, leaderId: 1, lastIndex: 3, commitIndex: 1, highWatermark: -1 });

    sys.send(q, { type: 'AppendEntriesResponse', term: 2, followerId: 3, success: true, matchIndex: 3 });
    const ready = await checkFor(async () => {
      const r = await describeQuorum();
      return r.commitIndex === 3 ? r : null;
    });
    expect(ready).to.deep.include({ role: 'Leader', highWatermark: 3 });
  });
});
