/**
 * The replication throttles' topic configs (leader/follower.replication.throttled.replicas):
 * which partitions they name for a broker, and what a well-formed value is. The byte rates
 * themselves are RateQuotas (src/runtime/rate-quota.ts).
 */
/**
 * The partitions a throttled-replicas topic config names for `brokerId` (Kafka's
 * leader/follower.replication.throttled.replicas: 'partition:broker' pairs, or '*' for every
 * replica). Returns 'all', the set of partitions, or null when none.
 */
export function throttledPartitions(value: string | number | undefined, brokerId: number): 'all' | Set<number> | null {
  if (value === undefined) return null;
  const text = String(value).trim();
  if (text === '') return null;
  if (text === '*') return 'all';
  const out = new Set<number>();
  for (const entry of text.split(',')) {
    const [p, b] = entry.trim().split(':');
    if (Number(b) === brokerId && p !== undefined && /^\d+$/.test(p.trim())) out.add(Number(p));
  }
  return out.size > 0 ? out : null;
}

/** Why a throttled-replicas value is malformed, or null (Kafka: '*' or 'partition:broker' pairs). */
export function throttledReplicasProblem(value: unknown): string | null {
  if (typeof value !== 'string') return `expected '*' or partition:broker pairs separated by commas, got ${JSON.stringify(value)}`;
  const text = value.trim();
  if (text === '' || text === '*') return null;
  for (const entry of text.split(',')) {
    if (!/^\s*\d+\s*:\s*\d+\s*$/.test(entry)) return `'${entry}' is not partition:broker (e.g. 0:101,1:102), and the list is not '*'`;
  }
  return null;
}
