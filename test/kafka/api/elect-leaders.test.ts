/**
 * ElectLeaders over the Kafka protocol (v0-v2), on a cluster whose controller leaves balancing to
 * the operator (auto.leader.rebalance.enable=false): after a broker died and came back in sync,
 * a PREFERRED election gives it its partitions back; per-partition errors are Kafka's; an unknown
 * election type is refused at the top level.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

type PartitionResult = { partitionId: number; errorCode: number; errorMessage: string | null };
type ElectResult = { topic: string; partitionResult: PartitionResult[] };

describe('Kafka API: ElectLeaders', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...fastFailover({}, { 'auto.leader.rebalance.enable': false }) });
    await c.client.createTopic('el', 2, 3);
    await c.client.waitForLeaders('el');
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const codes = (results: ElectResult[]) => results.map((t) => [t.topic, t.partitionResult.map((p) => [p.partitionId, p.errorCode])]);

  it('PREFERRED gives a returning broker its partitions back once it is in sync; v0 means PREFERRED', async () => {
    const p0 = (await c.client.partition('el', 0))!;
    const victim = p0.replicas[0]!;
    await c.killBroker(victim);
    await c.client.waitForLeaderOtherThan('el', 0, victim);
    const live = (await c.kafkaBootstrap())[0]!;
    k = await KafkaCaller.connect(live);
    const away = await k.call(ApiKeys.ElectLeaders, 2, { electionType: 0, topicPartitions: [{ topic: 'el', partitions: [0] }], timeoutMs: 5000 });
    expect(away.errorCode).to.equal(ErrorCode.NONE);
    expect(codes(away.replicaElectionResults)).to.deep.equal([['el', [[0, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE]]]]);
    expect(away.replicaElectionResults[0].partitionResult[0].errorMessage).to.match(/preferred replica/);

    await c.startBroker(victim);
    await checkFor(async () => (await c.client.partition('el', 0))?.isr.includes(victim), 20_000, 50);
    // nothing moves by itself: balancing is off
    expect((await c.client.partition('el', 0))!.leader).to.not.equal(victim);
    const v0 = await k.call(ApiKeys.ElectLeaders, 0, { topicPartitions: [{ topic: 'el', partitions: [0, 1] }], timeoutMs: 5000 });
    expect(codes(v0.replicaElectionResults)).to.deep.equal([['el', [[0, ErrorCode.NONE], [1, ErrorCode.ELECTION_NOT_NEEDED]]]]);
    const p = await checkFor(async () => {
      const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'el' }], allowAutoTopicCreation: false });
      const x = md.topics[0].partitions.find((q: { partitionIndex: number }) => q.partitionIndex === 0);
      return x.leaderId === victim ? x : null;
    }, 10_000, 50);
    expect(p.leaderEpoch).to.equal(p0.leaderEpoch + 2);
  });

  it('null partitions answers only where an election was needed; UNCLEAN needs a leaderless partition', async () => {
    k ??= await KafkaCaller.connect((await c.kafkaBootstrap())[0]!);
    const all = await k.call(ApiKeys.ElectLeaders, 1, { electionType: 0, topicPartitions: null, timeoutMs: 5000 });
    expect(all.errorCode).to.equal(ErrorCode.NONE);
    expect(all.replicaElectionResults.find((t: ElectResult) => t.topic === 'el').partitionResult).to.deep.equal([]);
    const unclean = await k.call(ApiKeys.ElectLeaders, 2, { electionType: 1, topicPartitions: [{ topic: 'el', partitions: [1] }, { topic: 'none', partitions: [0] }], timeoutMs: 5000 });
    expect(codes(unclean.replicaElectionResults)).to.deep.equal([
      ['el', [[1, ErrorCode.ELECTION_NOT_NEEDED]]],
      ['none', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
    ]);
  });

  it('refuses an unknown election type at the top level', async () => {
    k ??= await KafkaCaller.connect((await c.kafkaBootstrap())[0]!);
    const r = await k.call(ApiKeys.ElectLeaders, 1, { electionType: 7, topicPartitions: [{ topic: 'el', partitions: [0] }], timeoutMs: 5000 });
    expect(r.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(r.replicaElectionResults).to.deep.equal([]);
  });
});
