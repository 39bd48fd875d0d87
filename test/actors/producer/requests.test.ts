/**
 * The producer actor against a fake broker that holds its Produce answers: which batches go
 * into one request. Without idempotence a request carries, per partition, the ready batches
 * in order up to max.request.size (one partition entry: its batches' buffers as a list), and the
 * offsets reported per Send follow from the entry's base offset; with enable.idempotence it
 * carries one batch per partition, as Kafka's brokers require. Which batch buffers the
 * producer keeps for its next batches. And which refused batches make it ask for metadata
 * again before retrying (Kafka's InvalidMetadataException family).
 */
import { expect } from 'chai';
import type { ProducerDescription, ProducerMsg, SendResult } from '../../../actors/producer/messages.js';
import { producer } from '../../../actors/producer/producer.js';
import { parseProducerConfig } from '../../../actors/producer/producer-config.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import type { ActorRef, Failure, Message } from '../../../src/runtime/types.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { fakeBroker, type FakeBrokerMsg, type SeenPartition } from '../../helpers/fake-produce-broker.js';

const value = (tag: string, i: number, size: number) => Buffer.from(`${tag}${String(i).padStart(3, '0')}`.padEnd(size, '.'));

describe('actors/producer: batches per request, batch buffers', function () {
  this.timeout(15_000);
  let sys: ActorSystem;
  let broker: ActorRef<FakeBrokerMsg>;
  let n = 0;

  beforeEach(() => {
    sys = new ActorSystem({ nodeId: 'n1', strictSerialization: true });
    broker = sys.spawn(fakeBroker, { name: 'broker-1' });
  });
  afterEach(async () => {
    await sys.stop();
  });

  const spawnProducer = (config: Record<string, unknown>): ActorRef<ProducerMsg> =>
    sys.spawn(producer, { name: `p${++n}`, args: { bootstrap: [{ brokerId: 1, node: 'n1' }], config: { 'linger.ms': 0, 'max.in.flight.requests.per.connection': 1, ...config } } });

  const seen = async () => (await sys.ask<Message & { seen: SeenPartition[][]; held: number; metadataAsks: number }>(broker, { type: 'Seen' }, { timeoutMs: 5_000 })) as { seen: SeenPartition[][]; held: number; metadataAsks: number };

  /** Sends `count` records of `size` bytes to partition `partition`; the answer comes once the broker releases. */
  const send = (p: ActorRef<ProducerMsg>, tag: string, count: number, size: number, partition = 0) =>
    sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages: Array.from({ length: count }, (_, i) => ({ value: value(tag, i, size), partition })) }] }, { timeoutMs: 10_000 }) as Promise<
      SendResult | Failure
    >;

  /** Releases held requests until every send has its answer. */
  async function settle<T>(pending: Promise<T>[]): Promise<T[]> {
    let done = false;
    const all = Promise.all(pending).finally(() => (done = true));
    while (!done) {
      sys.send(broker, { type: 'Release' });
      await new Promise((r) => setTimeout(r, 5));
    }
    return all;
  }

  for (const [name, errorCode] of [
    ['NOT_LEADER_OR_FOLLOWER', ErrorCode.NOT_LEADER_OR_FOLLOWER],
    ['KAFKA_STORAGE_ERROR (the leader\'s log dir failed)', ErrorCode.KAFKA_STORAGE_ERROR],
  ] as const) {
    it(`a batch answered ${name} is retried after the metadata is asked again`, async () => {
      const p = spawnProducer({ 'batch.size': 1024, 'retry.backoff.ms': 1 });
      // connected: its first metadata is in
      await checkFor(async () => ((await seen()).metadataAsks >= 1 ? true : null));
      const before = (await seen()).metadataAsks;
      sys.send(broker, { type: 'FailNext', errorCode });
      const [r] = (await settle([send(p, 'a', 2, 10)])) as SendResult[];
      expect(r!.errorCode).to.equal(0);
      expect(r!.results[0]!.baseOffset).to.equal(0);
      expect((await seen()).metadataAsks).to.be.greaterThan(before);
    });
  }

  it('a batch answered with a retriable error that says nothing of the leader is retried without asking the metadata again', async () => {
    const p = spawnProducer({ 'batch.size': 1024, 'retry.backoff.ms': 1 });
    await checkFor(async () => ((await seen()).metadataAsks >= 1 ? true : null));
    const before = (await seen()).metadataAsks;
    sys.send(broker, { type: 'FailNext', errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    const [r] = (await settle([send(p, 'a', 2, 10)])) as SendResult[];
    expect(r!.errorCode).to.equal(0);
    expect((await seen()).metadataAsks).to.equal(before);
  });

  it('puts the ready batches of a partition into one request, in order, and reports offsets from its base offset', async () => {
    const p = spawnProducer({ 'batch.size': 1024 });
    // the first send goes out alone and is held: the next send's batches queue behind it
    const first = send(p, 'a', 1, 10);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    const second = send(p, 'b', 20, 200);
    const third = send(p, 'c', 3, 200, 1);
    const [r1, r2, r3] = (await settle([first, second, third])) as SendResult[];
    const requests = (await seen()).seen;
    // 20 records of ~210 bytes in 1 KiB batches: the full batches of partition 0 go together in
    // the next request, in order, beside partition 1's; the batch still open goes after them
    const [p0, p1] = requests[1]!;
    expect(p0!.partition).to.equal(0);
    expect(p0!.batchSizes.length).to.be.greaterThan(1);
    expect(p0!.batchSizes.every((k) => k === 4)).to.equal(true);
    // one buffer per batch, not copied into one on the client
    expect(p0!.parts).to.equal(p0!.batchSizes.length);
    expect(p1!.partition).to.equal(1);
    const values = (partition: number) => requests.slice(1).flatMap((req) => req.filter((e) => e.partition === partition).flatMap((e) => e.values));
    expect(values(0)).to.deep.equal(Array.from({ length: 20 }, (_, i) => value('b', i, 200).toString()));
    expect(values(1)).to.deep.equal(Array.from({ length: 3 }, (_, i) => value('c', i, 200).toString()));
    expect(r1!.results).to.deep.equal([{ topic: 't', partition: 0, errorCode: 0, baseOffset: 0, logAppendTime: -1 }]);
    expect(r2!.errorCode).to.equal(0);
    expect(r2!.results).to.deep.equal([{ topic: 't', partition: 0, errorCode: 0, baseOffset: 1, logAppendTime: -1 }]);
    expect(r3!.results).to.deep.equal([{ topic: 't', partition: 1, errorCode: 0, baseOffset: 0, logAppendTime: -1 }]);
  });

  it('reports each send\'s offset from the batch it starts in, not from the entry', async () => {
    const p = spawnProducer({ 'batch.size': 1024 });
    const first = send(p, 'a', 1, 10);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    // three sends of 4 records each: batches of 4, queued together behind the first request
    const later = ['b', 'c', 'd'].map((tag) => send(p, tag, 4, 220));
    const results = (await settle([first, ...later])) as SendResult[];
    const requests = (await seen()).seen;
    expect(requests[1]![0]!.batchSizes.length).to.be.greaterThan(1);
    expect(results.map((r) => r.results[0]!.baseOffset)).to.deep.equal([0, 1, 5, 9]);
  });

  /**
   * One record sent and held at the broker, then 20 records of 200 bytes for partition 0 queued
   * behind it; everything answered. Returns the requests after the first and the second send's result.
   */
  async function twentyBehindHeld(p: ActorRef<ProducerMsg>): Promise<{ later: SeenPartition[][]; result: SendResult }> {
    const first = send(p, 'a', 1, 10);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    const [, result] = (await settle([first, send(p, 'b', 20, 200)])) as SendResult[];
    return { later: (await seen()).seen.slice(1), result: result! };
  }
  const twenty = Array.from({ length: 20 }, (_, i) => value('b', i, 200).toString());

  it('keeps a request within max.request.size and the records in order across requests', async () => {
    const { later, result } = await twentyBehindHeld(spawnProducer({ 'batch.size': 1024, 'max.request.size': 2500 }));
    expect(later.length).to.be.greaterThan(2);
    for (const req of later) expect(req.reduce((k, e) => k + e.bytes, 0)).to.be.at.most(2500);
    expect(later.some((req) => req[0]!.batchSizes.length > 1)).to.equal(true);
    expect(later.flatMap((req) => req.flatMap((e) => e.values))).to.deep.equal(twenty);
    expect(result.results[0]!.baseOffset).to.equal(1);
  });

  it('sends one batch per partition per request with enable.idempotence', async () => {
    const { later, result } = await twentyBehindHeld(spawnProducer({ 'batch.size': 1024, 'enable.idempotence': true, acks: 'all' }));
    expect(later.length).to.be.greaterThan(2);
    for (const req of later) for (const e of req) expect(e.batchSizes).to.have.length(1);
    expect(later.flatMap((req) => req.flatMap((e) => e.values))).to.deep.equal(twenty);
    expect(result.results[0]!.baseOffset).to.equal(1);
  });

  // ---- keyless records ----

  /** 12 records of ~210 bytes (four fill a 1 KiB batch), keyless or with one key, sent behind a held request. */
  async function twelveRecords(p: ActorRef<ProducerMsg>, keyed: boolean): Promise<SeenPartition[]> {
    const first = send(p, 'a', 1, 10);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    const messages = Array.from({ length: 12 }, (_, i) => (keyed ? { key: Buffer.from('same'), value: value('k', i, 200) } : { value: value('k', i, 200) }));
    const [, r] = (await settle([first, sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages }] }, { timeoutMs: 10_000 })])) as SendResult[];
    expect(r!.errorCode).to.equal(0);
    return (await seen()).seen.slice(1).flat();
  }

  it('moves a keyless record that does not fit to the next sticky partition, leaving no batch of one behind', async () => {
    // partitioner.sticky.bytes = batch.size: Kafka's grain, a run of one batch
    const entries = await twelveRecords(spawnProducer({ 'batch.size': 1024, 'partitioner.sticky.bytes': 1024 }), false);
    // the record that closes a full batch starts the next partition's batch: three batches of 4
    // (before, each full batch left its overflow record in a batch of its own on the old partition)
    expect(entries.flatMap((e) => e.batchSizes)).to.deep.equal([4, 4, 4]);
    const partitions = new Set(entries.map((e) => e.partition));
    expect(partitions.size).to.equal(2);
    const all = entries.flatMap((e) => e.values).sort();
    expect(all).to.deep.equal(Array.from({ length: 12 }, (_, i) => value('k', i, 200).toString()).sort());
  });

  /** The partition of each batch, in the order the records were placed (values carry the order). */
  const runOfPartitions = (entries: SeenPartition[]) =>
    entries
      .flatMap((e) => {
        const out: { partition: number; first: string }[] = [];
        let at = 0;
        for (const k of e.batchSizes) {
          out.push({ partition: e.partition, first: e.values[at]! });
          at += k;
        }
        return out;
      })
      .sort((a, b) => a.first.localeCompare(b.first))
      .map((x) => x.partition);

  it('keeps keyless records on one partition for a run of partitioner.sticky.bytes, then moves on', async () => {
    // 1 KiB batches of 4 records; runs of 2 KiB: two full batches, then the next partition
    const entries = await twelveRecords(spawnProducer({ 'batch.size': 1024, 'partitioner.sticky.bytes': 2048 }), false);
    expect(entries.flatMap((e) => e.batchSizes)).to.deep.equal([4, 4, 4]);
    const order = runOfPartitions(entries);
    expect(order[0]).to.equal(order[1]);
    expect(order[2]).to.not.equal(order[0]);
    // the two batches of the run went in one request entry: the leader appends them at once
    expect(entries.some((e) => e.batchSizes.length === 2)).to.equal(true);
  });

  it('by default runs 128 KiB of keyless batches into one partition', async () => {
    expect(parseProducerConfig({}).stickyBytes).to.equal(128 * 1024);
    const entries = await twelveRecords(spawnProducer({ 'batch.size': 1024 }), false);
    expect(entries.flatMap((e) => e.batchSizes)).to.deep.equal([4, 4, 4]);
    expect(new Set(entries.map((e) => e.partition)).size).to.equal(1);
  });

  it('ends a run with a batch sent before it was full (linger.ms was up)', async () => {
    // random 0: partition 0 first, then 1, then 0; sends of one 200-byte record, each answered
    // before the next, go out as batches of ~280 bytes: each moves the sticky partition on
    const p = sys.spawn(producer, {
      name: `p${++n}`,
      args: { bootstrap: [{ brokerId: 1, node: 'n1' }], random: () => 0, config: { 'linger.ms': 0, 'batch.size': 4096 } },
    });
    const partitions: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [r] = (await settle([sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages: [{ value: value('l', i, 200) }] }] }, { timeoutMs: 10_000 })])) as SendResult[];
      expect(r!.errorCode).to.equal(0);
      partitions.push(r!.results[0]!.partition);
    }
    expect(partitions).to.deep.equal([0, 1, 0, 1, 0, 1]);
  });

  it('sends keyless records to the new sticky partition once a record for the sticky one filled its batch', async () => {
    // random 0: the sticky partition is 0 first, then 1 once a batch of partition 0 completes
    const p = sys.spawn(producer, {
      name: `p${++n}`,
      args: { bootstrap: [{ brokerId: 1, node: 'n1' }], random: () => 0, config: { 'linger.ms': 0, 'max.in.flight.requests.per.connection': 1, 'batch.size': 1024, 'partitioner.sticky.bytes': 1024 } },
    });
    const first = send(p, 'a', 1, 10, 1);
    await checkFor(async () => ((await seen()).held === 1 ? true : null));
    // two keyless records, two for partition 0, two keyless again; the fourth record fills the
    // batch to exactly batch.size (61 bytes of batch and 22 of each record, as the producer
    // counts them), so the batch closes as it is appended to, not when the next record misses
    const sizes = [219, 219, 219, 218];
    const messages = [
      { value: value('k', 0, sizes[0]!) },
      { value: value('k', 1, sizes[1]!) },
      { value: value('e', 0, sizes[2]!), partition: 0 },
      { value: value('e', 1, sizes[3]!), partition: 0 },
      { value: value('k', 2, 200) },
      { value: value('k', 3, 200) },
    ];
    const [, r] = (await settle([first, sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages }] }, { timeoutMs: 10_000 })])) as SendResult[];
    expect(r!.errorCode).to.equal(0);
    const entries = (await seen()).seen.slice(1).flat();
    const on = (partition: number) => entries.filter((e) => e.partition === partition).flatMap((e) => e.values);
    expect(on(0)).to.deep.equal(messages.slice(0, 4).map((m) => String(m.value)));
    expect(on(1)).to.deep.equal([value('k', 2, 200), value('k', 3, 200)].map(String));
  });

  it('keeps keyed records on their key\'s partition when a batch fills', async () => {
    const entries = await twelveRecords(spawnProducer({ 'batch.size': 1024 }), true);
    expect(new Set(entries.map((e) => e.partition)).size).to.equal(1);
    expect(entries.flatMap((e) => e.values)).to.deep.equal(Array.from({ length: 12 }, (_, i) => value('k', i, 200).toString()));
    expect(entries.flatMap((e) => e.batchSizes)).to.deep.equal([4, 4, 4]);
  });

  // ---- batch buffers ----

  const freeBuffers = async (p: ActorRef<ProducerMsg>) => ((await sys.ask<ProducerDescription>(p, { type: 'DescribeProducer' }, { timeoutMs: 5_000 })) as ProducerDescription).freeBatchBuffers;

  /** `sends` sends of 4 records of 220 bytes (a 1 KiB batch each) to partition 0, all answered. */
  async function sendBatches(p: ActorRef<ProducerMsg>, tag: string, sends: number): Promise<void> {
    const results = await settle(
      Array.from({ length: sends }, (_, k) =>
        sys.ask<SendResult>(p, { type: 'Send', topics: [{ topic: 't', messages: Array.from({ length: 4 }, (_, i) => ({ value: value(`${tag}${k}-`, i, 220), partition: 0 })) }] }, { timeoutMs: 10_000 }),
      ),
    );
    for (const r of results) expect((r as SendResult).errorCode).to.equal(0);
  }


  it('keeps the buffers of answered batches and writes the next batches into them', async () => {
    const p = spawnProducer({ acks: 1, 'batch.size': 1024 });
    await sendBatches(p, 's', 6);
    const free = await freeBuffers(p);
    expect(free).to.be.greaterThan(0);
    // the next batches take buffers from the pool and give them back once answered
    await sendBatches(p, 'm', 3);
    expect(await freeBuffers(p)).to.equal(free);
    // and what they carried is intact: every record, in order
    const seen = (await sys.ask<Message & { seen: SeenPartition[][] }>(broker, { type: 'Seen' }, { timeoutMs: 5_000 })) as { seen: SeenPartition[][] };
    const values = seen.seen.flatMap((req) => req.flatMap((e) => e.values));
    expect(values.slice(-12)).to.deep.equal([0, 1, 2].flatMap((k) => [0, 1, 2, 3].map((i) => value(`m${k}-`, i, 220).toString())));
  });

  it('does not reuse the buffers of batches sent with acks 0 (a mailbox on this node may still hold them)', async () => {
    const p = spawnProducer({ acks: 0, 'batch.size': 1024 });
    await sendBatches(p, 's', 6);
    expect(await freeBuffers(p)).to.equal(0);
  });
});
