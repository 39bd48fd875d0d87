/**
 * The clients' metrics as Kafka's perf tools print them with --print-metrics: one line per
 * metric, `group:name:{tag=value} : value`, sorted by that key (several producers of one client
 * id each have a line, one after another).
 */
import type { ClientMetric } from '../../src/client/metrics.js';

/** The key Kafka prints for a metric: group:name:{k=v, ...}, the tags in their order (client-id first). */
export function metricKey(m: Pick<ClientMetric, 'group' | 'name' | 'tags'>): string {
  const tags = Object.entries(m.tags)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  return `${m.group}:${m.name}:{${tags}}`;
}

/** A value as Kafka prints it: three decimals, NaN as NaN. */
export function metricValue(v: number): string {
  return Number.isNaN(v) ? 'NaN' : v.toFixed(3);
}

/**
 * The metrics' lines under a header: `key : value`, sorted by key; metrics with the same key
 * (several producers of one client id) are listed in turn.
 */
export function formatMetrics(metrics: readonly ClientMetric[]): string {
  const rows = metrics.map((m) => [metricKey(m), metricValue(m.value)] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const width = Math.max('Metric Name'.length, ...rows.map(([k]) => k.length));
  const lines = [`${'Metric Name'.padEnd(width)}   Value`];
  for (const [k, v] of rows) lines.push(`${k.padEnd(width)} : ${v}`);
  return lines.join('\n');
}
