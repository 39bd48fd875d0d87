/**
 * A Kafka listener's map from topic ids (Kafka's form, KIP-516) to topics, for the requests that
 * name topics by id: Metadata v12, Fetch v13+, DeleteTopics v6, Produce v13 and OffsetCommit /
 * OffsetFetch v10 (topics-by-id.ts). It is filled from the metadata this broker answers with, and
 * read again from the broker whenever a request names an id it does not know (lookups waiting at
 * the same time share one read).
 *
 * An entry can outlive its topic (deleted, or deleted and created again under its name), so a
 * request acting on a resolved topic passes the topic's stored id along and the broker or the
 * controller checks it is still that topic's, or checks it against the broker's metadata first
 * (the offsets requests, whose coordinator keeps topics by name).
 */
import type { TopicMetadata } from '../../protocol/cluster.js';
import { kafkaTopicId } from '../../protocol/topic-id.js';

export interface ResolvedTopic {
  name: string;
  /** The id as the metadata stores it (what the broker and the controller compare). */
  storedId: string;
  internal: boolean;
}

export class TopicIdResolver {
  private byId = new Map<string, ResolvedTopic>();
  private loading: Promise<void> | null = null;
  /** Times the topics were read from the broker because an id was not known. */
  reloads = 0;

  /** Learns the ids of metadata's topics; `complete`: these are all the topics there are. */
  learn(topics: readonly TopicMetadata[], complete: boolean): void {
    if (complete) this.byId = new Map();
    for (const t of topics) this.byId.set(kafkaTopicId(t.topicId), { name: t.name, storedId: t.topicId, internal: t.internal });
  }

  /** The topic of an id as last learned (undefined when not known). */
  known(id: string): ResolvedTopic | undefined {
    return this.byId.get(id);
  }

  /**
   * The topics of `ids` (Kafka's form). When some are not known, every topic is read again with
   * `load` first (null: the broker did not answer; the unknown ids stay unknown).
   */
  async resolve(ids: Iterable<string>, load: () => Promise<readonly TopicMetadata[] | null>): Promise<Map<string, ResolvedTopic>> {
    const wanted = [...new Set(ids)];
    if (wanted.some((id) => !this.byId.has(id))) {
      this.loading ??= load()
        .then((topics) => {
          this.reloads++;
          if (topics) this.learn(topics, true);
        })
        .finally(() => {
          this.loading = null;
        });
      await this.loading;
    }
    const out = new Map<string, ResolvedTopic>();
    for (const id of wanted) {
      const t = this.byId.get(id);
      if (t) out.set(id, t);
    }
    return out;
  }
}
