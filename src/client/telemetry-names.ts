/**
 * KIP-714's names for a client's metrics ("Metrics naming and format"), as Kafka's clients
 * derive them from their Kafka metric names (TelemetryMetricNamingConvention): the domain
 * `org.apache.kafka`, the group without its `metrics` part, and the name, joined with dots, lower
 * case, dashes made dots: `record-queue-time-avg` of `producer-metrics` is
 * `org.apache.kafka.producer.record.queue.time.avg`, `fetch-latency-avg` of
 * `consumer-fetch-manager-metrics` `org.apache.kafka.consumer.fetch.manager.fetch.latency.avg`.
 * Tags become point attributes, snake_case (`topic`, `partition`), without `client_id`: the
 * broker knows the client id and adds it, as Kafka's reporter leaves it out.
 *
 * Kind, as Kafka's KafkaMetricsCollector: cumulative counts and sums (Kafka's CumulativeSum and
 * CumulativeCount, every `-total` metric: `record-send-total`, `rebalance-latency-total`,
 * `bufferpool-wait-time-ns-total`) are monotonic sums; everything else (averages, maxima, rates,
 * gauges) is a gauge.
 */
import type { ClientMetric } from './metrics.js';

export const TELEMETRY_DOMAIN = 'org.apache.kafka';
/** Kafka's reporter leaves the client id out of the points: the broker adds it. */
const EXCLUDED_TAGS = new Set(['client_id']);

const clean = (raw: string, joiner: string): string => raw.toLowerCase().replace(/-/g, joiner);

/** `producer-topic-metrics` -> `producer.topic`, `consumer-metrics` -> `consumer`. */
export function telemetryGroup(group: string): string {
  return clean(group, '.').replace(/\.metrics/g, '');
}

/** The telemetry name of metric `name` of group `group`. */
export function telemetryMetricName(group: string, name: string): string {
  return `${TELEMETRY_DOMAIN}.${telemetryGroup(group)}.${clean(name, '.')}`;
}

/** A metric's tags as point attributes: snake_case keys, the client id left out. */
export function telemetryAttributes(tags: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) {
    const key = clean(k, '_');
    if (!EXCLUDED_TAGS.has(key)) out[key] = v;
  }
  return out;
}

export type TelemetryKind = 'sum' | 'gauge';

/** Sum for a cumulative count or sum (a `-total` metric), gauge for the rest. */
export function telemetryKind(name: string): TelemetryKind {
  return name.endsWith('-total') ? 'sum' : 'gauge';
}

/** One of a client's metrics under its telemetry name. */
export interface TelemetryMetric {
  name: string;
  kind: TelemetryKind;
  description: string;
  attributes: Record<string, string>;
  value: number;
}

export function toTelemetryMetric(m: ClientMetric): TelemetryMetric {
  return { name: telemetryMetricName(m.group, m.name), kind: telemetryKind(m.name), description: m.description, attributes: telemetryAttributes(m.tags), value: m.value };
}

/**
 * Which metrics a subscription asks for (GetTelemetrySubscriptions' requestedMetrics, as
 * Kafka's ClientTelemetryUtils reads it): none for an empty list, every one for `*` alone, else
 * those whose telemetry name starts with one of the prefixes (an empty prefix: every one).
 */
export type MetricSelector = { kind: 'none' } | { kind: 'all' } | { kind: 'prefixes'; prefixes: readonly string[] };

export function selectorOf(requestedMetrics: readonly string[] | null | undefined): MetricSelector {
  if (!requestedMetrics || requestedMetrics.length === 0) return { kind: 'none' };
  if (requestedMetrics.length === 1 && requestedMetrics[0] === '*') return { kind: 'all' };
  return { kind: 'prefixes', prefixes: [...requestedMetrics] };
}

export function selects(selector: MetricSelector, telemetryName: string): boolean {
  if (selector.kind === 'none') return false;
  if (selector.kind === 'all') return true;
  return selector.prefixes.some((p) => telemetryName.startsWith(p));
}
