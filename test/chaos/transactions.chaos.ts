/**
 * Chaos soak for transactions (npm run test:chaos; not part of npm test): three worker-thread
 * brokers (__transaction_state with 3 partitions, RF 3), a topic of three partitions (RF 3,
 * min.insync.replicas 2). A KafkaJS transactional producer runs transactions that each write one
 * record to two partitions (so a transaction spans two leaders), commits two of three and aborts
 * the third, while a random broker is killed and restarted again and again: partition leaders,
 * the transaction coordinator and the markers' targets all move under it. A producer whose
 * transaction fails is replaced by a new one with the same transactional id (which fences the
 * old one and aborts what it left open).
 *
 * At the end, once every transaction is decided (each partition's last stable offset has caught
 * up with its high watermark), the logs are read and folded as a read_committed consumer does
 * (records count at their producer's COMMIT marker, ABORT drops them):
 *  - every transaction whose commit was acknowledged is there, both records, exactly once;
 *  - no record of a transaction whose abort was acknowledged is there;
 *  - a transaction whose commit or abort failed is there whole or not at all (atomic);
 *  - no value is there twice.
 *
 * SAMSA_CHAOS_ROUNDS (default 6) sets how many kill/restart rounds run.
 */
import { expect } from 'chai';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { killAndRestartRounds } from './kill-rounds.js';
import { committedValues, openTransactions } from './txn-log-fold.js';

const ROUNDS = Number(process.env.SAMSA_CHAOS_ROUNDS ?? 6);
const TOPIC = 'chaos-txn';
const PARTITIONS = 3;
const RETRY = { initialRetryTime: 50, retries: 20, maxRetryTime: 1_000 };

type Outcome = 'committed' | 'aborted' | 'unknown';

describe('chaos: transactions through broker kills', function () {
  this.timeout(600_000);
  let c: TestCluster;

  before(async () => {
    const fast = fastFailover({
      'transaction.state.log.num.partitions': 3,
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': 200,
      'group.initial.rebalance.delay.ms': 0,
    });
    c = await TestCluster.start({ brokers: 3, transport: 'worker', kafka: true, ...fast });
  });
  after(async () => {
    await c?.stop();
  });

  it(`keeps every committed transaction whole and exactly once, and no aborted one, through ${ROUNDS} kill/restart rounds`, async () => {
    const kafka = new Kafka({ clientId: 'chaos-txn', brokers: await c.kafkaBootstrap(), logLevel: logLevel.NOTHING, retry: RETRY, requestTimeout: 5_000 });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
    await admin.disconnect();

    const outcomes = new Map<number, Outcome>();
    let producer: Producer | null = null;
    let replaced = 0;
    const fresh = async (): Promise<Producer> => {
      const p = kafka.producer({ transactionalId: 'chaos-txn', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 5_000, retry: RETRY });
      await p.connect();
      return p;
    };
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        const abort = i % 3 === 2;
        outcomes.set(i, 'unknown');
        try {
          producer ??= await fresh();
          const txn = await producer.transaction();
          try {
            await txn.send({ topic: TOPIC, messages: [{ partition: i % PARTITIONS, value: `t-${i}-a` }] });
            await txn.send({ topic: TOPIC, messages: [{ partition: (i + 1) % PARTITIONS, value: `t-${i}-b` }] });
            if (abort) await txn.abort();
            else await txn.commit();
            outcomes.set(i, abort ? 'aborted' : 'committed');
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

    await killAndRestartRounds(c, ROUNDS);
    stop = true;
    await loop;
    await (producer as Producer | null)?.disconnect().catch(() => undefined);

    // every transaction decided: the last stable offset has caught up with the high watermark
    const md = await c.client.metadata();
    await checkFor(
      async () => {
        for (let p = 0; p < PARTITIONS; p++) {
          const part = (await c.client.metadata()).topics.find((t) => t.name === TOPIC)!.partitions[p]!;
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

    // the logs, folded as read_committed does
    const seen = new Map<string, number>();
    for (let p = 0; p < PARTITIONS; p++) {
      for (const v of committedValues(await c.client.readBatches(TOPIC, p))) seen.set(v, (seen.get(v) ?? 0) + 1);
    }
    const problems: string[] = [];
    for (const [v, n] of seen) if (n > 1) problems.push(`${v} is there ${n} times`);
    const counts = { committed: 0, aborted: 0, unknown: 0 };
    for (const [i, outcome] of outcomes) {
      counts[outcome]++;
      const a = seen.has(`t-${i}-a`);
      const b = seen.has(`t-${i}-b`);
      if (outcome === 'committed' && !(a && b)) problems.push(`transaction ${i} was committed but ${a ? 'b' : b ? 'a' : 'neither record'} is missing`);
      if (outcome === 'aborted' && (a || b)) problems.push(`transaction ${i} was aborted but is there`);
      if (outcome === 'unknown' && a !== b) problems.push(`transaction ${i} (outcome unknown) is there in part: a ${a}, b ${b}`);
    }
    process.stderr.write(`  transactions: ${counts.committed} committed, ${counts.aborted} aborted, ${counts.unknown} unknown; producers replaced ${replaced} times\n`);
    expect(problems, problems.slice(0, 10).join('\n')).to.deep.equal([]);
    expect(counts.committed, 'transactions committed').to.be.greaterThan(10);
  });
});
