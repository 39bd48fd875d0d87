/**
 * RangeAssignor: Kafka's documented examples, the n % m extra partitions going to the first
 * members, member ordering (member id; static members by instance id first), and per-topic
 * balance as a property.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { rangeAssignor } from '../../../../actors/group-coordinator/assignors/range.js';
import { heterogeneousGroupArb, members, show } from './helpers.js';

describe('actors/group-coordinator/assignors/range', () => {
  it("Kafka's example: 2 consumers, 2 topics of 3 partitions", () => {
    const a = rangeAssignor.assign(
      members({ C0: ['t0', 't1'], C1: ['t0', 't1'] }),
      new Map([
        ['t0', 3],
        ['t1', 3],
      ]),
    );
    expect(show(a)).to.deep.equal({ C0: ['t0p0', 't0p1', 't1p0', 't1p1'], C1: ['t0p2', 't1p2'] });
  });

  it('gives the first n % m members one extra partition each', () => {
    const a = rangeAssignor.assign(members({ c0: ['t'], c1: ['t'], c2: ['t'] }), new Map([['t', 8]]));
    expect(show(a)).to.deep.equal({
      c0: ['tp0', 'tp1', 'tp2'],
      c1: ['tp3', 'tp4', 'tp5'],
      c2: ['tp6', 'tp7'],
    });
  });

  it('orders members by member id, not by input order', () => {
    const a = rangeAssignor.assign(members({ 'consumer-b': ['t'], 'consumer-a': ['t'] }), new Map([['t', 3]]));
    expect(show(a)).to.deep.equal({ 'consumer-a': ['tp0', 'tp1'], 'consumer-b': ['tp2'] });
    expect([...a.keys()]).to.deep.equal(['consumer-a', 'consumer-b']);
  });

  it('orders static members by instance id, before dynamic members', () => {
    const a = rangeAssignor.assign(
      [
        { memberId: 'a', topics: ['t'] },
        { memberId: 'z', groupInstanceId: 'instance-2', topics: ['t'] },
        { memberId: 'y', groupInstanceId: 'instance-1', topics: ['t'] },
      ],
      new Map([['t', 3]]),
    );
    expect(show(a)).to.deep.equal({ y: ['tp0'], z: ['tp1'], a: ['tp2'] });
  });

  it('splits each topic among its own subscribers only', () => {
    const a = rangeAssignor.assign(
      members({ c0: ['t0'], c1: ['t0', 't1'], c2: ['t1'] }),
      new Map([
        ['t0', 3],
        ['t1', 4],
      ]),
    );
    expect(show(a)).to.deep.equal({ c0: ['t0p0', 't0p1'], c1: ['t0p2', 't1p0', 't1p1'], c2: ['t1p2', 't1p3'] });
  });

  it('per topic, subscribers differ by at most one partition, the extra ones first (property)', () => {
    fc.assert(
      fc.property(heterogeneousGroupArb(), ({ members: ms, partitionsPerTopic }) => {
        const a = rangeAssignor.assign(ms, partitionsPerTopic);
        for (const [topic] of partitionsPerTopic) {
          const subs = ms.filter((m) => m.topics.includes(topic)).map((m) => m.memberId).sort();
          const counts = subs.map((id) => a.get(id)!.filter((tp) => tp.topic === topic).length);
          if (counts.length === 0) continue;
          expect(Math.max(...counts) - Math.min(...counts)).to.be.at.most(1);
          expect([...counts].sort((x, y) => y - x)).to.deep.equal(counts); // non-increasing in member order
        }
      }),
      { numRuns: 300, seed: 31 },
    );
  });
});
