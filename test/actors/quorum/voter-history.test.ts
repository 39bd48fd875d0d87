/**
 * The voter sets a Raft log names: the latest voters entry's, else the snapshot's, else the
 * initial set; truncation goes back to the set before the entries dropped; compaction hands the
 * set at its index to the snapshot; an installed snapshot brings its own set, keeping or
 * dropping the log's.
 */
import { expect } from 'chai';
import { VoterHistory, type RaftMember } from '../../../actors/quorum/voter-history.js';

const set = (...ids: number[]): RaftMember[] => ids.map((id) => ({ id }));
const idsOf = (voters: readonly RaftMember[]) => voters.map((v) => v.id);

describe('actors/quorum/voter-history', () => {
  it('the initial set stands until an entry names another; the latest entry wins, committed or not', () => {
    const h = new VoterHistory(set(1, 2, 3));
    expect([idsOf(h.current), h.latestIndex, h.snapshotVoters]).to.deep.equal([[1, 2, 3], 0, null]);
    h.appended(5, set(1, 2, 3, 4));
    h.appended(9, set(2, 3, 4));
    expect([idsOf(h.current), h.latestIndex, h.includes(1), h.includes(4)]).to.deep.equal([[2, 3, 4], 9, false, true]);
    expect(idsOf(h.at(4))).to.deep.equal([1, 2, 3]);
    expect(idsOf(h.at(5))).to.deep.equal([1, 2, 3, 4]);
    expect(idsOf(h.at(8))).to.deep.equal([1, 2, 3, 4]);
    expect(idsOf([...h.members()])).to.deep.equal([1, 2, 3, 1, 2, 3, 4, 2, 3, 4]);
  });

  it('truncation goes back to the set before the entries dropped', () => {
    const h = new VoterHistory(set(1, 2, 3));
    h.appended(5, set(1, 2, 3, 4));
    h.appended(9, set(2, 3, 4));
    h.truncatedAfter(9);
    expect(idsOf(h.current)).to.deep.equal([2, 3, 4]);
    h.truncatedAfter(8);
    expect([idsOf(h.current), h.latestIndex]).to.deep.equal([[1, 2, 3, 4], 5]);
    h.truncatedAfter(0);
    expect([idsOf(h.current), h.latestIndex]).to.deep.equal([[1, 2, 3], 0]);
  });

  it('compaction hands the set in force at its index to the snapshot, and keeps the entries after it', () => {
    const h = new VoterHistory(set(1, 2, 3));
    h.compactedTo(3);
    expect(h.snapshotVoters).to.equal(null); // nothing named yet: the initial set still stands
    h.appended(5, set(1, 2, 3, 4));
    h.appended(9, set(2, 3, 4));
    h.compactedTo(7);
    expect([idsOf(h.snapshotVoters!), idsOf(h.current), h.latestIndex]).to.deep.equal([[1, 2, 3, 4], [2, 3, 4], 9]);
    h.truncatedAfter(8); // the entry after the snapshot dropped: the snapshot's set
    expect([idsOf(h.current), h.latestIndex]).to.deep.equal([[1, 2, 3, 4], 0]);
    expect(idsOf(h.at(2))).to.deep.equal([1, 2, 3, 4]);
  });

  it("an installed snapshot brings its set (null: the initial one), keeping the log's later entries or none", () => {
    const h = new VoterHistory(set(1, 2, 3));
    h.appended(5, set(1, 2, 3, 4));
    h.appended(9, set(2, 3, 4));
    h.installed(6, set(1, 2, 3, 4), true);
    expect([idsOf(h.snapshotVoters!), idsOf(h.current)]).to.deep.equal([[1, 2, 3, 4], [2, 3, 4]]);
    h.installed(12, set(2, 4), false);
    expect([idsOf(h.current), h.latestIndex]).to.deep.equal([[2, 4], 0]);
    h.installed(20, null, false);
    expect(idsOf(h.current)).to.deep.equal([1, 2, 3]);
  });
});
