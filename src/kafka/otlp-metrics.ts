/**
 * What KIP-714's clients push: OpenTelemetry's MetricsData (opentelemetry/proto/metrics/v1) in
 * protobuf, read without a protobuf library: the resource's attributes, and each metric's name,
 * unit, kind and data points (their attributes, time and value). Gauges and sums (what Kafka's
 * clients send) give a number per point; a histogram its count and sum; exponential histograms
 * and summaries their count and sum too. Fields it does not know are skipped, as protobuf
 * readers do; bytes that are not protobuf throw OtlpDecodeError.
 */

export class OtlpDecodeError extends Error {
  override name = 'OtlpDecodeError';
}

export type OtlpValue = string | number | boolean | null;

export interface OtlpPoint {
  attributes: Record<string, OtlpValue>;
  /** The point's time, in ms since the epoch (0 when the client gave none). */
  timeMs: number;
  /** A gauge's or sum's value; a histogram's (or summary's) sum. */
  value: number;
  /** A histogram's (or summary's) count of values; absent for a gauge or a sum. */
  count?: number;
}

export interface OtlpMetric {
  name: string;
  unit: string;
  kind: 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram' | 'summary' | 'unknown';
  /** A sum's: monotonic (a counter) or not. */
  monotonic?: boolean;
  /** A sum's or histogram's: 'delta' or 'cumulative' (KIP-714 brokers ask for deltas). */
  temporality?: 'delta' | 'cumulative' | 'unspecified';
  points: OtlpPoint[];
}

export interface OtlpMetricsData {
  /** The resource's attributes (a Kafka client names itself there: client_id, client_instance_id...). */
  resource: Record<string, OtlpValue>;
  metrics: OtlpMetric[];
}

/** A protobuf message's fields, read one at a time. */
class Reader {
  private pos: number;
  private readonly view: DataView;
  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw new OtlpDecodeError('a varint runs past the end of its message');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
    }
    throw new OtlpDecodeError('a varint longer than 10 bytes');
  }

  tag(): { field: number; wire: number } {
    const t = Number(this.varint());
    return { field: t >>> 3, wire: t & 7 };
  }

  fixed64(): DataView {
    if (this.pos + 8 > this.end) throw new OtlpDecodeError('a fixed64 runs past the end of its message');
    const at = this.pos;
    this.pos += 8;
    return new DataView(this.view.buffer, this.view.byteOffset + at, 8);
  }

  /** A length-delimited field: a reader over its bytes. */
  sub(): Reader {
    const len = Number(this.varint());
    if (len < 0 || this.pos + len > this.end) throw new OtlpDecodeError('a length-delimited field runs past the end of its message');
    const r = new Reader(this.buf, this.pos, this.pos + len);
    this.pos += len;
    return r;
  }

  string(): string {
    const r = this.sub();
    return new TextDecoder('utf-8', { fatal: false }).decode(this.buf.subarray(r.pos, r.end));
  }

  double(): number {
    return this.fixed64().getFloat64(0, true);
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.fixed64();
    else if (wire === 2) this.sub();
    else if (wire === 5) {
      if (this.pos + 4 > this.end) throw new OtlpDecodeError('a fixed32 runs past the end of its message');
      this.pos += 4;
    } else throw new OtlpDecodeError(`wire type ${wire} is not protobuf's (or a group, which OTLP does not use)`);
  }

  /** Each field of the message, to `on`; a field `on` does not take (false) is skipped. */
  fields(on: (field: number, wire: number) => boolean): void {
    while (!this.done) {
      const { field, wire } = this.tag();
      if (!on(field, wire)) this.skip(wire);
    }
  }
}

function anyValue(r: Reader): OtlpValue {
  let v: OtlpValue = null;
  r.fields((field, wire) => {
    if (field === 1 && wire === 2) v = r.string();
    else if (field === 2 && wire === 0) v = r.varint() !== 0n;
    else if (field === 3 && wire === 0) v = Number(BigInt.asIntN(64, r.varint()));
    else if (field === 4 && wire === 1) v = r.double();
    else return false;
    return true;
  });
  return v;
}

function keyValue(r: Reader, into: Record<string, OtlpValue>): void {
  let key = '';
  let value: OtlpValue = null;
  r.fields((field, wire) => {
    if (field === 1 && wire === 2) key = r.string();
    else if (field === 2 && wire === 2) value = anyValue(r.sub());
    else return false;
    return true;
  });
  into[key] = value;
}

const nanosToMs = (v: DataView): number => Number(v.getBigUint64(0, true) / 1_000_000n);

/** Where each kind of data point keeps its attributes (NumberDataPoint 7, HistogramDataPoint 9, ExponentialHistogramDataPoint 1, SummaryDataPoint 7). */
const ATTRIBUTES_FIELD: Readonly<Record<OtlpMetric['kind'], number>> = { gauge: 7, sum: 7, histogram: 9, exponentialHistogram: 1, summary: 7, unknown: 7 };

/** A data point: a gauge's or sum's number, or a histogram's (exponential or not) or summary's count and sum. */
function dataPoint(r: Reader, kind: OtlpMetric['kind']): OtlpPoint {
  const p: OtlpPoint = { attributes: {}, timeMs: 0, value: 0 };
  const number = kind === 'gauge' || kind === 'sum';
  r.fields((field, wire) => {
    if (field === ATTRIBUTES_FIELD[kind] && wire === 2) keyValue(r.sub(), p.attributes);
    else if (field === 3 && wire === 1) p.timeMs = nanosToMs(r.fixed64());
    else if (number && field === 4 && wire === 1) p.value = r.double();
    else if (number && field === 6 && wire === 1) p.value = Number(r.fixed64().getBigInt64(0, true));
    else if (!number && field === 4 && wire === 1) p.count = Number(r.fixed64().getBigUint64(0, true));
    else if (!number && field === 5 && wire === 1) p.value = r.double();
    else return false;
    return true;
  });
  return p;
}

const TEMPORALITY = ['unspecified', 'delta', 'cumulative'] as const;

/** Gauge, Sum, Histogram...: its points and, for a sum or histogram, its temporality (and a sum's monotonicity). */
function points(r: Reader, m: OtlpMetric): void {
  r.fields((field, wire) => {
    if (field === 1 && wire === 2) m.points.push(dataPoint(r.sub(), m.kind));
    else if (field === 2 && wire === 0 && m.kind !== 'gauge' && m.kind !== 'summary') m.temporality = TEMPORALITY[Number(r.varint())] ?? 'unspecified';
    else if (field === 3 && wire === 0 && m.kind === 'sum') m.monotonic = r.varint() !== 0n;
    else return false;
    return true;
  });
}

const KINDS: Readonly<Record<number, OtlpMetric['kind']>> = { 5: 'gauge', 7: 'sum', 9: 'histogram', 10: 'exponentialHistogram', 11: 'summary' };

function metric(r: Reader): OtlpMetric {
  const m: OtlpMetric = { name: '', unit: '', kind: 'unknown', points: [] };
  r.fields((field, wire) => {
    if (field === 1 && wire === 2) m.name = r.string();
    else if (field === 3 && wire === 2) m.unit = r.string();
    else if (KINDS[field] && wire === 2) {
      m.kind = KINDS[field]!;
      points(r.sub(), m);
    } else return false;
    return true;
  });
  return m;
}

/** Reads an OTLP MetricsData: the resources' attributes (merged) and every metric of every scope. */
export function decodeOtlpMetrics(bytes: Uint8Array): OtlpMetricsData {
  const out: OtlpMetricsData = { resource: {}, metrics: [] };
  const top = new Reader(bytes);
  top.fields((field, wire) => {
    if (field !== 1 || wire !== 2) return false;
    const rm = top.sub();
    rm.fields((f, w) => {
      if (f === 1 && w === 2) {
        const resource = rm.sub();
        resource.fields((rf, rw) => (rf === 1 && rw === 2 ? (keyValue(resource.sub(), out.resource), true) : false));
      } else if (f === 2 && w === 2) {
        const scope = rm.sub();
        scope.fields((sf, sw) => (sf === 2 && sw === 2 ? (out.metrics.push(metric(scope.sub())), true) : false));
      } else return false;
      return true;
    });
    return true;
  });
  return out;
}
