/**
 * benchmarks/lib/e2e-sequential.ts: perf-e2e --sequential sends one record at a time, as
 * kafka-e2e-latency does, and checks that each delivery is the record just sent, alone.
 */
import { expect } from 'chai';
import { SequentialReceiver, runSequential, sequentialBatchHandler, sequentialValue } from '../../benchmarks/lib/e2e-sequential.js';
import type { Producer } from '../../src/client/producer.js';

/** A producer whose send() is acknowledged at once and delivers the value to `receiver` (or what `deliver` makes of it) a moment later. */
function loopback(receiver: SequentialReceiver, deliver: (value: Buffer, n: number) => (Buffer | null)[] = (v) => [v]) {
  const sent: { topic: string; value: Buffer }[] = [];
  const producer = {
    async send(r: { topic: string; messages: { value: Buffer }[] }) {
      const value = r.messages[0]!.value;
      sent.push({ topic: r.topic, value });
      const n = sent.length;
      setImmediate(() => receiver.deliver(deliver(value, n)));
      return [];
    },
  } as unknown as Producer;
  return { producer, sent };
}

describe('benchmarks/e2e-sequential', () => {
  it('a value carries its sequence number in its first 8 bytes and is filled to its size', () => {
    const v = sequentialValue(3, 20);
    expect(v.length).to.equal(20);
    expect(v.readDoubleLE(0)).to.equal(3);
    expect(v.subarray(8).every((b) => b === 0x41 + 3)).to.equal(true);
    expect(sequentialValue(1, 4).length).to.equal(8); // room for the number
  });

  it('sends each record after the last arrived, and measures the records after the skipped ones', async () => {
    const receiver = new SequentialReceiver();
    const { producer, sent } = loopback(receiver);
    const seen: number[] = [];
    const r = await runSequential(producer, receiver, { topic: 't', records: 20, recordSize: 16, skip: 5, onRecord: (n) => seen.push(n) });
    expect(sent.map((s) => s.value.readDoubleLE(0))).to.deep.equal([...Array(20).keys()]);
    expect(sent.every((s) => s.topic === 't' && s.value.length === 16)).to.equal(true);
    expect(seen).to.deep.equal([...Array(20).keys()].map((i) => i + 1));
    expect(r.latency.count).to.equal(15);
    expect(r.ack.count).to.equal(15);
    // delivered after its acknowledgement
    expect(r.latency.max).to.be.at.least(r.ack.max);
  });

  it('fails the run on a record other than the one just sent, on two at once, and on bytes that differ', async () => {
    const wrong = new SequentialReceiver();
    await expectRejected(runSequential(loopback(wrong, (_v, n) => [sequentialValue(n === 3 ? 7 : n - 1, 16)]).producer, wrong, { topic: 't', records: 5, recordSize: 16, skip: 0 }), 'expected record 2, received record 7');
    const twice = new SequentialReceiver();
    await expectRejected(runSequential(loopback(twice, (v) => [v, v]).producer, twice, { topic: 't', records: 5, recordSize: 16, skip: 0 }), 'expected record 0 alone, received 2 records at once');
    const bytes = new SequentialReceiver();
    await expectRejected(runSequential(loopback(bytes, (v) => [Buffer.concat([v.subarray(0, 8), Buffer.alloc(8)])]).producer, bytes, { topic: 't', records: 5, recordSize: 16, skip: 0 }), 'expected record 0, received different bytes');
  });

  it('fails when a record does not arrive in time, and on a delivery nothing waits for', async () => {
    const receiver = new SequentialReceiver();
    await expectRejected(runSequential(loopback(receiver, () => []).producer, receiver, { topic: 't', records: 2, recordSize: 16, skip: 0, receiveTimeoutMs: 30 }), 'record 0 did not reach the consumer within 30 ms');
    const stray = new SequentialReceiver();
    sequentialBatchHandler(stray)({ batch: { messages: [{ value: sequentialValue(0, 8) }] } });
    await expectRejected(stray.expect(0, sequentialValue(0, 8), 1_000), 'received 1 record(s) while none was expected');
  });
});

async function expectRejected(p: Promise<unknown>, message: string): Promise<void> {
  let err: unknown = null;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  expect(err, 'rejected').to.be.instanceOf(Error);
  expect((err as Error).message).to.equal(message);
}
