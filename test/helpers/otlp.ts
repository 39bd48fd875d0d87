/**
 * OTLP MetricsData written by hand, as a KIP-714 client pushes it (protobuf, field by field),
 * for the tests of what reads it. Only what the tests need: resource attributes, gauges, sums
 * and histograms with attributes.
 */

function varint(n: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
export const lenField = (field: number, bytes: number[]): number[] => [...tag(field, 2), ...varint(BigInt(bytes.length)), ...bytes];
const strField = (field: number, s: string) => lenField(field, [...Buffer.from(s, 'utf8')]);
const varintField = (field: number, n: bigint | number) => [...tag(field, 0), ...varint(BigInt(n))];
function fixed64Field(field: number, write: (v: DataView) => void): number[] {
  const b = new DataView(new ArrayBuffer(8));
  write(b);
  return [...tag(field, 1), ...new Uint8Array(b.buffer)];
}
const doubleField = (field: number, x: number) => fixed64Field(field, (v) => v.setFloat64(0, x, true));
const uint64Field = (field: number, x: bigint) => fixed64Field(field, (v) => v.setBigUint64(0, x, true));
const int64Field = (field: number, x: bigint) => fixed64Field(field, (v) => v.setBigInt64(0, x, true));

export type Attr = string | number | boolean;

function anyValue(v: Attr): number[] {
  if (typeof v === 'string') return strField(1, v);
  if (typeof v === 'boolean') return varintField(2, v ? 1 : 0);
  return Number.isInteger(v) ? varintField(3, BigInt(v)) : doubleField(4, v);
}

const keyValue = (field: number, k: string, v: Attr) => lenField(field, [...strField(1, k), ...lenField(2, anyValue(v))]);
const attrs = (field: number, a: Record<string, Attr> = {}) => Object.entries(a).flatMap(([k, v]) => keyValue(field, k, v));

export interface PointSpec {
  attributes?: Record<string, Attr>;
  timeMs?: number;
  /** A double, or (as a bigint) an int64. */
  value: number | bigint;
}

const time = (ms = 0) => uint64Field(3, BigInt(ms) * 1_000_000n);
const numberPoint = (p: PointSpec) => lenField(1, [...attrs(7, p.attributes), ...time(p.timeMs), ...(typeof p.value === 'bigint' ? int64Field(6, p.value) : doubleField(4, p.value))]);

export type MetricSpec =
  | { name: string; unit?: string; gauge: PointSpec[] }
  | { name: string; unit?: string; sum: PointSpec[]; monotonic?: boolean; temporality?: 1 | 2 }
  | { name: string; unit?: string; histogram: { attributes?: Record<string, Attr>; timeMs?: number; count: number; sum: number }[] };

function metric(m: MetricSpec): number[] {
  const head = [...strField(1, m.name), ...(m.unit ? strField(3, m.unit) : [])];
  if ('gauge' in m) return [...head, ...lenField(5, m.gauge.flatMap(numberPoint))];
  if ('sum' in m) return [...head, ...lenField(7, [...m.sum.flatMap(numberPoint), ...varintField(2, m.temporality ?? 1), ...varintField(3, m.monotonic ? 1 : 0)])];
  return [...head, ...lenField(9, [...m.histogram.flatMap((p) => lenField(1, [...attrs(9, p.attributes), ...time(p.timeMs), ...uint64Field(4, BigInt(p.count)), ...doubleField(5, p.sum)])), ...varintField(2, 2)])];
}

/** A MetricsData of one resource (its attributes) and one scope holding the metrics. */
export function otlpMetrics(resource: Record<string, Attr>, metrics: MetricSpec[], scopeName = 'org.apache.kafka'): Uint8Array {
  const scope = lenField(2, [...lenField(1, strField(1, scopeName)), ...metrics.flatMap((m) => lenField(2, metric(m)))]);
  const resourceMetrics = lenField(1, [...lenField(1, attrs(1, resource)), ...scope]);
  return new Uint8Array(resourceMetrics);
}
