/**
 * The rack-aware read replica choice (read-replica-selector.ts), as Kafka's
 * RackAwareReplicaSelector makes it.
 */
import { expect } from 'chai';
import { selectReadReplica, type ReplicaView } from '../../../actors/partition-replica/read-replica-selector.js';

const view = (brokerId: number, rack: string | null, logEndOffset = 10, timeSinceLastCaughtUpMs = 0): ReplicaView => ({ brokerId, rack, logEndOffset, timeSinceLastCaughtUpMs });

describe('actors/partition-replica/read-replica-selector', () => {
  const leader = view(1, 'a');

  it('the leader for a consumer without a rack, in the leader\'s rack, or in a rack without a replica', () => {
    const followers = [view(2, 'b'), view(3, 'c')];
    expect(selectReadReplica(null, { leader, followers })).to.equal(1);
    expect(selectReadReplica('', { leader, followers })).to.equal(1);
    expect(selectReadReplica('a', { leader, followers: [...followers, view(4, 'a')] })).to.equal(1);
    expect(selectReadReplica('z', { leader, followers })).to.equal(1);
  });

  it('a follower of the consumer\'s rack: the one with the highest log end, then the one caught up most recently', () => {
    expect(selectReadReplica('b', { leader, followers: [view(2, 'b'), view(3, 'c')] })).to.equal(2);
    expect(selectReadReplica('b', { leader, followers: [view(2, 'b', 8), view(4, 'b', 9), view(3, 'c', 12)] })).to.equal(4);
    expect(selectReadReplica('b', { leader, followers: [view(2, 'b', 9, 500), view(4, 'b', 9, 20)] })).to.equal(4);
    expect(selectReadReplica('b', { leader: view(1, null), followers: [view(2, 'b')] })).to.equal(2);
  });
});
