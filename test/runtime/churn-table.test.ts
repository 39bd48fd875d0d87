/**
 * The churn table: a keyed table with Map's everyday operations (without Map's hash-table
 * chaining, see the source). Iteration: ascending for integer keys, insertion order otherwise.
 */
import { expect } from 'chai';
import { ChurnTable } from '../../src/runtime/churn-table.js';

describe('runtime/churn-table', () => {
  it('sets, gets, replaces and deletes, counting each key once', () => {
    const t = new ChurnTable<number, { n: number }>();
    expect(t.size).to.equal(0);
    expect(t.get(1)).to.equal(undefined);
    t.set(1, { n: 1 });
    t.set(2, { n: 2 });
    t.set(1, { n: 11 });
    expect(t.size).to.equal(2);
    expect(t.get(1)).to.deep.equal({ n: 11 });
    expect(t.has(2)).to.equal(true);
    expect(t.delete(2)).to.equal(true);
    expect(t.delete(2)).to.equal(false);
    expect(t.has(2)).to.equal(false);
    expect(t.size).to.equal(1);
    t.clear();
    expect(t.size).to.equal(0);
    expect(t.get(1)).to.equal(undefined);
  });

  it('holds null (a value meaning "nothing to send") but refuses undefined', () => {
    const t = new ChurnTable<number, Uint8Array | null>();
    t.set(0, null);
    expect(t.has(0)).to.equal(true);
    expect(t.get(0)).to.equal(null);
    expect(t.size).to.equal(1);
    expect(() => t.set(1, undefined as unknown as null)).to.throw(TypeError, /undefined/);
    expect(t.size).to.equal(1);
  });

  it('lists integer keys in ascending order through heavy turnover, and other keys in insertion order', () => {
    const t = new ChurnTable<number, number>();
    const live: number[] = [];
    for (let id = 1; id <= 100_000; id++) {
      t.set(id, id * 2);
      live.push(id);
      if (live.length > 20) t.delete(live.shift()!);
    }
    expect(t.size).to.equal(20);
    expect(t.values()).to.deep.equal(live.map((id) => id * 2));
    expect(t.keys()).to.deep.equal(live.map(String));
    const s = new ChurnTable<string, string>();
    for (const k of ['timer-b', 'timer-a', '__proto__', 'constructor']) s.set(k, k.toUpperCase());
    s.delete('timer-a');
    expect(s.keys()).to.deep.equal(['timer-b', '__proto__', 'constructor']);
    expect(s.get('__proto__')).to.equal('__PROTO__');
    expect(s.get('toString')).to.equal(undefined);
  });

  it('takes a snapshot for values(): deleting while going through them visits every one', () => {
    const t = new ChurnTable<number, number>();
    for (let i = 0; i < 10; i++) t.set(i, i);
    const seen: number[] = [];
    for (const v of t.values()) {
      seen.push(v);
      t.delete(v);
      t.delete(v + 1);
    }
    expect(seen).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(t.size).to.equal(0);
  });
});
