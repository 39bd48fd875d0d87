/**
 * `samsa topics --describe` lines (src/cli/commands/topics.ts): Kafka's layout, with the replicas
 * being added and removed while a partition is reassigned, and the target's replication factor.
 */
import { expect } from 'chai';
import { describeLines } from '../../src/cli/commands/topics.js';
import type { TopicMetadata } from '../../src/protocol/cluster.js';

describe('cli/topics --describe', () => {
  const topic: TopicMetadata = {
    name: 't',
    topicId: 'AAECAwQFBgcICQoLDA0ODw',
    internal: false,
    config: { 'retention.ms': 1000 },
    partitions: [
      { topic: 't', partition: 0, replicas: [2, 3, 1], isr: [1, 2], leader: 1, leaderEpoch: 4, partitionEpoch: 9, addingReplicas: [2, 3], removingReplicas: [1] },
      { topic: 't', partition: 1, replicas: [1, 2], isr: [1, 2], leader: 1, leaderEpoch: 0, partitionEpoch: 0 },
    ],
  };

  it('shows adding and removing replicas of a partition being reassigned, and the target replication factor', () => {
    expect(describeLines(topic, () => true)).to.deep.equal([
      'Topic: t\tTopicId: AAECAwQFBgcICQoLDA0ODw\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: retention.ms=1000',
      '\tTopic: t\tPartition: 0\tLeader: 1\tLeaderEpoch: 4\tReplicas: 2,3,1\tIsr: 1,2\tAdding Replicas: 2,3\tRemoving Replicas: 1\tElr: \tLastKnownElr: ',
      '\tTopic: t\tPartition: 1\tLeader: 1\tLeaderEpoch: 0\tReplicas: 1,2\tIsr: 1,2\tElr: \tLastKnownElr: ',
    ]);
  });

  it("prints the eligible leader replicas and LastKnownElr as kafka-topics does (KIP-966)", () => {
    const elr: TopicMetadata = {
      ...topic,
      partitions: [
        { topic: 't', partition: 0, replicas: [1, 2, 3], isr: [1], leader: 1, leaderEpoch: 2, partitionEpoch: 3, elr: [2, 3] },
        { topic: 't', partition: 1, replicas: [1, 2], isr: [], leader: -1, leaderEpoch: 3, partitionEpoch: 4, elr: [1, 2], lastKnownElr: [2] },
      ],
    };
    expect(describeLines(elr, () => true).slice(1)).to.deep.equal([
      '\tTopic: t\tPartition: 0\tLeader: 1\tLeaderEpoch: 2\tReplicas: 1,2,3\tIsr: 1\tElr: 2,3\tLastKnownElr: ',
      '\tTopic: t\tPartition: 1\tLeader: none\tLeaderEpoch: 3\tReplicas: 1,2\tIsr: \tElr: 1,2\tLastKnownElr: 2',
    ]);
  });
});
