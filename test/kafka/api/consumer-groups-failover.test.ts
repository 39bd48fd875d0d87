/**
 * A KIP-848 consumer group through the loss of its coordinator, over the Kafka wire: the broker
 * leading the group's __consumer_offsets partition dies mid-reconciliation, another broker takes
 * the partition over, replays the group's records and answers the members where they were: the
 * same member ids and epochs, the partition still moving only once revoked, the member subscribed
 * with a regular expression (v1) still subscribed with it, resolved again without a rebalance.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';
import { assignedPartitions, joinHeartbeat, memberHeartbeat } from '../../helpers/consumer-group-requests.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const TOPIC = 'kip848-fo';
const G = 'fo-group';

describe('Kafka API: a KIP-848 consumer group through a coordinator failover', function () {
  this.timeout(60_000);
  let c: TestCluster;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 3 }) });
    await c.client.createTopic(TOPIC, 4, 3);
    await c.client.waitForLeaders(TOPIC);
  });
  after(async () => {
    for (const k of open) k.end();
    await c?.stop();
  });

  async function connect(endpoint: string): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint);
    open.push(k);
    return k;
  }

  /** The group's coordinator (its node id and a connection), asking a live broker. */
  async function coordinator(notNode = -1): Promise<{ nodeId: number; k: KafkaCaller }> {
    const any = await connect((await c.kafkaBootstrap())[0]!);
    const found = await checkFor(async () => {
      const r = await any.call(ApiKeys.FindCoordinator, 2, { key: G, keyType: 0 });
      return r.errorCode === ErrorCode.NONE && r.nodeId !== notNode ? r : null;
    }, 30_000, 50);
    return { nodeId: found.nodeId, k: await connect(`${found.host}:${found.port}`) };
  }

  it('the new coordinator continues the group: same members and epochs, the revoked partition then moves', async () => {
    const any = await connect((await c.kafkaBootstrap())[0]!);
    const md = await any.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const topicId = md.topics[0].topicId as string;
    const join = joinHeartbeat(G, [TOPIC], { rebalanceTimeoutMs: 60_000 });
    const beat = (memberId: string, memberEpoch: number, owned: number[]) => memberHeartbeat(G, memberId, memberEpoch, topicId, owned);
    const parts = assignedPartitions;

    const first = await coordinator();
    const a = await checkFor(async () => {
      const r = await first.k.call(ApiKeys.ConsumerGroupHeartbeat, 0, join);
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    // b subscribes with a regular expression (ConsumerGroupHeartbeat v1)
    const b = await first.k.call(ApiKeys.ConsumerGroupHeartbeat, 1, joinHeartbeat(G, [], { rebalanceTimeoutMs: 60_000, subscribedTopicRegex: 'kip848-f.*' }));
    expect(b.memberEpoch).to.equal(2);
    const a2 = await first.k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(a.memberId, 1, [0, 1, 2, 3]));
    const kept = parts(a2);
    expect(kept).to.have.length(2);

    await c.killBroker(first.nodeId);
    const second = await coordinator(first.nodeId);
    expect(second.nodeId).to.not.equal(first.nodeId);

    // b asks the new coordinator: known, at epoch 2, still nothing (a has not revoked)
    const b2 = await checkFor(async () => {
      const r = await second.k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(b.memberId, 2, []));
      return r.errorCode === ErrorCode.NOT_COORDINATOR || r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? null : r;
    }, 30_000, 50);
    expect(b2.errorCode).to.equal(ErrorCode.NONE);
    expect(b2.memberEpoch).to.equal(2);
    expect(parts(b2)).to.deep.equal([]);
    // a revokes on the new coordinator and reaches epoch 2; then b gets the rest
    const a3 = await second.k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(a.memberId, 1, kept));
    expect(a3).to.deep.include({ errorCode: ErrorCode.NONE, memberEpoch: 2 });
    const b3 = await second.k.call(ApiKeys.ConsumerGroupHeartbeat, 0, beat(b.memberId, 2, []));
    expect(parts(b3)).to.deep.equal([0, 1, 2, 3].filter((p) => !kept.includes(p)));
    const d = await second.k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: [G], includeAuthorizedOperations: false });
    expect(d.groups[0]).to.deep.include({ errorCode: 0, groupState: 'Stable', groupEpoch: 2, assignmentEpoch: 2 });
    expect(d.groups[0].members.find((m: { memberId: string }) => m.memberId === b.memberId).subscribedTopicRegex).to.equal('kip848-f.*');
  });
});
