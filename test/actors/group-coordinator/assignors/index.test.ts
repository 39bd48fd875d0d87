/**
 * Properties every assignor must have (range, roundrobin, sticky): every partition of every
 * subscribed topic assigned exactly once, only to subscribed members, an entry for every member,
 * the same result whatever the input order; plus the registry and validateAssignment itself.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  ASSIGNORS,
  getAssignor,
  isAssignorName,
  validateAssignment,
} from '../../../../actors/group-coordinator/assignors/index.js';
import { heterogeneousGroupArb, members, show } from './helpers.js';

describe('actors/group-coordinator/assignors', () => {
  it('registers range, roundrobin and sticky by protocol name', () => {
    expect(ASSIGNORS.map((a) => a.name)).to.deep.equal(['range', 'roundrobin', 'sticky']);
    expect(getAssignor('sticky')?.name).to.equal('sticky');
    expect(getAssignor('cooperative-sticky')).to.equal(undefined);
    expect(isAssignorName('range')).to.equal(true);
    expect(isAssignorName('Range')).to.equal(false);
  });

  for (const assignor of ASSIGNORS) {
    describe(assignor.name, () => {
      it('assigns every partition exactly once, only to subscribed members (property)', () => {
        fc.assert(
          fc.property(heterogeneousGroupArb(), ({ members: ms, partitionsPerTopic }) => {
            const assignment = assignor.assign(ms, partitionsPerTopic);
            expect(validateAssignment(ms, partitionsPerTopic, assignment)).to.deep.equal([]);
            expect([...assignment.keys()].sort()).to.deep.equal(ms.map((m) => m.memberId).sort());
          }),
          { numRuns: 300, seed: 21 },
        );
      });

      it('gives the same result for any order of the members (property)', () => {
        fc.assert(
          fc.property(
            heterogeneousGroupArb().chain((g) => fc.tuple(fc.constant(g), fc.shuffledSubarray(g.members, { minLength: g.members.length }))),
            ([{ members: ms, partitionsPerTopic }, shuffled]) => {
              expect(show(assignor.assign(shuffled, partitionsPerTopic))).to.deep.equal(show(assignor.assign(ms, partitionsPerTopic)));
            },
          ),
          { numRuns: 200, seed: 22 },
        );
      });

      it('skips subscribed topics that do not exist and handles an empty group', () => {
        const a = assignor.assign(members({ c0: ['gone', 't'] }), new Map([['t', 2]]));
        expect(show(a)).to.deep.equal({ c0: ['tp0', 'tp1'] });
        expect(assignor.assign([], new Map([['t', 2]])).size).to.equal(0);
      });

      it('gives members beyond the partition count nothing, but an entry', () => {
        const a = assignor.assign(members({ c0: ['t'], c1: ['t'], c2: ['t'] }), new Map([['t', 1]]));
        expect([...a.values()].map((l) => l.length).sort()).to.deep.equal([0, 0, 1]);
        expect(a.size).to.equal(3);
      });

      it('rejects duplicate member ids and bad partition counts', () => {
        expect(() => assignor.assign(members({ c0: ['t'] }).concat(members({ c0: ['t'] })), new Map([['t', 1]]))).to.throw(/Duplicate member id c0/);
        expect(() => assignor.assign(members({ c0: ['t'] }), new Map([['t', -1]]))).to.throw(/non-negative integer/);
      });
    });
  }

  describe('validateAssignment', () => {
    const ms = members({ a: ['t'], b: ['t', 'u'] });
    const ppt = new Map([
      ['t', 2],
      ['u', 1],
    ]);
    it('accepts a correct assignment', () => {
      const ok = new Map([
        ['a', [{ topic: 't', partition: 0 }]],
        ['b', [{ topic: 't', partition: 1 }, { topic: 'u', partition: 0 }]],
      ]);
      expect(validateAssignment(ms, ppt, ok)).to.deep.equal([]);
    });
    it('reports duplicates, unsubscribed, missing, unknown members and partitions', () => {
      const bad = new Map([
        ['a', [{ topic: 't', partition: 0 }, { topic: 'u', partition: 0 }, { topic: 't', partition: 5 }]],
        ['x', [{ topic: 't', partition: 1 }]],
      ]);
      const problems = validateAssignment(ms, ppt, bad);
      expect(problems).to.include('member b has no entry');
      expect(problems).to.include('u-0 assigned to a, which is not subscribed to u');
      expect(problems).to.include('t-5 assigned to a does not exist');
      expect(problems).to.include('unknown member x was assigned partitions');
      expect(problems).to.include('t-1 is not assigned');
      const dup = new Map([
        ['a', [{ topic: 't', partition: 0 }]],
        ['b', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }, { topic: 'u', partition: 0 }]],
      ]);
      expect(validateAssignment(ms, ppt, dup)).to.deep.equal(['t-0 assigned to both a and b']);
    });
  });
});
