/**
 * DescribeProducers (61, v0; KIP-664, `kafka-transactions.sh describe-producers`): the producers
 * each partition's replica on this broker knows, with their epoch, last sequence and timestamp,
 * the coordinator epoch of their last marker and the first offset of their open transaction.
 * Answered by the leader or a follower, as Kafka (clients ask the leader unless they name a
 * broker); NOT_LEADER_OR_FOLLOWER where this broker hosts no replica. As Kafka: READ on the
 * topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.
 */
import type { ProducersDescription } from '../../../actors/partition-replica/messages.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { AclOperation, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { askReplicas } from './replica-asks.js';

export const describeProducers: ApiHandler<typeof ApiKeys.DescribeProducers> = async (ctx, _version, body) => {
  const allowed = body.topics.filter((t) => ctx.authorize(AclOperation.READ, ResourceType.TOPIC, t.name));
  const replies = await askReplicas<number, ProducersDescription>(ctx, allowed.map((t) => ({ name: t.name, partitions: t.partitionIndexes })), (p) => p, () => ({ type: 'DescribeProducers' }));
  const byTopic = new Map(allowed.map((t, i) => [t, replies[i]!]));
  const refused = (partitionIndex: number, errorCode: number) => ({ partitionIndex, errorCode, errorMessage: errorName(errorCode), activeProducers: [] });
  return {
    throttleTimeMs: 0,
    topics: body.topics.map((t) => {
      const row = byTopic.get(t);
      return {
        name: t.name,
        partitions: t.partitionIndexes.map((p, i) => {
          if (!row) return refused(p, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const r = row[i]!;
          if ('failed' in r) return refused(p, r.failed);
          if (r.errorCode !== ErrorCode.NONE) return { partitionIndex: p, errorCode: r.errorCode, errorMessage: r.errorMessage ?? errorName(r.errorCode), activeProducers: [] };
          return { partitionIndex: p, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers: r.producers };
        }),
      };
    }),
  };
};
