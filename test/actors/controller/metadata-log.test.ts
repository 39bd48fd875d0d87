/**
 * The metadata log on its own (append, replay, torn tails, corruption, failed appends) and the
 * controller restarting on it: topics, partition states, brokers and their epochs come back, and
 * the controller epoch grows by one per start.
 */
import { expect } from 'chai';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { controller } from '../../../actors/controller/controller.js';
import { METADATA_LOG_FILE, MetadataLog, MetadataLogCorruptError, MetadataLogError, MetadataLogState, encodeBatch, parseLog } from '../../../actors/controller/metadata-log.js';
import type { MetadataRecord } from '../../../actors/controller/metadata-state.js';
import { CONTROLLER_PATH } from '../../../src/protocol/cluster.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { ControllerHarness } from './harness.js';

const epochRecord = (n: number): MetadataRecord => ({ type: 'ControllerEpoch', clusterId: 'c', controllerEpoch: n });
const broker = (id: number, epoch: number): MetadataRecord => ({ type: 'RegisterBroker', brokerId: id, node: `n${id}`, rack: null, incarnationId: 'i', brokerEpoch: epoch });

describe('actors/controller/metadata-log', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'samsa-metadata-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true });
  });

  const file = () => path.join(dir, METADATA_LOG_FILE);

  it('replays every appended batch in order, creating the directory', async () => {
    const nested = path.join(dir, 'a', 'b');
    const { log, replay } = await MetadataLog.open(nested);
    expect(replay).to.deep.equal({ start: { index: 0, term: 0 }, records: [], entries: [], batches: 0, truncatedBytes: 0 });
    await log.append([epochRecord(1)]);
    await log.append([broker(1, 1), broker(2, 1)]);
    await log.append([]);
    await log.close();
    const again = await MetadataLog.open(nested);
    expect(again.replay.records).to.deep.equal([epochRecord(1), broker(1, 1), broker(2, 1)]);
    expect(again.replay.batches).to.equal(2);
    await again.log.close();
    expect(again.log.status).to.equal(MetadataLogState.Closed);
  });

  it('keeps each batch\'s quorum term, reads a log written before the quorum as term 0, and truncates to a batch count durably', async () => {
    // a log as samsa wrote it before the quorum: bare arrays
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(file(), Buffer.from(encodeBatch([epochRecord(1)])));
    const { log, replay } = await MetadataLog.open(dir);
    expect(replay.entries).to.deep.equal([{ term: 0, records: [epochRecord(1)] }]);
    await log.appendEntries([
      { term: 2, records: [] },
      { term: 2, records: [broker(1, 1)] },
      { term: 3, records: [broker(2, 1)] },
    ]);
    expect(log.entryCount).to.equal(4);
    await log.truncateTo(2);
    expect(log.entryCount).to.equal(2);
    await log.appendEntries([{ term: 4, records: [broker(3, 1)] }]);
    await log.close();
    const again = await MetadataLog.open(dir);
    expect(again.replay.entries).to.deep.equal([
      { term: 0, records: [epochRecord(1)] },
      { term: 2, records: [] },
      { term: 4, records: [broker(3, 1)] },
    ]);
    expect(again.replay.records).to.deep.equal([epochRecord(1), broker(3, 1)]);
    await again.log.truncateTo(0);
    expect((await fsp.stat(file())).size).to.equal(0);
    await again.log.close();
  });

  it('compacts away the batches a snapshot holds: a start line names where the log starts, atomically, and appends carry on', async () => {
    const { log } = await MetadataLog.open(dir);
    await log.appendEntries([1, 1, 2, 2].map((term, i) => ({ term, records: [broker(i + 1, 1)] })));
    await log.compactTo({ index: 2, term: 1 });
    expect([log.start, log.entryCount]).to.deep.equal([{ index: 2, term: 1 }, 2]);
    await log.appendEntries([{ term: 3, records: [broker(5, 1)] }]);
    await log.truncateTo(1); // keeps index 3 only
    await log.close();
    const again = await MetadataLog.open(dir);
    expect(again.replay.start).to.deep.equal({ index: 2, term: 1 });
    expect(again.replay.entries).to.deep.equal([{ term: 2, records: [broker(3, 1)] }]);
    // past the end: the log is empty and starts there
    await again.log.compactTo({ index: 10, term: 4 });
    expect(again.log.entryCount).to.equal(0);
    await again.log.truncateTo(0);
    await again.log.appendEntries([{ term: 4, records: [broker(6, 1)] }]);
    await again.log.close();
    const third = await MetadataLog.open(dir);
    expect(third.replay.start).to.deep.equal({ index: 10, term: 4 });
    expect(third.replay.entries).to.deep.equal([{ term: 4, records: [broker(6, 1)] }]);
    await third.log.close();
    expect(await fsp.readdir(dir)).to.deep.equal([METADATA_LOG_FILE]);
  });

  it('drops a torn last batch (no newline) and truncates the file so later appends are clean', async () => {
    const { log } = await MetadataLog.open(dir);
    await log.append([epochRecord(1)]);
    const good = log.length;
    await log.close();
    const torn = encodeBatch([broker(1, 1)]);
    await fsp.appendFile(file(), torn.subarray(0, torn.length - 7));
    const reopened = await MetadataLog.open(dir);
    expect(reopened.replay.records).to.deep.equal([epochRecord(1)]);
    expect(reopened.replay.truncatedBytes).to.equal(torn.length - 7);
    expect((await fsp.stat(file())).size).to.equal(good);
    await reopened.log.append([broker(2, 1)]);
    await reopened.log.close();
    const third = await MetadataLog.open(dir);
    expect(third.replay.records).to.deep.equal([epochRecord(1), broker(2, 1)]);
    await third.log.close();
  });

  it('drops a last batch whose checksum does not match', async () => {
    const { log } = await MetadataLog.open(dir);
    await log.append([epochRecord(1)]);
    await log.append([broker(1, 1)]);
    await log.close();
    const bytes = await fsp.readFile(file());
    bytes[bytes.length - 5] ^= 0x01; // flip a bit inside the last JSON
    await fsp.writeFile(file(), bytes);
    const reopened = await MetadataLog.open(dir);
    expect(reopened.replay.records).to.deep.equal([epochRecord(1)]);
    expect(reopened.replay.truncatedBytes).to.be.above(0);
    await reopened.log.close();
  });

  it('refuses to open a log with a damaged batch before the end, naming the offset', async () => {
    const { log } = await MetadataLog.open(dir);
    await log.append([epochRecord(1)]);
    const firstLength = log.length;
    await log.append([broker(1, 1)]);
    await log.append([broker(2, 1)]);
    await log.close();
    const bytes = await fsp.readFile(file());
    bytes[firstLength + 12] ^= 0x20;
    await fsp.writeFile(file(), bytes);
    let caught: unknown;
    try {
      await MetadataLog.open(dir);
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(MetadataLogCorruptError);
    expect((caught as MetadataLogCorruptError).offset).to.equal(firstLength);
    expect((caught as Error).message).to.match(/checksum mismatch/);
    expect(() => parseLog('x', new TextEncoder().encode('garbage\n{}\n'))).to.throw(MetadataLogCorruptError, /missing checksum prefix/);
  });

  it('a failed append leaves the file as it was and the log usable; one that cannot be undone fails the log', async () => {
    const { log } = await MetadataLog.open(dir);
    await log.append([epochRecord(1)]);
    const before = log.length;
    type Patchable = { fh: { write: (...a: unknown[]) => Promise<unknown>; truncate: (n: number) => Promise<void> } };
    const fh = (log as unknown as Patchable).fh;
    const realWrite = fh.write.bind(fh);
    const realTruncate = fh.truncate.bind(fh);
    fh.write = async (...a: unknown[]) => {
      await realWrite(...(a as [Uint8Array, number, number]));
      throw new Error('EIO: simulated');
    };
    let err: unknown;
    await log.append([broker(1, 1)]).catch((e: unknown) => (err = e));
    expect(err).to.be.instanceOf(MetadataLogError);
    expect((err as Error).message).to.match(/EIO: simulated/);
    expect(log.status).to.equal(MetadataLogState.Open);
    expect(log.length).to.equal(before);
    expect((await fsp.stat(file())).size).to.equal(before);
    fh.write = realWrite;
    await log.append([broker(2, 1)]);
    fh.write = async () => {
      throw new Error('EIO: again');
    };
    fh.truncate = async () => {
      throw new Error('EIO: cannot truncate');
    };
    await log.append([broker(3, 1)]).catch(() => undefined);
    expect(log.status).to.equal(MetadataLogState.Failed);
    fh.write = realWrite;
    fh.truncate = realTruncate;
    await log.append([broker(4, 1)]).then(
      () => expect.fail('a failed log must refuse appends'),
      (e: Error) => expect(e.message).to.match(/is Failed/),
    );
    await log.close();
    const reopened = await MetadataLog.open(dir);
    expect(reopened.replay.records).to.deep.equal([epochRecord(1), broker(2, 1)]);
    await reopened.log.close();
  });

  describe('controller restart', () => {
    let h: ControllerHarness;
    afterEach(async () => {
      await h?.stop();
    });

    it('replays topics, partition states, brokers and epochs, with the controller epoch one higher', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2, 3], args: { metadataDir: dir } });
      await h.createTopic('t', 3, 2, { 'retention.ms': 1000 }); // [1,2] [2,3] [3,1]
      await h.createTopics([{ name: 'gone', assignments: [[3, 1]] }]);
      const alter = await h.ask<'AlterPartitionResponse'>({
        type: 'AlterPartition',
        brokerId: 2,
        brokerEpoch: 1,
        topic: 't',
        partition: 1,
        leaderEpoch: 0,
        partitionEpoch: 0,
        newIsr: [2],
      });
      expect(alter.errorCode).to.equal(0);
      await h.register(1); // epoch 2
      const shutdown = await h.ask<'ControlledShutdownResponse'>({ type: 'ControlledShutdown', brokerId: 3, brokerEpoch: 1 });
      expect(shutdown.remainingPartitions).to.deep.equal([]);
      await h.ask<'DeleteTopicsResponse'>({ type: 'DeleteTopics', topics: ['gone'] }); // broker 3 is owed a delete
      await h.ask<'CreatePartitionsResponse'>({ type: 'CreatePartitions', topics: [{ name: 't', count: 4 }] });
      const before = await h.metadata();
      expect(before.controllerEpoch).to.equal(1);

      await h.settle();
      h.clearInboxes();
      await h.restartController();
      const after = await h.metadata();
      expect(after).to.deep.equal({ ...before, controllerEpoch: 2 });
      // the brokers that were live hear about the new controller epoch at once
      await h.settle();
      expect(h.received(1, 'UpdateMetadataRequest').map((m) => m.controllerEpoch)).to.deep.equal([2]);
      expect(h.inbox(3)).to.deep.equal([]);
      // sessions start afresh; epochs are remembered
      expect((await h.heartbeat(1, 2)).errorCode).to.equal(0);
      expect((await h.heartbeat(1, 1)).errorCode).to.equal(ErrorCode.STALE_BROKER_EPOCH);
      expect((await h.register(2)).brokerEpoch).to.equal(2);
      expect((await h.createTopics([{ name: 't' }])).topics[0]!.errorCode).to.equal(ErrorCode.TOPIC_ALREADY_EXISTS);
      // the deletion owed to broker 3 (shut down) survived the restart
      h.clearInboxes();
      await h.register(3, 'inc-3-back');
      await h.settle();
      expect(h.received(3, 'StopReplicaRequest')[0]!.partitions).to.deep.equal([{ topic: 'gone', partition: 0, deletePartition: true }]);
      expect(h.received(3, 'LeaderAndIsrRequest')[0]!.controllerEpoch).to.equal(2);

      await h.restartController();
      expect((await h.metadata()).controllerEpoch).to.equal(3);
    });

    it('restarts cleanly after a torn write, and without a metadata dir starts empty at epoch 1', async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { metadataDir: dir } });
      await h.createTopic('kept', 1, 1);
      await h.controllerNode.stopActor(h.controllerRef);
      await fsp.appendFile(file(), '0badc0de [{"type":"CreateTopic","na');
      await h.startController();
      const md = await h.metadata();
      expect(md.topics.map((t) => t.name)).to.deep.equal(['kept']);
      expect(md.controllerEpoch).to.equal(2);
      await h.restartController({ metadataDir: null });
      expect(await h.metadata()).to.deep.include({ controllerEpoch: 1, topics: [], brokers: [] });
    });

    it('answers KAFKA_STORAGE_ERROR and changes nothing when the log cannot be written; fencing retries on the next check', async () => {
      h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
      await h.createTopics([{ name: 'x', assignments: [[2, 1]] }]);
      await h.settle();
      h.clearInboxes();
      const realAppend = MetadataLog.prototype.appendEntries;
      MetadataLog.prototype.appendEntries = async () => {
        throw new MetadataLogError('append to the metadata log failed: EIO: simulated');
      };
      try {
        const r = await h.createTopics([{ name: 'y', numPartitions: 1, replicationFactor: 1 }]);
        expect(r.topics[0]).to.deep.include({ name: 'y', errorCode: ErrorCode.KAFKA_STORAGE_ERROR, topicId: null });
        expect(r.topics[0]!.errorMessage).to.match(/EIO: simulated/);
        const reg = await h.register(3);
        expect(reg).to.deep.include({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR, brokerEpoch: -1 });
        await h.advanceKeeping([1], 10_000); // broker 2 is due to be fenced, but it cannot be recorded
        expect((await h.metadata()).brokers.map((b) => b.fenced)).to.deep.equal([false, false]);
      } finally {
        MetadataLog.prototype.appendEntries = realAppend;
      }
      await h.advance(1_000);
      const md = await h.metadata();
      expect(md.topics.map((t) => t.name)).to.deep.equal(['x']);
      expect(md.brokers.map((b) => [b.brokerId, b.fenced])).to.deep.equal([
        [1, false],
        [2, true],
      ]);
      expect(await h.partition('x', 0)).to.deep.include({ leader: 1, isr: [1] });
    });

    it('stops rather than serve a metadata log that belongs to another cluster', async () => {
      h = await ControllerHarness.start({ brokers: [1], args: { metadataDir: dir } });
      await h.controllerNode.stopActor(h.controllerRef);
      h.controllerNode.spawn(controller, { name: CONTROLLER_PATH.slice(1), args: { clusterId: 'someone-else', metadataDir: dir } });
      await checkFor(() => !h.controllerNode.hasActor(CONTROLLER_PATH));
    });
  });
});
