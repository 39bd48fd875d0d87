/**
 * The raw limits the perf tools measure beside their figures: here the bare MessagePort round
 * trip that end-to-end latency is compared with, the stalls the machine imposes on busy threads,
 * and one fs.writeSync run with its kernel time (the bandwidth limits run in every tool's test).
 */
import { expect } from 'chai';
import { formatCoreStalls, measureCoreStalls, measureFsWriteOnce, measurePortRoundTrip, measureTcpRoundTrip } from '../../benchmarks/lib/perf-raw.js';
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

  it('times a bare TCP round trip on loopback, cutting whole messages out of the stream', async () => {
    // 9-byte messages: the echo comes back in pieces that do not fall on message boundaries
    const r = await measureTcpRoundTrip(1_000, 9, 300, 100);
    expect(r.count).to.be.within(150, 400);
    expect(r.p50).to.be.greaterThan(0);
    expect(r.p50).to.be.at.most(r.p99);
    const big = await measureTcpRoundTrip(500, 64 * 1024, 200, 50);
    expect(big.count).to.be.within(50, 200);
  });

  it('refuses a rate that is not positive', async () => {
    let err: unknown;
    try {
      await measurePortRoundTrip(0);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(RangeError);
    expect(await measureTcpRoundTrip(-1).catch((e: unknown) => e)).to.be.instanceOf(RangeError);
  });

  it('compares the end-to-end run with one message per send(), as big as its records', () => {
    expect(rawRoundTripLoad({ throughput: 50_000, sendSize: 10, recordSize: 100 })).to.deep.equal({ perSec: 5_000, bytes: 1_000 });
    expect(rawRoundTripLoad({ throughput: -1, sendSize: 20, recordSize: 50 })).to.deep.equal({ perSec: 5_000, bytes: 1_000 });
  });

  it('counts the gaps in threads spinning on the clock: a share of the time, a rate and the longest', async () => {
    const c = await measureCoreStalls(2, 100);
    expect(c.lostShare).to.be.within(0, 1);
    expect(c.stallsPerSec).to.be.at.least(0);
    expect(c.longestMs).to.be.at.least(0);
    if (c.stallsPerSec === 0) expect(c.longestMs).to.equal(0);
    expect(formatCoreStalls({ lostShare: 0.0625, stallsPerSec: 24.4, longestMs: 13.21 })).to.equal('lost 6.3% of the time in 24 stalls/s (longest 13.2 ms)');
  });

  it('writes a fresh file once with fs.writeSync, giving MiB/s and the kernel time per GiB', () => {
    const r = measureFsWriteOnce(16_384, 8 * 1024 * 1024);
    expect(r.mibPerSec).to.be.greaterThan(0);
    // Linux: this thread's system time, in 10 ms steps (a fast write may show none)
    if (process.platform === 'linux') expect(r.kernelMsPerGiB).to.be.a('number').and.at.least(0);
  });
});
