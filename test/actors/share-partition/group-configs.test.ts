/**
 * A share group's share.* group configs, set over the Kafka protocol (IncrementalAlterConfigs on
 * its GROUP resource), reach the share partition manager of the partition's leader with the
 * metadata: share.auto.offset.reset=earliest makes a new share partition start at the log start,
 * where a group without it starts at the high watermark and is given nothing written before.
 * One in-process broker with a Kafka listener, its share coordinator and __share_group_state.
 */
import { expect } from 'chai';
import type { ShareFetchResult, ShareManagerMsg } from '../../../actors/share-partition/messages.js';
import { sharePartitionManagerPath } from '../../../actors/share-partition/messages.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
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
      ...fastFailover({ 'share.coordinator.state.topic.num.partitions': 1, 'share.coordinator.state.topic.replication.factor': 1 }),
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

  async function fetch(groupId: string): Promise<ShareFetchResult> {
    const r = await c.system().ask<ShareFetchResult>(
      manager(),
      { type: 'ShareFetch', groupId, memberId: 'm1', maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, partitions: [{ topic: TOPIC, topicId, partition: 0, acknowledgementBatches: [], fetch: true }] },
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
});
