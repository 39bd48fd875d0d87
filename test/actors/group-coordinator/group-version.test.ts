/**
 * The coordinator and the finalized group.version (KIP-584) its broker tells it: at 0 the
 * consumer group protocol is off, ConsumerGroupHeartbeat and ConsumerGroupDescribe answer
 * UNSUPPORTED_VERSION (as Kafka 4.0's broker) while classic groups run on; back at 1 a consumer
 * group carries on where it was.
 */
import { expect } from 'chai';
import type { ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatResponse, ConsumerTopicInfo } from '../../../actors/group-coordinator/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { CoordinatorHarness, consumerHeartbeat } from './coordinator-harness.js';

const G = 'gv';
const T = 'AAAAAAAAAAAAAAAAAAAAAQ';

describe('actors/group-coordinator and group.version', function () {
  this.timeout(15_000);
  let h: CoordinatorHarness;

  beforeEach(async () => {
    const topics: ConsumerTopicInfo[] = [{ topicId: T, name: 't', numPartitions: 2 }];
    h = new CoordinatorHarness(1, { consumerTopicMetadata: async (names) => topics.filter((t) => names === null || names.includes(t.name)) });
    h.spawnCoordinator();
    await h.become(0, 0);
  });
  afterEach(async () => {
    await h?.stop();
  });

  const hb = (o: Parameters<typeof consumerHeartbeat>[1] = {}) => h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat(G, { subscribedTopicNames: ['t'], ...o }));
  const describe = () => h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] });
  const setGroupVersion = async (level: number) => {
    h.sys.send(h.coord, { type: 'GroupVersionChanged', level });
    await h.settle();
  };

  it('group.version 0: consumer group requests are UNSUPPORTED_VERSION, classic groups run on; 1: the consumer group carries on', async () => {
    const joined = await hb();
    expect(joined.errorCode).to.equal(ErrorCode.NONE);
    await setGroupVersion(0);
    const off = await hb({ memberId: joined.memberId!, memberEpoch: joined.memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1 });
    expect(off.errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
    expect(off.errorMessage).to.match(/group.version is 0/);
    const d = await describe();
    expect(d.groups.map((g) => [g.groupId, g.errorCode])).to.deep.equal([[G, ErrorCode.UNSUPPORTED_VERSION]]);
    // a classic group is not affected
    expect((await h.join('classic')).errorCode).to.equal(ErrorCode.NONE);

    await setGroupVersion(1);
    const back = await hb({ memberId: joined.memberId!, memberEpoch: joined.memberEpoch, subscribedTopicNames: null, rebalanceTimeoutMs: -1 });
    expect(back).to.deep.include({ errorCode: ErrorCode.NONE, memberId: joined.memberId, memberEpoch: joined.memberEpoch });
    expect((await describe()).groups[0]!.errorCode).to.equal(ErrorCode.NONE);
  });
});
