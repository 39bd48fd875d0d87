/**
 * Chaos soak (npm run test:chaos; not part of npm test): three worker-thread brokers, a topic of
 * six partitions (RF 3, min.insync.replicas 2). An idempotent KafkaJS producer, samsa's own
 * producer and a KafkaJS consumer group run while a random broker is killed and restarted again
 * and again. The consumer runs on a worker thread of its own (KafkaJsGroupMember): when KafkaJS
 * 2.2's fetch loop stalls it (below), it is replaced by a new member of the group, as a hung
 * consumer process would be, and the soak prints how often that happened. At the end every
 * record either producer was told is acknowledged reaches the group
 * (at least once, as a group consumer promises), the idempotent producer's records are in the log
 * exactly once and in send order per partition, and every broker is back in every ISR. The
 * controller balances leaders every second, so a returning broker also takes its preferred
 * partitions back while the producers write.
 *
 * A second soak does the same to a compacted topic (small segments, the cleaner every 100 ms)
 * written by samsa's producer with 40 keys: at the end every key's latest record, read from the
 * leaders and again from each replica once it leads, is its last acknowledged value or one sent
 * after it, never an older one, and every value read is one that was sent.
 *
 * A third soak moves the partitions of a topic between random replica sets (one to three
 * brokers) every half second meanwhile, with samsa's producer writing acks=all: at the end every
 * move has finished, each partition sits on the last target it was given, every acknowledged
 * record is there, and a broker holds a partition's files exactly when it is one of its replicas.
 *
 * SAMSA_CHAOS_ROUNDS (default 6) sets how many kill/restart rounds run; CHAOS_KAFKAJS_LOG=1 shows
 * KafkaJS's own log (its errors, retries and group joins).
 */
import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import fs from 'node:fs';
import path from 'node:path';
import type { BrokerDescription } from '../../actors/broker/messages.js';
import type { ControllerReply } from '../../actors/controller/messages.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { KafkaJsGroupMember } from '../helpers/kafkajs-group-member.js';
import { startLoopWatchdog, type LoopWatchdog } from '../helpers/loop-watchdog.js';
import { killAndRestartRounds } from './kill-rounds.js';

const ROUNDS = Number(process.env.SAMSA_CHAOS_ROUNDS ?? 6);
const TOPIC = 'chaos';
const RETRY = { initialRetryTime: 50, retries: 100, maxRetryTime: 1_000 };

describe('chaos: brokers killed and restarted under load', function () {
  this.timeout(600_000);
  let c: TestCluster;
  let watchdog: LoopWatchdog | undefined;

  before(async () => {
    // KafkaJS 2.2's consumer can end up in a fetch loop that settles without I/O and never lets
    // a timer run (about one soak in eight here: a stopped runner's fetchers, re-created by a
    // fetcher rebalance after broker restarts, ask it for more at once forever). The consumer now
    // runs on a thread of its own (KafkaJsGroupMember); should anything else on this thread spin
    // like that: fail, don't hang
    watchdog = startLoopWatchdog(30_000, 'the chaos soak');
    // leadership also moves back to each returning broker once it is in sync, under the same load
    const fast = fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3, 'log.cleaner.backoff.ms': 100 }, { 'leader.imbalance.check.interval.seconds': 1 });
    c = await TestCluster.start({ brokers: 3, transport: 'worker', kafka: true, ...fast });
  });
  after(async () => {
    await c?.stop();
    await watchdog?.stop();
  });

  it(`keeps every acknowledged record through ${ROUNDS} kill/restart rounds`, async () => {
    const kafka = new Kafka({ clientId: 'chaos', brokers: await c.kafkaBootstrap(), logLevel: process.env.CHAOS_KAFKAJS_LOG ? logLevel.INFO : logLevel.NOTHING, retry: RETRY });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 6, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });

    const seen = new Map<string, number>();
    // on a thread of its own: KafkaJS's fetch loop (see the header) then starves only the consumer,
    // which is replaced by a new member of the group, and the soak goes on
    const consumer = await KafkaJsGroupMember.start({
      brokers: await c.kafkaBootstrap(),
      clientId: 'chaos',
      topic: TOPIC,
      consumer: { groupId: 'chaos-readers', sessionTimeout: 6_000, heartbeatInterval: 300, maxWaitTimeInMs: 200, retry: RETRY },
      retry: RETRY,
      log: Boolean(process.env.CHAOS_KAFKAJS_LOG),
      onValue: (value) => {
        const v = String(value);
        seen.set(v, (seen.get(v) ?? 0) + 1);
      },
    });

    let stop = false;
    const ackedIdempotent: { partition: number; value: string }[] = [];
    const ackedSamsa: string[] = [];
    const failedSends: string[] = [];
    const kafkajsProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: RETRY });
    await kafkajsProducer.connect();
    const samsa = c.samsa('chaos-samsa');
    const samsaProducer = samsa.producer({ acks: 'all', retries: 100, 'retry.backoff.ms': 50, 'max.in.flight.requests.per.connection': 1, 'delivery.timeout.ms': 120_000 });
    await samsaProducer.connect();

    const kafkajsLoop = (async () => {
      for (let i = 0; !stop; i++) {
        // One partition per send. KafkaJS 2.2 loses records when a send spans several leaders and
        // a retry finds a partition moved to a broker that had already answered that send (its
        // retry skips brokers with a response), with Kafka as with samsa; one leader per send
        // keeps the check about the broker.
        const partition = i % 6;
        const messages = [0, 1, 2].map((j) => ({ partition, value: `k-${i}-${j}` }));
        try {
          await kafkajsProducer.send({ topic: TOPIC, acks: -1, messages });
          ackedIdempotent.push(...messages);
        } catch (err) {
          // not acknowledged: may or may not be there; only acknowledged records are checked
          failedSends.push(`k-${i}: ${(err as Error).message}`);
        }
      }
    })();
    const samsaLoop = (async () => {
      for (let i = 0; !stop; i++) {
        const value = `s-${i}`;
        try {
          await samsaProducer.send({ topic: TOPIC, messages: [{ key: `key-${i % 17}`, value }] });
          ackedSamsa.push(value);
        } catch {
          // not acknowledged
        }
      }
    })();

    await killAndRestartRounds(c, ROUNDS);
    stop = true;
    await Promise.all([kafkajsLoop, samsaLoop]);
    expect(ackedIdempotent.length, 'the idempotent producer got acknowledgements').to.be.greaterThan(0);
    expect(ackedSamsa.length, "samsa's producer got acknowledgements").to.be.greaterThan(0);

    const missing = () => [...ackedIdempotent.map((a) => a.value), ...ackedSamsa].filter((v) => !seen.has(v));
    try {
      await checkFor(() => missing().length === 0, 60_000, 200);
    } catch (err) {
      // tell a lost record from a stuck consumer: is it in the log at all?
      const inLog = new Set<string>();
      for (let p = 0; p < 6; p++) for (const r of await c.client.readAll(TOPIC, p)) inLog.add(String(r.value));
      const lost = missing().filter((v) => !inLog.has(v));
      const md = await c.client.metadata();
      const replicas: string[] = [];
      for (const t of md.topics.filter((x) => x.name === TOPIC)) {
        for (const p of t.partitions) {
          for (const b of p.replicas) {
            const d = await c.client.describeReplica(md, b, TOPIC, p.partition);
            replicas.push(`p${p.partition}@${b}: ${d ? `${d.role} epoch ${d.leaderEpoch} hw ${d.highWatermark} leo ${d.logEndOffset} isr ${d.isr}` : 'none'}`);
          }
          replicas.push(`p${p.partition}: leader ${p.leader} isr ${p.isr} epoch ${p.leaderEpoch}`);
        }
      }
      const where = [...ackedIdempotent].filter((a) => !seen.has(a.value)).map((a) => `${a.value}@p${a.partition}`);
      process.stderr.write(`chaos state:\n  ${replicas.join('\n  ')}\n  missing: ${where.join(', ')}\n  failed sends: ${failedSends.join('\n    ')}\n`);
      throw new Error(`${missing().length} acknowledged records not consumed (e.g. ${missing().slice(0, 5).join(', ')}); ${lost.length} of them are not in the log (e.g. ${lost.slice(0, 5).join(', ')}): ${(err as Error).message}`);
    }
    // the log itself (a group consumer may see a record twice around a rebalance): each record of
    // the idempotent producer is there once, in send order per partition
    for (let partition = 0; partition < 6; partition++) {
      const acked = ackedIdempotent.filter((a) => a.partition === partition).map((a) => a.value);
      expect(acked.length, `acknowledged records on partition ${partition}`).to.be.greaterThan(0);
      const ackedSet = new Set(acked);
      const stored = (await c.client.readAll(TOPIC, partition)).map((r) => String(r.value)).filter((v) => ackedSet.has(v));
      expect(stored, `partition ${partition}: once each, in send order`).to.deep.equal(acked);
    }
    await checkFor(async () => {
      const md = await admin.fetchTopicMetadata({ topics: [TOPIC] });
      return md.topics[0]!.partitions.every((p) => p.isr.length === 3);
    }, 60_000, 200);
    // and every partition is led by its preferred replica again
    await checkFor(async () => {
      const md = await admin.fetchTopicMetadata({ topics: [TOPIC] });
      return md.topics[0]!.partitions.every((p) => p.leader === p.replicas[0]);
    }, 30_000, 200);

    const left = await consumer.disconnect();
    if (consumer.replacements.length > 0 || consumer.failures.length > 0 || left === 'ended') {
      const replaced = consumer.replacements.map((r) => r.reason).join('; ');
      const end = left === 'ended' ? 'ended at disconnect: it did not leave the group within 30 s' : 'left the group';
      process.stderr.write(`  KafkaJS group member: replaced ${consumer.replacements.length} time(s)${replaced ? ` (${replaced})` : ''}; ${end}; failures: ${consumer.failures.join('; ') || 'none'}\n`);
    }
    await kafkajsProducer.disconnect();
    await samsaProducer.disconnect();
    await samsa.close();
    await admin.disconnect();
  });

  /** Each partition of `topic` as the controller and each replica see it. */
  async function replicaStates(topic: string): Promise<string> {
    const md = await c.client.metadata();
    const lines: string[] = [];
    // the controller's own view: an epoch above 1 means it restarted (and replayed its log)
    const q = await c.system().ask<ControllerReply>(c.client.controller, { type: 'DescribeQuorum', local: true }, { timeoutMs: 5_000 });
    lines.push(
      isFailure(q) || q.type !== 'DescribeQuorumResponse'
        ? `  controller: ${isFailure(q) ? q.message : q.type}`
        : `  controller: epoch ${q.controllerEpoch} active ${q.active} applied ${q.appliedIndex} log ${q.quorum?.lastIndex ?? '?'} committed ${q.quorum?.commitIndex ?? '?'} term ${q.quorum?.term ?? '?'}`,
    );
    for (const p of md.topics.find((t) => t.name === topic)!.partitions) {
      lines.push(`  p${p.partition}: leader ${p.leader} isr ${p.isr} epoch ${p.leaderEpoch}`);
      for (const b of p.replicas) {
        const d = await c.client.describeReplica(md, b, topic, p.partition);
        lines.push(`    @${b}: ${d ? `${d.role} epoch ${d.leaderEpoch} start ${d.logStartOffset} hw ${d.highWatermark} leo ${d.logEndOffset} isr ${d.isr}` : 'none'}`);
        const now = Date.now();
        if (d?.role === 'Leader') {
          lines.push(`      pending ISR ${d.pendingIsr ?? '-'}; ${d.followers.map((f) => `follower ${f.brokerId} at ${f.logEndOffset}, fetched ${now - f.lastFetchTimeMs} ms ago, caught up ${now - f.lastCaughtUpTimeMs} ms ago`).join('; ')}`);
        }
      }
    }
    // and what each broker's replica fetchers are doing
    for (const b of md.brokers) {
      const d = await c.system().ask<BrokerDescription>({ node: b.node, path: brokerPath(b.brokerId) }, { type: 'DescribeBroker' }, { timeoutMs: 5_000 });
      if (isFailure(d)) {
        lines.push(`  broker ${b.brokerId}: ${d.message}`);
        continue;
      }
      for (const f of d.fetchers) {
        const fd = await c.system().ask<{ type: string; inFlight: boolean; backingOff: boolean; partitions: { topic: string; partition: number; fetchOffset: number; currentLeaderEpoch: number }[] }>(f.fetcher, { type: 'DescribeFetcher' }, { timeoutMs: 5_000 });
        const state = isFailure(fd) ? fd.message : `inFlight ${fd.inFlight} backingOff ${fd.backingOff} ${fd.partitions.map((x) => `${x.topic}-${x.partition}@${x.fetchOffset}/e${x.currentLeaderEpoch}`).join(' ')}`;
        lines.push(`  broker ${b.brokerId} <- ${f.leaderId}: [${f.partitions.join(' ')}] ${state}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }

  it(`keeps every key's latest acknowledged value of a compacted topic through ${ROUNDS} kill/restart rounds`, async () => {
    const topic = 'chaos-compacted';
    await c.client.createTopic(topic, 3, 3, { 'cleanup.policy': 'compact', 'min.insync.replicas': 2, 'segment.bytes': 4096, 'min.cleanable.dirty.ratio': '0.01' });
    const KEYS = 40;
    const samsa = c.samsa('chaos-compacted');
    const producer = samsa.producer({ acks: 'all', retries: 100, 'retry.backoff.ms': 50, 'max.in.flight.requests.per.connection': 1, 'delivery.timeout.ms': 120_000 });
    await producer.connect();
    /** key -> sequence of its last acknowledged value; values are `<key>:<seq>` with seq rising per key. */
    const lastAcked = new Map<string, number>();
    /** key -> sequence of its last value sent (acknowledged or not). */
    const sentUpTo = new Map<string, number>();
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        const messages = Array.from({ length: 5 }, (_, j) => {
          const n = i * 5 + j;
          const key = `key-${n % KEYS}`;
          return { key, value: `${key}:${Math.floor(n / KEYS)}` };
        });
        for (const m of messages) sentUpTo.set(m.key, Number(m.value.split(':')[1]));
        try {
          await producer.send({ topic, messages });
          for (const m of messages) lastAcked.set(m.key, Number(m.value.split(':')[1]));
        } catch {
          // not acknowledged: may or may not be there
        }
      }
    })();
    await killAndRestartRounds(c, ROUNDS);
    stop = true;
    await loop;
    expect(lastAcked.size).to.equal(KEYS);
    const check = async (where: string): Promise<void> => {
      const latest = new Map<string, number>();
      for (let p = 0; p < 3; p++) {
        for (const r of await c.client.readAll(topic, p)) {
          const [key, seq] = String(r.value).split(':');
          expect(String(r.key), `${where}: key and value agree`).to.equal(key);
          expect(sentUpTo.has(key!), `${where}: ${key} was sent`).to.equal(true);
          expect(Number(seq), `${where}: ${String(r.value)} was sent`).to.be.at.most(sentUpTo.get(key!)!);
          latest.set(key!, Number(seq));
        }
      }
      const behind = [...lastAcked].filter(([key, seq]) => !((latest.get(key) ?? -1) >= seq));
      // say where each replica stood, to tell a lost record from a leader behind its followers
      if (behind.length > 0) process.stderr.write(`${where}: behind ${behind.map(([k, s2]) => `${k}>=${s2} got ${latest.get(k) ?? 'none'}`).join(', ')}\n${await replicaStates(topic)}`);
      for (const [key, seq] of lastAcked) expect(latest.get(key), `${where}: ${key}`).to.be.at.least(seq);
    };
    const fullIsr = async (where: string): Promise<void> => {
      try {
        await checkFor(async () => (await c.client.metadata()).topics.find((t) => t.name === topic)!.partitions.every((p) => p.isr.length === 3), 60_000, 200);
      } catch (err) {
        process.stderr.write(`${where}: the ISR did not grow back\n${await replicaStates(topic)}`);
        throw err;
      }
    };
    await fullIsr('after the rounds');
    // the cleaner has had its turns: the log is compacted, and every key's latest value is there
    await checkFor(async () => {
      let records = 0;
      let offsets = 0;
      for (let p = 0; p < 3; p++) {
        const recs = await c.client.readAll(topic, p);
        records += recs.length;
        offsets += recs.length > 0 ? recs[recs.length - 1]!.offset + 1 : 0;
      }
      return records * 2 < offsets;
    }, 60_000, 200);
    await check('the leaders');
    // each broker's own copy, as the leader after the others lost leadership to it
    for (const victim of [1, 2, 3]) {
      await c.killBroker(victim);
      await checkFor(async () => (await c.client.metadata()).topics.find((t) => t.name === topic)!.partitions.every((p) => p.leader >= 0 && p.leader !== victim), 30_000, 100);
      await check(`without broker ${victim}`);
      await c.startBroker(victim);
      await c.client.waitForBrokers(3);
      await fullIsr(`broker ${victim} back`);
    }
    await producer.disconnect();
    await samsa.close();
  });

  it(`keeps every acknowledged record of partitions reassigned over and over through ${ROUNDS} kill/restart rounds`, async () => {
    const topic = 'chaos-moving';
    const brokers = [1, 2, 3];
    await c.client.createTopics([{ name: topic, assignments: [[1, 2], [2, 3], [3, 1], [1, 3]], config: { 'min.insync.replicas': 1, 'segment.bytes': 8192 } }]);
    await c.client.waitForLeaders(topic);
    const samsa = c.samsa('chaos-moving');
    const producer = samsa.producer({ acks: 'all', retries: 100, 'retry.backoff.ms': 50, 'max.in.flight.requests.per.connection': 1, 'delivery.timeout.ms': 120_000 });
    await producer.connect();
    const acked: { partition: number; value: string }[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const partition = i % 4;
        const value = `m-${i}`;
        try {
          await producer.send({ topic, messages: [{ partition, value }] });
          acked.push({ partition, value });
        } catch {
          // not acknowledged
        }
      }
    })();
    /** partition -> the last target asked for that the controller took. */
    const targets = new Map<number, number[]>();
    const refusals: string[] = [];
    let moves = 0;
    const mover = (async () => {
      while (!stop) {
        await new Promise((r) => setTimeout(r, 300 + Math.random() * 500));
        const partition = Math.floor(Math.random() * 4);
        const size = 1 + Math.floor(Math.random() * 3);
        const target = [...brokers].sort(() => Math.random() - 0.5).slice(0, size);
        const r = await c.system().ask<ControllerReply>(c.client.controller, { type: 'AlterPartitionReassignments', topics: [{ name: topic, partitions: [{ partition, replicas: target }] }] }, { timeoutMs: 10_000 });
        if (isFailure(r) || r.type !== 'AlterPartitionReassignmentsResponse') {
          refusals.push(`p${partition} -> ${target}: ${isFailure(r) ? r.message : r.type}`);
          continue;
        }
        const answer = r.topics[0]!.partitions[0]!;
        if (answer.errorCode === 0) {
          targets.set(partition, target);
          moves++;
        }
        else refusals.push(`p${partition} -> ${target}: ${answer.errorMessage}`);
      }
    })();
    await killAndRestartRounds(c, ROUNDS);
    stop = true;
    await Promise.all([writer, mover]);
    expect(targets.size, 'reassignments taken').to.be.greaterThan(0);
    // every move finishes once every broker is back, each partition on its last target
    try {
      await checkFor(async () => {
        const md = await c.client.metadata();
        const t = md.topics.find((x) => x.name === topic)!;
        return t.partitions.every((p) => !p.addingReplicas && !p.removingReplicas && p.isr.length === p.replicas.length && p.leader >= 0);
      }, 60_000, 200);
    } catch (err) {
      process.stderr.write(`reassignments did not finish\n${await replicaStates(topic)}  refused: ${refusals.join('; ')}\n`);
      throw err;
    }
    const md = await c.client.metadata();
    for (const p of md.topics.find((x) => x.name === topic)!.partitions) {
      const last = targets.get(p.partition);
      if (last) expect(p.replicas, `p${p.partition}: its last target`).to.deep.equal(last);
      const stored = new Set((await c.client.readAll(topic, p.partition)).map((r) => String(r.value)));
      const lost = acked.filter((a) => a.partition === p.partition && !stored.has(a.value)).map((a) => a.value);
      if (lost.length > 0) process.stderr.write(`p${p.partition} lost ${lost.length}\n${await replicaStates(topic)}`);
      expect(lost, `p${p.partition}: acknowledged records kept`).to.deep.equal([]);
      // a broker keeps a copy of the partition exactly when it is a replica
      await checkFor(() => brokers.every((b) => fs.existsSync(path.join(c.logDir(b), `${topic}-${p.partition}`)) === p.replicas.includes(b)), 20_000, 100);
    }
    process.stderr.write(`  reassignments: ${moves} taken over ${targets.size} partitions; refused: ${refusals.length}${refusals.length > 0 ? ` (${refusals.slice(0, 3).join('; ')})` : ''}\n`);
    await producer.disconnect();
    await samsa.close();
  });
});
