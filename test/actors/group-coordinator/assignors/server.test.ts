/**
 * The KIP-848 server assignors (assignors/server.ts): uniform (balanced, sticky) and range
 * (contiguous ranges per topic in member order); every partition of a subscribed topic goes to
 * exactly one subscribed member.
 */
import { expect } from 'chai';
import { rangeServerAssignor, uniformServerAssignor, type TopicAssignment } from '../../../../actors/group-coordinator/assignors/server.js';

const sorted = (a: TopicAssignment | undefined, t: string) => [...(a?.get(t) ?? [])].sort((x, y) => x - y);

describe('actors/group-coordinator/assignors server', () => {
  it('range: contiguous ranges, the first members one extra, static members ordered by instance id', () => {
    const out = rangeServerAssignor.assign({
      members: [
        { memberId: 'b', instanceId: 'i1', topics: ['T'] },
        { memberId: 'a', instanceId: 'i2', topics: ['T'] },
      ],
      partitions: new Map([['T', 5]]),
      previous: new Map(),
    });
    expect(sorted(out.get('b'), 'T')).to.deep.equal([0, 1, 2]);
    expect(sorted(out.get('a'), 'T')).to.deep.equal([3, 4]);
  });

  it('range: co-partitioned topics give each member the same partition numbers', () => {
    const out = rangeServerAssignor.assign({
      members: [
        { memberId: 'm0', instanceId: null, topics: ['T', 'U'] },
        { memberId: 'm1', instanceId: null, topics: ['T', 'U'] },
      ],
      partitions: new Map([['T', 3], ['U', 3]]),
      previous: new Map(),
    });
    expect(sorted(out.get('m0'), 'T')).to.deep.equal(sorted(out.get('m0'), 'U'));
    expect(sorted(out.get('m1'), 'T')).to.deep.equal([2]);
  });

  it('uniform: balanced, every partition once, only to subscribers', () => {
    const out = uniformServerAssignor.assign({
      members: [
        { memberId: 'a', instanceId: null, topics: ['T', 'U'] },
        { memberId: 'b', instanceId: null, topics: ['T'] },
        { memberId: 'c', instanceId: null, topics: ['U'] },
      ],
      partitions: new Map([['T', 4], ['U', 4]]),
      previous: new Map(),
    });
    const all = [...out.values()].flatMap((a) => [...a].flatMap(([t, ps]) => [...ps].map((p) => `${t}-${p}`)));
    expect(all.sort()).to.deep.equal(['T-0', 'T-1', 'T-2', 'T-3', 'U-0', 'U-1', 'U-2', 'U-3']);
    expect(sorted(out.get('b'), 'U')).to.deep.equal([]);
    expect(sorted(out.get('c'), 'T')).to.deep.equal([]);
    const counts = [...out.values()].map((a) => [...a.values()].reduce((n, ps) => n + ps.size, 0));
    expect(Math.max(...counts) - Math.min(...counts)).to.be.at.most(1);
  });

  it('uniform: sticky, a new member takes only what balance needs from the previous owners', () => {
    const previous = new Map<string, TopicAssignment>([
      ['a', new Map([['T', new Set([0, 1, 2])]])],
      ['b', new Map([['T', new Set([3, 4, 5])]])],
    ]);
    const out = uniformServerAssignor.assign({
      members: [
        { memberId: 'a', instanceId: null, topics: ['T'] },
        { memberId: 'b', instanceId: null, topics: ['T'] },
        { memberId: 'c', instanceId: null, topics: ['T'] },
      ],
      partitions: new Map([['T', 6]]),
      previous,
    });
    expect(sorted(out.get('a'), 'T')).to.deep.equal([0, 1]);
    expect(sorted(out.get('b'), 'T')).to.deep.equal([3, 4]);
    expect(sorted(out.get('c'), 'T')).to.deep.equal([2, 5]);
  });

  it('uniform: previous owners keeping a rounded-up share do not leave a new member empty (4 partitions, 3 members: 2/1/1)', () => {
    const previous = new Map<string, TopicAssignment>([
      ['a', new Map([['T', new Set([0, 1])]])],
      ['b', new Map([['T', new Set([2, 3])]])],
    ]);
    const out = uniformServerAssignor.assign({
      members: ['a', 'b', 'c'].map((memberId) => ({ memberId, instanceId: null, topics: ['T'] })),
      partitions: new Map([['T', 4]]),
      previous,
    });
    expect(sorted(out.get('a'), 'T')).to.deep.equal([0, 1]);
    expect(sorted(out.get('b'), 'T')).to.deep.equal([2]);
    expect(sorted(out.get('c'), 'T')).to.deep.equal([3]);
  });

  it('uniform: with the same subscriptions the counts never differ by more than one, whatever the previous target', () => {
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(random() * 12);
      const members = Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => ({ memberId: `m${i}`, instanceId: null, topics: ['T'] }));
      const previous = new Map<string, TopicAssignment>();
      for (let p = 0; p < n; p++) {
        const owner = `m${Math.floor(random() * (members.length + 1))}`;
        if (!previous.has(owner)) previous.set(owner, new Map([['T', new Set()]]));
        previous.get(owner)!.get('T')!.add(p);
      }
      const out = uniformServerAssignor.assign({ members, partitions: new Map([['T', n]]), previous });
      const counts = members.map((m) => out.get(m.memberId)!.get('T')?.size ?? 0);
      expect(counts.reduce((x, y) => x + y, 0), `round ${round}`).to.equal(n);
      expect(Math.max(...counts) - Math.min(...counts), `round ${round}: ${counts}`).to.be.at.most(1);
    }
  });
});
