/**
 * `samsa topics` (src/cli/commands/topics.ts): the --describe lines in Kafka's layout, with the
 * replicas being added and removed while a partition is reassigned, and the target's replication
 * factor; Kafka's --topic regular expressions, --replica-assignment, and what each describe report
 * takes a partition for. Against a cluster (topics-cluster.test.ts): the same, as a user runs it.
 */
import { expect } from 'chai';
import { UsageError } from '../../src/cli/errors.js';
import { describeLines, parseReplicaAssignment, partitionReports, topicFilter } from '../../src/cli/commands/topics.js';
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

  it("reads --topic as Kafka's filter: a regular expression the whole name must match, commas as alternatives, quotes and spaces dropped", () => {
    const f = topicFilter('rx\\..*');
    expect(['rx.a', 'rx.b', 'rxza', 'xrx.a'].filter((n) => f.test(n))).to.deep.equal(['rx.a', 'rx.b']);
    expect(['orders', 'orders-eu', 'audit'].filter((n) => topicFilter(" 'orders, audit' ").test(n))).to.deep.equal(['orders', 'audit']);
    expect(topicFilter('t').test('t2')).to.equal(false);
    expect(() => topicFilter('a(')).to.throw(UsageError, /a\( is an invalid regex/);
  });

  it("reads --replica-assignment as Kafka's tool: partitions by ',', brokers by ':'; no broker twice, one replication factor", () => {
    expect(parseReplicaAssignment('3:1,1:2, 2 :3')).to.deep.equal([[3, 1], [1, 2], [2, 3]]);
    expect(() => parseReplicaAssignment('1:1')).to.throw(UsageError, /may not contain duplicate entries: 1/);
    expect(() => parseReplicaAssignment('1:2,3')).to.throw(UsageError, /Partition 1 has different replication factor: 3/);
    expect(() => parseReplicaAssignment('1:x')).to.throw(UsageError, /'x' in partition 0 is not a broker id/);
  });

  it('takes a partition for each report as Kafka does: under-replicated, under and at min ISR, unavailable', () => {
    const p = (isr: number[], leader: number, extra: Partial<TopicMetadata['partitions'][number]> = {}) => ({ topic: 't', partition: 0, replicas: [1, 2, 3], isr, leader, leaderEpoch: 0, partitionEpoch: 0, ...extra });
    const live = new Set([1, 2, 3]);
    expect([...partitionReports(p([1, 2, 3], 1), 2, live)]).to.deep.equal([]);
    expect([...partitionReports(p([1, 2], 1), 2, live)].sort()).to.deep.equal(['at-min-isr-partitions', 'under-replicated-partitions']);
    expect([...partitionReports(p([1], 1), 2, live)].sort()).to.deep.equal(['under-min-isr-partitions', 'under-replicated-partitions']);
    expect([...partitionReports(p([3], -1), 1, live)].sort()).to.deep.equal(['at-min-isr-partitions', 'unavailable-partitions', 'under-min-isr-partitions', 'under-replicated-partitions']);
    // a leader on a broker that is not live: unavailable
    expect([...partitionReports(p([1, 2, 3], 1), 1, new Set([2, 3]))]).to.deep.equal(['unavailable-partitions']);
    // a reassignment's replicas being added do not count against the ISR
    expect([...partitionReports(p([1, 2, 3], 1, { replicas: [1, 2, 3, 4], addingReplicas: [4] }), 2, live)]).to.deep.equal([]);
  });
});
