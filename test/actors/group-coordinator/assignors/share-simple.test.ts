/**
 * The share group simple assignor (assignors/share-simple.ts): per topic, every partition to at
 * least one subscribed member; exclusive and balanced when there are at least as many partitions
 * as members, one partition each and shared evenly when there are fewer; sticky where balance
 * allows; the same whatever order the members come in.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { SHARE_SIMPLE_ASSIGNOR, assignShareSimple, simpleShareAssignor, type ShareAssignorMember } from '../../../../actors/group-coordinator/assignors/share-simple.js';
import type { TopicAssignment } from '../../../../actors/group-coordinator/assignors/server.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAg';
const U = 'AAAAAAAAAAAAAAAAAAAAAw';

/** { memberId: { topicId: partitions } } for exact deep-equal assertions (empty topics left out). */
function show(out: Map<string, TopicAssignment>): Record<string, Record<string, number[]>> {
  const o: Record<string, Record<string, number[]>> = {};
  for (const [id, a] of out) {
    o[id] = {};
    for (const [t, ps] of [...a].sort(([x], [y]) => (x < y ? -1 : 1))) if (ps.size > 0) o[id]![t] = [...ps].sort((x, y) => x - y);
  }
  return o;
}

function members(spec: Record<string, string[]>): ShareAssignorMember[] {
  return Object.entries(spec).map(([memberId, topics]) => ({ memberId, topics }));
}

function prev(spec: Record<string, Record<string, number[]>>): Map<string, TopicAssignment> {
  return new Map(Object.entries(spec).map(([id, a]) => [id, new Map(Object.entries(a).map(([t, ps]) => [t, new Set(ps)]))]));
}

describe('actors/group-coordinator/assignors share-simple', () => {
  it('is named "simple"', () => {
    expect(SHARE_SIMPLE_ASSIGNOR).to.equal('simple');
    expect(simpleShareAssignor.name).to.equal('simple');
  });

  it('even split: 6 partitions over 3 members, 2 each, handed out in turn by member id', () => {
    const out = assignShareSimple({ members: members({ c: [T], a: [T], b: [T] }), partitions: new Map([[T, 6]]), previous: new Map() });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 3] }, b: { [T]: [1, 4] }, c: { [T]: [2, 5] } });
  });

  it('uneven split: 7 over 3, the extra partition to the lowest member id', () => {
    const out = assignShareSimple({ members: members({ a: [T], b: [T], c: [T] }), partitions: new Map([[T, 7]]), previous: new Map() });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 3, 6] }, b: { [T]: [1, 4] }, c: { [T]: [2, 5] } });
  });

  it('one member gets every partition', () => {
    const out = assignShareSimple({ members: members({ a: [T] }), partitions: new Map([[T, 3]]), previous: new Map() });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 1, 2] } });
  });

  it('more members than partitions: each member one partition, each partition shared by floor or ceil of members/partitions', () => {
    const out = assignShareSimple({ members: members({ e: [T], d: [T], c: [T], b: [T], a: [T] }), partitions: new Map([[T, 2]]), previous: new Map() });
    expect(show(out)).to.deep.equal({ a: { [T]: [0] }, b: { [T]: [1] }, c: { [T]: [0] }, d: { [T]: [1] }, e: { [T]: [0] } });
  });

  it('more members than partitions: a single partition goes to every member', () => {
    const out = assignShareSimple({ members: members({ a: [T], b: [T], c: [T] }), partitions: new Map([[T, 1]]), previous: new Map() });
    expect(show(out)).to.deep.equal({ a: { [T]: [0] }, b: { [T]: [0] }, c: { [T]: [0] } });
  });

  it('heterogeneous subscriptions: each topic is balanced over its own subscribers only', () => {
    const out = assignShareSimple({
      members: members({ a: [T], b: [U], c: [T, U] }),
      partitions: new Map([[T, 4], [U, 2]]),
      previous: new Map(),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 2] }, b: { [U]: [0] }, c: { [T]: [1, 3], [U]: [1] } });
  });

  it('sticky: a new member takes only what balance needs, the others keep their lowest partitions', () => {
    const out = assignShareSimple({
      members: members({ a: [T], b: [T], c: [T] }),
      partitions: new Map([[T, 6]]),
      previous: prev({ a: { [T]: [0, 1, 2] }, b: { [T]: [3, 4, 5] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 1] }, b: { [T]: [3, 4] }, c: { [T]: [2, 5] } });
  });

  it('sticky: the extra slots go to previous owners (lower member id first) before anything moves', () => {
    const out = assignShareSimple({
      members: members({ a: [T], b: [T], c: [T] }),
      partitions: new Map([[T, 8]]),
      previous: prev({ a: { [T]: [0, 1, 2, 3] }, b: { [T]: [4, 5, 6, 7] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 1, 2] }, b: { [T]: [4, 5, 6] }, c: { [T]: [3, 7] } });
  });

  it('sticky: a member that left frees its partitions for the others, who keep theirs', () => {
    const out = assignShareSimple({
      members: members({ a: [T], c: [T] }),
      partitions: new Map([[T, 6]]),
      previous: prev({ a: { [T]: [0, 3] }, b: { [T]: [1, 4] }, c: { [T]: [2, 5] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [0, 1, 3] }, c: { [T]: [2, 4, 5] } });
  });

  it('sticky when shared: members keep their partition while it is under its share of holders', () => {
    // 4 members, 2 partitions: 2 holders each; c and d both had 0 before, a and b had 1
    const out = assignShareSimple({
      members: members({ a: [T], b: [T], c: [T], d: [T] }),
      partitions: new Map([[T, 2]]),
      previous: prev({ a: { [T]: [1] }, b: { [T]: [1] }, c: { [T]: [0] }, d: { [T]: [0] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [1] }, b: { [T]: [1] }, c: { [T]: [0] }, d: { [T]: [0] } });
  });

  it('shared: an over-shared partition gives its extra holders to the least shared one', () => {
    // 3 members, 2 partitions: all had 0; a keeps it, b is the extra holder, c moves to 1
    const out = assignShareSimple({
      members: members({ a: [T], b: [T], c: [T] }),
      partitions: new Map([[T, 2]]),
      previous: prev({ a: { [T]: [0] }, b: { [T]: [0] }, c: { [T]: [0] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [0] }, b: { [T]: [0] }, c: { [T]: [1] } });
  });

  it('previous partitions of a topic no longer subscribed, no longer there, or beyond its partitions are dropped', () => {
    const out = assignShareSimple({
      members: members({ a: [T], b: [T] }),
      partitions: new Map([[T, 2]]),
      previous: prev({ a: { [U]: [0], [T]: [5] }, b: { [T]: [0, 1] } }),
    });
    expect(show(out)).to.deep.equal({ a: { [T]: [1] }, b: { [T]: [0] } });
  });

  it('order independence: any order of the members, the same assignment', () => {
    const ms = members({ m3: [T, U], m1: [T], m4: [U], m2: [T, U], m0: [T] });
    const partitions = new Map([[T, 5], [U, 3]]);
    const previous = prev({ m1: { [T]: [4, 0] }, m4: { [U]: [2] } });
    const base = show(assignShareSimple({ members: ms, partitions, previous }));
    fc.assert(
      fc.property(fc.shuffledSubarray(ms, { minLength: ms.length, maxLength: ms.length }), (order) => {
        expect(show(assignShareSimple({ members: order, partitions, previous }))).to.deep.equal(base);
      }),
      { numRuns: 50 },
    );
  });

  it('no topics: every member has an empty entry', () => {
    const out = assignShareSimple({ members: members({ a: [], b: [T] }), partitions: new Map(), previous: new Map() });
    expect([...out.keys()].sort()).to.deep.equal(['a', 'b']);
    expect(show(out)).to.deep.equal({ a: {}, b: {} });
  });

  it('no members: nothing assigned', () => {
    expect(assignShareSimple({ members: [], partitions: new Map([[T, 3]]), previous: new Map() }).size).to.equal(0);
  });

  it('property: per topic every partition to a subscriber, exclusive and balanced (P >= S) or one each and evenly shared (P < S)', () => {
    const topicIds = ['t0', 't1', 't2'];
    fc.assert(
      fc.property(
        fc.array(fc.subarray(topicIds), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 3, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(7), fc.constantFrom(...topicIds), fc.nat(9)), { maxLength: 20 }),
        (subs, counts, prevEntries) => {
          const ms = subs.map((topics, i) => ({ memberId: `m${i}`, topics }));
          const partitions = new Map(topicIds.map((t, i) => [t, counts[i]!]));
          const previous = new Map<string, TopicAssignment>();
          for (const [i, t, p] of prevEntries) {
            const a = previous.get(`m${i}`) ?? new Map<string, Set<number>>();
            a.set(t, (a.get(t) ?? new Set()).add(p));
            previous.set(`m${i}`, a);
          }
          const out = assignShareSimple({ members: ms, partitions, previous });
          expect(out.size).to.equal(ms.length);
          for (const t of topicIds) {
            const n = partitions.get(t)!;
            const subscribers = ms.filter((m) => m.topics.includes(t));
            for (const m of ms) if (!m.topics.includes(t)) expect(out.get(m.memberId)!.get(t)).to.equal(undefined);
            if (n === 0 || subscribers.length === 0) continue;
            const holders = new Array<number>(n).fill(0);
            const perMember = subscribers.map((m) => {
              const ps = [...(out.get(m.memberId)!.get(t) ?? [])];
              for (const p of ps) {
                expect(p).to.be.within(0, n - 1);
                holders[p]!++;
              }
              return ps.length;
            });
            const S = subscribers.length;
            if (n >= S) {
              expect(holders.every((h) => h === 1)).to.equal(true);
              for (const c of perMember) expect(c).to.be.within(Math.floor(n / S), Math.ceil(n / S));
            } else {
              expect(perMember.every((c) => c === 1)).to.equal(true);
              for (const h of holders) expect(h).to.be.within(Math.floor(S / n), Math.ceil(S / n));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
