/**
 * benchmarks/lib/detailed-stats.ts: perf-consume --show-detailed-stats prints the progress in
 * kafka-consumer-perf-test's columns, every --reporting-interval.
 */
import { expect } from 'chai';
import { DETAILED_HEADER, DetailedStats, kafkaDate } from '../../benchmarks/lib/detailed-stats.js';
import { compileDateFormat } from '../../benchmarks/lib/date-format.js';

describe('benchmarks/detailed-stats', () => {
  it("Kafka's default date format, in local time", () => {
    const d = new Date(2026, 0, 2, 3, 4, 5, 67);
    expect(kafkaDate(d.getTime())).to.equal('2026-01-02 03:04:05:067');
  });

  it("Kafka's header, then a line per interval: totals, the interval's rates, its time joining and the rates over the rest", () => {
    const lines: string[] = [];
    let joinedAt: number | null = null;
    const wall = new Date(2026, 11, 6, 10, 0, 0, 0).getTime();
    const stats = new DetailedStats(1_000, () => joinedAt, (l) => lines.push(l), () => wall);
    stats.header();
    // the first interval: joining the group all along
    stats.tick(2_000, { bytes: 0, records: 0 });
    // the second: joined 250 ms in, then 2 MiB and 20,000 records in the 750 ms after
    joinedAt = 2_250;
    stats.tick(3_000, { bytes: 2 * 1024 * 1024, records: 20_000 });
    // the third: 1 MiB and 10,000 more, all of it fetching
    stats.tick(3_500, { bytes: 3 * 1024 * 1024, records: 30_000 });
    // no time passed: no line
    stats.tick(3_500, { bytes: 3 * 1024 * 1024, records: 30_000 });
    expect(lines).to.deep.equal([
      DETAILED_HEADER,
      '2026-12-06 10:00:00:000, 0, 0.0000, 0.0000, 0, 0.0000, 1000, 0, 0.0000, 0.0000',
      '2026-12-06 10:00:00:000, 0, 2.0000, 2.0000, 20000, 20000.0000, 250, 750, 2.6667, 26666.6667',
      '2026-12-06 10:00:00:000, 0, 3.0000, 2.0000, 30000, 20000.0000, 0, 500, 2.0000, 20000.0000',
    ]);
    expect(DETAILED_HEADER).to.equal('time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec');
  });

  it("prints the time by --date-format's pattern", () => {
    const lines: string[] = [];
    const wall = new Date(2026, 11, 6, 10, 0, 0, 0).getTime();
    const stats = new DetailedStats(0, () => 0, (l) => lines.push(l), () => wall, compileDateFormat("HH:mm 'on' EEE"));
    stats.tick(1_000, { bytes: 1024 * 1024, records: 10 });
    expect(lines).to.deep.equal(['10:00 on Sun, 0, 1.0000, 1.0000, 10, 10.0000, 0, 1000, 1.0000, 10.0000']);
  });
});
