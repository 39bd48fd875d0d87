/**
 * Pieces the consumer perf tools share (perf-consume.ts, perf-share-consume.ts): the flags that
 * shape the records a run prepares (refused where a run reads a topic as it is), --date-format
 * checked into a formatter, the key of a topic partition, and the rows of a reading run's table
 * that say where the CPU went, what crossed to the brokers and how the run compares with this
 * machine's raw limits.
 */
import { UsageError } from '../../src/cli/errors.js';
import { DateFormatError, compileDateFormat } from './date-format.js';
import type { RawLimits } from './perf-raw.js';
import { clientTransport, type PerfTarget } from './perf-target.js';
import { formatCpu, type CpuReport } from './thread-cpu.js';
import { formatTraffic, type TrafficReport } from './traffic.js';
import { formatRatio } from './timing.js';

/** Flags that shape the records a run prepares: refused for an existing topic, which is read as it is. */
export const PREPARE_ONLY = ['record-size', 'batch-size', 'compression'] as const;

/** Refuses the PREPARE_ONLY flags given to a run that prepares nothing (`why`: what it reads instead). */
export function refusePrepareFlags(given: ReadonlySet<string>, why: string): void {
  const wrong = PREPARE_ONLY.filter((k) => given.has(k));
  if (wrong.length > 0) throw new UsageError(`${wrong.map((k) => `--${k}`).join(', ')} ${wrong.length === 1 ? 'shapes' : 'shape'} the records a run prepares; ${why}`);
}

/** --date-format's formatter (local time); a pattern it cannot print is a usage error naming the letter. */
export function dateFormatFlag(pattern: string): (epochMs: number) => string {
  try {
    return compileDateFormat(pattern);
  } catch (e) {
    if (e instanceof DateFormatError) throw new UsageError(`--date-format: ${e.message}`);
    throw e;
  }
}

/** One key per topic partition. */
export function topicPartitionKey(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

/**
 * The table rows after a reading run's figures: its CPU and traffic (where measured), and its
 * MiB/s against the raw MessagePort and TCP limits (`limits`; none measured: said so when `raw`
 * asked for them).
 */
export function readingRows(target: PerfTarget, measured: { cpu: CpuReport | null; traffic: TrafficReport | null }, mibPerSec: number, limits: Pick<RawLimits, 'portMiBs' | 'tcpMiBs'> | null, raw: boolean): string[][] {
  const rows: string[][] = [];
  const transport = clientTransport(target);
  if (measured.cpu) rows.push([target.kind === 'running' ? 'CPU while reading (this process)' : 'CPU while reading', formatCpu(measured.cpu)]);
  if (measured.traffic) rows.push(["the client's thread and the brokers", formatTraffic(measured.traffic)]);
  if (limits) {
    rows.push(['raw MessagePort', `${limits.portMiBs.toFixed(0)} MiB/s${transport === 'worker' ? ` (ratio ${formatRatio(mibPerSec / limits.portMiBs)})` : ''}`]);
    rows.push(['raw TCP socket', `${limits.tcpMiBs.toFixed(0)} MiB/s${transport === 'tcp' ? ` (ratio ${formatRatio(mibPerSec / limits.tcpMiBs)})` : ''}`]);
  } else if (raw) {
    rows.push(['raw limits', "not measured: the brokers run on other hosts, whose links this machine's limits do not bound"]);
  }
  return rows;
}
