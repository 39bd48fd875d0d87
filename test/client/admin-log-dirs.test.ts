/**
 * admin.describeLogDirs on a real two-broker cluster: every live broker asked for its own log dir
 * (its absolute path) with the partition logs it holds and their sizes, growing with what is
 * produced; the brokers and topics filters; a broker not registered, or gone, keeps its error in
 * its entry; a malformed request throws.
 */
import path from 'node:path';
import { expect } from 'chai';
import type { Admin, BrokerLogDirs } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

/** topic-partition -> size, over a broker's log dirs. */
function sizes(b: BrokerLogDirs): Map<string, number> {
  return new Map(b.logDirs.flatMap((d) => d.partitions.map((p) => [`${p.topic}-${p.partition}`, p.size] as const)));
}

describe('client/admin describeLogDirs', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 2 });
    admin = c.samsa('log-dirs-test').admin();
    await admin.connect();
    await c.client.createTopic('dirs', 2, 2);
    await c.client.createTopic('single', 2, 1);
    await c.client.waitForLeaders('dirs');
    await c.client.waitForLeaders('single');
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('asks every live broker for its log dir, with each partition log it holds', async () => {
    const all = await admin.describeLogDirs();
    expect(all.map((b) => b.broker)).to.deep.equal([1, 2]);
    for (const b of all) {
      expect(b).to.include({ errorCode: ErrorCode.NONE, errorMessage: null });
      expect(b.logDirs).to.have.length(1);
      const dir = b.logDirs[0]!;
      expect(dir.logDir).to.equal(path.resolve(c.logDir(b.broker)));
      expect(dir).to.include({ errorCode: ErrorCode.NONE, errorMessage: null });
      expect(dir.totalBytes).to.be.greaterThan(0);
      expect(dir.usableBytes).to.be.greaterThan(0).and.at.most(dir.totalBytes);
      const mine = dir.partitions.filter((p) => p.topic === 'dirs' || p.topic === 'single');
      expect(mine.filter((p) => p.topic === 'dirs').map((p) => p.partition)).to.deep.equal([0, 1]);
      expect(mine.filter((p) => p.topic === 'single')).to.have.length(1);
      for (const p of mine) expect(p).to.include({ offsetLag: 0, isFuture: false });
    }
    const singles = all.flatMap((b) => b.logDirs[0]!.partitions.filter((p) => p.topic === 'single').map((p) => p.partition));
    expect(singles.sort()).to.deep.equal([0, 1]);
  });

  it('sizes grow with what is produced, on every replica', async () => {
    const before = await admin.describeLogDirs({ topics: [{ topic: 'dirs' }] });
    await c.client.produce('dirs', 1, ['a', 'b', 'c']);
    await checkFor(async () => {
      const now = await admin.describeLogDirs({ topics: [{ topic: 'dirs' }] });
      return now.every((b, i) => {
        const was = sizes(before[i]!);
        const is = sizes(b);
        return is.get('dirs-1')! > was.get('dirs-1')! && is.get('dirs-1')! > 0 && is.get('dirs-0') === was.get('dirs-0');
      });
    });
  });

  it('filters by broker and by topic and partition; unknown topics have nothing', async () => {
    const two = await admin.describeLogDirs({ brokers: [2], topics: [{ topic: 'dirs', partitions: [1] }] });
    expect(two.map((b) => b.broker)).to.deep.equal([2]);
    expect(two[0]!.logDirs[0]!.partitions.map((p) => `${p.topic}-${p.partition}`)).to.deep.equal(['dirs-1']);
    const whole = await admin.describeLogDirs({ brokers: [1], topics: [{ topic: 'dirs' }, { topic: 'no-such-topic' }] });
    expect(whole[0]!.logDirs[0]!.partitions.map((p) => `${p.topic}-${p.partition}`)).to.deep.equal(['dirs-0', 'dirs-1']);
    const none = await admin.describeLogDirs({ topics: [{ topic: 'no-such-topic', partitions: [0] }] });
    for (const b of none) expect(b.logDirs[0]!.partitions).to.deep.equal([]);
  });

  it('a broker not registered keeps its error in its entry; a malformed request throws', async () => {
    const r = await admin.describeLogDirs({ brokers: [1, 9] });
    expect(r.map((b) => [b.broker, b.errorCode])).to.deep.equal([
      [1, ErrorCode.NONE],
      [9, ErrorCode.BROKER_NOT_AVAILABLE],
    ]);
    expect(r[1]!.errorMessage).to.contain('broker 9 is not registered');
    expect(r[1]!.logDirs).to.deep.equal([]);
    for (const bad of [{ brokers: ['1'] }, { brokers: 1 }, { topics: [{ partitions: [0] }] }, { topics: [{ topic: 't', partitions: [-1] }] }]) {
      const err = await admin.describeLogDirs(bad as never).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(bad)).to.be.instanceOf(SamsaError);
      expect((err as SamsaError).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    }
  });

  it('a broker that is gone answers with an error while the others answer', async () => {
    await c.killBroker(2);
    const r = await admin.describeLogDirs({ brokers: [1, 2] });
    expect(r[0]).to.include({ broker: 1, errorCode: ErrorCode.NONE });
    expect(r[1]!.broker).to.equal(2);
    expect(r[1]!.errorCode).to.not.equal(ErrorCode.NONE);
    expect(r[1]!.errorMessage).to.match(/^broker 2: /);
  });
});

describe('client/admin alterReplicaLogDirs (two log dirs per broker)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 2, logDirsPerBroker: 2 });
    admin = c.samsa('alter-log-dirs-test').admin();
    await admin.connect();
    await c.client.createTopics([{ name: 'moving', assignments: [[1, 2]] }]);
    await c.client.waitForLeaders('moving');
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('moves each replica into the dir named on its broker, with Kafka\'s errors per replica, in the order asked', async () => {
    await c.client.produce('moving', 0, ['a', 'b', 'c'], -1);
    const [b1d0, b1d1] = c.logDirs(1).map((d) => path.resolve(d)) as [string, string];
    const [, b2d1] = c.logDirs(2).map((d) => path.resolve(d)) as [string, string];
    const where = async (broker: number) => {
      const [b] = await admin.describeLogDirs({ brokers: [broker], topics: [{ topic: 'moving' }] });
      return b!.logDirs.filter((d) => d.partitions.some((p) => !p.isFuture)).map((d) => d.logDir);
    };
    expect(await where(1)).to.deep.equal([b1d0]);
    const results = await admin.alterReplicaLogDirs({
      replicas: [
        { topic: 'moving', partition: 0, broker: 1, logDir: b1d1 },
        { topic: 'moving', partition: 0, broker: 2, logDir: b2d1 },
        { topic: 'moving', partition: 0, broker: 1, logDir: path.join(c.dir, 'nowhere') },
        { topic: 'moving', partition: 5, broker: 2, logDir: b2d1 },
        { topic: 'moving', partition: 0, broker: 9, logDir: b2d1 },
      ],
    });
    expect(results.map((r) => [r.broker, r.partition, r.errorCode])).to.deep.equal([
      [1, 0, ErrorCode.NONE],
      [2, 0, ErrorCode.NONE],
      [1, 0, ErrorCode.LOG_DIR_NOT_FOUND],
      [2, 5, ErrorCode.REPLICA_NOT_AVAILABLE],
      [9, 0, ErrorCode.BROKER_NOT_AVAILABLE],
    ]);
    await checkFor(async () => (await where(1)).join() === b1d1 && (await where(2)).join() === b2d1, 15_000, 20);
    // the records moved with them, and replication goes on from there
    await c.client.produce('moving', 0, ['d'], -1);
    await checkFor(async () => (await c.client.partition('moving', 0))?.isr.length === 2, 15_000, 20);
    expect((await c.client.readAll('moving', 0)).map((r) => String(r.value))).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(await admin.alterReplicaLogDirs({ replicas: [] })).to.deep.equal([]);
    let err: unknown = null;
    await admin.alterReplicaLogDirs({ replicas: [{ topic: 'moving', partition: -1, broker: 1, logDir: b1d0 }] }).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(SamsaError);
    expect((err as SamsaError).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });
});
