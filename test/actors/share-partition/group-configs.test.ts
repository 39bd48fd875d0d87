/**
 * A share group's share.* group configs, set over the Kafka protocol (IncrementalAlterConfigs on
 * its GROUP resource), reach the share partition manager of the partition's leader with the
 * metadata: share.auto.offset.reset=earliest makes a new share partition start at the log start,
 * where a group without it starts at the high watermark and is given nothing written before;
 * by_duration starts at the first record written within the duration; share.isolation.level
 * read_committed never delivers a record of an aborted transaction (it is archived).
 * One in-process broker with a Kafka listener, its share coordinator and __share_group_state.
 */
import { expect } from 'chai';
import type { ShareFetchResult, ShareManagerMsg } from '../../../actors/share-partition/messages.js';
import { sharePartitionManagerPath } from '../../../actors/share-partition/messages.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches } from '../../../src/protocol/record-batch.js';
import { kafkaTopicId } from '../../../src/protocol/topic-id.js';
import { isFailure, type ActorRef } from '../../../src/runtime/types.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const GROUP = 32;
const SET = 0;
/** Kafka's ConfigSource GROUP_CONFIG. */
const GROUP_CONFIG = 8;
const TOPIC = 'share-configs';

describe('actors/share-partition: share group configs reach the share partition manager', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let k: KafkaCaller;
  let topicId: string;

  before(async () => {
    c = await TestCluster.start({
      brokers: 1,
      kafka: true,
      ...fastFailover({
        'share.coordinator.state.topic.num.partitions': 1,
        'share.coordinator.state.topic.replication.factor': 1,
        'transaction.state.log.num.partitions': 1,
        'transaction.state.log.replication.factor': 1,
        'transaction.state.log.min.isr': 1,
      }),
    });
    k = await KafkaCaller.connect((await c.kafkaBootstrap())[0]!);
    await c.client.createTopic(TOPIC, 1, 1);
    await c.client.waitForLeaders(TOPIC);
    topicId = kafkaTopicId((await c.client.metadata()).topics.find((t) => t.name === TOPIC)!.topicId);
    await c.client.produce(TOPIC, 0, ['r0', 'r1', 'r2']);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const manager = (): ActorRef<ShareManagerMsg> => ({ node: 'b1', path: sharePartitionManagerPath(1) });

  async function fetch(groupId: string, topic = TOPIC, id = topicId): Promise<ShareFetchResult> {
    const r = await c.system().ask<ShareFetchResult>(
      manager(),
      { type: 'ShareFetch', groupId, memberId: 'm1', maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, partitions: [{ topic, topicId: id, partition: 0, acknowledgementBatches: [], fetch: true }] },
      { timeoutMs: 20_000 },
    );
    if (isFailure(r)) throw new Error(r.message);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(r.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);
    return r;
  }

  /** The group's share.auto.offset.reset as this broker describes it: [value, Kafka's config source]. */
  async function described(groupId: string): Promise<[string, number]> {
    const r = await k.call(ApiKeys.DescribeConfigs, 4, { resources: [{ resourceType: GROUP, resourceName: groupId, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    const e = (r.results[0] as { configs: { name: string; value: string; configSource: number }[] }).configs.find((x) => x.name === 'share.auto.offset.reset')!;
    return [e.value, e.configSource];
  }

  it('without share.auto.offset.reset a new share partition starts at the high watermark: the records written before are not acquired', async () => {
    const r = await fetch('sg-latest');
    expect(r.partitions[0]!.acquiredRecords).to.deep.equal([]);
  });

  it('share.auto.offset.reset=earliest set with IncrementalAlterConfigs: the group acquires offsets 0-2, written before its first fetch', async () => {
    const groupId = 'sg-earliest';
    const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: GROUP, resourceName: groupId, configs: [{ name: 'share.auto.offset.reset', configOperation: SET, value: 'earliest' }] }],
      validateOnly: false,
    });
    expect(r.responses.map((x: { errorCode: number; errorMessage: string | null }) => [x.errorCode, x.errorMessage])).to.deep.equal([[ErrorCode.NONE, null]]);
    // the broker's metadata has it: its share partition manager was told in the same step
    await checkFor(async () => (await described(groupId))[1] === GROUP_CONFIG, 10_000, 20);
    expect(await described(groupId)).to.deep.equal(['earliest', GROUP_CONFIG]);
    const got = await fetch(groupId);
    expect(got.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
  });

  /** Sets the group's configs over the Kafka protocol and waits until this broker's metadata has them. */
  async function setGroupConfigs(groupId: string, configs: Record<string, string>): Promise<void> {
    const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, {
      resources: [{ resourceType: GROUP, resourceName: groupId, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: SET, value })) }],
      validateOnly: false,
    });
    expect(r.responses.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal([ErrorCode.NONE]);
    await checkFor(async () => (await described(groupId))[1] === GROUP_CONFIG, 10_000, 20);
  }

  async function newTopic(name: string): Promise<string> {
    await c.client.createTopic(name, 1, 1);
    await c.client.waitForLeaders(name);
    return kafkaTopicId((await c.client.metadata()).topics.find((t) => t.name === name)!.topicId);
  }

  const acquired = (r: ShareFetchResult) => r.partitions[0]!.acquiredRecords;

  it('share.auto.offset.reset=by_duration: the first record written within the duration; none that recent, the high watermark', async () => {
    const id = await newTopic('share-by-duration');
    await c.client.produce('share-by-duration', 0, ['old-0', 'old-1']);
    await new Promise((r) => setTimeout(r, 1_500));
    await c.client.produce('share-by-duration', 0, ['new-2', 'new-3']);
    await setGroupConfigs('sg-duration-1s', { 'share.auto.offset.reset': 'by_duration:PT1S' });
    await setGroupConfigs('sg-duration-0s', { 'share.auto.offset.reset': 'by_duration:PT0S' });
    await setGroupConfigs('sg-duration-1h', { 'share.auto.offset.reset': 'by_duration:PT1H' });
    expect(acquired(await fetch('sg-duration-1s', 'share-by-duration', id))).to.deep.equal([{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }]);
    expect(acquired(await fetch('sg-duration-0s', 'share-by-duration', id))).to.deep.equal([]);
    expect(acquired(await fetch('sg-duration-1h', 'share-by-duration', id))).to.deep.equal([{ firstOffset: 0, lastOffset: 3, deliveryCount: 1 }]);
  });

  it('share.isolation.level=read_committed: the records of an aborted transaction are archived, never delivered; read_uncommitted delivers them', async () => {
    const id = await newTopic('share-txn');
    const samsa = c.samsa();
    const producer = samsa.producer({ transactionalId: 'share-txn-producer' });
    await c.client.produce('share-txn', 0, ['plain']); // 0
    await producer.connect();
    try {
      const aborted = await producer.transaction();
      await aborted.send({ topic: 'share-txn', messages: [{ partition: 0, value: 'aborted' }] }); // 1
      await aborted.abort(); // 2: ABORT
      const committed = await producer.transaction();
      await committed.send({ topic: 'share-txn', messages: [{ partition: 0, value: 'committed' }] }); // 3
      await committed.commit(); // 4: COMMIT
    } finally {
      await producer.disconnect();
      await samsa.close();
    }
    await setGroupConfigs('sg-committed', { 'share.auto.offset.reset': 'earliest', 'share.isolation.level': 'read_committed' });
    await setGroupConfigs('sg-uncommitted', { 'share.auto.offset.reset': 'earliest' });
    const values = (r: ShareFetchResult) => {
      const p = r.partitions[0]!;
      const held = (o: number) => p.acquiredRecords.some((a) => a.firstOffset <= o && o <= a.lastOffset);
      return decodeRecordBatches(p.records).filter((b) => !b.control).flatMap((b) => b.records).filter((x) => held(x.offset)).map((x) => String(x.value));
    };
    const c1 = await checkFor(async () => {
      const r = await fetch('sg-committed', 'share-txn', id);
      return acquired(r).some((a) => a.lastOffset >= 4) ? r : null;
    }, 10_000, 50);
    expect(values(c1)).to.deep.equal(['plain', 'committed']);
    expect(acquired(c1)).to.deep.equal([
      { firstOffset: 0, lastOffset: 0, deliveryCount: 1 },
      { firstOffset: 2, lastOffset: 4, deliveryCount: 1 },
    ]);
    const u = await fetch('sg-uncommitted', 'share-txn', id);
    expect(values(u)).to.deep.equal(['plain', 'aborted', 'committed']);
  });
});
