/**
 * The quorum actor's boundary schema: Raft messages any node can send carry entries whose
 * records the controller applies and snapshots it loads; ill-shaped ones are refused before the
 * Raft core sees them (found by test/transport/actor-message-fuzz.test.ts: an entry that was no
 * batch of records got committed and left the controller without metadata).
 */
import { expect } from 'chai';
import { quorum } from '../../../actors/quorum/quorum.js';
import { validateMessage, type ActorDefinition } from '../../../src/runtime/actor-definition.js';
import type { Message } from '../../../src/runtime/types.js';

const check = (msg: Record<string, unknown>) => validateMessage(quorum as unknown as ActorDefinition<unknown, Message, unknown>, msg as unknown as Message);

describe('actors/quorum: boundary schema', () => {
  it('AppendEntries: every entry has a term and a batch of records, each an object with a type', () => {
    const append = { type: 'AppendEntries', term: 2, leaderId: 1, prevLogIndex: 0, prevLogTerm: 0, leaderCommit: 0, entries: [{ term: 2, data: [{ type: 'FenceBroker', brokerId: 1, brokerEpoch: 1 }] }] };
    expect(check(append)).to.equal(null);
    expect(check({ ...append, entries: [{ term: 2, data: 'records' }] })).to.match(/entries\[0\]\.data must be array/);
    expect(check({ ...append, entries: [{ term: 2, data: [{ type: 7 }] }] })).to.match(/entries\[0\]\.data\[0\]\.type must be string/);
    expect(check({ ...append, entries: [{ data: [] }] })).to.match(/entries\[0\]\.term is required/);
  });

  it('InstallSnapshot carries a snapshot with an image; Append a batch of records', () => {
    const install = { type: 'InstallSnapshot', term: 2, leaderId: 1, lastIncludedIndex: 5, lastIncludedTerm: 1, data: { index: 5, term: 1, image: {} } };
    expect(check(install)).to.equal(null);
    expect(check({ ...install, data: {} })).to.match(/data\.image is required/);
    expect(check({ type: 'Append', records: [{ type: 'FenceBroker' }] })).to.equal(null);
    expect(check({ type: 'Append', records: [null] })).to.match(/records\[0\] is required/);
  });
});
