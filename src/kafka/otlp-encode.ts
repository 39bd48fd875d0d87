/**
 * Writes OpenTelemetry's MetricsData (opentelemetry/proto/metrics/v1) in protobuf, what a
 * KIP-714 client pushes, without a protobuf library: one resource with its attributes, one
 * scope, and the metrics as gauges or sums of number points (each point's attributes, start
 * time for a sum, time, and a double or an int64 value). The reader is otlp-metrics.ts.
 *
 * Field numbers: MetricsData.resource_metrics 1; ResourceMetrics.resource 1, scope_metrics 2;
 * Resource.attributes 1; ScopeMetrics.scope 1, metrics 2; InstrumentationScope.name 1,
 * version 2; Metric.name 1, description 2, unit 3, gauge 5, sum 7; Gauge.data_points 1;
 * Sum.data_points 1, aggregation_temporality 2, is_monotonic 3; NumberDataPoint
 * start_time_unix_nano 2, time_unix_nano 3, as_double 4, as_int 6, attributes 7; KeyValue.key 1,
 * value 2; AnyValue string 1, bool 2, int 3, double 4.
 */
import type { OtlpValue } from './otlp-metrics.js';

export interface OtlpPointOut {
  attributes?: Readonly<Record<string, OtlpValue>>;
  /** A sum's: when the span its value covers began, in ms since the epoch. */
  startTimeMs?: number;
  /** In ms since the epoch. */
  timeMs: number;
  value: number;
  /** Written as an int64 (as_int) rather than a double; the value must be a safe integer. */
  asInt?: boolean;
}

interface OtlpMetricHead {
  name: string;
  description?: string;
  unit?: string;
  points: readonly OtlpPointOut[];
}

export type OtlpMetricOut =
  | (OtlpMetricHead & { kind: 'gauge' })
  | (OtlpMetricHead & { kind: 'sum'; temporality: 'delta' | 'cumulative'; monotonic: boolean });

export interface OtlpMetricsDataOut {
  resource: Readonly<Record<string, OtlpValue>>;
  /** The instrumentation scope (none: an empty one). */
  scope?: { name: string; version?: string };
  metrics: readonly OtlpMetricOut[];
}

/** OTLP's AggregationTemporality: DELTA 1, CUMULATIVE 2. */
const TEMPORALITY = { delta: 1, cumulative: 2 } as const;
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const utf8 = new TextEncoder();

/** One protobuf message being written: its fields in order, then finish(). */
class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.parts.push(bytes);
    this.length += bytes.length;
  }

  private varint(v: bigint): void {
    let n = BigInt.asUintN(64, v);
    const out: number[] = [];
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n !== 0n) b |= 0x80;
      out.push(b);
    } while (n !== 0n);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  uint(field: number, v: number | bigint): void {
    this.tag(field, WIRE_VARINT);
    this.varint(BigInt(v));
  }

  bool(field: number, v: boolean): void {
    this.uint(field, v ? 1 : 0);
  }

  double(field: number, v: number): void {
    this.tag(field, WIRE_FIXED64);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, v, true);
    this.push(b);
  }

  fixed64(field: number, v: bigint, signed: boolean): void {
    this.tag(field, WIRE_FIXED64);
    const b = new Uint8Array(8);
    const view = new DataView(b.buffer);
    if (signed) view.setBigInt64(0, v, true);
    else view.setBigUint64(0, v, true);
    this.push(b);
  }

  bytes(field: number, v: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(BigInt(v.length));
    this.push(v);
  }

  string(field: number, v: string): void {
    this.bytes(field, utf8.encode(v));
  }

  message(field: number, write: (w: ProtoWriter) => void): void {
    const w = new ProtoWriter();
    write(w);
    this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

const msToNanos = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;

function anyValue(w: ProtoWriter, v: OtlpValue): void {
  if (typeof v === 'string') w.string(1, v);
  else if (typeof v === 'boolean') w.bool(2, v);
  else if (typeof v === 'number' && Number.isSafeInteger(v)) w.uint(3, BigInt(v));
  else if (typeof v === 'number') w.double(4, v);
  // null: an empty AnyValue (no value set)
}

function attributes(w: ProtoWriter, field: number, attrs: Readonly<Record<string, OtlpValue>> | undefined): void {
  if (!attrs) return;
  for (const [key, value] of Object.entries(attrs)) {
    w.message(field, (kv) => {
      kv.string(1, key);
      kv.message(2, (av) => anyValue(av, value));
    });
  }
}

function numberPoint(w: ProtoWriter, p: OtlpPointOut, withStart: boolean): void {
  if (withStart && p.startTimeMs !== undefined) w.fixed64(2, msToNanos(p.startTimeMs), false);
  w.fixed64(3, msToNanos(p.timeMs), false);
  if (p.asInt) {
    if (!Number.isSafeInteger(p.value)) throw new RangeError(`an int64 point needs a safe integer, got ${p.value}`);
    w.fixed64(6, BigInt(p.value), true);
  } else w.double(4, p.value);
  attributes(w, 7, p.attributes);
}

function metric(w: ProtoWriter, m: OtlpMetricOut): void {
  w.string(1, m.name);
  if (m.description) w.string(2, m.description);
  if (m.unit) w.string(3, m.unit);
  if (m.kind === 'gauge') {
    w.message(5, (g) => {
      for (const p of m.points) g.message(1, (dp) => numberPoint(dp, p, false));
    });
    return;
  }
  w.message(7, (sum) => {
    for (const p of m.points) sum.message(1, (dp) => numberPoint(dp, p, true));
    sum.uint(2, TEMPORALITY[m.temporality]);
    sum.bool(3, m.monotonic);
  });
}

/** MetricsData of one resource and one scope holding `metrics`, in protobuf. */
export function encodeOtlpMetrics(data: OtlpMetricsDataOut): Uint8Array {
  const top = new ProtoWriter();
  top.message(1, (rm) => {
    rm.message(1, (resource) => attributes(resource, 1, data.resource));
    rm.message(2, (sm) => {
      const scope = data.scope;
      sm.message(1, (s) => {
        if (scope?.name) s.string(1, scope.name);
        if (scope?.version) s.string(2, scope.version);
      });
      for (const m of data.metrics) sm.message(2, (mw) => metric(mw, m));
    });
  });
  return top.finish();
}
