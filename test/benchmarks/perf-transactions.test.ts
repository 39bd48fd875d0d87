/**
 * benchmarks/lib/perf-transactions.ts and perf-produce's transactions: when a run uses them and
 * with which id and age (Kafka's rules), one producer's transactions one after another (a fake
 * clock), a lane committing after its sends and aborting after a failed one, and a run on a real
 * in-process cluster whose records all end up committed.
 */
import { expect } from 'chai';
import { checkFor } from '../helpers/check-for.js';
import { DEFAULT_TRANSACTION_DURATION_MS, TransactionCycle, transactionSettings, transactionalIdOf } from '../../benchmarks/lib/perf-transactions.js';
import { defaultProduceOptions, producerConfigOf, produceRecords, runProduce } from '../../benchmarks/perf-produce.js';
import type { Producer } from '../../src/client/producer.js';
import type { SamsaClient } from '../../src/client/samsa.js';
import type { Transaction } from '../../src/client/transaction.js';
import { TestCluster } from '../helpers/cluster.js';
import { usageErrorOf } from '../helpers/usage-errors.js';

/** A producer that logs what it is asked, its sends resolving (or failing) on the next turn. */
function fakeProducer(log: string[], failSend = -1): Pick<Producer, 'send' | 'transaction'> {
  let sends = 0;
  let txns = 0;
  const send = async (): Promise<never[]> => {
    const n = sends++;
    log.push(`send ${n}`);
    await new Promise((r) => setImmediate(r));
    if (n === failSend) throw new Error(`send ${n} failed`);
    log.push(`acked ${n}`);
    return [];
  };
  return {
    send,
    transaction: async () => {
      const t = txns++;
      log.push(`begin ${t}`);
      return { send, commit: async () => void log.push(`commit ${t}`), abort: async () => void log.push(`abort ${t}`) } as unknown as Transaction;
    },
  };
}

describe('benchmarks/perf-transactions', function () {
  this.timeout(60_000);

  it("no transactions unless an id or an age is given; Kafka's id and age otherwise", () => {
    expect(transactionSettings('', null, undefined)).to.equal(null);
    expect(transactionSettings('mine', null, undefined)).to.deep.equal({ id: 'mine', durationMs: DEFAULT_TRANSACTION_DURATION_MS });
    expect(transactionSettings('', null, 'from-config')).to.deep.equal({ id: 'from-config', durationMs: 3_000 });
    // --transactional-id decides over the configs
    expect(transactionSettings('mine', 250, 'from-config')).to.deep.equal({ id: 'mine', durationMs: 250 });
    const made = transactionSettings('', 100, undefined)!;
    expect(made.durationMs).to.equal(100);
    expect(made.id).to.match(/^performance-producer-\S{12}$/);
    expect(transactionSettings('', 100, undefined)!.id).to.not.equal(made.id);
  });

  it('refuses an age of zero or less and an empty transactional.id', () => {
    expect(usageErrorOf(() => transactionSettings('', 0, undefined)).message).to.equal('--transaction-duration-ms must be greater than zero, got 0');
    expect(usageErrorOf(() => transactionSettings('x', -5, undefined)).message).to.equal('--transaction-duration-ms must be greater than zero, got -5');
    expect(usageErrorOf(() => transactionSettings('', null, ' ')).message).to.equal('transactional.id in the producer configs is empty');
  });

  it('one id per producer: the id itself for one, -<n> after it for several; the flag over the configs', () => {
    const s = { id: 'perf-t', durationMs: 100 };
    expect(transactionalIdOf(s, 0, 1)).to.equal('perf-t');
    expect([0, 1, 2].map((i) => transactionalIdOf(s, i, 3))).to.deep.equal(['perf-t-0', 'perf-t-1', 'perf-t-2']);
    const o = defaultProduceOptions({ acks: -1, producers: 2, transaction: s, producerProps: { 'transactional.id': 'from-props' } });
    expect(producerConfigOf(o, 1)['transactional.id']).to.equal('perf-t-1');
    expect(producerConfigOf(defaultProduceOptions())).to.not.have.property('transactional.id');
  });

  it('a cycle begins a transaction when none is open, is due at its age, commits and counts it', async () => {
    const log: string[] = [];
    let now = 1_000;
    const cycle = new TransactionCycle(fakeProducer(log), 50, () => now);
    expect(cycle.due()).to.equal(false);
    expect(await cycle.commit()).to.equal(false); // none open: nothing
    const first = await cycle.open();
    expect(await cycle.open()).to.equal(first);
    now += 49;
    expect(cycle.due()).to.equal(false);
    now += 1;
    expect(cycle.due()).to.equal(true);
    expect(await cycle.commit()).to.equal(true);
    expect(cycle.due()).to.equal(false);
    expect(cycle.committed).to.equal(1);
    await cycle.open();
    await cycle.abort();
    await cycle.abort(); // none open: nothing
    expect(cycle.committed).to.equal(1);
    expect(log).to.deep.equal(['begin 0', 'commit 0', 'begin 1', 'abort 1']);
  });

  it('a lane commits once its sends are acknowledged, and aborts the transaction a send failed in', async () => {
    const log: string[] = [];
    const o = defaultProduceOptions({ topic: 't', sendSize: 10, maxInFlight: 4, transaction: { id: 't', durationMs: 60_000 } });
    const counters = { sent: 0, acked: 0, transactions: 0 };
    await produceRecords([fakeProducer(log)], o, 30, null, () => Buffer.alloc(1), counters);
    expect(log).to.deep.equal(['begin 0', 'send 0', 'send 1', 'send 2', 'acked 0', 'acked 1', 'acked 2', 'commit 0']);
    expect(counters).to.deep.equal({ sent: 30, acked: 30, transactions: 1 });

    const failed: string[] = [];
    const err = await produceRecords([fakeProducer(failed, 1)], { ...o, maxInFlight: 1 }, 50, null, () => Buffer.alloc(1), { sent: 0, acked: 0 }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('send 1 failed');
    expect(failed).to.deep.equal(['begin 0', 'send 0', 'acked 0', 'send 1', 'abort 0']);
  });

  describe('on a cluster', () => {
    let c: TestCluster;
    let samsa: SamsaClient;

    before(async () => {
      c = await TestCluster.start({ brokers: 2, brokerConfig: { 'transaction.state.log.num.partitions': 1 } });
      samsa = c.samsa();
    });
    after(async () => {
      await c?.stop();
    });

    it("a run in transactions: every record committed, a marker per partition a transaction wrote to, none left open", async () => {
      await c.client.createTopic('perf-txn', 3, 2);
      const o = defaultProduceOptions({ topic: 'perf-txn', records: 6_000, warmupRecords: 0, sendSize: 100, maxInFlight: 8, acks: -1, producers: 2, transaction: { id: 'perf-txn-test', durationMs: 5 } });
      const r = await runProduce({ client: async () => samsa }, o);
      expect(r.records).to.equal(6_000);
      expect(r.transactions).to.be.within(2, 60);
      const admin = samsa.admin();
      await admin.connect();
      try {
        const parts = [0, 1, 2].map((partition) => ({ topic: 'perf-txn', partition }));
        // the last stable offset comes to the high watermark: no transaction is left open. As in
        // Kafka, a commit returns once the coordinator has logged it, and its markers follow: a
        // marker may land between two reads, so the two are read until they agree
        const latest = await checkFor(
          async () => {
            const [hw, lso] = await Promise.all([admin.listOffsets('latest', parts), admin.listOffsets('latest', parts, { isolationLevel: 'read_committed' })]);
            return JSON.stringify(hw.map((p) => p.offset)) === JSON.stringify(lso.map((p) => p.offset)) ? hw : null;
          },
          10_000,
          50,
        );
        const offsets = latest.reduce((n, p) => n + p.offset, 0);
        const markers = offsets - 6_000;
        expect(markers).to.be.within(r.transactions!, r.transactions! * 3);
      } finally {
        await admin.disconnect();
      }
    });
  });
});
