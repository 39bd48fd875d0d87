/**
 * The consumer over a partition holding transactions, on a real in-process cluster. The log is
 * written straight through the partition's leader: transactional batches with the broker's
 * Produce (a producer id from its InitProducerId), markers with its WriteTxnMarkers, as a
 * transaction coordinator would. read_committed consumers read committed transactions only and
 * stop at an open one (the last stable offset); read_uncommitted ones read every data record;
 * neither is ever handed a marker, and both move their positions and commits past them.
 */
import { expect } from 'chai';
import type { Batch, Consumer } from '../../src/client/consumer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';
import { TxnWriter } from '../helpers/txn-writer.js';

const CFG = { 'session.timeout.ms': 1_500, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100, 'auto.commit.interval.ms': 100 };
const TOPIC = 'txn';

interface Reader {
  consumer: Consumer;
  values: string[];
  batches: Pick<Batch, 'highWatermark'>[];
}

describe('client/consumer and transactions', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;
  let w: TxnWriter;
  let producerB = -1;
  const readers: Reader[] = [];

  const read = async (groupId: string, extra: Record<string, unknown>, fromBeginning = true): Promise<Reader> => {
    const consumer = samsa.consumer({ groupId, ...CFG, ...extra });
    const reader: Reader = { consumer, values: [], batches: [] };
    readers.push(reader);
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning });
    await consumer.run({
      eachBatch: ({ batch }) => {
        reader.batches.push({ highWatermark: batch.highWatermark });
        for (const m of batch.messages) reader.values.push(String(m.value));
      },
    });
    return reader;
  };

  const positionOf = async (r: Reader): Promise<number | null> => (await r.consumer.describe()).assignment[0]?.position ?? null;
  const settled = async (r: Reader, position: number): Promise<void> => {
    await checkFor(async () => (await positionOf(r)) === position, 20_000, 20);
  };
  const committedOffset = async (groupId: string): Promise<number | undefined> => {
    const admin = samsa.admin();
    await admin.connect();
    try {
      return (await admin.fetchOffsets({ groupId, topics: [TOPIC] }))[0]?.partitions[0]?.offset;
    } finally {
      await admin.disconnect();
    }
  };

  before(async () => {
    c = await TestCluster.start({
      brokers: 1,
      brokerConfig: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 1 },
    });
    samsa = c.samsa();
    await c.client.createTopic(TOPIC, 1, 1);
    w = await TxnWriter.to(c, TOPIC);
    const a = await w.producerId();
    const b = (producerB = await w.producerId());
    expect(a).to.not.equal(b);
    await c.client.produce(TOPIC, 0, ['p0', 'p1']); // 0-1
    expect(await w.produce(a, 'a-aborted-2', 'a-aborted-3')).to.equal(2); // 2-3
    await w.produce(b, 'b4'); // 4
    await w.end(a, false); // 5: ABORT a
    await c.client.produce(TOPIC, 0, ['p6']); // 6
    await w.produce(b, 'b7', 'b8'); // 7-8
    await w.end(b, true); // 9: COMMIT b
    await w.produce(a, 'a10'); // 10: a's next transaction (same epoch)
    await w.end(a, true); // 11: COMMIT a
    expect(await w.produce(b, 'b-open-12')).to.equal(12); // 12: b's transaction stays open (LSO 12, HW 13)
  });

  after(async () => {
    for (const r of readers) await r.consumer.disconnect().catch(() => undefined);
    await c?.stop();
  });

  const COMMITTED = ['p0', 'p1', 'b4', 'p6', 'b7', 'b8', 'a10'];
  const EVERY = ['p0', 'p1', 'a-aborted-2', 'a-aborted-3', 'b4', 'p6', 'b7', 'b8', 'a10', 'b-open-12'];

  it('read_committed reads committed transactions only, up to the open one; read_uncommitted reads every record; no marker either way', async () => {
    const committed = await read('g-rc', { 'isolation.level': 'read_committed' });
    const uncommitted = await read('g-ru', {});
    await settled(committed, 12);
    await settled(uncommitted, 13);
    await new Promise((res) => setTimeout(res, 300)); // nothing more comes
    expect(committed.values).to.deep.equal(COMMITTED);
    expect(uncommitted.values).to.deep.equal(EVERY);
    expect(committed.batches.at(-1)!.highWatermark, 'read_committed: the last stable offset').to.equal(12);
    expect(uncommitted.batches.at(-1)!.highWatermark, 'read_uncommitted: the high watermark').to.equal(13);
    // auto-commit: the read_committed group's offset went past the COMMIT marker at 11
    await checkFor(async () => (await committedOffset('g-rc')) === 12, 10_000, 50);
  });

  it('a read_committed consumer without committed offsets starts at the last stable offset (latest)', async () => {
    const latest = await read('g-rc-latest', { 'isolation.level': 'read_committed' }, false);
    const latestAll = await read('g-ru-latest', {}, false);
    await settled(latest, 12);
    await settled(latestAll, 13);
    expect(latest.values).to.deep.equal([]);
    expect(latestAll.values).to.deep.equal([]);
  });

  it('the open transaction commits: read_committed consumers get it, and every consumer moves past the marker alone', async () => {
    const [rc, ru, rcLatest, ruLatest] = readers as [Reader, Reader, Reader, Reader];
    await w.end(producerB, true); // 13: COMMIT b
    for (const r of readers) await settled(r, 14);
    expect(rc.values).to.deep.equal([...COMMITTED, 'b-open-12']);
    expect(rcLatest.values).to.deep.equal(['b-open-12']);
    expect(ru.values, 'the marker alone hands nothing out').to.deep.equal(EVERY);
    expect(ruLatest.values).to.deep.equal([]);
    expect(rc.batches.at(-1)!.highWatermark).to.equal(14);
    // the offsets committed (what was processed) are past the marker: no lag left
    for (const g of ['g-rc', 'g-ru', 'g-rc-latest']) await checkFor(async () => (await committedOffset(g)) === 14, 10_000, 50);
  });
});
