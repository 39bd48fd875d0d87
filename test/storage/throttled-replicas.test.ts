/**
 * The replication throttles' topic config values: 'partition:broker' pairs or '*'.
 */
import { expect } from 'chai';
import { throttledPartitions, throttledReplicasProblem } from '../../src/storage/throttled-replicas.js';

describe('storage/throttled-replicas', () => {
  it("reads the throttled replicas of a broker: 'partition:broker' pairs, or '*'", () => {
    expect(throttledPartitions('0:1,1:2,2:1', 1)).to.deep.equal(new Set([0, 2]));
    expect(throttledPartitions(' 0 : 1 , 3:1', 1)).to.deep.equal(new Set([0, 3]));
    expect(throttledPartitions('0:2', 1)).to.equal(null);
    expect(throttledPartitions('*', 7)).to.equal('all');
    expect(throttledPartitions('', 1)).to.equal(null);
    expect(throttledPartitions(undefined, 1)).to.equal(null);
  });

  it('checks a throttled replicas value', () => {
    expect(throttledReplicasProblem('0:1,1:2')).to.equal(null);
    expect(throttledReplicasProblem('*')).to.equal(null);
    expect(throttledReplicasProblem('')).to.equal(null);
    expect(throttledReplicasProblem('0-1')).to.match(/not partition:broker/);
    expect(throttledReplicasProblem('0:1,*')).to.match(/not partition:broker/);
    expect(throttledReplicasProblem(5)).to.match(/expected/);
  });
});
