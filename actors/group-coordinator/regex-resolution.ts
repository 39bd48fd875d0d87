/**
 * When and how the group coordinator resolves a consumer group's regular expressions (Kafka
 * 4.0's GroupMetadataManager refreshRegularExpressions): each against the names of the cluster's
 * topics, internal topics left out, the whole name matching (topic-regex.ts). A heartbeat
 * resolves its group's expressions when one of them (its own new one included) has no
 * resolution yet, or when the last resolution is `refreshIntervalMs` old: a topic created,
 * deleted or made visible since is then taken into account within that bound.
 */
import { isInternalTopic } from '../controller/topic-validation.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ConsumerTopicInfo } from './messages.js';
import { compileTopicRegex } from './topic-regex.js';

/**
 * The expressions a heartbeat must resolve before it is applied (the group's and the one it
 * brings, those that compile), or null when the group's resolution stands.
 */
export function regexesToResolve(
  group: ConsumerGroup | undefined,
  requestRegex: string | null | undefined,
  resolvedAt: number,
  now: number,
  refreshIntervalMs: number,
): string[] | null {
  const regexes = new Set(group?.subscribedRegexes() ?? []);
  if (requestRegex && !regexes.has(requestRegex) && compileTopicRegex(requestRegex).ok) regexes.add(requestRegex);
  if (regexes.size === 0) return null;
  const unresolved = [...regexes].some((r) => !group?.resolvedRegexes.has(r));
  if (!unresolved && now - resolvedAt < refreshIntervalMs) return null;
  return [...regexes].sort();
}

/** Each expression -> the names of the topics it matches whole (internal topics never). */
export function resolveTopicRegexes(regexes: readonly string[], topics: readonly ConsumerTopicInfo[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const names = topics.filter((t) => !t.internal && !isInternalTopic(t.name)).map((t) => t.name);
  for (const regex of regexes) {
    const compiled = compileTopicRegex(regex);
    if (compiled.ok) out.set(regex, new Set(names.filter((n) => compiled.matches(n))));
  }
  return out;
}

/** Every topic some expression matched, sorted. */
export function matchedTopics(resolved: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const out = new Set<string>();
  for (const topics of resolved.values()) for (const t of topics) out.add(t);
  return [...out].sort();
}

/** The resolution with only the `allowed` topics (those the member may DESCRIBE). */
export function onlyAllowed(resolved: ReadonlyMap<string, ReadonlySet<string>>, allowed: readonly string[]): Map<string, Set<string>> {
  const ok = new Set(allowed);
  return new Map([...resolved].map(([regex, topics]) => [regex, new Set([...topics].filter((t) => ok.has(t)))]));
}
