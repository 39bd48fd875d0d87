/**
 * The allocation-site pretenuring setting: what it accepts, and that it reaches V8 (with it off
 * V8 keeps no pretenuring statistics at all; the effect on throughput is the benchmarks' to
 * measure).
 */
import { expect } from 'chai';
import {
  SAMSA_ALLOCATION_SITE_PRETENURING,
  V8_DEFAULT_ALLOCATION_SITE_PRETENURING,
  allocationSitePretenuring,
  setAllocationSitePretenuring,
} from '../../src/runtime/pretenuring.js';
import * as samsa from '../../src/index.js';

describe('runtime/pretenuring', () => {
  afterEach(() => setAllocationSitePretenuring(V8_DEFAULT_ALLOCATION_SITE_PRETENURING));

  it("is on by default (V8's own) and off as samsa runs it", () => {
    expect(V8_DEFAULT_ALLOCATION_SITE_PRETENURING).to.equal(true);
    expect(SAMSA_ALLOCATION_SITE_PRETENURING).to.equal(false);
  });

  it('turns it off and on and reports what it set', () => {
    setAllocationSitePretenuring(false);
    expect(allocationSitePretenuring()).to.equal(false);
    setAllocationSitePretenuring(true);
    expect(allocationSitePretenuring()).to.equal(true);
  });

  it('is exported from the package, for an application to set before it warms up', () => {
    expect(samsa.setAllocationSitePretenuring).to.equal(setAllocationSitePretenuring);
    expect(samsa.allocationSitePretenuring).to.equal(allocationSitePretenuring);
    expect(samsa.SAMSA_ALLOCATION_SITE_PRETENURING).to.equal(false);
    expect(typeof samsa.setHeapGrowingPercent).to.equal('function');
  });

  it('refuses anything but a boolean, changing nothing', () => {
    setAllocationSitePretenuring(false);
    for (const bad of ['false', 0, 1, null, undefined]) {
      expect(() => setAllocationSitePretenuring(bad as unknown as boolean)).to.throw(TypeError, /allocationSitePretenuring must be true or false/);
    }
    expect(allocationSitePretenuring()).to.equal(false);
  });
});
