/**
 * KIP-848 online migration over the Kafka wire with a real classic client: a KafkaJS consumer
 * (JoinGroup / SyncGroup / Heartbeat, the classic protocol) is in a group when a member speaking
 * ConsumerGroupHeartbeat (as a Java consumer with group.protocol=consumer) joins it: the group
 * becomes a consumer group (ConsumerGroupDescribe shows both members, v1 with their types, classic
 * and consumer; ListGroups types it "consumer"; DescribeGroups v6 says it is no classic group), KafkaJS is told to rejoin, gives partitions up and goes on reading what it keeps
 * through the consumer group; when the ConsumerGroupHeartbeat member leaves, the group is a
 * classic group again (DescribeGroups) and KafkaJS rejoins it and reads every partition.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { assignedPartitions, joinHeartbeat, memberHeartbeat } from '../../helpers/consumer-group-requests.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';

const TOPIC = 'migrated';
const G = 'g-kafkajs-migration';
const RETRY = { retries: 10, initialRetryTime: 50, maxRetryTime: 500 };

describe('Kafka API: a classic KafkaJS member through online migration (KIP-848)', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let kafka: Kafka;
  let producer: Producer;
  let consumer: Consumer;
  let k: KafkaCaller;
  let topicId: string;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: TOPIC, partitions: 4, replicationFactor: 1 }], brokerConfig: { 'group.min.session.timeout.ms': 1_000 } });
    kafka = new Kafka({ clientId: 'kjs', brokers: c.bootstrap, logLevel: logLevel.NOTHING, retry: RETRY });
    producer = kafka.producer({ allowAutoTopicCreation: false, retry: RETRY });
    await producer.connect();
    k = await KafkaCaller.connect(c.bootstrap[0]!, 'kip848-member');
    const md = await checkFor(async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    topicId = md.topics[0].topicId;
  });
  after(async () => {
    await consumer?.disconnect().catch(() => undefined);
    await producer?.disconnect();
    k?.end();
    await c?.stop();
  });

  const send = (tag: string) => producer.send({ topic: TOPIC, acks: -1, messages: [0, 1, 2, 3].map((partition) => ({ partition, value: `${tag}-${partition}` })) });
  const describe848 = async () => (await k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: [G], includeAuthorizedOperations: false })).groups[0];

  it('KafkaJS stays in the group as it is upgraded to a consumer group and downgraded back, reading throughout', async () => {
    const seen: string[] = [];
    const assignments: number[][] = [];
    consumer = kafka.consumer({ groupId: G, sessionTimeout: 3_000, rebalanceTimeout: 10_000, heartbeatInterval: 100, maxWaitTimeInMs: 100, retry: RETRY });
    consumer.on(consumer.events.GROUP_JOIN, (e) => assignments.push([...(e.payload.memberAssignment[TOPIC] ?? [])].sort()));
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await send('classic');
    await checkFor(() => seen.filter((v) => v.startsWith('classic-')).length === 4, 20_000, 50);
    expect(assignments[assignments.length - 1]).to.deep.equal([0, 1, 2, 3]);

    // a consumer-protocol member joins: the live classic group becomes a consumer group
    const a = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, joinHeartbeat(G, [TOPIC]));
    expect(a.errorCode).to.equal(ErrorCode.NONE);
    expect((await k.call(ApiKeys.ListGroups, 5, { statesFilter: [], typesFilter: [] })).groups.find((g: { groupId: string }) => g.groupId === G)).to.deep.include({ groupType: 'consumer' });
    // KafkaJS is told to rejoin and gives half up; the new member then gets it
    let epoch = a.memberEpoch;
    let mine: number[] = [];
    await checkFor(async () => {
      const r = await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, memberHeartbeat(G, a.memberId, epoch, topicId, mine));
      if (r.errorCode !== ErrorCode.NONE) return false;
      epoch = r.memberEpoch;
      if (r.assignment) mine = assignedPartitions(r);
      return mine.length === 2;
    }, 20_000, 100);
    const d = await describe848();
    expect(d.groupState).to.equal('Stable');
    expect(d.members).to.have.length(2);
    const kjs = d.members.find((m: { memberId: string }) => m.memberId !== a.memberId);
    expect(kjs.clientId).to.equal('kjs');
    // ConsumerGroupDescribe v1 (KIP-1099): KafkaJS is a classic member (0), the other a consumer-protocol one (1); v0 has no such field
    const d1 = (await k.call(ApiKeys.ConsumerGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: false })).groups[0];
    const typeOf = (memberId: string) => d1.members.find((m: { memberId: string }) => m.memberId === memberId).memberType;
    expect([typeOf(kjs.memberId), typeOf(a.memberId)]).to.deep.equal([0, 1]);
    expect(d.members.map((m: { memberType: number }) => m.memberType)).to.deep.equal([-1, -1]);
    // DescribeGroups: no classic group while it is a consumer group (v6 says so; v5 answers Dead)
    expect((await k.call(ApiKeys.DescribeGroups, 6, { groups: [G], includeAuthorizedOperations: false })).groups[0]).to.deep.include({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} is not a classic group.`, groupState: 'Dead', members: [] });
    expect((await k.call(ApiKeys.DescribeGroups, 5, { groups: [G], includeAuthorizedOperations: false })).groups[0]).to.deep.include({ errorCode: ErrorCode.NONE, groupState: 'Dead', members: [] });
    // samsa's admin tells the same types
    const admin = c.handle.samsa().admin();
    await admin.connect();
    try {
      const viaAdmin = (await admin.describeConsumerGroups([G])).groups[0]!;
      expect(Object.fromEntries(viaAdmin.members.map((m) => [m.memberId, m.memberType]))).to.deep.equal({ [kjs.memberId]: 'classic', [a.memberId]: 'consumer' });
    } finally {
      await admin.disconnect();
    }
    const theirs = kjs.assignment.topicPartitions.flatMap((t: { partitions: number[] }) => t.partitions).sort();
    expect([...theirs, ...mine].sort()).to.deep.equal([0, 1, 2, 3]);
    await checkFor(() => JSON.stringify(assignments[assignments.length - 1]) === JSON.stringify(theirs), 20_000, 50);
    // KafkaJS reads its partitions through the consumer group
    await send('mixed');
    await checkFor(() => theirs.every((p: number) => seen.includes(`mixed-${p}`)), 20_000, 50);

    // the consumer-protocol member leaves: a classic group again, KafkaJS rejoins it and reads everything
    expect((await k.call(ApiKeys.ConsumerGroupHeartbeat, 0, { ...memberHeartbeat(G, a.memberId, -1, topicId, null) })).errorCode).to.equal(ErrorCode.NONE);
    expect((await describe848()).errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    await checkFor(() => JSON.stringify(assignments[assignments.length - 1]) === JSON.stringify([0, 1, 2, 3]), 20_000, 50);
    const classic = await checkFor(async () => {
      const r = (await k.call(ApiKeys.DescribeGroups, 6, { groups: [G], includeAuthorizedOperations: false })).groups[0];
      return r.groupState === 'Stable' ? r : null;
    }, 20_000, 50);
    expect(classic).to.deep.include({ errorCode: ErrorCode.NONE, errorMessage: null, protocolType: 'consumer' });
    expect(classic.members).to.have.length(1);
    await send('classic-again');
    await checkFor(() => [0, 1, 2, 3].every((p) => seen.includes(`classic-again-${p}`)), 20_000, 50);
  });
});
