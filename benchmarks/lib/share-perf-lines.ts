/**
 * kafka-share-consumer-perf-test's output lines (Kafka 4.1+'s ShareConsumerPerformance), as
 * perf-share-consume prints them: the header; the share group's summary (start and end time,
 * MB read, MB/s, records/s, records, the elapsed ms, which Kafka calls fetch.time.ms: the whole
 * run, joining the group included); each share consumer's line (--show-consumer-stats); a
 * consumer's progress line (--show-detailed-stats: the interval's times, its total MB, the
 * interval's MB/s and records/s, its total records, the interval's ms); and the warning of a run
 * that stopped short. MB is MiB (Kafka divides by 1024 * 1024); decimals are four places. Pure:
 * the times are passed in, epoch ms, and printed by `formatTime` (--date-format).
 */

const MiB = 1024 * 1024;

export const SHARE_SUMMARY_HEADER = 'start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, fetch.time.ms';

/** What was read between two times (epoch ms). */
export interface ShareSpan {
  startMs: number;
  endMs: number;
  bytes: number;
  records: number;
}

const f4 = (v: number): string => v.toFixed(4);

/** The fields of a summary: start, end, MB, MB/s, records/s, records, ms. */
function spanFields(s: ShareSpan, formatTime: (ms: number) => string): string {
  const ms = s.endMs - s.startMs;
  const sec = ms / 1000;
  const mb = s.bytes / MiB;
  return [formatTime(s.startMs), formatTime(s.endMs), f4(mb), f4(mb / sec), f4(s.records / sec), String(s.records), String(ms)].join(', ');
}

/** The share group's summary line, under SHARE_SUMMARY_HEADER. */
export function shareSummaryLine(s: ShareSpan, formatTime: (ms: number) => string): string {
  return spanFields(s, formatTime);
}

/** One share consumer's summary (--show-consumer-stats): `index` counts from 1. */
export function shareConsumerLine(index: number, clientId: string, s: ShareSpan, formatTime: (ms: number) => string): string {
  return `Share consumer ${index} having client id ${clientId} consumption metrics- ${spanFields(s, formatTime)}`;
}

/** A share consumer's progress over one reporting interval (--show-detailed-stats). */
export interface ShareProgress {
  /** The interval: from the last report (or the consumer's start) to now, epoch ms. */
  fromMs: number;
  toMs: number;
  /** The consumer's totals now and at the interval's start. */
  bytes: number;
  lastBytes: number;
  records: number;
  lastRecords: number;
}

/** A progress line: the interval's times, total MB, the interval's MB/s and records/s, total records, the interval's ms. */
export function shareProgressLine(index: number, p: ShareProgress, formatTime: (ms: number) => string): string {
  const ms = p.toMs - p.fromMs;
  const fields = [formatTime(p.fromMs), formatTime(p.toMs), f4(p.bytes / MiB), f4((1000 * ((p.bytes - p.lastBytes) / MiB)) / ms), f4((1000 * (p.records - p.lastRecords)) / ms), String(p.records), String(ms)];
  return `${fields.join(', ')} for share consumer ${index}`;
}

/** Kafka's warning when the run stopped before reading its records: none came for `timeoutMs`. */
export function shareTimeoutWarning(timeoutMs: number): string {
  return `WARNING: Exiting before consuming the expected number of records: timeout (${timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`;
}
