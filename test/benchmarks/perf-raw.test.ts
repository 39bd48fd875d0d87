/**
 * The raw limits the perf tools measure beside their figures: here the bare MessagePort round
 * trip that end-to-end latency is compared with (the bandwidth limits run in every tool's test).
 */
import { expect } from 'chai';
import { measurePortRoundTrip } from '../../benchmarks/lib/perf-raw.js';
import { rawRoundTripLoad } from '../../benchmarks/perf-e2e.js';

describe('benchmarks/perf-raw', function () {
  this.timeout(30_000);

  it('times a bare MessagePort round trip at a paced rate, leaving out the warm-up', async () => {
    const r = await measurePortRoundTrip(1_000, 200, 300, 100);
    // ~300 messages sent after the warm-up at 1,000/s (pacing by 1 ms sleeps: some slack)
    expect(r.count).to.be.within(150, 400);
    expect(r.p50).to.be.greaterThan(0);
    expect(r.p50).to.be.at.most(r.p99);
    expect(r.p99).to.be.at.most(r.max);
  });

  it('refuses a rate that is not positive', async () => {
    let err: unknown;
    try {
      await measurePortRoundTrip(0);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(RangeError);
  });

  it('compares the end-to-end run with one message per send(), as big as its records', () => {
    expect(rawRoundTripLoad({ throughput: 50_000, sendSize: 10, recordSize: 100 })).to.deep.equal({ perSec: 5_000, bytes: 1_000 });
    expect(rawRoundTripLoad({ throughput: -1, sendSize: 20, recordSize: 50 })).to.deep.equal({ perSec: 5_000, bytes: 1_000 });
  });
});
