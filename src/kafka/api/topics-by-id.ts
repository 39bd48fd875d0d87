/**
 * The topics of a client request that names them by id (Kafka's form, KIP-516): Produce v13+,
 * OffsetCommit v10+ and OffsetFetch v10+. Ids go through the listener's topic ids
 * (topic-id-resolver.ts); the zero id (Kafka's "no id") never names a topic.
 */
import { kafkaTopicId, ZERO_TOPIC_ID } from '../../protocol/topic-id.js';
import type { ApiContext } from './context.js';
import { fetchClusterMetadata } from './metadata.js';
import type { ResolvedTopic } from './topic-id-resolver.js';

/**
 * The topics of `ids` as the listener knows them (every topic is read again when one is not
 * known). An entry can be a topic deleted since: a request that acts on it passes the stored id
 * along for the broker to check.
 */
export async function resolveTopicIds(ctx: ApiContext, ids: Iterable<string>): Promise<Map<string, ResolvedTopic>> {
  const wanted = [...new Set(ids)].filter((id) => id !== ZERO_TOPIC_ID);
  if (wanted.length === 0) return new Map();
  return ctx.topicIds.resolve(wanted, async () => (await fetchClusterMetadata(ctx, null))?.topics ?? null);
}

/**
 * The topics of `ids` that still have them in this broker's metadata, for requests whose topics
 * are used by name from here on (the group coordinator keeps offsets by topic name): an id whose
 * topic was deleted, or deleted and made again under its name, since the listener learned it is
 * left out. Should the broker not answer, the ids stand as the listener knows them.
 */
export async function currentTopicsById(ctx: ApiContext, ids: Iterable<string>): Promise<Map<string, ResolvedTopic>> {
  const resolved = await resolveTopicIds(ctx, ids);
  if (resolved.size === 0) return resolved;
  const md = await fetchClusterMetadata(ctx, [...new Set([...resolved.values()].map((t) => t.name))]);
  if (!md) return resolved;
  const current = new Set(md.topics.map((t) => t.topicId));
  return new Map([...resolved].filter(([, t]) => current.has(t.storedId)));
}

/**
 * The ids (Kafka's form) the topics `names` have now, by name; a topic that does not exist has
 * none. Null when the broker did not answer.
 */
export async function currentTopicIds(ctx: ApiContext, names: readonly string[]): Promise<Map<string, string> | null> {
  if (names.length === 0) return new Map();
  const md = await fetchClusterMetadata(ctx, [...new Set(names)]);
  if (!md) return null;
  ctx.topicIds.learn(md.topics, false);
  return new Map(md.topics.map((t) => [t.name, kafkaTopicId(t.topicId)]));
}
