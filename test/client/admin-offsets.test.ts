/**
 * admin.fetchTopicOffsets on a real in-process cluster: each partition's log start (low) and high
 * watermark (high), from its leader; an unknown topic is an error, not an empty answer.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { replicaPath } from '../../src/protocol/cluster.js';
import type { DeleteRecordsResult } from '../../actors/partition-replica/messages.js';
import { isFailure } from '../../src/runtime/types.js';
import { TestCluster } from '../helpers/cluster.js';

describe('client/admin fetchTopicOffsets', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 2 });
    admin = c.samsa().admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('a new topic: every partition from 0 to 0', async () => {
    await c.client.createTopic('fresh', 3, 2);
    expect(await admin.fetchTopicOffsets('fresh')).to.deep.equal([0, 1, 2].map((partition) => ({ partition, offset: 0, high: 0, low: 0 })));
  });

  it('high follows the records each partition took, low its log start', async () => {
    await c.client.createTopic('counted', 2, 2);
    await c.client.produce('counted', 0, ['a', 'b', 'c']);
    await c.client.produce('counted', 1, ['d']);
    expect(await admin.fetchTopicOffsets('counted')).to.deep.equal([
      { partition: 0, offset: 3, high: 3, low: 0 },
      { partition: 1, offset: 1, high: 1, low: 0 },
    ]);
    // the log start moves (Kafka's DeleteRecords on the leader): low follows it
    const p0 = await c.client.partition('counted', 0);
    const md = await c.client.metadata();
    const node = md.brokers.find((b) => b.brokerId === p0!.leader)!.node;
    const r = await c.system().ask<DeleteRecordsResult>({ node, path: replicaPath(p0!.leader, 'counted', 0) }, { type: 'DeleteRecords', offset: 2 });
    expect(isFailure(r) ? r.message : r.errorCode).to.equal(ErrorCode.NONE);
    expect((await admin.fetchTopicOffsets('counted'))[0]).to.deep.equal({ partition: 0, offset: 3, high: 3, low: 2 });
  });

  it('an unknown topic: UNKNOWN_TOPIC_OR_PARTITION naming it', async () => {
    const err = await admin.fetchTopicOffsets('no-such-topic').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(SamsaError);
    expect((err as SamsaError).errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect((err as SamsaError).message).to.contain('no-such-topic');
  });
});
