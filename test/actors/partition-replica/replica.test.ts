/**
 * The partition replica on its own: leader and follower behaviour, the acks=all purgatory, the
 * high watermark, ISR shrink and expansion, leader epochs and divergence. A recording actor
 * stands in for the controller (it accepts every AlterPartition) and for the broker.
 */
import { expect } from 'chai';
import { sampleText } from '../../helpers/sample-text.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LeaderAndIsrPartition } from '../../../actors/broker/control-messages.js';
import type { ProduceResponse, ProducersDescription, LogDirAltered, ReplicaDescription, ReplicaMsg, ReplicaReadResult, TxnVerificationStarted } from '../../../actors/partition-replica/messages.js';
import { partitionReplica } from '../../../actors/partition-replica/replica.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { writeBatchCrc } from '../../../src/protocol/batch-header.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { defineActor, validateMessage, type ActorDefinition } from '../../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../../src/runtime/actor-system.js';
import { FakeClock } from '../../../src/runtime/clock.js';
import { UNLIMITED_RATE } from '../../../src/runtime/rate-quota.js';
import type { ActorRef, Message } from '../../../src/runtime/types.js';
import { LogDirs } from '../../../src/storage/log-dirs.js';
import { checkFor } from '../../helpers/check-for.js';
import { readsDuring } from '../../helpers/file-reads.js';
import { zstdRleBomb } from '../../helpers/codec-inputs.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

interface Recorder {
  seen: Message[];
  /** When false, AlterPartition gets no answer (to hold an ISR change in flight). */
  answerAlter: boolean;
  /** When true, AlterPartition is refused (as for a broker in controlled shutdown). */
  refuseAlter: boolean;
  /** Answers for the next AlterPartitions, in order, before the default (taken as asked). */
  answers: { errorCode: number; state: Partial<LeaderAndIsrPartition> | null }[];
}

const recorder = defineActor<Recorder, Message & { type: 'AlterPartition' | 'PartitionAdvanced' | 'Seen' | 'Refuse' | 'Answer' }>({
  kind: 'recorder',
  init: () => ({ seen: [], answerAlter: true, refuseAlter: false, answers: [] }),
  supervision: 'resume',
  handlers: {
    Refuse: (s, m: Any) => {
      s.refuseAlter = m.on;
    },
    Answer: (s, m: Any) => {
      s.answers.push(m.answer);
    },
    AlterPartition: (s, m: Any, ctx) => {
      s.seen.push(m);
      if (!s.answerAlter) return;
      const next = s.answers.shift();
      if (next) {
        const st = next.state && { topic: m.topic, partition: m.partition, replicas: [1, 2, 3], isr: m.newIsr, leader: m.brokerId, leaderEpoch: m.leaderEpoch, partitionEpoch: m.partitionEpoch + 1, ...next.state };
        ctx.reply({ type: 'AlterPartitionResponse', errorCode: next.errorCode, errorMessage: 'as told', state: st });
        return;
      }
      if (s.refuseAlter) {
        ctx.reply({ type: 'AlterPartitionResponse', errorCode: ErrorCode.INELIGIBLE_REPLICA, errorMessage: 'broker is shutting down', state: null });
        return;
      }
      ctx.reply({
        type: 'AlterPartitionResponse',
        errorCode: 0,
        state: { topic: m.topic, partition: m.partition, replicas: [1, 2, 3], isr: m.newIsr, leader: m.brokerId, leaderEpoch: m.leaderEpoch, partitionEpoch: m.partitionEpoch + 1 },
      });
    },
    PartitionAdvanced: (s, m) => {
      s.seen.push(m);
    },
    Seen: (s, _m, ctx) => ctx.reply({ type: 'Seen', seen: s.seen } as never),
  },
});

function state(over: Partial<LeaderAndIsrPartition> = {}): LeaderAndIsrPartition {
  return { topic: 't', partition: 0, topicId: 'id', replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1, leaderEpoch: 0, partitionEpoch: 0, isNew: true, config: {}, ...over };
}

function batch(n: number, prefix = 'v'): Buffer {
  return encodeRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${prefix}${i}`), timestamp: 1000 + i })) });
}

describe('actors/partition-replica', function () {
  this.timeout(15_000);
  let dir: string;
  let clock: FakeClock;
  let sys: ActorSystem;
  let logs: LogDirs;
  let ctl: ActorRef<Any>;
  let brk: ActorRef<Any>;
  let n = 0;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-replica-'));
    clock = new FakeClock();
    sys = new ActorSystem({ nodeId: 'b1', clock, strictSerialization: true });
    logs = await LogDirs.open({ logDirs: [dir], clock, schedule: false });
    ctl = sys.spawn(recorder, { name: 'controller' });
    brk = sys.spawn(recorder, { name: 'broker-1' });
  });
  afterEach(async () => {
    await sys.stop();
    await logs.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function spawn(initial: LeaderAndIsrPartition, extra: { minIsr?: number; lagMs?: number; brokerId?: number; compressionType?: string; compressionLevels?: { gzip: number; lz4: number; zstd: number }; racks?: Record<number, string>; alive?: (id: number) => boolean } = {}): ActorRef<ReplicaMsg> {
    return sys.spawn(partitionReplica, {
      name: `r${++n}`,
      args: {
        brokerId: extra.brokerId ?? 1,
        topic: initial.topic,
        partition: initial.partition,
        logs,
        broker: brk,
        controller: ctl,
        brokerEpoch: () => 7,
        replicaLagTimeMaxMs: extra.lagMs ?? 10_000,
        defaultMinInsyncReplicas: extra.minIsr ?? 1,
        ...(extra.compressionType ? { defaultCompressionType: extra.compressionType } : {}),
        ...(extra.compressionLevels ? { defaultCompressionLevels: extra.compressionLevels } : {}),
        ...(extra.racks ? { readReplicaSelection: { rackOf: (id: number) => extra.racks![id] ?? null } } : {}),
        ...(extra.alive ? { isBrokerAlive: extra.alive } : {}),
        initial,
      },
    });
  }
  const produce = (r: ActorRef<ReplicaMsg>, acks: 0 | 1 | -1, records: Uint8Array | readonly Uint8Array[] = batch(3), timeoutMs = 1_000) =>
    sys.ask(r, { type: 'Produce', acks, timeoutMs, records }) as Promise<ProduceResponse>;
  const read = (r: ActorRef<ReplicaMsg>, replicaId: number, fetchOffset: number, extra: Partial<Extract<ReplicaMsg, { type: 'ReplicaRead' }>> = {}) =>
    sys.ask(r, { type: 'ReplicaRead', replicaId, fetchOffset, maxBytes: 1 << 20, currentLeaderEpoch: -1, lastFetchedEpoch: -1, watch: false, ...extra }) as Promise<ReplicaReadResult>;
  const describe_ = (r: ActorRef<ReplicaMsg>) => sys.ask(r, { type: 'DescribeReplica' }) as Promise<ReplicaDescription>;
  const seen = async (ref: ActorRef<Any>) => ((await sys.ask(ref, { type: 'Seen' })) as Any).seen as Any[];

  it('as leader with acks=1 assigns offsets and answers at once', async () => {
    const r = spawn(state({ isr: [1] , replicas: [1] }));
    expect(await produce(r, 1)).to.deep.include({ errorCode: 0, baseOffset: 0 });
    expect(await produce(r, 1, batch(2))).to.deep.include({ errorCode: 0, baseOffset: 3 });
    const d = await describe_(r);
    expect(d).to.deep.include({ role: 'Leader', logEndOffset: 5, highWatermark: 5 });
  });

  it('with flush.messages reached, acknowledges a produce only once it is on disk, in order', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], config: { 'flush.messages': '2' } }));
    const first = produce(r, 1, batch(1));
    const second = produce(r, 1, batch(2));
    const third = produce(r, 1, batch(1));
    expect(await first).to.deep.include({ errorCode: 0, baseOffset: 0 });
    const log = logs.getLog('t', 0)!;
    expect(await second).to.deep.include({ errorCode: 0, baseOffset: 1 });
    expect(log.recoveryPoint).to.be.at.least(3);
    expect(await third).to.deep.include({ errorCode: 0, baseOffset: 3 });
  });

  it("as leader writes batches in the topic's compression.type, keeps what already matches, and follows a config change", async () => {
    const r = spawn(state({ isr: [1], replicas: [1], config: { 'compression.type': 'lz4' } }));
    const plain = batch(3, 'p');
    const gzip = encodeRecordBatch({ compression: 'gzip', producerId: 9, producerEpoch: 1, baseSequence: 0, records: [{ value: Buffer.from('g0') }, { value: Buffer.from('g1') }] });
    const lz4 = encodeRecordBatch({ compression: 'lz4', records: [{ value: Buffer.from('l0') }] });
    expect(await produce(r, 1, plain)).to.deep.include({ errorCode: 0, baseOffset: 0 });
    expect(await produce(r, 1, gzip)).to.deep.include({ errorCode: 0, baseOffset: 3 });
    expect(await produce(r, 1, [lz4])).to.deep.include({ errorCode: 0, baseOffset: 5 });
    let stored = decodeRecordBatches((await read(r, -1, 0)).records);
    expect(stored.map((b) => [b.baseOffset, b.compression, b.producerId, b.records.map((x) => String(x.value))])).to.deep.equal([
      [0, 3, -1, ['p0', 'p1', 'p2']],
      [3, 3, 9, ['g0', 'g1']],
      [5, 3, -1, ['l0']],
    ]);
    // the lz4 batch went in as sent: only its offset, epoch and CRC were stamped
    expect(Buffer.from((await read(r, -1, 5)).records).subarray(61).equals(lz4.subarray(61))).to.equal(true);
    sys.send(r, { type: 'TopicConfigChanged', config: { 'compression.type': 'uncompressed' } });
    expect(await produce(r, 1, lz4)).to.deep.include({ errorCode: 0, baseOffset: 6 });
    sys.send(r, { type: 'TopicConfigChanged', config: { 'compression.type': 'producer' } });
    const gzipAgain = encodeRecordBatch({ compression: 'gzip', records: [{ value: Buffer.from('g2') }, { value: Buffer.from('g3') }] });
    expect(await produce(r, 1, [plain, gzipAgain])).to.deep.include({ errorCode: 0, baseOffset: 7 });
    stored = decodeRecordBatches((await read(r, -1, 6)).records);
    expect(stored.map((b) => [b.baseOffset, b.compression])).to.deep.equal([[6, 0], [7, 0], [10, 1]]);
  });

  it("takes the broker's compression.type for a topic without its own, and the topic's over it", async () => {
    const plain = spawn(state({ isr: [1], replicas: [1] }), { compressionType: 'zstd' });
    expect(await produce(plain, 1, batch(2))).to.deep.include({ errorCode: 0 });
    expect(decodeRecordBatches((await read(plain, -1, 0)).records).map((b) => b.compression)).to.deep.equal([4]);
    const own = spawn(state({ topic: 'u', isr: [1], replicas: [1], config: { 'compression.type': 'producer' } }), { compressionType: 'zstd' });
    expect(await produce(own, 1, batch(2))).to.deep.include({ errorCode: 0 });
    expect(decodeRecordBatches((await read(own, -1, 0)).records).map((b) => b.compression)).to.deep.equal([0]);
  });

  it("recompresses at the topic's compression.<codec>.level, else the broker's (KIP-390), and leaves a batch already in the codec as it is", async () => {
    const text = sampleText(20_000).toString();
    const records = Array.from({ length: 20 }, (_, i) => ({ value: Buffer.from(text.slice(i * 1000, (i + 1) * 1000)) }));
    const plain = () => encodeRecordBatch({ records });
    const storedSize = async (r: ActorRef<ReplicaMsg>, offset: number) => {
      const [b] = decodeRecordBatches((await read(r, -1, offset)).records);
      expect(b!.compression).to.equal(4);
      expect(b!.records.map((x) => String(x.value))).to.deep.equal(records.map((x) => String(x.value)));
      return b!.batchLength;
    };
    const levels = { gzip: -1, lz4: 9, zstd: 3 };
    // the broker's default level, then the topic's own over it
    const byDefault = spawn(state({ topic: 'z1', isr: [1], replicas: [1], config: { 'compression.type': 'zstd' } }), { compressionLevels: levels });
    const brokerLevel = spawn(state({ topic: 'z2', isr: [1], replicas: [1], config: { 'compression.type': 'zstd' } }), { compressionLevels: { ...levels, zstd: 19 } });
    const topicLevel = spawn(state({ topic: 'z3', isr: [1], replicas: [1], config: { 'compression.type': 'zstd', 'compression.zstd.level': '19' } }), { compressionLevels: levels });
    for (const r of [byDefault, brokerLevel, topicLevel]) expect(await produce(r, 1, plain())).to.deep.include({ errorCode: 0 });
    const [d, b, t] = [await storedSize(byDefault, 0), await storedSize(brokerLevel, 0), await storedSize(topicLevel, 0)];
    expect(b).to.be.below(d);
    expect(t).to.equal(b);
    // the broker's default changes at run time (a dynamic broker config)
    sys.send(byDefault, { type: 'BrokerDefaultsChanged', minInsyncReplicas: 1, compressionType: 'producer', compressionLevels: { ...levels, zstd: 19 } });
    expect(await produce(byDefault, 1, plain())).to.deep.include({ errorCode: 0, baseOffset: 20 });
    expect(await storedSize(byDefault, 20)).to.equal(b);
    // a zstd batch at another level is not recompressed for the level
    const sent = encodeRecordBatch({ compression: 'zstd', compressionLevel: 1, records });
    expect(await produce(topicLevel, 1, [sent])).to.deep.include({ errorCode: 0, baseOffset: 20 });
    expect(Buffer.from((await read(topicLevel, -1, 20)).records).subarray(61).equals(sent.subarray(61))).to.equal(true);
  });

  it("refuses, writing nothing, a batch the topic's compression.type cannot rewrite: records unreadable under a valid CRC", async () => {
    const r = spawn(state({ isr: [1], replicas: [1], config: { 'compression.type': 'snappy' } }));
    const gz = encodeRecordBatch({ compression: 'gzip', records: [{ value: Buffer.from('v') }] });
    const broken = Buffer.concat([gz.subarray(0, 61), Buffer.from('not gzip')]);
    broken.writeInt32BE(broken.length - 12, 8);
    writeBatchCrc(broken, 0);
    const res = await produce(r, 1, [batch(1), broken]);
    expect(res.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
    expect(res.errorMessage).to.match(/^compression.type snappy: corrupt record batch at byte 0: gzip decompression failed/);
    expect((await describe_(r)).logEndOffset).to.equal(0);
  });

  it('on a compacted topic refuses, writing nothing, records without a key (INVALID_RECORD), and takes keyed ones', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], config: { 'cleanup.policy': 'compact' } }));
    const keyed = encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] });
    const mixed = encodeRecordBatch({ compression: 'lz4', records: [{ key: Buffer.from('k'), value: Buffer.from('v') }, { key: null, value: Buffer.from('orphan') }] });
    const res = await produce(r, 1, [keyed, mixed]);
    expect(res.errorCode).to.equal(ErrorCode.INVALID_RECORD);
    expect(res.errorMessage).to.equal('Compacted topic cannot accept message without key in topic partition t-0 (batch 1, record 1)');
    expect((await describe_(r)).logEndOffset).to.equal(0);
    expect(await produce(r, 1, keyed)).to.deep.include({ errorCode: 0, baseOffset: 0 });
    // a tombstone has a key and a null value: taken
    expect(await produce(r, 1, encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: null }] }))).to.deep.include({ errorCode: 0, baseOffset: 1 });
    // the rule follows the policy: delete again, keyless records go in
    sys.send(r, { type: 'TopicConfigChanged', config: { 'cleanup.policy': 'delete' } });
    expect(await produce(r, 1, batch(2))).to.deep.include({ errorCode: 0, baseOffset: 2 });
  });

  it('refuses with MESSAGE_TOO_LARGE, writing nothing, a batch whose records decompress past 256 MiB where it must read them', async () => {
    // a 10 KB zstd frame of RLE blocks standing for 300 MiB, as a batch's records
    const small = encodeRecordBatch({ compression: 'zstd', records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] });
    const bomb = Buffer.concat([small.subarray(0, 61), zstdRleBomb(2400)]);
    bomb.writeInt32BE(bomb.length - 12, 8);
    writeBatchCrc(bomb, 0);
    for (const config of [{ 'compression.type': 'lz4' }, { 'cleanup.policy': 'compact' }] as Record<string, string>[]) {
      const r = spawn(state({ topic: Object.keys(config)[0]!, isr: [1], replicas: [1], config }));
      const res = await produce(r, 1, bomb);
      expect(res.errorCode, JSON.stringify(config)).to.equal(ErrorCode.MESSAGE_TOO_LARGE);
      expect(res.errorMessage).to.match(/zstd data decompresses to more than 268435456 bytes/);
      expect((await describe_(r)).logEndOffset).to.equal(0);
    }
    // where the broker need not read the records, the batch is stored as sent (as Kafka does)
    const plain = spawn(state({ topic: 'as-sent', isr: [1], replicas: [1] }));
    expect(await produce(plain, 1, bomb)).to.deep.include({ errorCode: 0 });
  });

  it('refuses DeleteRecords on a topic whose cleanup.policy is compact alone (POLICY_VIOLATION)', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], config: { 'cleanup.policy': 'compact' } }));
    expect(await produce(r, 1, encodeRecordBatch({ records: [{ key: Buffer.from('k'), value: Buffer.from('v') }] }))).to.deep.include({ errorCode: 0 });
    const refused = (await sys.ask(r, { type: 'DeleteRecords', offset: 1 })) as Any;
    expect(refused).to.include({ errorCode: ErrorCode.POLICY_VIOLATION, lowWatermark: -1 });
    expect(refused.errorMessage).to.match(/can not be deleted due to the configured policy/);
    sys.send(r, { type: 'TopicConfigChanged', config: { 'cleanup.policy': 'compact,delete' } });
    expect(await sys.ask(r, { type: 'DeleteRecords', offset: 1 })).to.include({ errorCode: 0, lowWatermark: 1 });
  });

  describe('DeleteRecords waits for the followers (the low watermark, as Kafka\'s DelayedDeleteRecords)', () => {
    /** A leader of 6 records, replicas 1 (it), 2 and 3, both followers caught up with their logs starting at 0. */
    async function sixRecords(extra: { alive?: (id: number) => boolean } = {}) {
      const r = spawn(state({ isr: [1], replicas: [1, 2, 3] }), extra);
      expect(await produce(r, 1, batch(3))).to.deep.include({ errorCode: 0 });
      expect(await produce(r, 1, batch(3))).to.deep.include({ errorCode: 0 });
      for (const id of [2, 3]) await read(r, id, 6, { replicaLogStartOffset: 0 });
      return r;
    }
    const settled = async (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((res) => setTimeout(() => res(false), 50))]);

    it('answered once every follower has told a log start at or past the offset, with the lowest', async () => {
      const r = await sixRecords();
      const deleting = sys.ask(r, { type: 'DeleteRecords', offset: 3, timeoutMs: 5_000 }) as Promise<Any>;
      expect(await settled(deleting)).to.equal(false);
      expect((await describe_(r)).logStartOffset).to.equal(3);
      await read(r, 2, 6, { replicaLogStartOffset: 3 });
      expect(await settled(deleting)).to.equal(false);
      await read(r, 3, 6, { replicaLogStartOffset: 4 });
      expect(await deleting).to.deep.include({ errorCode: ErrorCode.NONE, lowWatermark: 3 });
    });

    it('a follower on a broker that is not live does not hold it back', async () => {
      const r = await sixRecords({ alive: (id) => id !== 3 });
      const deleting = sys.ask(r, { type: 'DeleteRecords', offset: 3, timeoutMs: 5_000 }) as Promise<Any>;
      await read(r, 2, 6, { replicaLogStartOffset: 3 });
      expect(await deleting).to.deep.include({ errorCode: ErrorCode.NONE, lowWatermark: 3 });
    });

    it('a leader without followers answers at once', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, batch(4))).to.deep.include({ errorCode: 0 });
      expect(await sys.ask(r, { type: 'DeleteRecords', offset: 2, timeoutMs: 5_000 })).to.deep.include({ errorCode: ErrorCode.NONE, lowWatermark: 2 });
    });

    it('REQUEST_TIMED_OUT once its timeout passes, the records deleted on the leader all the same', async () => {
      const r = await sixRecords();
      const deleting = sys.ask(r, { type: 'DeleteRecords', offset: 3, timeoutMs: 1_000 }) as Promise<Any>;
      expect(await settled(deleting)).to.equal(false);
      clock.advance(999);
      expect(await settled(deleting)).to.equal(false);
      clock.advance(1);
      expect(await deleting).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT, lowWatermark: -1 });
      expect((await describe_(r)).logStartOffset).to.equal(3);
    });

    it('NOT_LEADER_OR_FOLLOWER when leadership moves while it waits', async () => {
      const r = await sixRecords();
      const deleting = sys.ask(r, { type: 'DeleteRecords', offset: 3, timeoutMs: 5_000 }) as Promise<Any>;
      expect(await settled(deleting)).to.equal(false);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ leader: 2, leaderEpoch: 1, partitionEpoch: 1 }) });
      expect(await deleting).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, lowWatermark: -1 });
    });

    it('a follower told of the leader\'s new log start reports it in its appends\' answers', async () => {
      const f = spawn(state({ leader: 2, isr: [2, 1], replicas: [2, 1] }));
      const appended = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: batch(5), leaderHighWatermark: 5, leaderLogStartOffset: 0 })) as Any;
      expect(appended).to.deep.include({ errorCode: 0, logEndOffset: 5, logStartOffset: 0 });
      const moved = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: new Uint8Array(0), leaderHighWatermark: 5, leaderLogStartOffset: 2 })) as Any;
      expect(moved).to.deep.include({ errorCode: 0, logStartOffset: 2 });
    });
  });

  it('acks=0 appends and sends no reply', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    sys.send(r, { type: 'Produce', acks: 0, timeoutMs: 100, records: batch(1) });
    await checkFor(async () => (await describe_(r)).logEndOffset === 1);
    expect(sys.stats().pendingAsks).to.equal(0);
  });

  it('refuses bad acks and corrupt batches with clear error codes, writing nothing', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    expect(await produce(r, 2 as never)).to.deep.include({ errorCode: ErrorCode.INVALID_REQUIRED_ACKS });
    const bad = batch(2);
    bad[bad.length - 1]! ^= 0xff;
    const res = await produce(r, 1, bad);
    expect(res.errorCode).to.equal(ErrorCode.CORRUPT_MESSAGE);
    expect(res.errorMessage).to.match(/crc/i);
    expect((await describe_(r)).logEndOffset).to.equal(0);
  });

  it('acks=all waits for the ISR: the high watermark moves when followers fetch past the batch', async () => {
    const r = spawn(state({ isr: [1, 2] , replicas: [1, 2] }));
    let done: ProduceResponse | undefined;
    const p = produce(r, -1).then((x) => (done = x));
    await checkFor(async () => (await describe_(r)).pendingProduces === 1);
    // follower 2 has not fetched past offset 3 yet: consumers see nothing
    expect((await read(r, -1, 0)).records.length).to.equal(0);
    await read(r, 2, 0);
    expect(done).to.equal(undefined);
    await read(r, 2, 3);
    await p;
    expect(done).to.deep.include({ errorCode: 0, baseOffset: 0 });
    const consumer = await read(r, -1, 0);
    expect(consumer.highWatermark).to.equal(3);
    expect(decodeRecordBatches(consumer.records).flatMap((b) => b.records.map((x) => String(x.value)))).to.deep.equal(['v0', 'v1', 'v2']);
  });

  it('acks=all times out with REQUEST_TIMED_OUT when the ISR does not catch up', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
    const p = produce(r, -1, batch(1), 500);
    await checkFor(async () => (await describe_(r)).pendingProduces === 1);
    clock.advance(499);
    expect((await describe_(r)).pendingProduces).to.equal(1);
    clock.advance(1);
    expect(await p).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT });
  });

  it('acks=all produces with different timeouts each expire at their own deadline', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
    let longDone = false;
    const long = produce(r, -1, batch(1), 800).then((x) => ((longDone = true), x));
    await checkFor(async () => (await describe_(r)).pendingProduces === 1);
    const short = produce(r, -1, batch(1), 300);
    const later = produce(r, -1, batch(1), 900);
    await checkFor(async () => (await describe_(r)).pendingProduces === 3);
    clock.advance(300);
    expect(await short).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT });
    expect((await describe_(r)).pendingProduces).to.equal(2);
    expect(longDone).to.equal(false);
    clock.advance(500);
    expect(await long).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT });
    expect((await describe_(r)).pendingProduces).to.equal(1);
    clock.advance(100);
    expect(await later).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT });
    expect((await describe_(r)).pendingProduces).to.equal(0);
  });

  it('refuses acks=all with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas', async () => {
    const r = spawn(state({ isr: [1], replicas: [1, 2], config: { 'min.insync.replicas': 2 } }));
    expect(await produce(r, -1)).to.deep.include({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS });
    expect((await describe_(r)).logEndOffset).to.equal(0);
    expect(await produce(r, 1)).to.deep.include({ errorCode: 0 });
  });

  it('a follower refuses produce and consumer reads with NOT_LEADER_OR_FOLLOWER', async () => {
    const r = spawn(state({ leader: 2 }));
    expect(await produce(r, 1)).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
    expect(await read(r, -1, 0)).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
  });

  it('checks the leader epoch a fetcher believes in', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], leaderEpoch: 3 }));
    expect(await read(r, -1, 0, { currentLeaderEpoch: 2 })).to.deep.include({ errorCode: ErrorCode.FENCED_LEADER_EPOCH });
    expect(await read(r, -1, 0, { currentLeaderEpoch: 4 })).to.deep.include({ errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH });
    expect(await read(r, -1, 0, { currentLeaderEpoch: 3 })).to.deep.include({ errorCode: 0 });
  });

  it('shrinks the ISR after replica.lag.time.max.ms without a caught-up fetch, then completes acks=all', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }), { lagMs: 1_000 });
    const p = produce(r, -1, batch(1), 60_000);
    await checkFor(async () => (await describe_(r)).pendingProduces === 1);
    clock.advance(1_600);
    const alter = await checkFor(async () => (await seen(ctl)).find((m) => m.type === 'AlterPartition'));
    expect(alter).to.deep.include({ brokerId: 1, brokerEpoch: 7, newIsr: [1], leaderEpoch: 0, partitionEpoch: 0 });
    expect(await p).to.deep.include({ errorCode: 0 });
    expect((await describe_(r)).isr).to.deep.equal([1]);
  });

  it('expands the ISR when an out-of-sync follower catches up to the high watermark', async () => {
    const r = spawn(state({ isr: [1], replicas: [1, 2] }));
    await produce(r, 1, batch(4));
    await read(r, 2, 0);
    expect((await seen(ctl)).filter((m) => m.type === 'AlterPartition')).to.have.length(0);
    await read(r, 2, 4);
    const alter = await checkFor(async () => (await seen(ctl)).find((m) => m.type === 'AlterPartition'));
    expect(alter.newIsr).to.deep.equal([1, 2]);
    await checkFor(async () => (await describe_(r)).isr.length === 2);
  });

  it('after a refused ISR expansion, waits before asking again for that follower', async () => {
    const r = spawn(state({ isr: [1], replicas: [1, 2] }));
    await produce(r, 1, batch(2));
    sys.send(ctl, { type: 'Refuse', on: true } as never);
    await read(r, 2, 2);
    await checkFor(async () => (await seen(ctl)).filter((m) => m.type === 'AlterPartition').length === 1);
    await describe_(r);
    for (let i = 0; i < 5; i++) await read(r, 2, 2);
    expect((await seen(ctl)).filter((m) => m.type === 'AlterPartition')).to.have.length(1);
    sys.send(ctl, { type: 'Refuse', on: false } as never);
    clock.advance(1_000);
    await read(r, 2, 2);
    await checkFor(async () => (await describe_(r)).isr.length === 2);
    expect((await seen(ctl)).filter((m) => m.type === 'AlterPartition')).to.have.length(2);
  });

  it('keeps the high watermark while an ISR expansion is in flight and never moves it back', async () => {
    const r = spawn(state({ isr: [1], replicas: [1, 2] }));
    await produce(r, 1, batch(2));
    expect((await describe_(r)).highWatermark).to.equal(2);
    await read(r, 2, 0);
    expect((await describe_(r)).highWatermark).to.equal(2);
  });

  it('tells the broker when data arrives after a watched empty read', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    await read(r, -1, 0, { watch: true });
    await produce(r, 1, batch(1));
    await checkFor(async () => (await seen(brk)).some((m) => m.type === 'PartitionAdvanced'));
    expect((await seen(brk)).filter((m) => m.type === 'PartitionAdvanced')).to.deep.equal([{ type: 'PartitionAdvanced', topic: 't', partition: 0 }]);
  });

  it('sends a watched read done again when data arrives, for the fetch that asked', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    await read(r, -1, 0, { watch: true, fetchId: 7 });
    await read(r, -1, 0, { watch: true });
    await produce(r, 1, batch(2));
    await checkFor(async () => (await seen(brk)).some((m) => m.type === 'PartitionAdvanced'));
    const advanced = (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced');
    expect(advanced).to.have.length(1);
    const reads = advanced[0].reads as { fetchId: number; result: Omit<ReplicaReadResult, 'type'> }[];
    // one read, for the watcher that gave its fetch id; what a read at that moment returns
    expect(reads.map((x) => x.fetchId)).to.deep.equal([7]);
    expect(reads[0]!.result).to.deep.include({ errorCode: 0, highWatermark: 2, logEndOffset: 2, logStartOffset: 0 });
    expect(Buffer.from(reads[0]!.result.records)).to.deep.equal(Buffer.from((await read(r, -1, 0)).records));
    // told once: the next append tells no one
    await produce(r, 1, batch(1));
    await describe_(r);
    expect((await seen(brk)).filter((m) => m.type === 'PartitionAdvanced')).to.have.length(1);
  });

  describe("KIP-1166: a follower's fetch that sent its high watermark", () => {
    type Advanced = { type: 'PartitionAdvanced'; reads?: { fetchId: number; result: Omit<ReplicaReadResult, 'type'> }[] };
    const advanced = async () => (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced') as Advanced[];

    it("is read again and sent along, without records, when the leader's high watermark moves past it; one that sent none, and a consumer's, are not", async () => {
      const r = spawn(state({ isr: [1, 2, 3, 4], replicas: [1, 2, 3, 4] }));
      expect(await produce(r, 1, batch(1))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      for (const id of [2, 3, 4]) expect((await read(r, id, 0)).records.length).to.be.greaterThan(0);
      const until = clock.now() + 500;
      // follower 2 has the record and knows high watermark 0: its read finds nothing and waits
      const parked = await read(r, 2, 1, { watch: true, fetchId: 21, watchUntil: until, replicaHighWatermark: 0 });
      expect(parked).to.deep.include({ errorCode: 0, highWatermark: 0 });
      expect(parked.records.length).to.equal(0);
      // follower 4 fetches as below 4.1-IV1 (no high watermark); a consumer's read ignores one
      await read(r, 4, 1, { watch: true, fetchId: 41, watchUntil: until });
      await read(r, -1, 1, { watch: true, fetchId: 23, watchUntil: until, replicaHighWatermark: 0 });
      expect(await advanced()).to.deep.equal([]);
      // follower 3's fetch moves the high watermark to 1, with no new record; its own answer has it
      const last = await read(r, 3, 1, { watch: true, fetchId: 31, watchUntil: until, replicaHighWatermark: 0 });
      expect(last).to.deep.include({ errorCode: 0, highWatermark: 1 });
      const told = await checkFor(async () => {
        const a = await advanced();
        return a.length > 0 ? a : null;
      });
      expect(told).to.have.length(1);
      expect(told[0]!.reads!.map((x) => x.fetchId)).to.deep.equal([21]);
      expect(told[0]!.reads![0]!.result).to.deep.include({ errorCode: 0, highWatermark: 1, logEndOffset: 1 });
      expect(told[0]!.reads![0]!.result.records.length).to.equal(0);
      // follower 3's fetch, answered at once for its high watermark, left no watch behind (a
      // consumer's waits, so that the broker is told of the next change)
      await read(r, -1, 1, { watch: true, fetchId: 25, watchUntil: until });
      sys.send(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1, 2, 3, 4], replicas: [1, 2, 3, 4], partitionEpoch: 1 }) });
      await checkFor(async () => (await advanced()).length === 2);
      expect((await advanced())[1]!.reads).to.equal(undefined);
    });

    it('is not read again for a high watermark it already has, nor once its fetch has timed out', async () => {
      const r = spawn(state({ isr: [1, 2, 3], replicas: [1, 2, 3] }));
      await produce(r, 1, batch(1));
      await read(r, 2, 1);
      await read(r, 3, 1);
      expect((await describe_(r)).highWatermark).to.equal(1);
      // follower 2 knows high watermark 1, the leader's: it waits
      const same = await read(r, 2, 1, { watch: true, fetchId: 22, watchUntil: clock.now() + 500, replicaHighWatermark: 1 });
      expect(same).to.deep.include({ errorCode: 0, highWatermark: 1 });
      // a change of the partition state tells the broker, with no read for that fetch
      sys.send(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1, 2, 3], replicas: [1, 2, 3], partitionEpoch: 1 }) });
      const told = await checkFor(async () => {
        const a = await advanced();
        return a.length > 0 ? a : null;
      });
      expect(told).to.have.length(1);
      expect(told[0]!.reads).to.equal(undefined);
      // a fetch whose high watermark falls behind once its wait has passed (the injected clock) is
      // left to the broker's re-read: its fetch has been answered already
      await produce(r, 1, batch(1));
      expect((await read(r, 2, 1)).records.length).to.be.greaterThan(0);
      await read(r, 2, 2, { watch: true, fetchId: 24, watchUntil: clock.now() + 500, replicaHighWatermark: 1 });
      clock.advance(501);
      expect(await read(r, 3, 2)).to.deep.include({ highWatermark: 2 });
      await checkFor(async () => (await advanced()).length === 2);
      expect((await advanced())[1]!.reads).to.equal(undefined);
    });
  });

  it("answers the watched reads an append wakes (a consumer's, a follower's) from the appended bytes, reading nothing from the file", async () => {
    // a consumer waiting at the end of a partition with no follower (the high watermark moves with
    // the append), and a caught-up follower waiting at the end of another's
    const alone = spawn(state({ partition: 0, isr: [1], replicas: [1] }));
    const followed = spawn(state({ partition: 1, isr: [1, 2], replicas: [1, 2] }));
    await produce(alone, 1, batch(2));
    await produce(followed, 1, batch(2));
    await read(alone, -1, 2, { watch: true, fetchId: 7 });
    await read(followed, 2, 2, { watch: true, fetchId: 8 });
    const { reads: fileReads } = await readsDuring(async () => {
      expect(await produce(alone, 1, [batch(3, 'x'), batch(1, 'y')])).to.deep.include({ errorCode: 0, baseOffset: 2 });
      expect(await produce(followed, 1, [batch(3, 'x'), batch(1, 'y')])).to.deep.include({ errorCode: 0, baseOffset: 2 });
      await checkFor(async () => (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced' && m.reads).length === 2);
    });
    expect(fileReads).to.equal(0);
    const advanced = (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced' && m.reads);
    for (const [partition, fetchId, ref, replicaId] of [[0, 7, alone, -1], [1, 8, followed, 2]] as const) {
      const reads = advanced.find((m) => m.partition === partition).reads as { fetchId: number; result: Omit<ReplicaReadResult, 'type'> }[];
      expect(reads.map((x) => x.fetchId)).to.deep.equal([fetchId]);
      const stored = decodeRecordBatches(Buffer.from(reads[0]!.result.records));
      expect(stored.map((b) => [b.baseOffset, b.records.map((x) => String(x.value))])).to.deep.equal([
        [2, ['x0', 'x1', 'x2']],
        [5, ['y0']],
      ]);
      // what a read of the file returns
      expect(Buffer.from(reads[0]!.result.records)).to.deep.equal(Buffer.from((await read(ref, replicaId, 2)).records));
    }
  });

  it('keeps the latest watchers only, and none past its fetch\'s deadline', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    const now = clock.now();
    // an idle partition polled by fetch after fetch: the ones answered elsewhere are never withdrawn
    for (let id = 1; id <= 20; id++) await read(r, -1, 0, { watch: true, fetchId: id, watchUntil: now + 1_000 });
    await read(r, -1, 0, { watch: true, fetchId: 21, watchUntil: now + 100 });
    clock.advance(500);
    await produce(r, 1, batch(1));
    await checkFor(async () => (await seen(brk)).some((m) => m.type === 'PartitionAdvanced'));
    const reads = (await seen(brk)).find((m) => m.type === 'PartitionAdvanced').reads as { fetchId: number }[];
    // 16 kept (the latest), of which the one whose fetch timed out gets no read
    expect(reads.map((x) => x.fetchId)).to.deep.equal(Array.from({ length: 15 }, (_, i) => i + 6));
  });

  it('leaves to the broker the watched reads that find nothing new or were checked in another epoch', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2], leaderEpoch: 0 }));
    await produce(r, 1, batch(1));
    await read(r, 2, 1);
    // a consumer waits at the high watermark; the next append does not move it (follower 2 has not fetched)
    await read(r, -1, 1, { watch: true, fetchId: 1 });
    await produce(r, 1, batch(1));
    await checkFor(async () => (await seen(brk)).some((m) => m.type === 'PartitionAdvanced'));
    expect((await seen(brk)).filter((m) => m.type === 'PartitionAdvanced')[0].reads).to.equal(undefined);
    // a follower's watched read registered under epoch 0, then a new epoch: not trusted
    await read(r, 2, 2, { watch: true, fetchId: 2 });
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1, 2], replicas: [1, 2], leaderEpoch: 1, partitionEpoch: 1 }) });
    await checkFor(async () => (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced').length === 2);
    expect((await seen(brk)).filter((m) => m.type === 'PartitionAdvanced')[1].reads).to.equal(undefined);
  });

  it('reports a diverging epoch to a follower whose last epoch does not match', async () => {
    const r = spawn(state({ isr: [1], replicas: [1, 2], leaderEpoch: 0 }));
    await produce(r, 1, batch(3));
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1, 2], leaderEpoch: 2, partitionEpoch: 1 }) });
    await produce(r, 1, batch(2));
    // follower wrote epoch 1 records the leader never had: leader says epoch 0 ends at 3
    const res = await read(r, 2, 5, { lastFetchedEpoch: 1 });
    expect(res.divergingEpoch).to.deep.equal({ epoch: 0, endOffset: 3 });
    const ok = await read(r, 2, 3, { lastFetchedEpoch: 0 });
    expect(ok.divergingEpoch).to.equal(undefined);
    expect(ok.records.length).to.be.greaterThan(0);
  });

  it('ignores a stale partition state', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], leaderEpoch: 5 }));
    const res = (await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ leader: 2, leaderEpoch: 4 }) })) as Any;
    expect(res.errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await describe_(r)).role).to.equal('Leader');
  });

  it('as follower appends the leader\'s batches with their offsets and truncates on divergence', async () => {
    const leaderSide = spawn(state({ topic: 'src', isr: [1], replicas: [1] }));
    await produce(leaderSide, 1, batch(3, 'a'));
    await produce(leaderSide, 1, batch(2, 'b'));
    const fetched = (await read(leaderSide, -1, 0)).records;
    const f = spawn(state({ topic: 'f', leader: 2, leaderEpoch: 0 }));
    const res = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 2, leaderLogStartOffset: 0 })) as Any;
    expect(res).to.deep.include({ errorCode: 0, logEndOffset: 5 });
    expect((await describe_(f)).highWatermark).to.equal(2);
    const again = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 3, leaderLogStartOffset: 0 })) as Any;
    expect(again.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
    const t = (await sys.ask(f, { type: 'TruncateForDivergence', leaderEpoch: 0, divergingEpoch: 0, divergingEndOffset: 3 })) as Any;
    expect(t).to.deep.include({ errorCode: 0, logEndOffset: 3 });
    const stale = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: -5, records: fetched, leaderHighWatermark: 3, leaderLogStartOffset: 0 })) as Any;
    expect(stale.errorCode).to.equal(ErrorCode.FENCED_LEADER_EPOCH);
  });

  it('as an empty follower reset to a leader log start inside a batch, starts its log at that batch and keeps the leader\'s log start', async () => {
    const leaderSide = spawn(state({ topic: 'src', isr: [1], replicas: [1] }));
    await produce(leaderSide, 1, batch(10, 'a'));
    const fetched = (await read(leaderSide, -1, 6)).records; // the batch 0-9, holding 6
    const f = spawn(state({ topic: 'f', leader: 2, leaderEpoch: 0 }));
    const reset = (await sys.ask(f, { type: 'ResetFetchPosition', leaderEpoch: 0, leaderLogStartOffset: 6, leaderLogEndOffset: 10 })) as Any;
    expect(reset).to.deep.include({ errorCode: 0, logEndOffset: 6 });
    const res = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 10, leaderLogStartOffset: 6 })) as Any;
    expect(res).to.deep.include({ errorCode: 0, logEndOffset: 10 });
    expect(await describe_(f)).to.deep.include({ logStartOffset: 6, logEndOffset: 10, highWatermark: 10 });
    // a log that already holds records still refuses a batch below its end
    const again = (await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 10, leaderLogStartOffset: 6 })) as Any;
    expect(again.errorCode).to.equal(ErrorCode.OFFSET_OUT_OF_RANGE);
  });

  describe('the answer to an ISR change (isr-change.ts)', () => {
    const answer = (errorCode: number, st: Partial<LeaderAndIsrPartition> | null = null) => sys.send(ctl, { type: 'Answer', answer: { errorCode, state: st } } as never);
    const alters = async () => (await seen(ctl)).filter((m) => m.type === 'AlterPartition');
    /** Leader 1 with follower 2 out of the ISR; 2 catches up and the leader proposes [1, 2]. */
    async function proposeExpansion(): Promise<ActorRef<ReplicaMsg>> {
      const r = spawn(state({ isr: [1], replicas: [1, 2] }));
      await produce(r, 1, batch(2));
      await read(r, 2, 2);
      await checkFor(async () => (await alters()).length === 1);
      return r;
    }

    it('pending --NEW_LEADER_ELECTED--> awaiting the new state: acks=all waits for the proposed follower, and the new state ends it', async () => {
      answer(ErrorCode.NEW_LEADER_ELECTED, { leader: 2, leaderEpoch: 1, replicas: [2], isr: [2] });
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsrStatus === 'awaitingState');
      // the controller handed the leadership to 2 with this change: 1 must not acknowledge alone
      const p = produce(r, -1, batch(1), 60_000);
      await checkFor(async () => (await describe_(r)).pendingProduces === 1);
      expect(await describe_(r)).to.deep.include({ role: 'Leader', isr: [1], pendingIsr: [1, 2], highWatermark: 2 });
      clock.advance(5_000);
      expect((await alters()).length, 'not asked again').to.equal(1);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ leader: 2, leaderEpoch: 1, replicas: [2, 1], isr: [1, 2], partitionEpoch: 2 }) });
      expect(await p).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
      expect(await describe_(r)).to.deep.include({ role: 'Follower', pendingIsr: null, pendingIsrStatus: null });
    });

    it('pending --success under another leader epoch--> awaiting the new state, as NEW_LEADER_ELECTED', async () => {
      answer(ErrorCode.NONE, { leader: 2, leaderEpoch: 1 });
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsrStatus === 'awaitingState');
      expect(await describe_(r)).to.deep.include({ isr: [1], pendingIsr: [1, 2] });
    });

    for (const code of ['FENCED_LEADER_EPOCH', 'NOT_LEADER_OR_FOLLOWER', 'STALE_BROKER_EPOCH', 'UNKNOWN_TOPIC_OR_PARTITION'] as const) {
      it(`pending --${code}--> awaiting the new state (the controller sends it), not asking again`, async () => {
        answer(ErrorCode[code]);
        const r = await proposeExpansion();
        await checkFor(async () => (await describe_(r)).pendingIsrStatus === 'awaitingState');
        clock.advance(5_000);
        await describe_(r);
        expect((await alters()).length).to.equal(1);
        // a state from the controller under the same epoch replaces the proposal
        await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1, 2], partitionEpoch: 1 }) });
        expect(await describe_(r)).to.deep.include({ role: 'Leader', isr: [1], pendingIsr: null });
      });
    }

    it('pending --INVALID_UPDATE_VERSION with the current state--> committed: takes the state an earlier lost answer carried', async () => {
      answer(ErrorCode.INVALID_UPDATE_VERSION, { isr: [1, 2], partitionEpoch: 4 });
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsr === null);
      expect(await describe_(r)).to.deep.include({ isr: [1, 2], partitionEpoch: 4 });
    });

    it('pending --INELIGIBLE_REPLICA--> back to the committed ISR (the controller did not apply it)', async () => {
      answer(ErrorCode.INELIGIBLE_REPLICA);
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsr === null);
      expect((await describe_(r)).isr).to.deep.equal([1]);
      // and acks=all is back to the committed ISR
      expect(await produce(r, -1, batch(1))).to.deep.include({ errorCode: 0 });
    });

    it('pending --timeout or NOT_CONTROLLER--> retrying: the same proposal again after a backoff, until it is answered', async () => {
      answer(ErrorCode.REQUEST_TIMED_OUT);
      answer(ErrorCode.NOT_CONTROLLER);
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsrStatus === 'retrying');
      expect((await describe_(r)).pendingIsr).to.deep.equal([1, 2]);
      clock.advance(100);
      await checkFor(async () => (await alters()).length === 2);
      clock.advance(100);
      await checkFor(async () => (await alters()).length === 3);
      const [first, , third] = await alters();
      expect(third).to.deep.equal(first);
      await checkFor(async () => (await describe_(r)).pendingIsr === null);
      expect(await describe_(r)).to.deep.include({ isr: [1, 2], partitionEpoch: 1 });
    });

    it('ignores an answer to an earlier proposal', async () => {
      answer(ErrorCode.REQUEST_TIMED_OUT);
      const r = await proposeExpansion();
      await checkFor(async () => (await describe_(r)).pendingIsrStatus === 'retrying');
      sys.send(r, { type: 'AlterPartitionResult', proposal: 0, errorCode: ErrorCode.NONE, requestedIsr: [1], state: state({ isr: [1], partitionEpoch: 9 }) });
      expect(await describe_(r)).to.deep.include({ pendingIsr: [1, 2], partitionEpoch: 0 });
    });
  });

  it('as leader given a new replica set under the same epoch (a reassignment), tracks the new follower and forgets the removed one', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
    await produce(r, 1, batch(4));
    await read(r, 2, 4);
    expect((await describe_(r)).followers.map((f) => f.brokerId)).to.deep.equal([2]);
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ replicas: [3, 1, 2], isr: [1, 2], addingReplicas: [3], removingReplicas: [2], partitionEpoch: 1 }) });
    expect((await describe_(r)).followers.map((f) => [f.brokerId, f.logEndOffset])).to.deep.equal([[2, 4], [3, -1]]);
    // the new replica catches up and the leader asks for it in the ISR
    await read(r, 3, 0);
    await read(r, 3, 4);
    const alter = await checkFor(async () => (await seen(ctl)).find((m) => m.type === 'AlterPartition'));
    expect(alter.newIsr).to.deep.equal([1, 2, 3]);
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ replicas: [3, 1], isr: [1, 3], partitionEpoch: 3 }) });
    const d = await describe_(r);
    expect(d.followers.map((f) => f.brokerId)).to.deep.equal([3]);
    expect(d).to.deep.include({ role: 'Leader', leaderEpoch: 0, isr: [1, 3] });
    expect((await read(r, 2, 4)).errorCode, 'a removed replica may no longer fetch').to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  describe('reads from the closest replica (KIP-392)', () => {
    const racks = { 1: 'a', 2: 'b', 3: 'c' };

    it('as leader with rack-aware selection sends a consumer of another rack to an in-sync follower of its rack that holds the offset', async () => {
      const r = spawn(state({ isr: [1, 2, 3], replicas: [1, 2, 3] }), { racks });
      await produce(r, 1, batch(2));
      await produce(r, 1, batch(2));
      await read(r, 2, 4); // follower 2 (rack b) has everything
      await read(r, 3, 2); // follower 3 (rack c) is behind at 2
      const inB = await read(r, -1, 3, { clientRack: 'b' });
      expect(inB).to.deep.include({ errorCode: 0, preferredReadReplica: 2, highWatermark: 2 });
      expect(inB.records.length).to.equal(0);
      // follower 3 does not hold offset 3 yet: the leader serves
      const inC = await read(r, -1, 3, { clientRack: 'c' });
      expect(inC.preferredReadReplica).to.equal(undefined);
      // the leader's own rack, no rack, an unknown rack, or no client metadata: the leader serves
      for (const extra of [{ clientRack: 'a' }, { clientRack: '' }, { clientRack: 'z' }, {}]) {
        const own = await read(r, -1, 0, extra);
        expect(own.preferredReadReplica, JSON.stringify(extra)).to.equal(undefined);
        expect(decodeRecordBatches(Buffer.from(own.records)).flatMap((b) => b.records)).to.have.length(2);
      }
    });

    it('never sends a consumer to a follower out of the ISR, nor without selection configured', async () => {
      const out = spawn(state({ isr: [1], replicas: [1, 2] }), { racks });
      await produce(out, 1, batch(2));
      await read(out, 2, 2);
      expect((await read(out, -1, 0, { clientRack: 'b' })).preferredReadReplica).to.equal(undefined);
      const plain = spawn(state({ topic: 'plain', isr: [1, 2], replicas: [1, 2] }));
      await produce(plain, 1, batch(2));
      await read(plain, 2, 2);
      expect((await read(plain, -1, 0, { clientRack: 'b' })).preferredReadReplica).to.equal(undefined);
    });

    it('as follower serves a consumer with client metadata up to its high watermark, and wakes its long poll when that moves', async () => {
      const leaderSide = spawn(state({ topic: 'src', isr: [1], replicas: [1] }));
      await produce(leaderSide, 1, batch(3, 'x'));
      await produce(leaderSide, 1, batch(2, 'y'));
      const fetched = (await read(leaderSide, -1, 0)).records;
      const f = spawn(state({ topic: 'f', leader: 2, leaderEpoch: 0 }));
      await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 3, leaderLogStartOffset: 0 });
      expect((await read(f, -1, 0)).errorCode, 'no client metadata: leader only').to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      const got = await read(f, -1, 0, { clientRack: 'b' });
      expect(got).to.deep.include({ errorCode: 0, highWatermark: 3 });
      expect(decodeRecordBatches(Buffer.from(got.records)).flatMap((b) => b.records).map((x) => String(x.value))).to.deep.equal(['x0', 'x1', 'x2']);
      expect((await read(f, -1, 0, { clientRack: 'b', currentLeaderEpoch: 3 })).errorCode).to.equal(ErrorCode.UNKNOWN_LEADER_EPOCH);
      // past its log end: the leader is asked instead (never OFFSET_OUT_OF_RANGE from a follower)
      expect((await read(f, -1, 9, { clientRack: 'b' })).errorCode).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      // a consumer waiting at the follower's high watermark is told when it moves
      const waiting = await read(f, -1, 5, { clientRack: '', watch: true });
      expect(waiting.records.length).to.equal(0);
      const before = (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced').length;
      await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: Buffer.alloc(0), leaderHighWatermark: 5, leaderLogStartOffset: 0 });
      await checkFor(async () => (await seen(brk)).filter((m) => m.type === 'PartitionAdvanced' && m.topic === 'f').length > before);
      expect((await describe_(f)).highWatermark).to.equal(5);
    });
  });

  it('a leader that lost leadership before writing gives up its empty epoch on divergence, so its fetches stop diverging', async () => {
    const r = spawn(state({ topic: 'moved', isr: [1, 2], replicas: [1, 2], leaderEpoch: 0 }));
    await produce(r, 1, batch(3));
    // leader again in epoch 1 (a preferred election), then follower in epoch 2 without a write in 1
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ topic: 'moved', isr: [1, 2], replicas: [1, 2], leaderEpoch: 1, partitionEpoch: 1 }) });
    const asFollower = (await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ topic: 'moved', leader: 2, isr: [1, 2], replicas: [1, 2], leaderEpoch: 2, partitionEpoch: 2 }) })) as Any;
    expect(asFollower.lastFetchedEpoch).to.equal(1); // an epoch the new leader never saw a record of
    // the new leader knows epoch 0 ending at 3, where this log ends: nothing to truncate, but epoch 1 goes
    const t = (await sys.ask(r, { type: 'TruncateForDivergence', leaderEpoch: 2, divergingEpoch: 0, divergingEndOffset: 3 })) as Any;
    expect(t).to.deep.include({ errorCode: 0, logEndOffset: 3, lastFetchedEpoch: 0 });
  });

  it('answers parked produces with NOT_LEADER_OR_FOLLOWER when leadership moves', async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
    const p = produce(r, -1, batch(1), 60_000);
    await checkFor(async () => (await describe_(r)).pendingProduces === 1);
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 2, state: state({ leader: 2, leaderEpoch: 1, partitionEpoch: 1 }) });
    expect(await p).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
  });

  it('lists offsets: earliest, latest (the high watermark) and by timestamp', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    await produce(r, 1, batch(5));
    const ask = (timestamp: number) => sys.ask(r, { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1 }) as Promise<Any>;
    expect(await ask(-2)).to.deep.include({ errorCode: 0, offset: 0 });
    expect(await ask(-1)).to.deep.include({ errorCode: 0, offset: 5 });
    expect(await ask(1002)).to.deep.include({ errorCode: 0, offset: 2, timestamp: 1002 });
    expect(await ask(99_999)).to.deep.include({ errorCode: 0, offset: -1 });
  });

  it("lists the earliest offset with the epoch in force at the log start, the latest with the leader's", async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    await produce(r, 1, batch(2));
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leaderEpoch: 3, partitionEpoch: 1 }) });
    await produce(r, 1, batch(2));
    const ask = (timestamp: number) => sys.ask(r, { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1 }) as Promise<Any>;
    expect(await ask(-2)).to.deep.include({ errorCode: 0, offset: 0, leaderEpoch: 0 });
    expect(await ask(-4)).to.deep.include({ errorCode: 0, offset: 0, leaderEpoch: 0 });
    expect(await ask(-1)).to.deep.include({ errorCode: 0, offset: 4, leaderEpoch: 3 });
  });

  it("answers a client OFFSET_NOT_AVAILABLE while a new leader's high watermark is below its epoch's start (latest, and lookups past it)", async () => {
    const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
    expect(await produce(r, 1, batch(3))).to.deep.include({ errorCode: 0 });
    // the follower never fetched: the high watermark stays 0 while the new epoch starts at 3
    await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1, 2], replicas: [1, 2], leaderEpoch: 1, partitionEpoch: 1 }) });
    expect((await describe_(r)).highWatermark).to.equal(0);
    const ask = (timestamp: number, isolationLevel?: 'read_uncommitted' | 'read_committed') =>
      sys.ask(r, { type: 'ListOffsets', timestamp, currentLeaderEpoch: -1, ...(isolationLevel ? { isolationLevel } : {}) }) as Promise<Any>;
    expect(await ask(-1, 'read_uncommitted')).to.deep.include({ errorCode: ErrorCode.OFFSET_NOT_AVAILABLE, offset: -1 });
    expect(await ask(-1, 'read_committed')).to.deep.include({ errorCode: ErrorCode.OFFSET_NOT_AVAILABLE });
    expect(await ask(1_000, 'read_uncommitted')).to.deep.include({ errorCode: ErrorCode.OFFSET_NOT_AVAILABLE });
    // the earliest is not in question, and a request that names no isolation level (not a client's) gets the high watermark
    expect(await ask(-2, 'read_uncommitted')).to.deep.include({ errorCode: 0, offset: 0 });
    expect(await ask(-1)).to.deep.include({ errorCode: 0, offset: 0 });
    // once the follower has the epoch's start, the high watermark passes it
    await read(r, 2, 3);
    await checkFor(async () => ((await describe_(r)).highWatermark === 3 ? true : null), 5_000, 10);
    expect(await ask(-1, 'read_uncommitted')).to.deep.include({ errorCode: 0, offset: 3 });
    expect(await ask(1_000, 'read_uncommitted')).to.deep.include({ errorCode: 0, offset: 0 });
  });

  it('appends a produce whose batches come as a list of buffers, in order', async () => {
    const r = spawn(state({ isr: [1], replicas: [1] }));
    expect(await produce(r, 1, [batch(2, 'a'), batch(1, 'b'), batch(3, 'c')])).to.deep.include({ errorCode: 0, baseOffset: 0 });
    expect(await produce(r, 1, [batch(1, 'd')])).to.deep.include({ errorCode: 0, baseOffset: 6 });
    const values = decodeRecordBatches((await read(r, -1, 0)).records).flatMap((b) => b.records.map((x) => String(Buffer.from(x.value!))));
    expect(values).to.deep.equal(['a0', 'a1', 'b0', 'c0', 'c1', 'c2', 'd0']);
    // a corrupt batch in a later buffer refuses the whole list
    const bad = batch(1, 'e');
    bad[bad.length - 1] ^= 1;
    expect(await produce(r, 1, [batch(1, 'e'), bad])).to.deep.include({ errorCode: ErrorCode.CORRUPT_MESSAGE });
    expect((await describe_(r)).logEndOffset).to.equal(7);
  });

  it('stops and deletes its log on StopReplica with delete', async () => {
    const r = spawn(state({ isr: [1], replicas: [1], topic: 'gone' }));
    await produce(r, 1, batch(1));
    expect(fs.existsSync(path.join(dir, 'gone-0'))).to.equal(true);
    expect(await sys.ask(r, { type: 'StopReplica', deletePartition: true })).to.deep.include({ errorCode: 0 });
    await checkFor(() => !sys.hasActor(r.path));
    await checkFor(() => !fs.existsSync(path.join(dir, 'gone-0')));
  });
  describe('idempotent producers', () => {
    const idem = (producerId: number, producerEpoch: number, baseSequence: number, n: number, prefix = 'i') =>
      encodeRecordBatch({ producerId, producerEpoch, baseSequence, records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${prefix}${baseSequence + i}`), timestamp: clock.now() + i })) });

    it('appends batches in sequence and answers a retried batch with its first offsets, writing it once', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, idem(1000, 0, 0, 3))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      expect(await produce(r, 1, idem(1000, 0, 3, 2))).to.deep.include({ errorCode: 0, baseOffset: 3 });
      // the client did not see the answer and sends the first batch again
      expect(await produce(r, 1, idem(1000, 0, 0, 3))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      expect(await produce(r, -1, idem(1000, 0, 3, 2))).to.deep.include({ errorCode: 0, baseOffset: 3 });
      expect((await describe_(r)).logEndOffset).to.equal(5);
      const values = decodeRecordBatches((await read(r, -1, 0)).records).flatMap((b) => b.records.map((x) => String(Buffer.from(x.value!))));
      expect(values).to.deep.equal(['i0', 'i1', 'i2', 'i3', 'i4']);
    });

    it('refuses gaps, unknown producers, fenced epochs and several batches at once, writing nothing', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, idem(7, 1, 0, 2))).to.deep.include({ errorCode: 0 });
      expect(await produce(r, 1, idem(7, 1, 5, 1))).to.deep.include({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
      expect(await produce(r, 1, idem(8, 0, 4, 1))).to.deep.include({ errorCode: ErrorCode.UNKNOWN_PRODUCER_ID });
      expect(await produce(r, 1, idem(7, 0, 2, 1))).to.deep.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
      const two = Buffer.concat([idem(7, 1, 2, 1), idem(7, 1, 3, 1)]);
      expect(await produce(r, 1, two)).to.deep.include({ errorCode: ErrorCode.INVALID_RECORD });
      expect(await produce(r, 1, [idem(7, 1, 2, 1), idem(7, 1, 3, 1)])).to.deep.include({ errorCode: ErrorCode.INVALID_RECORD });
      expect((await describe_(r)).logEndOffset).to.equal(2);
      // a new epoch starts again at 0 and fences the old one
      expect(await produce(r, 1, idem(7, 2, 0, 1))).to.deep.include({ errorCode: 0, baseOffset: 2 });
      expect(await produce(r, 1, idem(7, 1, 2, 1))).to.deep.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    });

    it('a new leader rebuilds the sequences from its log, so a retry after a failover is still a duplicate', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, idem(42, 0, 0, 2))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      expect(await produce(r, 1, batch(1))).to.deep.include({ errorCode: 0, baseOffset: 2 });
      expect(await produce(r, 1, idem(42, 0, 2, 2))).to.deep.include({ errorCode: 0, baseOffset: 3 });
      // leadership moves away and comes back (as after a failover): the table is rebuilt from the log
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leader: 2, leaderEpoch: 1, partitionEpoch: 1 }) });
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leader: 1, leaderEpoch: 2, partitionEpoch: 2 }) });
      expect(await produce(r, 1, idem(42, 0, 2, 2))).to.deep.include({ errorCode: 0, baseOffset: 3 });
      expect(await produce(r, 1, idem(42, 0, 0, 2))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      expect(await produce(r, 1, idem(42, 0, 4, 1))).to.deep.include({ errorCode: 0, baseOffset: 5 });
      expect((await describe_(r)).logEndOffset).to.equal(6);
    });

    it('forgets producers idle longer than producer.id.expiration.ms when it rebuilds', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, idem(9, 0, 0, 1))).to.deep.include({ errorCode: 0 });
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leader: 2, leaderEpoch: 1, partitionEpoch: 1 }) });
      clock.advance(86_400_000 + 1);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leader: 1, leaderEpoch: 2, partitionEpoch: 2 }) });
      expect(await produce(r, 1, idem(9, 0, 1, 1))).to.deep.include({ errorCode: ErrorCode.UNKNOWN_PRODUCER_ID });
    });
  });

  describe('transactions', () => {
    const txn = (producerId: number, producerEpoch: number, baseSequence: number, n: number, prefix = 't') =>
      encodeRecordBatch({ transactional: true, producerId, producerEpoch, baseSequence, records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`${prefix}${baseSequence + i}`), timestamp: clock.now() + i })) });
    const marker = (r: ActorRef<ReplicaMsg>, producerId: number, commit: boolean, producerEpoch = 0, coordinatorEpoch = 0) =>
      sys.ask(r, { type: 'WriteTxnMarker', producerId, producerEpoch, coordinatorEpoch, commit, timeoutMs: 1_000 }) as Promise<ProduceResponse>;
    const plain = (n: number) => encodeRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`p${i}`), timestamp: clock.now() + i })) });
    const values = (res: ReplicaReadResult) => decodeRecordBatches(res.records).flatMap((b) => (b.control ? [] : b.records.map((x) => String(Buffer.from(x.value!)))));

    it('read_committed stops at an open transaction; a COMMIT marker (written once in the ISR) lets it out', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, plain(2)); // 0-1
      expect(await produce(r, 1, txn(5, 0, 0, 2))).to.deep.include({ errorCode: 0, baseOffset: 2 }); // 2-3
      const committed = await read(r, -1, 0, { readCommitted: true });
      expect(committed).to.deep.include({ highWatermark: 4, lastStableOffset: 2 });
      expect(values(committed)).to.deep.equal(['p0', 'p1']);
      expect(values(await read(r, -1, 0)), 'read_uncommitted sees it all').to.deep.equal(['p0', 'p1', 't0', 't1']);
      expect(await marker(r, 5, true)).to.deep.include({ errorCode: 0, baseOffset: 4 });
      const after = await read(r, -1, 0, { readCommitted: true });
      expect(after.lastStableOffset, 'no transaction open: the high watermark').to.equal(undefined);
      expect(values(after)).to.deep.equal(['p0', 'p1', 't0', 't1']);
      expect(after.abortedTransactions).to.equal(undefined);
      const markerBatch = decodeRecordBatches(after.records).at(-1)!;
      expect(markerBatch).to.deep.include({ control: true, transactional: true, producerId: 5, baseOffset: 4, partitionLeaderEpoch: 0 });
    });

    it('read_committed is told of an aborted transaction in what it reads', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, txn(6, 0, 0, 2)); // 0-1
      expect(await marker(r, 6, false)).to.deep.include({ errorCode: 0, baseOffset: 2 });
      await produce(r, 1, plain(1)); // 3
      const res = await read(r, -1, 0, { readCommitted: true });
      expect(res.abortedTransactions).to.deep.equal([{ producerId: 6, firstOffset: 0 }]);
      expect((await read(r, -1, 3, { readCommitted: true })).abortedTransactions, 'a read after it').to.equal(undefined);
      expect((await read(r, -1, 0)).abortedTransactions, 'read_uncommitted is not told').to.equal(undefined);
    });

    it('a marker waits for the ISR like acks=all, and answers NOT_LEADER_OR_FOLLOWER on a follower', async () => {
      const r = spawn(state({ isr: [1, 2], replicas: [1, 2] }));
      await produce(r, 1, txn(5, 0, 0, 1));
      const m = marker(r, 5, true);
      await checkFor(async () => (await describe_(r)).pendingProduces === 1);
      await read(r, 2, 2); // the follower has the marker
      expect(await m).to.deep.include({ errorCode: 0, baseOffset: 1 });
      const f = spawn(state({ leader: 2 }));
      expect(await marker(f, 5, true)).to.deep.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
    });

    it('refuses a marker of an older producer epoch or coordinator epoch, and a control batch from a client', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, txn(5, 3, 0, 1));
      expect(await marker(r, 5, false, 2)).to.deep.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
      expect(await marker(r, 5, false, 3, 4)).to.deep.include({ errorCode: 0 });
      await produce(r, 1, txn(5, 3, 1, 1));
      expect(await marker(r, 5, true, 3, 2)).to.deep.include({ errorCode: ErrorCode.TRANSACTION_COORDINATOR_FENCED });
      const forged = encodeRecordBatch({ control: true, transactional: true, producerId: 5, producerEpoch: 3, records: [{ key: Buffer.from([0, 0, 0, 1]), value: null }] });
      expect(await produce(r, 1, forged)).to.deep.include({ errorCode: ErrorCode.INVALID_RECORD });
      expect((await describe_(r)).logEndOffset).to.equal(3);
    });

    it('a produce whose batch length is negative is refused as corrupt (the control-batch check does not loop on it)', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      const bad = Buffer.from(plain(1));
      bad.writeInt32BE(-12, 8);
      expect(await produce(r, 1, bad)).to.deep.include({ errorCode: ErrorCode.CORRUPT_MESSAGE });
    });

    it('a marker that fences the producer (a newer epoch) makes its older epoch unusable; sequences go on across transactions of one epoch', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, txn(5, 0, 0, 2));
      await marker(r, 5, true);
      expect(await produce(r, 1, txn(5, 0, 2, 1)), 'the next transaction of the same epoch').to.deep.include({ errorCode: 0 });
      // the coordinator aborts it with the producer fenced (epoch 1)
      expect(await marker(r, 5, false, 1)).to.deep.include({ errorCode: 0 });
      expect(await produce(r, 1, txn(5, 0, 3, 1))).to.deep.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
      expect(await produce(r, 1, txn(5, 1, 0, 1))).to.deep.include({ errorCode: 0 });
    });

    it('a new leader reads the producers\' epochs and sequences back from the log, markers included', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, txn(5, 0, 0, 2));
      await marker(r, 5, true);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leaderEpoch: 1, partitionEpoch: 1 }) });
      expect(await produce(r, 1, txn(5, 0, 2, 1)), 'sequence 2 follows across the marker').to.deep.include({ errorCode: 0 });
      await marker(r, 5, false, 1);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leaderEpoch: 2, partitionEpoch: 2 }) });
      expect(await produce(r, 1, txn(5, 0, 3, 1)), 'fenced by the marker read back').to.deep.include({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    });

    it('a producer whose transaction is open never expires: a new leader, and a follower, still tell it after producer.id.expiration.ms', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, txn(5, 0, 0, 2))).to.deep.include({ errorCode: 0, baseOffset: 0 });
      const idempotent = encodeRecordBatch({ producerId: 9, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: Buffer.from('i'), timestamp: clock.now() }] });
      expect(await produce(r, 1, idempotent)).to.deep.include({ errorCode: 0 });
      const described = async () => ((await sys.ask(r, { type: 'DescribeProducers' })) as ProducersDescription).producers.map((p) => [p.producerId, p.currentTxnStartOffset]);
      expect(await described()).to.deep.equal([
        [5, 0],
        [9, -1],
      ]);
      clock.advance(86_400_000 + 1);
      // a new leadership reads the producers from the log again: the idle one is gone, the open transaction's is not
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leaderEpoch: 1, partitionEpoch: 1 }) });
      expect(await described()).to.deep.equal([[5, 0]]);
      // the leader's periodic expiry keeps it too, and its transaction goes on
      expect(await produce(r, 1, txn(5, 0, 2, 1))).to.deep.include({ errorCode: 0 });
      expect(await described()).to.deep.equal([[5, 0]]);
      await sys.ask(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1, 2], replicas: [1, 2], leader: 2, leaderEpoch: 2, partitionEpoch: 2 }) });
      expect(await described()).to.deep.equal([[5, 0]]);
    });

    it('a follower tells the producers of what it appended since its last answer, and forgets what a truncation dropped', async () => {
      const leaderSide = spawn(state({ topic: 'src', isr: [1], replicas: [1] }));
      const f = spawn(state({ topic: 'f', leader: 2, leaderEpoch: 0 }));
      const described = async () => ((await sys.ask(f, { type: 'DescribeProducers' })) as ProducersDescription).producers.map((p) => [p.producerId, p.lastSequence, p.currentTxnStartOffset]);
      const copy = async (from: number, hw: number) => {
        const fetched = (await read(leaderSide, 1, from)).records;
        expect(await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: hw, leaderLogStartOffset: 0 })).to.deep.include({ errorCode: 0 });
      };
      await produce(leaderSide, 1, txn(5, 0, 0, 2)); // 0-1
      await copy(0, 2);
      expect(await described()).to.deep.equal([[5, 1, 0]]);
      await produce(leaderSide, 1, txn(5, 0, 2, 1)); // 2
      await produce(leaderSide, 1, txn(6, 0, 0, 1)); // 3
      await copy(2, 4);
      expect(await described()).to.deep.equal([
        [5, 2, 0],
        [6, 0, 3],
      ]);
      // the follower drops offsets 3 on (producer 6 goes with them) and takes another leader's offsets 3-4
      expect(await sys.ask(f, { type: 'TruncateForDivergence', leaderEpoch: 0, divergingEpoch: 0, divergingEndOffset: 3 })).to.deep.include({ errorCode: 0, logEndOffset: 3 });
      const other = spawn(state({ topic: 'src2', isr: [1], replicas: [1] }));
      await produce(other, 1, txn(5, 0, 0, 2));
      await produce(other, 1, txn(5, 0, 2, 1));
      await produce(other, 1, txn(7, 0, 0, 2)); // 3-4
      const fetched = (await read(other, 1, 3)).records;
      expect(await sys.ask(f, { type: 'AppendAsFollower', leaderEpoch: 0, records: fetched, leaderHighWatermark: 5, leaderLogStartOffset: 0 })).to.deep.include({ errorCode: 0, logEndOffset: 5 });
      expect(await described()).to.deep.equal([
        [5, 2, 0],
        [7, 1, 3],
      ]);
    });

    describe('transaction verification (KIP-890)', () => {
      const start = (r: ActorRef<ReplicaMsg>, producerId: number, producerEpoch = 0) => sys.ask(r, { type: 'StartTxnVerification', producerId, producerEpoch }) as Promise<TxnVerificationStarted>;
      const verified = (r: ActorRef<ReplicaMsg>, records: Uint8Array, verificationGuard: number) =>
        sys.ask(r, { type: 'Produce', acks: 1, timeoutMs: 1_000, records, verify: true, verificationGuard }) as Promise<ProduceResponse>;

      it("a transaction's first batch opens it with the guard its verification took, and the next needs none", async () => {
        const r = spawn(state({ isr: [1], replicas: [1] }));
        const { errorCode, guard } = await start(r, 5);
        expect(errorCode).to.equal(ErrorCode.NONE);
        expect(guard).to.be.greaterThan(0);
        // a request verified at the same time shares the guard
        expect((await start(r, 5)).guard).to.equal(guard);
        expect(await verified(r, txn(5, 0, 0, 2), guard)).to.deep.include({ errorCode: 0, baseOffset: 0 });
        // the transaction is open here now: no guard is needed, and the spent one is gone
        expect((await start(r, 5)).guard).to.equal(0);
        expect(await verified(r, txn(5, 0, 2, 1), 0)).to.deep.include({ errorCode: 0, baseOffset: 2 });
      });

      it('refuses a first batch without a guard, with a guard of another producer epoch, or with one a marker dropped', async () => {
        const r = spawn(state({ isr: [1], replicas: [1] }));
        expect(await verified(r, txn(5, 0, 0, 1), 0)).to.include({ errorCode: ErrorCode.INVALID_TXN_STATE });
        const g = (await start(r, 5, 0)).guard;
        expect(await verified(r, txn(5, 1, 0, 1), g)).to.include({ errorCode: ErrorCode.INVALID_TXN_STATE });
        // the coordinator ends the transaction between the verification and the batch: the guard is void
        expect(await marker(r, 5, false)).to.include({ errorCode: 0 });
        const refused = await verified(r, txn(5, 0, 0, 1), g);
        expect(refused).to.include({ errorCode: ErrorCode.INVALID_TXN_STATE });
        expect(refused.errorMessage).to.match(/not added to the transaction, or the transaction ended/);
        // nothing was written but the marker
        expect((await describe_(r)).logEndOffset).to.equal(1);
        // a batch without a producer id, and a non-transactional one, are not concerned
        expect(await verified(r, plain(1), 0)).to.include({ errorCode: 0 });
      });

      it('a follower takes no guard (NOT_LEADER_OR_FOLLOWER), and a new leadership drops the guards taken', async () => {
        const follower = spawn(state({ leader: 2, isr: [1, 2], replicas: [1, 2] }));
        expect(await start(follower, 5)).to.include({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, guard: 0 });
        const r = spawn(state({ isr: [1], replicas: [1] }));
        const g = (await start(r, 5)).guard;
        sys.send(r, { type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: state({ isr: [1], replicas: [1], leaderEpoch: 1, partitionEpoch: 1 }) });
        expect(await verified(r, txn(5, 0, 0, 1), g)).to.include({ errorCode: ErrorCode.INVALID_TXN_STATE });
      });
    });

    it('ListOffsets latest under read_committed is the last stable offset', async () => {
      const r = spawn(state({ isr: [1], replicas: [1] }));
      await produce(r, 1, plain(2));
      await produce(r, 1, txn(5, 0, 0, 2));
      const latest = (isolationLevel: 'read_committed' | 'read_uncommitted') => sys.ask(r, { type: 'ListOffsets', timestamp: -1, currentLeaderEpoch: -1, isolationLevel }) as unknown as Promise<{ offset: number }>;
      expect((await latest('read_committed')).offset).to.equal(2);
      expect((await latest('read_uncommitted')).offset).to.equal(4);
    });
  });

  describe('moving its log to another log dir (AlterLogDir)', () => {
    it('copies its log into a future log while it serves, chunk by chunk on its clock, then swaps them', async () => {
      const [d0, d1] = [path.join(dir, 'd0'), path.join(dir, 'd1')];
      const single = logs;
      logs = await LogDirs.open({ logDirs: [d0, d1], clock, schedule: false });
      await single.close();
      const r = spawn(state({ isr: [1], replicas: [1] }));
      for (let i = 0; i < 3; i++) expect(await produce(r, 1, batch(50, `b${i}-`))).to.deep.include({ errorCode: 0 });
      expect(logs.dirOf('t', 0)).to.equal(d0);

      const bogus = (await sys.ask(r, { type: 'AlterLogDir', logDir: path.join(dir, 'nope') })) as LogDirAltered;
      expect(bogus.errorCode).to.equal(ErrorCode.LOG_DIR_NOT_FOUND);
      const same = (await sys.ask(r, { type: 'AlterLogDir', logDir: d0 })) as LogDirAltered;
      expect(same).to.deep.include({ errorCode: ErrorCode.NONE });
      expect((await describe_(r)).futureLogDir).to.equal(null);

      const altered = (await sys.ask(r, { type: 'AlterLogDir', logDir: d1 })) as LogDirAltered;
      expect(altered).to.deep.equal({ type: 'LogDirAltered', errorCode: ErrorCode.NONE, errorMessage: null });
      expect(await describe_(r)).to.deep.include({ logDir: d0, futureLogDir: d1 });
      // the copy waits for its timer: meanwhile the partition takes produces and serves reads
      expect(await produce(r, 1, batch(2, 'during-'))).to.deep.include({ errorCode: 0, baseOffset: 150 });
      expect((await read(r, -1, 150)).errorCode).to.equal(ErrorCode.NONE);
      const during = logs.describe();
      expect(during.map((v) => v.partitions.map((p) => [p.partition, p.isFuture]))).to.deep.equal([[[0, false]], [[0, true]]]);
      expect(during[1]!.partitions[0]!.offsetLag).to.equal(152);

      await clock.advanceAsync(0);
      await checkFor(() => logs.dirOf('t', 0) === d1, 5_000, 5);
      expect(await describe_(r)).to.deep.include({ logDir: d1, futureLogDir: null, logEndOffset: 152, highWatermark: 152 });
      expect(fs.readdirSync(d0).filter((n) => n.startsWith('t-0'))).to.deep.equal([]);
      const values = decodeRecordBatches((await read(r, -1, 0)).records).flatMap((b) => b.records.map((x) => String(x.value)));
      expect(values).to.have.length(152);
      expect(values.slice(0, 2)).to.deep.equal(['b0-0', 'b0-1']);
      expect(values.slice(-2)).to.deep.equal(['during-0', 'during-1']);
      expect(await produce(r, 1, batch(1))).to.deep.include({ errorCode: 0, baseOffset: 152 });
    });

    describe("under the broker's replica.alter.log.dirs.io.max.bytes.per.second", () => {
      const RATE = 1000;
      const VALUE = 'x'.repeat(400);

      /** Two log dirs, a sole replica in the first with `n` batches of one 400-byte record. */
      async function twoDirs(n: number): Promise<{ r: ActorRef<ReplicaMsg>; d1: string }> {
        const [d0, d1] = [path.join(dir, 'd0'), path.join(dir, 'd1')];
        const single = logs;
        logs = await LogDirs.open({ logDirs: [d0, d1], clock, schedule: false });
        await single.close();
        const r = spawn(state({ isr: [1], replicas: [1] }));
        for (let i = 0; i < n; i++) expect(await produce(r, 1, batch(1, `${VALUE}${i}-`))).to.deep.include({ errorCode: 0 });
        expect(logs.dirOf('t', 0)).to.equal(d0);
        return { r, d1 };
      }
      /** Bytes in the future log (0 once swapped). */
      const futureBytes = () => logs.describe().flatMap((v) => v.partitions.filter((p) => p.isFuture)).reduce((n, p) => n + p.size, 0);

      it('copies at most the rate in bytes per second of its clock, a step per timer, while produces go on unthrottled; then swaps', async () => {
        const { r, d1 } = await twoDirs(20);
        const total = logs.getLog('t', 0)!.size;
        logs.setMoveThrottle(RATE);
        const started = clock.now();
        expect(((await sys.ask(r, { type: 'AlterLogDir', logDir: d1 })) as LogDirAltered).errorCode).to.equal(ErrorCode.NONE);
        let maxSeen = 0;
        let producedDuring = false;
        for (let ticks = 0; logs.dirOf('t', 0) !== d1; ticks++) {
          expect(ticks, 'the move finishes').to.be.below(400);
          await clock.advanceAsync(100);
          await describe_(r); // the step the timer sent is done
          const elapsed = clock.now() - started;
          const copied = futureBytes();
          maxSeen = Math.max(maxSeen, copied);
          // within the rate over the time since it began, and one step (at most a second's worth)
          expect(copied, `${copied} bytes copied after ${elapsed} ms`).to.be.at.most((RATE * Math.max(elapsed, 1000)) / 1000 + RATE);
          if (elapsed === 3000) {
            // the copy waits on its timer; a produce is answered at once all the same
            expect(await describe_(r)).to.deep.include({ futureLogDir: d1 });
            expect(await produce(r, 1, batch(1, 'during-'))).to.deep.include({ errorCode: 0, baseOffset: 20 });
            producedDuring = true;
          }
        }
        const took = clock.now() - started;
        expect(producedDuring).to.equal(true);
        expect(maxSeen).to.be.greaterThan(total / 2);
        // the 21 batches (some 10 KB) take about ten seconds at 1000 B/s
        expect(took).to.be.at.least(((total - RATE) * 1000) / RATE);
        expect(took).to.be.below(((total + 2 * RATE) * 1000) / RATE + 1000);
        expect(await describe_(r)).to.deep.include({ logDir: d1, futureLogDir: null, logEndOffset: 21 });
        const values = decodeRecordBatches((await read(r, -1, 0)).records).flatMap((b) => b.records.map((x) => String(x.value)));
        expect(values).to.have.length(21);
        expect(values[20]).to.equal('during-0');
      });

      it('a change of the rate reaches a move waiting on it (BrokerDefaultsChanged): raised, the move finishes at once', async () => {
        const { r, d1 } = await twoDirs(10);
        logs.setMoveThrottle(100);
        expect(((await sys.ask(r, { type: 'AlterLogDir', logDir: d1 })) as LogDirAltered).errorCode).to.equal(ErrorCode.NONE);
        await clock.advanceAsync(0);
        await describe_(r);
        const first = futureBytes();
        // at 100 B/s a step is one batch, and the next waits five seconds and more
        expect(first).to.be.greaterThan(0).and.below(600);
        for (let i = 0; i < 4; i++) {
          await clock.advanceAsync(1000);
          await describe_(r);
        }
        expect(futureBytes()).to.equal(first);
        expect(await describe_(r)).to.deep.include({ futureLogDir: d1 });
        // the broker sets the new rate, then tells its replicas its dynamic configs changed
        logs.setMoveThrottle(UNLIMITED_RATE);
        sys.send(r, { type: 'BrokerDefaultsChanged', minInsyncReplicas: 1, compressionType: 'producer' });
        const at = clock.now();
        await checkFor(async () => {
          await clock.advanceAsync(0);
          return logs.dirOf('t', 0) === d1;
        }, 5_000, 5);
        expect(clock.now(), 'no time passed').to.equal(at);
        expect(await describe_(r)).to.deep.include({ logDir: d1, futureLogDir: null, logEndOffset: 10 });
      });
    });

    it('a StopReplica that deletes the partition during a move leaves nothing in either dir', async () => {
      const [d0, d1] = [path.join(dir, 'd0'), path.join(dir, 'd1')];
      const single = logs;
      logs = await LogDirs.open({ logDirs: [d0, d1], clock, schedule: false });
      await single.close();
      const r = spawn(state({ isr: [1], replicas: [1] }));
      expect(await produce(r, 1, batch(20))).to.deep.include({ errorCode: 0 });
      expect(((await sys.ask(r, { type: 'AlterLogDir', logDir: d1 })) as LogDirAltered).errorCode).to.equal(ErrorCode.NONE);
      expect(fs.readdirSync(d1).filter((n) => n.endsWith('-future'))).to.have.length(1);
      const stopped = (await sys.ask(r, { type: 'StopReplica', deletePartition: true })) as Message & { errorCode: number };
      expect(stopped.errorCode).to.equal(ErrorCode.NONE);
      await clock.advanceAsync(0);
      expect(fs.readdirSync(d0).filter((n) => n.startsWith('t-0'))).to.deep.equal([]);
      expect(fs.readdirSync(d1).filter((n) => n.startsWith('t-0'))).to.deep.equal([]);
      expect(logs.moveOf('t', 0)).to.equal(undefined);
      expect(logs.getLog('t', 0)).to.equal(undefined);
    });
  });
});

describe('partition-replica: boundary schema', () => {
  const check = (msg: Record<string, unknown>) => validateMessage(partitionReplica as unknown as ActorDefinition<unknown, Message, unknown>, msg as unknown as Message);
  const state = { topic: 't', topicId: 'id', partition: 0, replicas: [1, 2], isr: [1], leader: 1, leaderEpoch: 3, partitionEpoch: 4, isNew: false, config: {} };

  it('BecomeLeaderOrFollower: a partition state with its replica lists, never a timestamp or a bare object', () => {
    expect(check({ type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state })).to.equal(null);
    expect(check({ type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: new Date(0) })).to.match(/state must be object, got timestamp/);
    expect(check({ type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: {} })).to.match(/state\.topic is required/);
    expect(check({ type: 'BecomeLeaderOrFollower', controllerEpoch: 1, state: { ...state, isr: null } })).to.match(/state\.isr is required/);
  });
});
