/**
 * The rest of the consumer API: seek, pause/resume, the async iterator, topic patterns, the
 * producer's sendBatch across topics, config checked up front, check.crcs, and Wakeup (what
 * disconnect sends so as not to wait out a parked poll).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Consumer, EachMessagePayload } from '../../src/client/consumer.js';
import type { ConsumerMsg, PollResult } from '../../actors/consumer/messages.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';

const CFG = { 'session.timeout.ms': 1_500, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 };

describe('client/consumer API', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let samsa: SamsaClient;

  before(async () => {
    c = await TestCluster.start({
      brokers: 1,
      brokerConfig: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 1 },
    });
    samsa = c.samsa();
    for (const t of ['api-a', 'api-b', 'metrics.cpu', 'metrics.mem', 'other', 'api-headers']) await c.client.createTopic(t, 1, 1);
    const producer = samsa.producer();
    await producer.connect();
    const results = await producer.sendBatch({
      topicMessages: [
        { topic: 'api-a', messages: Array.from({ length: 10 }, (_, i) => ({ value: `a${i}` })) },
        { topic: 'api-b', messages: [{ value: 'b0' }] },
        { topic: 'metrics.cpu', messages: [{ value: 'cpu' }] },
        { topic: 'metrics.mem', messages: [{ value: 'mem' }] },
        { topic: 'other', messages: [{ value: 'nope' }] },
        {
          topic: 'api-headers',
          messages: [
            { key: 'k0', value: 'plain' },
            { value: 'with', headers: { trace: 't1', multi: ['x', 'y'], empty: null } },
            { value: null, headers: { only: 'one' } },
          ],
        },
      ],
    });
    expect(results.map((r) => r.topic).sort()).to.deep.equal(['api-a', 'api-b', 'api-headers', 'metrics.cpu', 'metrics.mem', 'other']);
    await producer.disconnect();
  });
  after(async () => {
    await c?.stop();
  });

  it('subscribes by pattern', async () => {
    const consumer = samsa.consumer({ groupId: 'g-pattern', ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topics: [/^metrics\./], fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 2, 20_000, 20);
    expect(seen.sort()).to.deep.equal(['cpu', 'mem']);
    await consumer.disconnect();
  });

  it("metrics(): Kafka's fetch-manager and coordinator metrics of what it read and committed, tagged with its client.id", async () => {
    const consumer = samsa.consumer({ groupId: 'g-metrics', 'client.id': 'metrics-consumer', 'enable.auto.commit': false, ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topic: 'api-a', fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: () => void seen++ });
    await checkFor(() => seen === 10, 20_000, 20);
    await consumer.commitOffsets([{ topic: 'api-a', partition: 0, offset: 10 }]);
    const metrics = await consumer.metrics();
    const v = (group: string, name: string) => {
      const m = metrics.find((x) => x.group === group && x.name === name && !('partition' in x.tags));
      expect(m, name).to.not.equal(undefined);
      expect(m!.tags).to.deep.equal({ 'client-id': 'metrics-consumer' });
      expect(m!.description).to.not.equal('');
      return m!.value;
    };
    const fetch = 'consumer-fetch-manager-metrics';
    expect(v(fetch, 'records-consumed-total')).to.equal(10);
    expect(v(fetch, 'bytes-consumed-total')).to.be.greaterThan(10 * 2);
    expect(v(fetch, 'fetch-total')).to.be.at.least(1);
    expect(v(fetch, 'records-per-request-avg')).to.be.greaterThan(0);
    expect(v(fetch, 'fetch-size-max')).to.be.at.least(v(fetch, 'bytes-consumed-total'));
    expect(v(fetch, 'fetch-latency-avg')).to.be.at.least(0);
    // taken in one batch, so 0; at most the 9 records after the first ones taken in any case
    expect(v(fetch, 'records-lag-max')).to.be.within(0, 9);
    expect(v('consumer-coordinator-metrics', 'commit-total')).to.equal(1);
    expect(v('consumer-coordinator-metrics', 'commit-latency-max')).to.be.at.least(0);
    expect(v('consumer-coordinator-metrics', 'assigned-partitions')).to.equal(1);
    // the partition's own lag, tagged with it
    const lag = metrics.find((x) => x.name === 'records-lag' && x.tags.partition === '0');
    expect(lag).to.deep.include({ group: fetch, tags: { 'client-id': 'metrics-consumer', topic: 'api-a', partition: '0' } });
    expect(lag!.value).to.equal(0);
    // joining the group was its first rebalance
    expect(v('consumer-coordinator-metrics', 'rebalance-total')).to.equal(1);
    // one join and sync (a JoinGroup answered MEMBER_ID_REQUIRED first does not count), polls
    expect([v('consumer-coordinator-metrics', 'join-total'), v('consumer-coordinator-metrics', 'sync-total')]).to.deep.equal([1, 1]);
    expect(v('consumer-metrics', 'last-poll-seconds-ago')).to.be.at.least(0);
    expect(v('consumer-metrics', 'time-between-poll-max')).to.be.at.least(0);
    expect(v('consumer-coordinator-metrics', 'rebalance-latency-max')).to.be.at.least(0);
    expect(v('consumer-coordinator-metrics', 'last-rebalance-seconds-ago')).to.be.at.least(0);
    await consumer.disconnect();
  });

  it('seeks to an offset and re-reads from there', async () => {
    const consumer = samsa.consumer({ groupId: 'g-seek', ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topic: 'api-a', fromBeginning: true });
    const seen: number[] = [];
    let sought = false;
    await consumer.run({
      eachMessage: async ({ message }: EachMessagePayload) => {
        seen.push(message.offset);
        if (message.offset === 9 && !sought) {
          sought = true;
          await consumer.seek({ topic: 'api-a', partition: 0, offset: 7 });
        }
      },
    });
    await checkFor(() => seen.length >= 13, 20_000, 20);
    expect(seen.slice(0, 13)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 7, 8, 9]);
    await consumer.disconnect();
  });

  it('pauses and resumes a partition', async () => {
    const consumer = samsa.consumer({ groupId: 'g-pause', ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topics: ['api-b'], fromBeginning: true });
    await checkFor(async () => (await consumer.describe()).assignment.length === 1, 20_000, 20);
    await consumer.pause([{ topic: 'api-b', partitions: [0] }]);
    const seen: string[] = [];
    await consumer.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await new Promise((res) => setTimeout(res, 500));
    expect(seen).to.deep.equal([]);
    await consumer.resume([{ topic: 'api-b', partitions: [0] }]);
    await checkFor(() => seen.length === 1, 20_000, 20);
    await consumer.disconnect();
  });

  it('splits a stored batch across polls by max.poll.records: every record once, in order', async () => {
    const consumer = samsa.consumer({ groupId: 'g-split', ...CFG, 'max.poll.records': 3 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'api-a', fromBeginning: true });
    const sizes: number[] = [];
    const got: string[] = [];
    await consumer.run({
      eachBatch: ({ batch }) => {
        sizes.push(batch.messages.length);
        for (const m of batch.messages) got.push(`${m.offset}:${String(m.value)}`);
      },
    });
    await checkFor(() => got.length >= 10, 20_000, 20);
    expect(got).to.deep.equal(Array.from({ length: 10 }, (_, i) => `${i}:a${i}`));
    expect(sizes).to.deep.equal([3, 3, 3, 1]);
    await consumer.disconnect();
  });

  it("what a handler keeps stays whole after its poll is let go (the client empties only its own arrays)", async () => {
    const consumer = samsa.consumer({ groupId: 'g-keep', ...CFG, 'max.poll.records': 4 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'api-a', fromBeginning: true });
    const kept: { topic: string; partition: number; messages: { offset: number; value: Buffer | null }[] }[] = [];
    await consumer.run({ eachBatch: ({ batch }) => void kept.push(batch) });
    await checkFor(() => kept.reduce((n, b) => n + b.messages.length, 0) >= 10, 20_000, 20);
    await consumer.disconnect();
    // read only now, after every poll was delivered and released
    expect(kept.map((b) => b.messages.length)).to.deep.equal([4, 4, 2]);
    expect(kept.flatMap((b) => b.messages.map((m) => `${m.offset}:${String(m.value)}`))).to.deep.equal(Array.from({ length: 10 }, (_, i) => `${i}:a${i}`));
  });

  it('rejects bad config keys and values by name when the consumer is made, before anything starts', () => {
    expect(() => samsa.consumer({ groupId: 'g-bad', 'max.poll.recordz': 3 })).to.throw(/max\.poll\.recordz: unknown consumer config key/);
    expect(() => samsa.consumer({ groupId: 'g-bad', 'check.crcs': 'maybe' })).to.throw(/check\.crcs: must be true or false/);
    expect(() => samsa.consumer({ groupId: 'g-bad', 'max.poll.records': 0 })).to.throw(/max\.poll\.records/);
    expect(() => samsa.consumer({ groupId: 'g-bad', 'isolation.level': 'READ_COMMITTED' })).to.throw(/isolation\.level: must be read_uncommitted or read_committed, got "READ_COMMITTED"/);
    expect(() => samsa.consumer({ groupId: 'g-bad', 'isolation.level': 'read_committed' })).to.not.throw();
  });

  it('check.crcs: a batch changed on disk stops a consumer with CORRUPT_MESSAGE; with check.crcs=false its records come through as stored', async () => {
    await c.client.createTopic('api-crc', 1, 1);
    const producer = samsa.producer({ acks: 'all' });
    await producer.connect();
    await producer.send({ topic: 'api-crc', messages: Array.from({ length: 5 }, (_, i) => ({ value: `crc-value-${i}` })) });
    await producer.disconnect();
    // one byte of one value changed in the segment file, under the broker (the page cache it reads from)
    const dir = path.join(c.logDir(1), 'api-crc-0');
    const segment = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.log'))!);
    const bytes = fs.readFileSync(segment);
    const at = bytes.indexOf('crc-value-3');
    expect(at).to.be.greaterThan(0);
    const fd = fs.openSync(segment, 'r+');
    try {
      fs.writeSync(fd, Buffer.from('x'), 0, 1, at);
    } finally {
      fs.closeSync(fd);
    }

    const crashes: { errorCode: number; message: string }[] = [];
    const checking = samsa.consumer({ groupId: 'g-crc-on', ...CFG });
    checking.on('crash', (e) => void crashes.push(e));
    const seenChecking: string[] = [];
    await checking.connect();
    await checking.subscribe({ topic: 'api-crc', fromBeginning: true });
    await checking.run({ eachMessage: ({ message }) => void seenChecking.push(String(message.value)) });
    await checkFor(() => crashes.length > 0, 20_000, 20);
    expect(crashes[0]!.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
    expect(crashes[0]!.message).to.match(/api-crc-0: .*CRC mismatch/);
    expect(seenChecking).to.deep.equal([]);
    await checking.disconnect();

    const trusting = samsa.consumer({ groupId: 'g-crc-off', ...CFG, 'check.crcs': false });
    const seen: string[] = [];
    await trusting.connect();
    await trusting.subscribe({ topic: 'api-crc', fromBeginning: true });
    await trusting.run({ eachMessage: ({ message }) => void seen.push(String(message.value)) });
    await checkFor(() => seen.length === 5, 20_000, 20);
    expect(seen).to.deep.equal(['crc-value-0', 'crc-value-1', 'crc-value-2', 'xrc-value-3', 'crc-value-4']);
    await trusting.disconnect();
  });

  it('iterates messages with for await', async () => {
    const consumer = samsa.consumer({ groupId: 'g-iter', ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topic: 'api-a', fromBeginning: true });
    const got: string[] = [];
    for await (const { message } of consumer) {
      got.push(String(message.value));
      if (got.length === 10) break;
    }
    expect(got).to.deep.equal(Array.from({ length: 10 }, (_, i) => `a${i}`));
    await consumer.disconnect();
  });

  it('Wakeup answers a parked poll at once with no records, so disconnect does not wait out a poll in flight', async () => {
    const consumer = samsa.consumer({ groupId: 'g-wakeup', ...CFG });
    await consumer.connect();
    await consumer.subscribe({ topic: 'other', fromBeginning: true });
    // the consumer actor as the client drives it: a poll parked for a minute
    const ref = (consumer as unknown as { ref: ActorRef<ConsumerMsg> }).ref;
    const first = await samsa.system.ask<PollResult>(ref, { type: 'Poll', maxRecords: 10, timeoutMs: 60_000, processed: [] }, { timeoutMs: 60_000 });
    // ... which the topic's one record answers once the group is joined; the next one parks
    expect(isFailure(first) ? first : first.batches.flatMap((b) => b.records.map((r) => String(r.value)))).to.deep.equal(['nope']);
    const parked = samsa.system.ask<PollResult>(ref, { type: 'Poll', maxRecords: 10, timeoutMs: 60_000, processed: [] }, { timeoutMs: 60_000 });
    samsa.system.send(ref, { type: 'Wakeup' });
    expect(await parked).to.deep.include({ type: 'PollResult', errorCode: ErrorCode.NONE, batches: [] });
    // with no poll parked, Wakeup does nothing: the next poll still waits for records
    samsa.system.send(ref, { type: 'Wakeup' });
    const short = await samsa.system.ask<PollResult>(ref, { type: 'Poll', maxRecords: 10, timeoutMs: 50, processed: [] }, { timeoutMs: 10_000 });
    expect(short).to.deep.include({ errorCode: ErrorCode.NONE, batches: [] });
    await consumer.disconnect();
  });

  it('hands every record over as a KafkaJS-shaped message (Buffers, header object) in eachMessage, eachBatch and the iterator', async () => {
    const shape = (m: { key: Buffer | null; value: Buffer | null; headers: Record<string, unknown>; offset: number }) => ({
      offset: m.offset,
      key: m.key === null ? null : (Buffer.isBuffer(m.key) ? m.key.toString() : 'not a Buffer'),
      value: m.value === null ? null : (Buffer.isBuffer(m.value) ? m.value.toString() : 'not a Buffer'),
      headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => x?.toString() ?? null) : v === null ? null : (v as Buffer).toString()])),
    });
    const expected = [
      { offset: 0, key: 'k0', value: 'plain', headers: {} },
      { offset: 1, key: null, value: 'with', headers: { trace: 't1', multi: ['x', 'y'], empty: null } },
      { offset: 2, key: null, value: null, headers: { only: 'one' } },
    ];
    // the same three records read each way, by a fresh group
    const readAll = async (groupId: string, read: (c: Consumer, seen: unknown[]) => Promise<void>): Promise<unknown[]> => {
      const c = samsa.consumer({ groupId, ...CFG });
      await c.connect();
      await c.subscribe({ topic: 'api-headers', fromBeginning: true });
      const seen: unknown[] = [];
      await read(c, seen);
      await checkFor(() => seen.length === 3, 20_000, 20);
      await c.disconnect();
      return seen;
    };
    expect(await readAll('g-headers-m', (c, seen) => c.run({ eachMessage: ({ message }) => void seen.push(shape(message)) }))).to.deep.equal(expected);
    expect(await readAll('g-headers-b', (c, seen) => c.run({ eachBatch: ({ batch }) => void seen.push(...batch.messages.map(shape)) }))).to.deep.equal(expected);
    expect(
      await readAll('g-headers-i', async (c, seen) => {
        for await (const { message } of c) {
          seen.push(shape(message));
          if (seen.length === 3) break;
        }
      }),
    ).to.deep.equal(expected);
  });
});
