/**
 * What a client pushes (KIP-714): its metrics now, those its subscription selects, under their
 * telemetry names (telemetry-names.ts), as OTLP MetricsData (src/kafka/otlp-encode.ts), then
 * compressed with the first codec the broker accepts that this build has.
 *
 * Sums are delta sums when the subscription asks for delta temporality (what samsa's and Kafka's
 * brokers ask): each push carries what a count grew by since the last push that carried it,
 * from then (the client's start the first time), as Kafka's KafkaMetricsCollector keeps a ledger
 * of the last value sent; else cumulative sums from the client's start. Gauges carry their value
 * now; one with no value yet (NaN: nothing recorded in its samples) is left out, as KIP-714
 * advises ("sparse metrics"). Series of the same name (per topic, per partition) are points of
 * one metric.
 */
import { encodeOtlpMetrics, type OtlpMetricOut, type OtlpPointOut } from '../kafka/otlp-encode.js';
import { compress, isCodecSupported } from '../protocol/compression.js';
import type { ClientMetric } from './metrics.js';
import { selects, toTelemetryMetric, type MetricSelector } from './telemetry-names.js';

const seriesKey = (name: string, attributes: Record<string, string>): string =>
  `${name}\u0000${Object.keys(attributes)
    .sort()
    .map((k) => `${k}=${attributes[k]}`)
    .join('\u0000')}`;

/** The last value pushed of each sum series, for delta temporality. */
export class DeltaLedger {
  private last = new Map<string, { timeMs: number; value: number }>();

  /** What `value` adds to the last value pushed of `key`, and since when (`startMs` the first time). */
  delta(key: string, value: number, nowMs: number, startMs: number): { startMs: number; value: number } {
    const last = this.last.get(key);
    this.last.set(key, { timeMs: nowMs, value });
    return last ? { startMs: last.timeMs, value: value - last.value } : { startMs, value };
  }

  /** Forgets the series not in `keep` (metrics the client no longer has, as Kafka's metricRemoval). */
  retain(keep: ReadonlySet<string>): void {
    for (const k of this.last.keys()) if (!keep.has(k)) this.last.delete(k);
  }

  /** The temporality changed: the next push starts afresh. */
  reset(): void {
    this.last.clear();
  }

  get size(): number {
    return this.last.size;
  }
}

export interface PayloadOptions {
  selector: MetricSelector;
  deltaTemporality: boolean;
  ledger: DeltaLedger;
  nowMs: number;
  /** When the client started: where its first deltas and its cumulative sums begin. */
  startMs: number;
  /** The client's resource attributes (group_id, transactional_id, ...). */
  resource: Readonly<Record<string, string>>;
  scope?: { name: string; version?: string };
}

/** The client's metrics its subscription selects, as OTLP MetricsData bytes (uncompressed). */
export function telemetryPayload(metrics: readonly ClientMetric[], o: PayloadOptions): Uint8Array {
  const byName = new Map<string, OtlpMetricOut & { points: OtlpPointOut[] }>();
  const present = new Set<string>();
  for (const cm of metrics) {
    const m = toTelemetryMetric(cm);
    const key = seriesKey(m.name, m.attributes);
    if (m.kind === 'sum') present.add(key);
    // a value not recorded yet (NaN) is left out
    if (!selects(o.selector, m.name) || !Number.isFinite(m.value)) continue;
    let point: OtlpPointOut;
    if (m.kind === 'sum') {
      const d = o.deltaTemporality ? o.ledger.delta(key, m.value, o.nowMs, o.startMs) : { startMs: o.startMs, value: m.value };
      point = { attributes: m.attributes, startTimeMs: d.startMs, timeMs: o.nowMs, value: d.value };
    } else point = { attributes: m.attributes, timeMs: o.nowMs, value: m.value };
    let out = byName.get(m.name);
    if (!out) {
      out =
        m.kind === 'sum'
          ? { name: m.name, description: m.description, kind: 'sum', temporality: o.deltaTemporality ? 'delta' : 'cumulative', monotonic: true, points: [] }
          : { name: m.name, description: m.description, kind: 'gauge', points: [] };
      byName.set(m.name, out);
    }
    out.points.push(point);
  }
  o.ledger.retain(present);
  return encodeOtlpMetrics({ resource: o.resource, ...(o.scope ? { scope: o.scope } : {}), metrics: [...byName.values()] });
}

/** Kafka's codec ids a push may name: none, gzip, snappy, lz4, zstd. */
const PUSH_CODECS = new Set([0, 1, 2, 3, 4]);

/**
 * The payload compressed with the first of the broker's accepted codecs (in its order) this
 * build has and that has not failed before; none when there is no such codec. A codec that
 * throws is added to `unsupported` and this push goes uncompressed, as Kafka's clients do.
 */
export function compressTelemetry(payload: Uint8Array, accepted: readonly number[], unsupported: Set<number>): { compressionType: number; metrics: Uint8Array } {
  const codec = accepted.find((id) => id !== 0 && PUSH_CODECS.has(id) && !unsupported.has(id) && isCodecSupported(id));
  if (codec === undefined) return { compressionType: 0, metrics: payload };
  try {
    return { compressionType: codec, metrics: compress(codec, payload) };
  } catch {
    unsupported.add(codec);
    return { compressionType: 0, metrics: payload };
  }
}
