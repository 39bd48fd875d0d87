/**
 * V8's allocation-site pretenuring for a process that runs samsa.
 *
 * V8 samples, per allocation site (an object or array literal, `new Array`), how many of the
 * objects it made were still alive at a young-generation collection; when nearly all were, it
 * decides the site makes long-lived objects and from then on allocates them straight into the
 * old generation, for good. A broker and its clients make objects that live in bulk for a
 * moment: a poll's records, a burst of envelopes and mailbox turns. One collection that falls in
 * such a moment finds 100% of a site alive (5,730 of 5,730 in one measured run) and tenures it;
 * what that site makes then piles up in the old generation, every young collection copies
 * more, full collections come every ~200 ms, and the client thread falls behind for the rest
 * of the process's life. Which site tips, and whether any does, is down to timing: the consumer
 * benchmark read 1.0-1.1 M records/s in about one run of three and 1.7-2.0 M in the others.
 *
 * Off, a site never tenures (its objects are promoted by age, as any others). `npm run bench`,
 * 5 suite runs with V8's default against 6 without: consume 1.10-1.99 M (one slow) vs
 * 1.91-2.26 M records/s, a group of 3 1.13-2.97 M vs 2.09-2.82 M, end-to-end p99 7.0-14.2 vs
 * 3.7-7.9 ms, RF 3 0.72-1.02 M vs 0.83-1.28 M, RF 1 2.14-2.87 M vs 2.20-2.98 M, 1 KiB 402-671
 * vs 412-572 MiB/s. The setting is V8's, for the whole process (every worker thread too), and
 * counts for sites not yet decided, so it belongs at start-up: `samsa start` and the perf tools
 * turn it off, and a topology started in an application's own process turns it off only when
 * its `runtime` says so.
 */
import v8 from 'node:v8';

/** What `samsa start` and the perf tools use unless told otherwise. */
export const SAMSA_ALLOCATION_SITE_PRETENURING = false;

/** V8's default. */
export const V8_DEFAULT_ALLOCATION_SITE_PRETENURING = true;

let current = V8_DEFAULT_ALLOCATION_SITE_PRETENURING;

/** Turns V8's allocation-site pretenuring on or off. Throws a TypeError for anything but a boolean. */
export function setAllocationSitePretenuring(enabled: boolean): void {
  if (typeof enabled !== 'boolean') throw new TypeError(`allocationSitePretenuring must be true or false, got ${typeof enabled} ${String(enabled)}`);
  v8.setFlagsFromString(enabled ? '--allocation-site-pretenuring' : '--no-allocation-site-pretenuring');
  current = enabled;
}

/** The value last set through setAllocationSitePretenuring (V8's default, true, when never). */
export function allocationSitePretenuring(): boolean {
  return current;
}
