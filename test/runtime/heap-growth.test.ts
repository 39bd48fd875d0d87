/**
 * The heap growing setting: what it accepts, and that it reaches V8 (a flag V8 reads at every
 * full collection, so setting it is enough; the effect itself is measured by the benchmarks).
 */
import { expect } from 'chai';
import { BROKER_HEAP_GROWING_PERCENT, V8_DEFAULT_HEAP_GROWING, heapGrowingPercent, setHeapGrowingPercent } from '../../src/runtime/heap-growth.js';

describe('runtime/heap-growth', () => {
  afterEach(() => setHeapGrowingPercent(V8_DEFAULT_HEAP_GROWING));

  it('sets the factor and reports what it set', () => {
    setHeapGrowingPercent(BROKER_HEAP_GROWING_PERCENT);
    expect(heapGrowingPercent()).to.equal(300);
    setHeapGrowingPercent(0);
    expect(heapGrowingPercent()).to.equal(0);
  });

  it('refuses anything but an integer in [0, 1000], changing nothing', () => {
    setHeapGrowingPercent(150);
    for (const bad of [-1, 1001, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => setHeapGrowingPercent(bad)).to.throw(RangeError, /heapGrowingPercent must be an integer in \[0, 1000\]/);
    }
    expect(heapGrowingPercent()).to.equal(150);
  });
});
