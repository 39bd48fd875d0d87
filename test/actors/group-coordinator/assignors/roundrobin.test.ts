/**
 * RoundRobinAssignor: Kafka's documented examples (identical and differing subscriptions) and
 * overall balance with identical subscriptions as a property.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { roundRobinAssignor } from '../../../../actors/group-coordinator/assignors/roundrobin.js';
import { homogeneousGroupArb, members, show } from './helpers.js';

describe('actors/group-coordinator/assignors/roundrobin', () => {
  it("Kafka's example: 2 consumers, 2 topics of 3 partitions", () => {
    const a = roundRobinAssignor.assign(
      members({ C0: ['t0', 't1'], C1: ['t0', 't1'] }),
      new Map([
        ['t0', 3],
        ['t1', 3],
      ]),
    );
    expect(show(a)).to.deep.equal({ C0: ['t0p0', 't0p2', 't1p1'], C1: ['t0p1', 't1p0', 't1p2'] });
  });

  it("Kafka's example with different subscriptions skips members not subscribed", () => {
    const a = roundRobinAssignor.assign(
      members({ C0: ['t0'], C1: ['t0', 't1'], C2: ['t0', 't1', 't2'] }),
      new Map([
        ['t0', 1],
        ['t1', 2],
        ['t2', 3],
      ]),
    );
    expect(show(a)).to.deep.equal({ C0: ['t0p0'], C1: ['t1p0'], C2: ['t1p1', 't2p0', 't2p1', 't2p2'] });
  });

  it('deals sorted topic-partitions to members in member id order', () => {
    const a = roundRobinAssignor.assign(
      members({ b: ['y', 'x'], a: ['x', 'y'], c: ['x', 'y'] }),
      new Map([
        ['y', 2],
        ['x', 2],
      ]),
    );
    expect(show(a)).to.deep.equal({ a: ['xp0', 'yp1'], b: ['xp1'], c: ['yp0'] });
  });

  it('with identical subscriptions, counts differ by at most one (property)', () => {
    fc.assert(
      fc.property(homogeneousGroupArb(), ({ members: ms, partitionsPerTopic }) => {
        const counts = [...roundRobinAssignor.assign(ms, partitionsPerTopic).values()].map((l) => l.length);
        expect(Math.max(...counts) - Math.min(...counts)).to.be.at.most(1);
      }),
      { numRuns: 300, seed: 41 },
    );
  });
});
