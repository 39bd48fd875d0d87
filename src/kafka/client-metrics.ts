/**
 * Client metrics subscriptions (KIP-714): Kafka's CLIENT_METRICS config resources, a name each,
 * with three keys, as Kafka's ClientMetricsConfigs:
 *  - `metrics`: the metric name prefixes the matching clients push (a list; `*` every metric,
 *    empty none);
 *  - `interval.ms`: how often they push (100 to 3,600,000; 300,000 by default);
 *  - `match`: `selector=regex` pairs a client must all match (whole values, as Java's
 *    Matcher.matches) to take the subscription: client_instance_id, client_id,
 *    client_software_name, client_software_version, client_source_address, client_source_port;
 *    empty matches every client.
 * Used by the controller to check a change and by the brokers to find a client's subscriptions.
 */

export const METRICS = 'metrics';
export const INTERVAL_MS = 'interval.ms';
export const MATCH = 'match';
export const CLIENT_METRICS_KEYS: readonly string[] = [METRICS, INTERVAL_MS, MATCH];

export const ALL_METRICS = '*';
export const DEFAULT_INTERVAL_MS = 300_000;
const MIN_INTERVAL_MS = 100;
const MAX_INTERVAL_MS = 3_600_000;

export const MATCH_SELECTORS = ['client_instance_id', 'client_id', 'client_software_name', 'client_software_version', 'client_source_address', 'client_source_port'] as const;
export type MatchSelector = (typeof MATCH_SELECTORS)[number];

/** A subscription as the brokers use it. */
export interface ClientMetricsSubscription {
  name: string;
  metrics: string[];
  intervalMs: number;
  match: Partial<Record<MatchSelector, RegExp>>;
}

/** A list config's items as Kafka's ConfigDef reads a LIST: split on commas, trimmed, empty items dropped. */
export function listItems(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** The match patterns by selector, or the problem with one (Kafka's "Illegal client matching pattern"). */
export function parseMatch(items: readonly string[]): Partial<Record<MatchSelector, RegExp>> | string {
  const out: Partial<Record<MatchSelector, RegExp>> = {};
  for (const item of items) {
    const pair = item.split('=');
    const selector = pair[0]!.trim();
    if (pair.length !== 2 || !(MATCH_SELECTORS as readonly string[]).includes(selector)) return `Illegal client matching pattern: ${item}`;
    try {
      out[selector as MatchSelector] = new RegExp(`^(?:${pair[1]!.trim()})$`, 'u');
    } catch {
      return `Illegal client matching pattern: ${item}`;
    }
  }
  return out;
}

/**
 * Why a subscription's configs (after a change) cannot be, with Kafka's error (INVALID_REQUEST
 * for an unknown key or an interval out of range, INVALID_CONFIG for a bad pattern), or null.
 */
export function clientMetricsProblem(name: string, config: Readonly<Record<string, string>>): { invalidConfig: boolean; message: string } | null {
  if (name === '') return { invalidConfig: false, message: "Subscription name can't be empty" };
  for (const key of Object.keys(config)) if (!CLIENT_METRICS_KEYS.includes(key)) return { invalidConfig: false, message: `Unknown client metrics configuration: ${key}` };
  const interval = config[INTERVAL_MS];
  if (interval !== undefined) {
    const n = /^\s*[+-]?\d+\s*$/.test(interval) ? Number(interval) : NaN;
    if (!Number.isSafeInteger(n)) return { invalidConfig: true, message: `Invalid value ${interval} for configuration ${INTERVAL_MS}: Not a number of type INT` };
    if (n < MIN_INTERVAL_MS || n > MAX_INTERVAL_MS) return { invalidConfig: false, message: `Invalid value ${n} for ${INTERVAL_MS}, interval must be between 100 and 3600000 (1 hour)` };
  }
  const match = parseMatch(listItems(config[MATCH]));
  if (typeof match === 'string') return { invalidConfig: true, message: match };
  return null;
}

/** The subscriptions of the metadata's client metrics configs (those a check would refuse are skipped). */
export function subscriptionsOf(configs: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined): ClientMetricsSubscription[] {
  const out: ClientMetricsSubscription[] = [];
  for (const [name, config] of Object.entries(configs ?? {})) {
    if (clientMetricsProblem(name, config)) continue;
    // checked just above: the patterns parse
    const match = parseMatch(listItems(config[MATCH])) as Partial<Record<MatchSelector, RegExp>>;
    out.push({ name, metrics: listItems(config[METRICS]), intervalMs: config[INTERVAL_MS] !== undefined ? Number(config[INTERVAL_MS]) : DEFAULT_INTERVAL_MS, match });
  }
  return out;
}

/** Whether a client's attributes match every pattern of a subscription (no patterns: every client). */
export function matchesClient(match: Partial<Record<MatchSelector, RegExp>>, attributes: Readonly<Record<MatchSelector, string | null>>): boolean {
  for (const [selector, re] of Object.entries(match) as [MatchSelector, RegExp][]) {
    const value = attributes[selector];
    if (value === null || !re.test(value)) return false;
  }
  return true;
}
