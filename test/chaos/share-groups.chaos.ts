/**
 * Chaos soak for share groups (KIP-932; npm run test:chaos; not part of npm test): three
 * worker-thread brokers (__consumer_offsets and __share_group_state with 3 partitions each, RF 3),
 * a topic of three partitions (RF 3, min.insync.replicas 2) and a share group whose
 * share.auto.offset.reset is earliest (set with admin.alterGroupConfigs, with its
 * share.delivery.count.limit). samsa's idempotent producer writes N numbered records (acks all)
 * while three share consumers of the group (explicit acknowledgement) poll: each takes up to
 * 30 ms over a poll's records, records every record it is handed and accepts it, except that two
 * of them release about one record in thirty on its first delivery (it must come back). Meanwhile, SAMSA_CHAOS_ROUNDS times (default 6), a
 * broker is killed and restarted: in turn the one whose __consumer_offsets partition coordinates
 * the group, one leading a __share_group_state partition that holds the state of a partition of
 * the topic, and one leading a partition of the topic (so leaders, the group coordinator and the
 * share coordinators all move, away and back as the controller puts leaders back).
 *
 * Every acknowledgement's outcome is heard through the acknowledgement commit callback, so an
 * acceptance is known applied (written to the share coordinator), refused, or unanswered. Once
 * the producer is done, the rounds are over and the consumers have drained the topic:
 *  - every record the producer was told is written was accepted (at least once delivery holds
 *    through leader, group coordinator and share coordinator moves);
 *  - no record was handed out again after an acceptance of it was applied: a record accepted
 *    more than once is one whose earlier acceptance was refused or never answered (it may not
 *    have been written before a failure): a record accepted k times had k - 1 acceptances
 *    refused or unanswered. How many there are is reported, and they are at most ROUNDS x
 *    FAILURES_PER_ROUND x the most records the group had acquired at once (sampled from the
 *    leaders every 100 ms): only an acquired record (handed out or fetched, its acknowledgement
 *    not applied) can come again, and a round moves the topic's leaders and the share-state
 *    leaders, each away on the kill and back on the return (the group coordinator's moves lose
 *    no acquisition);
 *  - every record released came back and was accepted;
 *  - no record was handed out with a delivery count above share.delivery.count.limit;
 *  - the group's start offsets (admin.listShareGroupOffsets) are at each partition's log end,
 *    with lag 0.
 * Each round logs its victim and what it led, the records accepted so far and the duplicates.
 *
 * SAMSA_CHAOS_ROUNDS (default 6) sets the rounds, SAMSA_CHAOS_SHARE_RECORDS (default 3000) N.
 */
import { expect } from 'chai';
import { offsetsPartitionFor } from '../../actors/group-coordinator/messages.js';
import { SHARE_GROUP_STATE_TOPIC, shareCoordinatorKey, shareCoordinatorPath, shareStatePartitionFor, type ShareCoordinatorDescription } from '../../actors/share-coordinator/messages.js';
import { sharePartitionManagerPath, type SharePartitionsDescription } from '../../actors/share-partition/messages.js';
import type { Admin } from '../../src/client/admin.js';
import type { ShareAcknowledgementResult, ShareConsumer, ShareRecord } from '../../src/client/share-consumer.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import { errorName } from '../../src/protocol/errors.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';
import { startLoopWatchdog, type LoopWatchdog } from '../helpers/loop-watchdog.js';
import { killAndRestartRounds } from './kill-rounds.js';

const ROUNDS = Number(process.env.SAMSA_CHAOS_ROUNDS ?? 6);
const RECORDS = Number(process.env.SAMSA_CHAOS_SHARE_RECORDS ?? 3_000);
const TOPIC = 'chaos-share';
const GROUP = 'chaos-share-group';
const PARTITIONS = 3;
const INTERNAL_PARTITIONS = 3;
const CONSUMERS = 3;
const MAX_POLL_RECORDS = 25;
const DELIVERY_COUNT_LIMIT = 5;
/** A releasing consumer releases about this fraction of the records it is handed the first time. */
const RELEASE_FRACTION = 1 / 30;
/** Moves per round that can lose acquisitions: the topic's leaders and the share-state leaders, each on the kill and on the return. */
const FAILURES_PER_ROUND = 4;
const SEND_BATCH = 10;
/** A consumer takes up to this long over the records of a poll before acknowledging them. */
const PROCESSING_MS = 30;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tp = (partition: number, offset: number) => `${partition}:${offset}`;

/** What happened to one record (one offset of the topic) in the share group. */
interface Tracked {
  value: string;
  /** Each time it was handed to a consumer: when, to whom, with which delivery count, and what it did with it. */
  deliveries: { at: number; consumer: number; deliveryCount: number; ack: 'accept' | 'release' }[];
  accepts: number;
  releases: number;
  /** Per consumer, the acknowledgements it made and has not heard the outcome of, oldest first (outcomes come back to the consumer that made them). */
  unanswered: Map<number, ('accept' | 'release')[]>;
  /** When an acceptance of it was first answered as applied. */
  acceptAppliedAt: number | null;
  acceptsRefused: number;
  /** Handed out again after an acceptance was applied (must not happen). */
  afterApplied: number;
}

describe('chaos: share groups through broker kills', function () {
  this.timeout(600_000);
  let c: TestCluster;
  let watchdog: LoopWatchdog | undefined;

  before(async () => {
    watchdog = startLoopWatchdog(30_000, 'the share group chaos soak');
    const shareBounds = {
      'group.share.session.timeout.ms': 10_000,
      'group.share.min.session.timeout.ms': 1_000,
      'group.share.heartbeat.interval.ms': 500,
      'group.share.min.heartbeat.interval.ms': 100,
    };
    const fast = fastFailover(
      {
        ...shareBounds,
        'group.initial.rebalance.delay.ms': 0,
        'offsets.topic.num.partitions': INTERNAL_PARTITIONS,
        'offsets.topic.replication.factor': 3,
        'share.coordinator.state.topic.num.partitions': INTERNAL_PARTITIONS,
        'share.coordinator.state.topic.replication.factor': 3,
        'share.coordinator.state.topic.min.isr': 2,
      },
      { ...shareBounds, 'leader.imbalance.check.interval.seconds': 1 },
    );
    c = await TestCluster.start({ brokers: 3, transport: 'worker', ...fast });
  });
  after(async () => {
    await c?.stop();
    await watchdog?.stop();
  });

  it(`accepts every record at least once through ${ROUNDS} kill/restart rounds`, async () => {
    const t0 = Date.now();
    const samsa = c.samsa('chaos-share');
    const admin = samsa.admin();
    await admin.connect();
    await c.client.createTopic(TOPIC, PARTITIONS, 3, { 'min.insync.replicas': 2 });
    const [cfg] = await admin.alterGroupConfigs([{ group: GROUP, set: { 'share.auto.offset.reset': 'earliest', 'share.delivery.count.limit': String(DELIVERY_COUNT_LIMIT) } }]);
    expect(cfg, 'the group configs').to.deep.include({ group: GROUP, errorCode: 0 });

    const md0 = await c.client.metadata();
    const topicId = kafkaTopicId(md0.topics.find((t) => t.name === TOPIC)!.topicId);
    /** Topic partition -> the __share_group_state partition holding the group's state of it. */
    const statePartitionOf = Array.from({ length: PARTITIONS }, (_, p) => shareStatePartitionFor(shareCoordinatorKey({ groupId: GROUP, topicId, partition: p }), INTERNAL_PARTITIONS));
    const offsetsPartition = offsetsPartitionFor(GROUP, INTERNAL_PARTITIONS);

    // ---- the consumers
    const tracked = new Map<string, Tracked>();
    const pollErrors = new Map<string, number>();
    const ackErrors = new Map<string, number>();
    let stopConsumers = false;
    let handedOut = 0;
    /** Acceptances out right now (handed out, acknowledged or not, and not answered), and the most ever. */
    let acceptsOut = 0;
    let maxAcceptsOut = 0;
    const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

    const onOutcome = (consumer: number) => (res: ShareAcknowledgementResult) => {
      if (res.topic !== TOPIC) return;
      for (const offset of res.offsets) {
        const t = tracked.get(tp(res.partition, offset));
        const type = t?.unanswered.get(consumer)?.shift();
        if (!t || !type) continue;
        if (res.error) count(ackErrors, `${type} ${errorName(res.error.errorCode)}`);
        if (type !== 'accept') continue;
        acceptsOut--;
        if (res.error) t.acceptsRefused++;
        else t.acceptAppliedAt ??= Date.now();
      }
    };

    const consumers: ShareConsumer[] = [];
    const loops: Promise<void>[] = [];
    for (let i = 0; i < CONSUMERS; i++) {
      const sc = samsa.shareConsumer({
        groupId: GROUP,
        'share.acknowledgement.mode': 'explicit',
        'max.poll.records': MAX_POLL_RECORDS,
        'fetch.max.wait.ms': 200,
        'request.timeout.ms': 3_000,
        'retry.backoff.ms': 50,
        'retry.backoff.max.ms': 500,
      });
      sc.setAcknowledgementCommitCallback(onOutcome(i));
      await sc.subscribe([TOPIC]);
      consumers.push(sc);
      const releasing = i > 0;
      loops.push(
        (async () => {
          while (!stopConsumers) {
            let records: ShareRecord[];
            try {
              records = await sc.poll(200);
            } catch (err) {
              count(pollErrors, (err as Error).message.slice(0, 80));
              await sleep(100);
              continue;
            }
            // processing takes a while: more is acquired and unacknowledged when a broker dies
            if (records.length > 0) await sleep(Math.random() * PROCESSING_MS);
            const now = Date.now();
            for (const r of records) {
              handedOut++;
              const k = tp(r.partition, r.offset);
              let t = tracked.get(k);
              if (!t) tracked.set(k, (t = { value: String(r.value), deliveries: [], accepts: 0, releases: 0, unanswered: new Map(), acceptAppliedAt: null, acceptsRefused: 0, afterApplied: 0 }));
              if (t.acceptAppliedAt !== null) t.afterApplied++;
              const release = releasing && r.deliveryCount === 1 && Math.random() < RELEASE_FRACTION;
              t.deliveries.push({ at: now, consumer: i, deliveryCount: r.deliveryCount, ack: release ? 'release' : 'accept' });
              const unanswered = t.unanswered.get(i) ?? [];
              t.unanswered.set(i, unanswered);
              if (release) {
                t.releases++;
                unanswered.push('release');
                sc.acknowledge(r, 'release');
              } else {
                t.accepts++;
                unanswered.push('accept');
                acceptsOut++;
                sc.acknowledge(r, 'accept');
              }
            }
            maxAcceptsOut = Math.max(maxAcceptsOut, acceptsOut);
          }
        })(),
      );
    }

    // ---- the producer: N numbered records, acks all, each send retried until acknowledged
    const producer = samsa.producer({ acks: 'all', 'enable.idempotence': true, retries: 100, 'retry.backoff.ms': 50, 'max.in.flight.requests.per.connection': 1, 'delivery.timeout.ms': 120_000 });
    await producer.connect();
    const acked = new Set<string>();
    let failedSends = 0;
    const paceMs = Math.max(0, (ROUNDS * 5_000) / (RECORDS / SEND_BATCH));
    const writer = (async () => {
      for (let i = 0; i < RECORDS; i += SEND_BATCH) {
        const messages = Array.from({ length: Math.min(SEND_BATCH, RECORDS - i) }, (_, j) => ({ partition: (i + j) % PARTITIONS, value: `v-${i + j}` }));
        for (;;) {
          try {
            await producer.send({ topic: TOPIC, messages });
            for (const m of messages) acked.add(m.value);
            break;
          } catch {
            // not acknowledged: may or may not be there; sent again (the value may be in the log twice)
            failedSends++;
            await sleep(100);
          }
        }
        await sleep(paceMs);
      }
    })();

    const accepted = () => [...tracked.values()].filter((t) => t.accepts > 0).length;
    const duplicates = () => [...tracked.values()].filter((t) => t.accepts > 1).length;

    // ---- what a failure can make come again: the records acquired (handed out or fetched, and no
    // acknowledgement applied yet), as the leaders' share partition managers tell them
    const inFlight = { now: 0, max: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const md = await c.client.metadata().catch(() => null);
        let n = 0;
        for (const b of md?.brokers.filter((x) => !x.fenced) ?? []) {
          const r = await c.system().ask<SharePartitionsDescription>({ node: b.node, path: sharePartitionManagerPath(b.brokerId) }, { type: 'DescribeSharePartitions', groupId: GROUP }, { timeoutMs: 1_000 });
          if (!isFailure(r)) for (const p of r.partitions) if (p.topic === TOPIC) n += p.acquired;
        }
        inFlight.now = n;
        inFlight.max = Math.max(inFlight.max, n, acceptsOut);
        await sleep(100);
      }
    })();

    // ---- the kill rounds
    const roleNames = (md: ClusterMetadata, broker: number): string[] => {
      const roles: string[] = [];
      const leaderOf = (topic: string, partition: number) => md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
      for (let p = 0; p < PARTITIONS; p++) if (leaderOf(TOPIC, p) === broker) roles.push(`${TOPIC}-${p}`);
      for (const sp of [...new Set(statePartitionOf)]) {
        if (leaderOf(SHARE_GROUP_STATE_TOPIC, sp) !== broker) continue;
        const of = statePartitionOf.map((x, p) => (x === sp ? `p${p}` : null)).filter((x) => x !== null);
        roles.push(`${SHARE_GROUP_STATE_TOPIC}-${sp} (state of ${of.join(',')})`);
      }
      if (leaderOf('__consumer_offsets', offsetsPartition) === broker) roles.push(`__consumer_offsets-${offsetsPartition} (group coordinator)`);
      return roles;
    };
    const leaderFor = (md: ClusterMetadata, topic: string, partition: number) => md.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
    const victims: { victim: number; aimed: string; roles: string[]; inFlight: number }[] = [];
    const pickVictim = async (round: number): Promise<number> => {
      const md = await c.client.metadata();
      const last = victims[round - 1]?.victim;
      // a partition whose leader (or share-state leader) was not the last victim, where there is one
      const pick = (leader: (p: number) => number) => {
        const ps = Array.from({ length: PARTITIONS }, (_, p) => p).sort(() => Math.random() - 0.5);
        return ps.find((p) => leader(p) !== last) ?? ps[0]!;
      };
      const ps = pick((p) => leaderFor(md, SHARE_GROUP_STATE_TOPIC, statePartitionOf[p]!));
      const pl = pick((p) => leaderFor(md, TOPIC, p));
      const aims: [string, number][] = [
        ['the group coordinator', leaderFor(md, '__consumer_offsets', offsetsPartition)],
        [`the share coordinator of ${TOPIC}-${ps}`, leaderFor(md, SHARE_GROUP_STATE_TOPIC, statePartitionOf[ps]!)],
        [`the leader of ${TOPIC}-${pl}`, leaderFor(md, TOPIC, pl)],
      ];
      let [aimed, victim] = aims[round % aims.length]!;
      if (!(victim >= 1 && victim <= 3)) {
        aimed = 'a random broker';
        victim = 1 + Math.floor(Math.random() * 3);
      }
      victims[round] = { victim, aimed, roles: roleNames(md, victim), inFlight: inFlight.now };
      return victim;
    };
    const log = (line: string) => process.stderr.write(`      ${line}\n`);
    await killAndRestartRounds(c, ROUNDS, {
      pickVictim,
      onKilled: (round, victim) => {
        const v = victims[round]!;
        log(`round ${round + 1}: killed broker ${victim}, ${v.aimed} (led ${v.roles.join(', ') || 'nothing of the group'}); ${acked.size} produced, ${accepted()} accepted, ${v.inFlight} acquired, ${duplicates()} duplicates`);
      },
      onBack: (round, victim, downMs) => {
        log(`round ${round + 1}: broker ${victim} back after ${(downMs / 1_000).toFixed(1)} s; ${acked.size} produced, ${accepted()} accepted, ${duplicates()} duplicates`);
      },
    });
    await writer;
    sampling = false;
    await sampler;
    log(`producer done: ${acked.size} records acknowledged (${failedSends} sends failed and sent again) after ${((Date.now() - t0) / 1_000).toFixed(1)} s`);

    // ---- drained: every acknowledged record accepted, the group's start offsets at the log end
    const notAccepted = () => {
      const values = new Set([...tracked.values()].filter((t) => t.accepts > 0).map((t) => t.value));
      return [...acked].filter((v) => !values.has(v));
    };
    const offsetsDone = async (): Promise<string | null> => {
      const ends = await admin.fetchTopicOffsets(TOPIC);
      const offsets = await admin.listShareGroupOffsets({ groupId: GROUP, topics: [TOPIC] });
      const behind = offsets.filter((o) => o.errorCode !== 0 || o.startOffset !== ends.find((e) => e.partition === o.partition)?.high || o.lag !== 0);
      return behind.length === 0 && offsets.length === PARTITIONS ? null : offsets.map((o) => `p${o.partition}: start ${o.startOffset} of ${ends.find((e) => e.partition === o.partition)?.high}, lag ${o.lag}${o.errorCode ? ` error ${errorName(o.errorCode)}` : ''}`).join('; ');
    };
    let offsetsState = '';
    try {
      await checkFor(() => notAccepted().length === 0, 60_000, 200);
      await checkFor(async () => {
        offsetsState = (await offsetsDone().catch((err: Error) => err.message)) ?? '';
        return offsetsState === '';
      }, 30_000, 250);
    } catch (err) {
      process.stderr.write(await diagnose(admin, notAccepted(), tracked, topicId));
      throw new Error(`${notAccepted().length} acknowledged records not accepted (e.g. ${notAccepted().slice(0, 5).join(', ')}); offsets: ${offsetsState || 'at the log end'}: ${(err as Error).message}`);
    } finally {
      stopConsumers = true;
      await Promise.all(loops);
    }
    for (const sc of consumers) {
      await sc.commitSync().catch(() => undefined);
      await sc.close();
    }
    await producer.disconnect();

    // ---- the properties
    const all = [...tracked.values()];
    const dups = all.filter((t) => t.accepts > 1);
    const released = all.filter((t) => t.releases > 0);
    const overLimit = all.filter((t) => t.deliveries.some((d) => d.deliveryCount > DELIVERY_COUNT_LIMIT));
    const afterApplied = all.filter((t) => t.afterApplied > 0);
    /** A record's acceptances refused or never answered: each may make it come again once. */
    const notApplied = (t: Tracked) => t.acceptsRefused + [...t.unanswered.values()].flat().filter((x) => x === 'accept').length;
    const refusedOrUnanswered = all.reduce((n, t) => n + notApplied(t), 0);
    const bound = ROUNDS * FAILURES_PER_ROUND * inFlight.max;
    const maxCount = Math.max(...all.flatMap((t) => t.deliveries.map((d) => d.deliveryCount)));
    log(
      `${acked.size} records, ${ROUNDS} kills (${victims.map((v) => `b${v.victim}`).join(' ')}), ${((Date.now() - t0) / 1_000).toFixed(1)} s: ` +
        `${handedOut} handed out, ${accepted()} offsets accepted, ${dups.length} accepted more than once ` +
        `(${refusedOrUnanswered} acceptances refused or unanswered; bound ${bound}: at most ${inFlight.max} acquired at once, ${maxAcceptsOut} acceptances out), ` +
        `${released.length} released and back, highest delivery count ${maxCount}`,
    );
    if (ackErrors.size > 0) log(`acknowledgement errors: ${[...ackErrors].map(([k, n]) => `${k} x${n}`).join(', ')}`);
    if (pollErrors.size > 0) log(`poll errors: ${[...pollErrors].map(([k, n]) => `${k} x${n}`).join(', ')}`);

    expect(notAccepted(), 'acknowledged records never accepted').to.deep.equal([]);
    expect(
      afterApplied.map((t) => `${t.value} (${t.deliveries.map((d) => `c${d.consumer}#${d.deliveryCount}@${d.at - t0}`).join(' ')}; applied @${t.acceptAppliedAt! - t0})`),
      'records handed out again after their acceptance was applied',
    ).to.deep.equal([]);
    expect(dups.filter((t) => t.accepts - 1 > notApplied(t)).map((t) => `${t.value}: accepted ${t.accepts} times, ${notApplied(t)} not applied`), 'records accepted again without an earlier acceptance refused or unanswered').to.deep.equal([]);
    expect(dups.length, `records accepted more than once (bound: ${ROUNDS} rounds x ${FAILURES_PER_ROUND} moves x the most records acquired at once)`).to.be.at.most(bound);
    expect(overLimit.map((t) => `${t.value}: ${t.deliveries.map((d) => d.deliveryCount).join(',')}`), `deliveries above share.delivery.count.limit ${DELIVERY_COUNT_LIMIT}`).to.deep.equal([]);
    expect(released.length, 'records released').to.be.greaterThan(0);
    // each released record came back after its last release, and was accepted then
    const notBack = released.filter((t) => {
      const last = t.deliveries.map((d) => d.ack).lastIndexOf('release');
      return !t.deliveries.slice(last + 1).some((d) => d.ack === 'accept');
    });
    expect(notBack.map((t) => `${t.value}: ${t.deliveries.map((d) => `c${d.consumer}#${d.deliveryCount}:${d.ack}`).join(' ')}`), 'released records that did not come back and get accepted').to.deep.equal([]);
    const finalOffsets = await admin.listShareGroupOffsets({ groupId: GROUP, topics: [TOPIC] });
    const ends = await admin.fetchTopicOffsets(TOPIC);
    for (const o of finalOffsets) {
      expect({ startOffset: o.startOffset, lag: o.lag }, `${TOPIC}-${o.partition}: the group's start offset at the log end`).to.deep.equal({ startOffset: ends.find((e) => e.partition === o.partition)!.high, lag: 0 });
    }
    await admin.disconnect();
    await samsa.close();
  });

  /** Where the records not accepted stand: in the log or not, and the group's state of each partition at its leader and its share coordinator. */
  async function diagnose(admin: Admin, missing: string[], tracked: Map<string, Tracked>, topicId: string): Promise<string> {
    const lines: string[] = [];
    const inLog = new Map<string, string>();
    for (let p = 0; p < PARTITIONS; p++) {
      for (const r of await c.client.readAll(TOPIC, p).catch(() => [])) inLog.set(String(r.value), tp(p, r.offset));
    }
    const byValue = new Map([...tracked].map(([k, t]) => [t.value, { k, t }]));
    for (const v of missing.slice(0, 20)) {
      const seen = byValue.get(v);
      lines.push(`  ${v}: ${inLog.has(v) ? `in the log at ${inLog.get(v)}` : 'NOT in the log'}; ${seen ? `handed out ${seen.t.deliveries.map((d) => `c${d.consumer}#${d.deliveryCount}`).join(' ')}, released ${seen.t.releases}` : 'never handed out'}`);
    }
    const md = await c.client.metadata();
    for (const b of md.brokers) {
      const r = await c.system().ask<SharePartitionsDescription>({ node: b.node, path: sharePartitionManagerPath(b.brokerId) }, { type: 'DescribeSharePartitions', groupId: GROUP }, { timeoutMs: 5_000 });
      if (isFailure(r)) lines.push(`  broker ${b.brokerId} share partitions: ${r.message}`);
      else for (const p of r.partitions) lines.push(`  broker ${b.brokerId} holds ${p.topic}-${p.partition} (leader epoch ${p.leaderEpoch}): start ${p.startOffset} end ${p.endOffset} available ${p.available} acquired ${p.acquired} acknowledged ${p.acknowledged} archived ${p.archived}`);
      const sc = await c.system().ask<ShareCoordinatorDescription>({ node: b.node, path: shareCoordinatorPath(b.brokerId) }, { type: 'DescribeShareCoordinator', groupId: GROUP }, { timeoutMs: 5_000 });
      if (isFailure(sc)) lines.push(`  broker ${b.brokerId} share coordinator: ${sc.message}`);
      else {
        lines.push(`  broker ${b.brokerId} share coordinator: ${sc.partitions.map((p) => `${SHARE_GROUP_STATE_TOPIC}-${p.partition} ${p.status} epoch ${p.coordinatorEpoch}`).join(', ') || 'no partitions'}`);
        for (const s of sc.states.filter((x) => x.topicId === topicId)) {
          lines.push(`    p${s.partition}: start ${s.startOffset} leader epoch ${s.leaderEpoch} state epoch ${s.stateEpoch} batches ${s.stateBatches.map((x) => `${x.firstOffset}-${x.lastOffset}:${x.deliveryState}/${x.deliveryCount}`).join(' ')}`);
        }
      }
    }
    const offsets = await admin.listShareGroupOffsets({ groupId: GROUP, topics: [TOPIC] }).catch((err: Error) => err.message);
    lines.push(`  offsets: ${JSON.stringify(offsets)}`);
    return `share chaos state:\n${lines.join('\n')}\n`;
  }
});
