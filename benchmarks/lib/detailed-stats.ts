/**
 * kafka-consumer-perf-test's --show-detailed-stats: every --reporting-interval a line of the
 * consumers' progress in Kafka's columns (time, threadId, data.consumed.in.MB, MB.sec,
 * data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec,
 * fetch.nMsg.sec): the totals so far, the interval's rates, the part of the interval spent
 * joining the group before the first record came, and the rates over the rest of it. The time
 * is printed in Kafka's default date format, yyyy-MM-dd HH:mm:ss:SSS, or --date-format's
 * (lib/date-format.ts), in local time; --hide-header leaves the header out. Records delivered
 * again after a rebalance count, as Kafka counts every record its poll returns.
 */
import { KAFKA_DATE_FORMAT, compileDateFormat } from './date-format.js';

export const DETAILED_HEADER = 'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';

const MiB = 1024 * 1024;

/** A time as Kafka's tools print it by default: yyyy-MM-dd HH:mm:ss:SSS (local time). */
export const kafkaDate = compileDateFormat(KAFKA_DATE_FORMAT);

/** The consumers' counts at a moment. */
export interface ConsumedSoFar {
  /** Value bytes delivered. */
  bytes: number;
  /** Records delivered. */
  records: number;
}

/** Writes a line per interval; `tick` is called at each interval's end. */
export class DetailedStats {
  private lastAt: number;
  private last: ConsumedSoFar = { bytes: 0, records: 0 };

  constructor(
    /** When the run began (its clock: performance-style ms). */
    startedAt: number,
    /** When the group was joined (the first record came), on the same clock, or null while not yet. */
    private readonly joinedAt: () => number | null,
    private readonly write: (line: string) => void,
    /** Wall-clock time for the line's first column. */
    private readonly wallNow: () => number = Date.now,
    /** How that time is printed (--date-format; Kafka's default). */
    private readonly formatTime: (epochMs: number) => string = kafkaDate,
  ) {
    this.lastAt = startedAt;
  }

  header(): void {
    this.write(DETAILED_HEADER);
  }

  /** The interval from the last tick to `now` is over, with `cur` consumed in all. */
  tick(now: number, cur: ConsumedSoFar): void {
    const elapsed = now - this.lastAt;
    if (elapsed <= 0) return;
    const joined = this.joinedAt();
    // the part of this interval before the group was joined
    const rebalance = Math.round(Math.max(0, Math.min(now, joined ?? now) - this.lastAt));
    const fetchMs = Math.round(elapsed) - rebalance;
    const mb = (cur.bytes - this.last.bytes) / MiB;
    const n = cur.records - this.last.records;
    const f4 = (x: number) => x.toFixed(4);
    this.write(
      [
        this.formatTime(this.wallNow()),
        '0',
        f4(cur.bytes / MiB),
        f4((1000 * mb) / elapsed),
        String(cur.records),
        f4((1000 * n) / elapsed),
        String(rebalance),
        String(fetchMs),
        f4(fetchMs <= 0 ? 0 : (1000 * mb) / fetchMs),
        f4(fetchMs <= 0 ? 0 : (1000 * n) / fetchMs),
      ].join(', '),
    );
    this.lastAt = now;
    this.last = { ...cur };
  }
}
