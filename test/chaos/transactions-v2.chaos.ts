/**
 * Chaos soak for transactions at transaction.version 2 (KIP-890 part 2; npm run test:chaos; not
 * part of npm test): three worker-thread brokers (__transaction_state with 3 partitions, RF 3), a
 * topic of three partitions (RF 3, min.insync.replicas 2), the cluster's transaction.version
 * raised to 2 before anything is produced. samsa's own transactional producer then runs
 * transactions that each write one record to two partitions (so a transaction spans two leaders),
 * commits two of three and aborts the third, while a random broker is killed and restarted again
 * and again: partition leaders, the transaction coordinator and the markers' targets all move
 * under it. At version 2 the producer sends no AddPartitionsToTxn (the leaders' brokers add the
 * partitions to the transaction) and every EndTxn (v5) bumps the producer's epoch, the markers
 * being written at the bumped epoch. The producer's time budgets are short (request.timeout.ms
 * 500, delivery.timeout.ms and max.block.ms 1000), so some transactions fail under the kills: a
 * producer whose transaction fails is replaced by a new one with the same transactional id (whose
 * InitProducerId fences the old one and aborts what it left open, at a bumped epoch).
 *
 * While a transaction is open (its records acknowledged), admin.describeTransactions tells the
 * coordinator's producer id and epoch for it (best effort: a describe that fails under the kills
 * is skipped).
 *
 * At the end, once every transaction is decided (each partition's last stable offset has caught
 * up with its high watermark), the logs are read and folded as a read_committed consumer does
 * (records count at their producer's COMMIT marker, ABORT drops them):
 *  - every transaction whose commit was acknowledged is there, both records, exactly once;
 *  - no record of a transaction whose abort was acknowledged is there;
 *  - a transaction whose commit or abort failed is there whole or not at all (atomic);
 *  - no value is there twice;
 * and, for version 2:
 *  - both records of a transaction carry the same producer id and epoch;
 *  - over the transactions one producer instance ended (committed or aborted, acknowledged), the
 *    epoch never goes backwards and moves forward by one from each to the next (EndTxn v5 bumps
 *    it once), both as the coordinator described it and as the records carry it (the two
 *    agreeing); over the whole run it only moves forward (a new producer's InitProducerId bumps
 *    it too);
 *  - a marker ending a transaction's records on a partition is at a later epoch than they are.
 *
 * SAMSA_CHAOS_ROUNDS (default 6) sets how many kill/restart rounds run.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import type { Producer } from '../../src/client/producer.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { killAndRestartRounds } from './kill-rounds.js';
import { committedValues, openTransactions, type ReadBatch } from './txn-log-fold.js';

const ROUNDS = Number(process.env.SAMSA_CHAOS_ROUNDS ?? 6);
const TOPIC = 'chaos-txn-v2';
const TXN_ID = 'chaos-txn-v2';
const PARTITIONS = 3;

type Outcome = 'committed' | 'aborted' | 'unknown';

interface TxnRun {
  outcome: Outcome;
  /** Which producer instance ran it (0 for the first, one more for each replacement). */
  instance: number;
  /** The coordinator's producer id and epoch for it while it was open, if a describe answered. */
  described: { producerId: number; producerEpoch: number } | null;
}

describe('chaos: transactions at transaction.version 2 through broker kills', function () {
  this.timeout(600_000);
  let c: TestCluster;

  before(async () => {
    const fast = fastFailover({
      'transaction.state.log.num.partitions': 3,
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': 200,
      'group.initial.rebalance.delay.ms': 0,
    });
    c = await TestCluster.start({ brokers: 3, transport: 'worker', ...fast });
  });
  after(async () => {
    await c?.stop();
  });

  it(`keeps every committed transaction whole and exactly once, no aborted one, and epochs moving forward, through ${ROUNDS} kill/restart rounds`, async () => {
    const samsa = c.samsa('chaos-txn-v2');
    await c.client.createTopic(TOPIC, PARTITIONS, 3, { 'min.insync.replicas': '2' });
    const admin = samsa.admin();
    await admin.connect();
    await admin.updateFeatures({ 'transaction.version': { maxVersionLevel: 2 } });
    await checkFor(async () => (await admin.describeFeatures()).finalizedFeatures['transaction.version']?.maxVersionLevel === 2, 10_000, 20);

    const runs = new Map<number, TxnRun>();
    let producer: Producer | null = null;
    let instance = -1;
    let replaced = 0;
    let describeMisses = 0;
    const fresh = async (): Promise<Producer> => {
      const p = samsa.producer({
        transactionalId: TXN_ID,
        transactionTimeout: 5_000,
        'max.in.flight.requests.per.connection': 1,
        // short budgets, so that some transactions fail under the kills and their producers are replaced
        'request.timeout.ms': 500,
        'delivery.timeout.ms': 1_000,
        'max.block.ms': 1_000,
        'retry.backoff.ms': 50,
      });
      await p.connect();
      instance++;
      return p;
    };
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        const abort = i % 3 === 2;
        const run: TxnRun = { outcome: 'unknown', instance: -1, described: null };
        runs.set(i, run);
        try {
          producer ??= await fresh();
          run.instance = instance;
          const txn = await producer.transaction();
          try {
            await txn.send({ topic: TOPIC, messages: [{ partition: i % PARTITIONS, value: `t-${i}-a` }] });
            await txn.send({ topic: TOPIC, messages: [{ partition: (i + 1) % PARTITIONS, value: `t-${i}-b` }] });
            run.described = await describeOpen(admin);
            if (!run.described) describeMisses++;
            if (abort) await txn.abort();
            else await txn.commit();
            run.outcome = abort ? 'aborted' : 'committed';
          } catch (err) {
            // its outcome is unknown; the next producer of the id fences this one and aborts what is open
            await txn.abort().catch(() => undefined);
            throw err;
          }
        } catch {
          const old = producer;
          producer = null;
          replaced++;
          await old?.disconnect().catch(() => undefined);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    })();

    const started = Date.now();
    await killAndRestartRounds(c, ROUNDS);
    stop = true;
    await loop;
    await (producer as Producer | null)?.disconnect().catch(() => undefined);

    // every transaction decided: the last stable offset has caught up with the high watermark
    await checkFor(
      async () => {
        const md = await c.client.metadata();
        for (let p = 0; p < PARTITIONS; p++) {
          const part = md.topics.find((t) => t.name === TOPIC)!.partitions[p]!;
          const d = await c.client.describeReplica(md, part.leader, TOPIC, p);
          if (!d || d.role !== 'Leader' || d.highWatermark !== d.logEndOffset) return false;
          // a read_committed read from the log end sees no open transaction below it
          const batches = await c.client.readBatches(TOPIC, p);
          if (openTransactions(batches).size > 0) return false;
        }
        return true;
      },
      60_000,
      200,
    );
    await admin.disconnect();

    // the logs: folded as read_committed does, and where each value was written
    const seen = new Map<string, number>();
    const written = new Map<string, { producerId: number; producerEpoch: number }[]>();
    const problems: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      const batches = await c.client.readBatches(TOPIC, p);
      for (const v of committedValues(batches)) seen.set(v, (seen.get(v) ?? 0) + 1);
      for (const b of batches) {
        if (b.control) continue;
        for (const r of b.records) {
          const v = String(r.value);
          const at = written.get(v) ?? [];
          at.push({ producerId: b.producerId, producerEpoch: b.producerEpoch });
          written.set(v, at);
        }
      }
      problems.push(...markerEpochProblems(batches, p));
    }
    for (const [v, n] of seen) if (n > 1) problems.push(`${v} is there ${n} times`);
    const counts = { committed: 0, aborted: 0, unknown: 0 };
    for (const [i, run] of runs) {
      counts[run.outcome]++;
      const a = seen.has(`t-${i}-a`);
      const b = seen.has(`t-${i}-b`);
      if (run.outcome === 'committed' && !(a && b)) problems.push(`transaction ${i} was committed but ${a ? 'b' : b ? 'a' : 'neither record'} is missing`);
      if (run.outcome === 'aborted' && (a || b)) problems.push(`transaction ${i} was aborted but is there`);
      if (run.outcome === 'unknown' && a !== b) problems.push(`transaction ${i} (outcome unknown) is there in part: a ${a}, b ${b}`);
    }

    // version 2: the epochs of the transactions that ended, per producer instance and over the run
    const logged = (i: number): { producerId: number; producerEpoch: number } | null => {
      const at = [...(written.get(`t-${i}-a`) ?? []), ...(written.get(`t-${i}-b`) ?? [])];
      if (at.length === 0) return null;
      if (at.some((x) => x.producerId !== at[0]!.producerId || x.producerEpoch !== at[0]!.producerEpoch)) {
        problems.push(`transaction ${i}'s records carry different producer ids or epochs: ${JSON.stringify(at)}`);
      }
      return at[0]!;
    };
    const ended = [...runs].filter(([, r]) => r.outcome !== 'unknown').sort(([x], [y]) => x - y);
    let steps = 0;
    const lastOfInstance = new Map<number, { i: number; logged: { producerId: number; producerEpoch: number }; described: TxnRun['described'] }>();
    let lastOfRun: { i: number; producerId: number; producerEpoch: number } | null = null;
    for (const [i, run] of ended) {
      const at = logged(i);
      if (!at) {
        problems.push(`transaction ${i} (${run.outcome}) has no records in the log`);
        continue;
      }
      if (run.described && (run.described.producerId !== at.producerId || run.described.producerEpoch !== at.producerEpoch)) {
        problems.push(`transaction ${i}: the coordinator described producer ${run.described.producerId} epoch ${run.described.producerEpoch}, its records carry ${at.producerId} epoch ${at.producerEpoch}`);
      }
      const prev = lastOfInstance.get(run.instance);
      if (prev) {
        steps++;
        if (prev.logged.producerId === at.producerId) {
          if (at.producerEpoch !== prev.logged.producerEpoch + 1) problems.push(`producer instance ${run.instance}: transaction ${i} ran at epoch ${at.producerEpoch}, not the one after transaction ${prev.i}'s ${prev.logged.producerEpoch}`);
        }
        if (prev.described && run.described && prev.described.producerId === run.described.producerId && run.described.producerEpoch !== prev.described.producerEpoch + 1) {
          problems.push(`producer instance ${run.instance}: the coordinator described transaction ${i} at epoch ${run.described.producerEpoch}, not the one after transaction ${prev.i}'s ${prev.described.producerEpoch}`);
        }
      }
      lastOfInstance.set(run.instance, { i, logged: at, described: run.described });
      if (lastOfRun && lastOfRun.producerId === at.producerId && at.producerEpoch <= lastOfRun.producerEpoch) {
        problems.push(`transaction ${i} ran at epoch ${at.producerEpoch}, not after transaction ${lastOfRun.i}'s ${lastOfRun.producerEpoch}`);
      }
      lastOfRun = { i, ...at };
    }

    const secs = ((Date.now() - started) / 1_000).toFixed(0);
    process.stderr.write(
      `  transactions (v2): ${counts.committed} committed, ${counts.aborted} aborted, ${counts.unknown} unknown; producers replaced ${replaced} times; ` +
        `epoch steps checked ${steps}, describes missed ${describeMisses}; ${secs}s\n`,
    );
    expect(problems, problems.slice(0, 10).join('\n')).to.deep.equal([]);
    expect(counts.committed, 'transactions committed').to.be.greaterThan(10);
    expect(steps, 'epoch steps checked').to.be.greaterThan(5);
  });
});

/** The coordinator's producer id and epoch of the open transaction, or null if it cannot tell in time. */
async function describeOpen(admin: Admin): Promise<{ producerId: number; producerEpoch: number } | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), 2_000)));
  const describe = admin
    .describeTransactions([TXN_ID])
    .then((r) => {
      const t = r.transactions[0];
      return t && t.errorCode === 0 && t.state === 'Ongoing' ? { producerId: t.producerId, producerEpoch: t.producerEpoch } : null;
    })
    .catch(() => null);
  try {
    return await Promise.race([describe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}



/** A marker after a transaction's records on a partition is at a later epoch than they are (version 2 bumps it). */
function markerEpochProblems(batches: readonly ReadBatch[], partition: number): string[] {
  const problems: string[] = [];
  const openEpoch = new Map<number, number>();
  for (const b of batches) {
    if (!b.transactional) continue;
    if (!b.control) {
      openEpoch.set(b.producerId, Math.max(openEpoch.get(b.producerId) ?? -1, b.producerEpoch));
      continue;
    }
    const data = openEpoch.get(b.producerId);
    openEpoch.delete(b.producerId);
    if (data !== undefined && b.producerEpoch <= data) {
      problems.push(`partition ${partition}: a marker of producer ${b.producerId} at epoch ${b.producerEpoch} ends records at epoch ${data}`);
    }
  }
  return problems;
}
