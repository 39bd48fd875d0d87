/**
 * KIP-932's share groups over the Kafka wire, as Kafka 4.2's share consumer speaks them:
 * ShareGroupHeartbeat (a member names its own id and gets its partitions by topic id),
 * ShareGroupDescribe, ShareFetch (share sessions: epoch 0 opens one, each later request carries
 * the next epoch, -1 closes it; records acquired for one member at a time, acknowledged with
 * ACCEPT, RELEASE or REJECT piggybacked on the next fetch or sent with ShareAcknowledge), the
 * session errors (INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_NOT_FOUND), INVALID_RECORD_STATE for
 * records not held, a closed session or connection giving its member's records back, the
 * versions advertised, and the ACLs (READ on the group and the topics; DESCRIBE to describe).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../../src/protocol/record-batch.js';
import { AclOperation, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { ShareSessionCache, nextShareEpoch } from '../../../src/kafka/share-sessions.js';
import { invalidAcknowledgement } from '../../../src/kafka/api/share-groups.js';

const TOPIC = 'shared';
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

/** A member id as Kafka's share consumer makes one (a random Uuid, base64). */
function newMemberId(): string {
  return randomBytes(16).toString('base64url').slice(0, 22);
}

interface Acquired {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

/** The values of the records a partition's answer holds, of the offsets acquired. */
function acquiredValues(p: { records: Uint8Array | null; acquiredRecords: Acquired[] }): string[] {
  const held = (o: number) => p.acquiredRecords.some((a) => o >= a.firstOffset && o <= a.lastOffset);
  const out: string[] = [];
  for (const b of decodeRecordBatches(p.records ?? new Uint8Array(0))) {
    for (const r of b.records) if (held(r.offset)) out.push(Buffer.from(r.value!).toString());
  }
  return out;
}

function fetchBody(groupId: string, memberId: string, epoch: number, topics: object[], extra: object = {}): object {
  return { groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, topics, forgottenTopicsData: [], ...extra };
}

function ackBatch(firstOffset: number, lastOffset: number, type: number) {
  return { firstOffset, lastOffset, acknowledgeTypes: [type] };
}

describe('Kafka API: KIP-932 share groups', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let topicId: string;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
    const k = await caller();
    const md = await checkFor(async () => {
      const r = await k.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    topicId = md.topics[0].topicId;
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function caller(clientId = 'share-test'): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(c.bootstrap[0]!, clientId);
    open.push(k);
    return k;
  }

  /** A member joining `groupId` (its coordinator found first, as a client does: __consumer_offsets is made then); its answer. */
  async function join(k: KafkaCaller, groupId: string, memberId = newMemberId()): Promise<{ memberId: string; memberEpoch: number; assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null }> {
    await checkFor(async () => (await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0].errorCode === ErrorCode.NONE, 20_000, 50);
    const r = await checkFor(async () => {
      const x = await k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId, memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: [TOPIC] });
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 20_000, 50);
    return r;
  }

  async function produce(k: KafkaCaller, values: string[]): Promise<number> {
    const records = encodeRecordBatch({ records: values.map((v) => ({ value: Buffer.from(v), timestamp: Date.now() })) });
    const p = await k.call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
    const r = p.responses[0].partitionResponses[0];
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    return Number(r.baseOffset);
  }

  /**
   * A member of a new group with its share session open (the group's share partition starts at
   * the high watermark, share.auto.offset.reset being latest): the first fetch answers nothing.
   */
  async function member(groupId: string): Promise<{ k: KafkaCaller; memberId: string; epoch: number }> {
    const k = await caller();
    const j = await join(k, groupId);
    const first = await checkFor(async () => {
      const r = await k.call(ApiKeys.ShareFetch, 1, fetchBody(groupId, j.memberId, 0, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], { maxWaitMs: 50 }));
      return r.errorCode === ErrorCode.NONE && r.responses[0]?.partitions[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 100);
    expect(first.responses[0].partitions[0].acquiredRecords).to.deep.equal([]);
    return { k, memberId: j.memberId, epoch: 1 };
  }

  /** The member's next fetch of the session's partitions, with `acks` of partition 0 piggybacked. */
  async function fetchNext(m: { k: KafkaCaller; memberId: string; epoch: number }, groupId: string, acks: object[] = [], extra: object = {}): Promise<any> {
    const topics = acks.length > 0 ? [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }] : [];
    const r = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(groupId, m.memberId, m.epoch, topics, { maxWaitMs: 500, minBytes: 1, ...extra }));
    if (r.errorCode === ErrorCode.NONE) m.epoch++;
    return r;
  }

  it('advertises ShareGroupHeartbeat 1, ShareGroupDescribe 1, ShareFetch 1-2 and ShareAcknowledge 1-2', async () => {
    const k = await caller();
    const r = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const range = (key: number) => r.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
    expect(range(76)).to.deep.include({ minVersion: 1, maxVersion: 1 });
    expect(range(77)).to.deep.include({ minVersion: 1, maxVersion: 1 });
    expect(range(78)).to.deep.include({ minVersion: 1, maxVersion: 2 });
    expect(range(79)).to.deep.include({ minVersion: 1, maxVersion: 2 });
  });

  it('a member joins with ShareGroupHeartbeat and gets the partition; ShareFetch acquires records and ACCEPT acknowledges them', async () => {
    const G = 'sg-basic';
    const m = await member(G);
    const d = await m.k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId: G, memberId: m.memberId, memberEpoch: 1, rackId: null, subscribedTopicNames: null });
    expect(d.errorCode).to.equal(ErrorCode.NONE);
    const base = await produce(m.k, ['a', 'b', 'c']);
    const f = await fetchNext(m, G);
    expect(f.errorCode).to.equal(ErrorCode.NONE);
    expect(f.acquisitionLockTimeoutMs).to.equal(30_000);
    const p = f.responses[0].partitions[0];
    expect(f.responses[0].topicId).to.equal(topicId);
    expect(p).to.deep.include({ partitionIndex: 0, errorCode: 0, acknowledgeErrorCode: 0 });
    expect(p.acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 2, deliveryCount: 1 }]);
    expect(acquiredValues(p)).to.deep.equal(['a', 'b', 'c']);
    // acknowledged with the next fetch, which has nothing more to give
    const g = await fetchNext(m, G, [ackBatch(base, base + 2, ACCEPT)], { maxWaitMs: 100 });
    expect(g.errorCode).to.equal(ErrorCode.NONE);
    expect(g.responses).to.have.length(1);
    expect(g.responses[0].partitions[0]).to.deep.include({ partitionIndex: 0, errorCode: 0, acknowledgeErrorCode: 0 });
    expect(g.responses[0].partitions[0].acquiredRecords).to.deep.equal([]);
    // the next records come next
    const next = await produce(m.k, ['d']);
    const h = await fetchNext(m, G);
    expect(h.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: next, lastOffset: next, deliveryCount: 1 }]);
  });

  it('a second member does not get the records the first holds; RELEASE makes them the other\'s, REJECT archives them (ShareAcknowledge)', async () => {
    const G = 'sg-two';
    const a = await member(G);
    const b = await member(G);
    const base = await produce(a.k, ['x', 'y']);
    const fa = await fetchNext(a, G);
    expect(fa.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 1, deliveryCount: 1 }]);
    // b waits in vain: a holds them
    const fb = await fetchNext(b, G, [], { maxWaitMs: 200 });
    expect(fb.errorCode).to.equal(ErrorCode.NONE);
    expect(fb.responses).to.deep.equal([]);
    // a gives them back with ShareAcknowledge (its session's next epoch)
    const rel = await a.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: a.memberId, shareSessionEpoch: a.epoch, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base + 1, RELEASE)] }] }] });
    a.epoch++;
    expect(rel.errorCode).to.equal(ErrorCode.NONE);
    expect(rel.responses).to.deep.equal([{ topicId, partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } }] }]);
    // now b gets them, delivered a second time
    const fb2 = await fetchNext(b, G);
    expect(fb2.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 1, deliveryCount: 2 }]);
    expect(acquiredValues(fb2.responses[0].partitions[0])).to.deep.equal(['x', 'y']);
    // a acknowledging what b holds: INVALID_RECORD_STATE, and nothing changes
    const wrong = await fetchNext(a, G, [ackBatch(base, base + 1, ACCEPT)], { maxWaitMs: 100 });
    expect(wrong.errorCode).to.equal(ErrorCode.NONE);
    expect(wrong.responses[0].partitions[0]).to.deep.include({ partitionIndex: 0, errorCode: 0, acknowledgeErrorCode: ErrorCode.INVALID_RECORD_STATE });
    expect(wrong.responses[0].partitions[0].acquiredRecords).to.deep.equal([]);
    // b rejects x (archived: delivered to nobody again) and releases y (a gets it)
    const mixed = await b.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: b.memberId, shareSessionEpoch: b.epoch, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: base, lastOffset: base + 1, acknowledgeTypes: [REJECT, RELEASE] }] }] }] });
    b.epoch++;
    expect(mixed.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    const fa2 = await fetchNext(a, G);
    expect(fa2.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base + 1, lastOffset: base + 1, deliveryCount: 3 }]);
    expect(acquiredValues(fa2.responses[0].partitions[0])).to.deep.equal(['y']);
    const done = await fetchNext(a, G, [ackBatch(base + 1, base + 1, ACCEPT)], { maxWaitMs: 100 });
    expect(done.responses[0].partitions[0].acknowledgeErrorCode).to.equal(ErrorCode.NONE);
    const none = await fetchNext(b, G, [], { maxWaitMs: 100 });
    expect(none.responses).to.deep.equal([]);
  });

  it('session errors: a wrong epoch is INVALID_SHARE_SESSION_EPOCH, an unknown session SHARE_SESSION_NOT_FOUND, acknowledgements when opening INVALID_REQUEST', async () => {
    const G = 'sg-sessions';
    const m = await member(G);
    const wrong = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, m.epoch + 1, []));
    expect(wrong.errorCode).to.equal(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect(wrong.responses).to.deep.equal([]);
    // the session is untouched: its epoch still works
    expect((await fetchNext(m, G, [], { maxWaitMs: 0 })).errorCode).to.equal(ErrorCode.NONE);
    // the same epoch twice: the second is stale
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, m.epoch - 1, []))).errorCode).to.equal(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect((await m.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: m.memberId, shareSessionEpoch: m.epoch + 5, topics: [] })).errorCode).to.equal(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    // ShareAcknowledge cannot open a session
    expect((await m.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: m.memberId, shareSessionEpoch: 0, topics: [] })).errorCode).to.equal(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    const stranger = newMemberId();
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, stranger, 1, []))).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, stranger, -1, []))).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect((await m.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: stranger, shareSessionEpoch: 1, topics: [] })).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    const opening = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, stranger, 0, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(0, 0, ACCEPT)] }] }]));
    expect(opening.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    // no member id, no group id
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, '', 0, []))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(null as never, m.memberId, 0, []))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await m.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: null, shareSessionEpoch: 1, topics: [] })).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    // epoch 0 again opens a new session in place of the old one
    const again = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, 0, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }]));
    expect(again.errorCode).to.equal(ErrorCode.NONE);
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, m.epoch, []))).errorCode).to.equal(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect((await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, 1, []))).errorCode).to.equal(ErrorCode.NONE);
  });

  it('an unknown topic id is UNKNOWN_TOPIC_ID for its partition; malformed or renewing acknowledgements INVALID_REQUEST; acquire mode 1 as 0, another INVALID_REQUEST (v2)', async () => {
    const G = 'sg-checks';
    const m = await member(G);
    const unknownId = 'AAAAAAAAAAAAAAAAAAAAAQ';
    const f = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, m.epoch++, [{ topicId: unknownId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }]));
    expect(f.errorCode).to.equal(ErrorCode.NONE);
    const unknown = f.responses.find((t: { topicId: string }) => t.topicId === unknownId);
    expect(unknown.partitions[0]).to.deep.include({ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_ID });
    // forgotten: the session fetches the shared topic alone again
    const g = await m.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, m.memberId, m.epoch++, [], { forgottenTopicsData: [{ topicId: unknownId, partitions: [0] }] }));
    expect(g.responses).to.deep.equal([]);
    const base = await produce(m.k, ['p']);
    const h = await fetchNext(m, G);
    expect(h.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base, deliveryCount: 1 }]);
    // last offset before the first; an unknown type; a type per offset, one short; renew (type 4) in v1
    for (const batch of [
      { firstOffset: base + 1, lastOffset: base, acknowledgeTypes: [ACCEPT] },
      { firstOffset: base, lastOffset: base, acknowledgeTypes: [7] },
      { firstOffset: base, lastOffset: base + 2, acknowledgeTypes: [ACCEPT, ACCEPT] },
      { firstOffset: base, lastOffset: base, acknowledgeTypes: [4] },
    ]) {
      const r = await fetchNext(m, G, [batch], { maxWaitMs: 0 });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(r.responses[0].partitions[0].acknowledgeErrorCode, JSON.stringify(batch)).to.equal(ErrorCode.INVALID_REQUEST);
    }
    // v2 (KIP-1222): a renewing fetch must have its limits at 0; then it renews and fetches nothing
    const renewBody = (extra: object) => fetchBody(G, m.memberId, m.epoch, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base, 4)] }] }], { isRenewAck: true, shareAcquireMode: 0, ...extra });
    const limits = await m.k.call(ApiKeys.ShareFetch, 2, renewBody({}));
    expect(limits).to.deep.include({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'maxBytes must be set to 0, maxRecords must be set to 0, if isRenewAck is true.' });
    const renew = await m.k.call(ApiKeys.ShareFetch, 2, renewBody({ maxBytes: 0, minBytes: 0, maxRecords: 0, maxWaitMs: 0 }));
    m.epoch++;
    expect(renew.errorCode).to.equal(ErrorCode.NONE);
    expect(renew.responses[0].partitions[0]).to.deep.include({ acknowledgeErrorCode: ErrorCode.NONE, acquiredRecords: [] });
    // a Renew without IsRenewAck is refused
    const unmarked = await m.k.call(ApiKeys.ShareAcknowledge, 2, { groupId: G, memberId: m.memberId, shareSessionEpoch: m.epoch++, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base, 4)] }] }] });
    expect(unmarked.responses[0].partitions[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const ackRenew = await m.k.call(ApiKeys.ShareAcknowledge, 2, { groupId: G, memberId: m.memberId, shareSessionEpoch: m.epoch++, isRenewAck: true, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base, 4)] }] }] });
    expect(ackRenew.responses[0].partitions[0]).to.deep.include({ errorCode: ErrorCode.NONE });
    expect(ackRenew.acquisitionLockTimeoutMs).to.equal(30_000);
    expect((await m.k.call(ApiKeys.ShareFetch, 2, fetchBody(G, m.memberId, m.epoch, [], { shareAcquireMode: 2 }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    // still held: accepted, with a v2 fetch in record-limit mode
    const ok = await m.k.call(ApiKeys.ShareFetch, 2, fetchBody(G, m.memberId, m.epoch++, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base, ACCEPT)] }] }], { shareAcquireMode: 1, maxWaitMs: 0 }));
    expect(ok.responses[0].partitions[0].acknowledgeErrorCode).to.equal(ErrorCode.NONE);
  });

  it('maxRecords bounds what one fetch acquires; the rest goes to the next fetch or another member', async () => {
    const G = 'sg-max-records';
    const m = await member(G);
    const base = await produce(m.k, ['1', '2', '3', '4', '5']);
    const f = await fetchNext(m, G, [], { maxRecords: 2 });
    expect(f.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 1, deliveryCount: 1 }]);
    const g = await fetchNext(m, G, [], { maxRecords: 10 });
    expect(g.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base + 2, lastOffset: base + 4, deliveryCount: 1 }]);
    expect(acquiredValues(g.responses[0].partitions[0])).to.deep.equal(['3', '4', '5']);
  });

  it('closing the session (ShareFetch epoch -1) applies its acknowledgements and gives the rest of its records to the other member', async () => {
    const G = 'sg-close';
    const a = await member(G);
    const b = await member(G);
    const base = await produce(a.k, ['k', 'l', 'm']);
    expect((await fetchNext(a, G)).responses[0].partitions[0].acquiredRecords).to.have.length(1);
    const close = await a.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, -1, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base, base, ACCEPT)] }] }]));
    expect(close.errorCode).to.equal(ErrorCode.NONE);
    expect(close.responses).to.have.length(1);
    expect(close.responses[0].partitions[0]).to.deep.include({ partitionIndex: 0, errorCode: 0, acknowledgeErrorCode: 0 });
    expect(close.responses[0].partitions[0].acquiredRecords).to.deep.equal([]);
    // the session is gone
    expect((await a.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, a.epoch, []))).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    const fb = await checkFor(async () => {
      const r = await fetchNext(b, G);
      return r.responses.length > 0 ? r : null;
    }, 10_000, 10);
    expect(fb.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base + 1, lastOffset: base + 2, deliveryCount: 2 }]);
    expect(acquiredValues(fb.responses[0].partitions[0])).to.deep.equal(['l', 'm']);
  });

  it('ShareAcknowledge with epoch -1 closes the session once its acknowledgements are applied', async () => {
    const G = 'sg-ack-close';
    const a = await member(G);
    const b = await member(G);
    const base = await produce(a.k, ['r', 's']);
    expect((await fetchNext(a, G)).responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base + 1, deliveryCount: 1 }]);
    const r = await a.k.call(ApiKeys.ShareAcknowledge, 2, { groupId: G, memberId: a.memberId, shareSessionEpoch: -1, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [ackBatch(base + 1, base + 1, ACCEPT)] }] }] });
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(r.responses[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    expect((await a.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: a.memberId, shareSessionEpoch: a.epoch, topics: [] })).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    const fb = await checkFor(async () => {
      const x = await fetchNext(b, G);
      return x.responses.length > 0 ? x : null;
    }, 10_000, 10);
    expect(fb.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base, deliveryCount: 2 }]);
  });

  it('a session ends with the connection that opened it: its member\'s records go to the other', async () => {
    const G = 'sg-disconnect';
    const a = await member(G);
    const b = await member(G);
    const base = await produce(a.k, ['u']);
    expect((await fetchNext(a, G)).responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base, deliveryCount: 1 }]);
    a.k.end();
    const fb = await checkFor(async () => {
      const x = await fetchNext(b, G, [], { maxWaitMs: 100 });
      return x.responses.length > 0 ? x : null;
    }, 10_000, 20);
    expect(fb.responses[0].partitions[0].acquiredRecords).to.deep.equal([{ firstOffset: base, lastOffset: base, deliveryCount: 2 }]);
    // the member's session went with its connection
    const k = await caller();
    expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, a.epoch, []))).errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
  });

  it('a long poll still waiting when its connection closes gives back what it then acquires', async () => {
    const G = 'sg-orphaned-poll';
    const a = await member(G);
    const b = await member(G);
    // a waits for records, then its connection goes while the fetch waits at the manager
    a.k.socket.request(ApiKeys.ShareFetch, 1, 99, fetchBody(G, a.memberId, a.epoch, [], { maxWaitMs: 3_000, minBytes: 1 }));
    await new Promise((r) => setTimeout(r, 200));
    a.k.end();
    await new Promise((r) => setTimeout(r, 200));
    const base = await produce(b.k, ['orphan']);
    // b gets the record long before a's lock (30 s) would end: a's dead poll acquired it first
    // (b's own fetch may win the race for it, a first delivery then)
    const fb = await checkFor(async () => {
      const x = await fetchNext(b, G, [], { maxWaitMs: 200 });
      return x.responses.length > 0 && x.responses[0].partitions[0].acquiredRecords.length > 0 ? x : null;
    }, 10_000, 20);
    expect(fb.responses[0].partitions[0].acquiredRecords[0].firstOffset).to.equal(base);
    expect(fb.responses[0].partitions[0].acquiredRecords[0].deliveryCount).to.be.oneOf([1, 2]);
  });

  it('ShareGroupDescribe describes the group and its members; ListGroups v5 lists it as a share group', async () => {
    const G = 'sg-describe';
    const k = await caller('describing-client');
    const j = await join(k, G);
    const d = await k.call(ApiKeys.ShareGroupDescribe, 1, { groupIds: [G, 'sg-nobody'], includeAuthorizedOperations: true });
    const g = d.groups.find((x: { groupId: string }) => x.groupId === G);
    expect(g).to.deep.include({ errorCode: 0, groupId: G, groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'simple' });
    expect(g.authorizedOperations).to.be.above(0);
    expect(g.members).to.have.length(1);
    expect(g.members[0]).to.deep.include({ memberId: j.memberId, memberEpoch: 1, clientId: 'describing-client', subscribedTopicNames: [TOPIC] });
    expect(g.members[0].assignment).to.deep.equal({ topicPartitions: [{ topicId, topicName: TOPIC, partitions: [0] }] });
    const nobody = d.groups.find((x: { groupId: string }) => x.groupId === 'sg-nobody');
    expect(nobody.errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
    const l = await k.call(ApiKeys.ListGroups, 5, { statesFilter: [], typesFilter: ['Share'] });
    expect(l.groups.map((x: { groupId: string }) => x.groupId)).to.include(G);
    expect(l.groups.every((x: { groupType: string }) => x.groupType === 'share')).to.equal(true);
    const listed = l.groups.find((x: { groupId: string }) => x.groupId === G);
    expect(listed).to.deep.include({ protocolType: 'share', groupState: 'Stable' });
    const consumers = await k.call(ApiKeys.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
    expect(consumers.groups.map((x: { groupId: string }) => x.groupId)).to.not.include(G);
    // leaving: epoch -1
    const left = await k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId: G, memberId: j.memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null });
    expect(left).to.deep.include({ errorCode: 0, memberEpoch: -1 });
  });

  it('share.version 0 (UpdateFeatures, a safe downgrade): every share API answers UNSUPPORTED_VERSION; upgraded again, the member goes on', async () => {
    const G = 'sg-feature';
    const a = await member(G);
    const setShareVersion = async (level: number) => {
      const r = await a.k.call(ApiKeys.UpdateFeatures, 1, { timeoutMs: 10_000, featureUpdates: [{ feature: 'share.version', maxVersionLevel: level, upgradeType: level === 0 ? 2 : 1 }], validateOnly: false });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      await checkFor(async () => {
        const v = await a.k.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.2.0' });
        return (v.finalizedFeatures.find((f: { name: string }) => f.name === 'share.version')?.maxVersionLevel ?? 0) === level;
      }, 10_000, 20);
    };
    await setShareVersion(0);
    try {
      // the broker's coordinator and share partition manager hear it a moment after the metadata
      const hb = await checkFor(async () => {
        const r = await a.k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId: G, memberId: a.memberId, memberEpoch: 1, rackId: null, subscribedTopicNames: null });
        return r.errorCode === ErrorCode.UNSUPPORTED_VERSION ? r : null;
      }, 10_000, 20);
      expect(hb.errorMessage).to.match(/share\.version is 0/);
      const fetched = await a.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, a.epoch, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }]));
      expect(fetched).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_VERSION, responses: [] });
      const acked = await a.k.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId: a.memberId, shareSessionEpoch: a.epoch, topics: [] });
      expect(acked.errorCode).to.equal(ErrorCode.UNSUPPORTED_VERSION);
      const described = await a.k.call(ApiKeys.ShareGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: false });
      expect(described.groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.UNSUPPORTED_VERSION });
      const offsets = await a.k.call(ApiKeys.DescribeShareGroupOffsets, 1, { groups: [{ groupId: G, topics: null }] });
      expect(offsets.groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.UNSUPPORTED_VERSION });
    } finally {
      await setShareVersion(1);
    }
    // the member is still in the group (its group session did not run out); its share session ended with share groups off (as Kafka's removeAllSessions)
    const hb = await checkFor(async () => {
      const r = await a.k.call(ApiKeys.ShareGroupHeartbeat, 1, { groupId: G, memberId: a.memberId, memberEpoch: 1, rackId: null, subscribedTopicNames: null });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 10_000, 20);
    expect(hb.memberEpoch).to.equal(1);
    const stale = await a.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, a.epoch, []));
    expect(stale.errorCode).to.equal(ErrorCode.SHARE_SESSION_NOT_FOUND);
    const base = await produce(a.k, ['after']);
    const f = await a.k.call(ApiKeys.ShareFetch, 1, fetchBody(G, a.memberId, 0, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], { maxWaitMs: 2_000, minBytes: 1 }));
    expect(f.errorCode).to.equal(ErrorCode.NONE);
    expect(acquiredValues(f.responses[0].partitions[0])).to.deep.equal(['after']);
    expect(f.responses[0].partitions[0].acquiredRecords[0].firstOffset).to.equal(base);
  });
});

describe('Kafka API: KIP-932 share fetches of partitions led elsewhere; the share session limit', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: 'led', partitions: 1, replicationFactor: 1 }], brokerConfig: { 'group.share.max.share.sessions': 2, 'group.share.max.size': 2 } });
  });
  after(async () => {
    await c?.stop();
  });

  it('a broker keeps at most group.share.max.share.sessions sessions: one more is SHARE_SESSION_LIMIT_REACHED until one closes', async () => {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      const [m1, m2, m3] = [newMemberId(), newMemberId(), newMemberId()];
      expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m1, 0, []))).errorCode).to.equal(ErrorCode.NONE);
      expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m2, 0, []))).errorCode).to.equal(ErrorCode.NONE);
      expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m3, 0, []))).errorCode).to.equal(ErrorCode.SHARE_SESSION_LIMIT_REACHED);
      // a member opening its session again takes its own place
      expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m1, 0, []))).errorCode).to.equal(ErrorCode.NONE);
      expect((await k.call(ApiKeys.ShareAcknowledge, 1, { groupId: 'sg-limit', memberId: m2, shareSessionEpoch: -1, topics: [] })).errorCode).to.equal(ErrorCode.NONE);
      expect((await k.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m3, 0, []))).errorCode).to.equal(ErrorCode.NONE);
      // each broker keeps its own
      const other = await KafkaCaller.connect(c.bootstrap[1]!);
      try {
        expect((await other.call(ApiKeys.ShareFetch, 1, fetchBody('sg-limit', m2, 0, []))).errorCode).to.equal(ErrorCode.NONE);
      } finally {
        other.end();
      }
    } finally {
      k.end();
    }
  });

  it('a partition this broker does not lead is NOT_LEADER_OR_FOLLOWER with its leader and the leader\'s endpoint; one that does not exist UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const any = await KafkaCaller.connect(c.bootstrap[0]!);
    const md = await checkFor(async () => {
      const r = await any.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'led' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0]?.errorCode === ErrorCode.NONE && r.topics[0].partitions[0]?.leaderId > 0 ? r : null;
    }, 15_000, 50);
    any.end();
    const t = md.topics[0];
    const leader = t.partitions[0].leaderId as number;
    const other = md.brokers.find((b: { nodeId: number }) => b.nodeId !== leader);
    const k = await KafkaCaller.connect(`${other.host}:${other.port}`);
    try {
      const r = await k.call(
        ApiKeys.ShareFetch,
        1,
        fetchBody('sg-led', newMemberId(), 0, [{ topicId: t.topicId, partitions: [0, 7].map((partitionIndex) => ({ partitionIndex, acknowledgementBatches: [] })) }]),
      );
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      const [p0, p7] = r.responses[0].partitions;
      expect(p0).to.deep.include({ partitionIndex: 0, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
      expect(p0.currentLeader).to.deep.equal({ leaderId: leader, leaderEpoch: t.partitions[0].leaderEpoch });
      expect(p7).to.deep.include({ partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      expect(p7.currentLeader).to.deep.equal({ leaderId: -1, leaderEpoch: -1 });
      const l = md.brokers.find((b: { nodeId: number }) => b.nodeId === leader);
      expect(r.nodeEndpoints).to.deep.equal([{ nodeId: leader, host: l.host, port: l.port, rack: null }]);
    } finally {
      k.end();
    }
  });
});

describe('Kafka API: KIP-932 share groups with ACLs', function () {
  this.timeout(60_000);
  const suite = authorizedKafkaClusterPerSuite({ alice: 'alice-secret', bob: 'bob-secret' }, { topics: [{ name: TOPIC, partitions: 1, replicationFactor: 1 }] });
  const G = 'acl-share';
  let topicId: string;

  before(async () => {
    const admin = await suite().login('admin');
    // as a client would: the group's coordinator found first (__consumer_offsets made then)
    await checkFor(async () => (await admin.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [G] })).coordinators[0].errorCode === ErrorCode.NONE, 20_000, 50);
    const md = await checkFor(async () => {
      const r = await admin.call(ApiKeys.Metadata, 12, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: TOPIC }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      return r.topics[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    topicId = md.topics[0].topicId;
  });

  const heartbeat = (memberId: string) => ({ groupId: G, memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: [TOPIC] });
  const partition0 = (acknowledgementBatches: object[] = []) => [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches }] }];

  it('without READ on the group: every share API refuses it (GROUP_AUTHORIZATION_FAILED); ShareGroupDescribe needs DESCRIBE', async () => {
    const alice = await suite().login('alice');
    const memberId = newMemberId();
    expect((await alice.call(ApiKeys.ShareGroupHeartbeat, 1, heartbeat(memberId))).errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const f = await alice.call(ApiKeys.ShareFetch, 1, fetchBody(G, memberId, 0, partition0()));
    expect(f.errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    expect(f.responses).to.deep.equal([]);
    expect((await alice.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId, shareSessionEpoch: 1, topics: partition0([ackBatch(0, 0, ACCEPT)]) })).errorCode).to.equal(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const d = await alice.call(ApiKeys.ShareGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: false });
    expect(d.groups).to.have.length(1);
    expect(d.groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED });
  });

  it('READ on the group alone: the heartbeat needs DESCRIBE on the topics, the fetch and its acknowledgements READ (TOPIC_AUTHORIZATION_FAILED per partition)', async () => {
    const a = suite();
    await a.allow({ principal: 'User:bob', operation: AclOperation.READ, resourceType: ResourceType.GROUP, resourceName: G });
    const bob = await a.login('bob');
    const memberId = newMemberId();
    expect((await bob.call(ApiKeys.ShareGroupHeartbeat, 1, heartbeat(memberId))).errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    const f = await bob.call(ApiKeys.ShareFetch, 1, fetchBody(G, memberId, 0, partition0()));
    expect(f.errorCode).to.equal(ErrorCode.NONE);
    expect(f.responses[0].partitions[0]).to.deep.include({ partitionIndex: 0, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    const g = await bob.call(ApiKeys.ShareFetch, 1, fetchBody(G, memberId, 1, partition0([ackBatch(0, 0, ACCEPT)])));
    expect(g.responses[0].partitions[0]).to.deep.include({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, acknowledgeErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
    const ack = await bob.call(ApiKeys.ShareAcknowledge, 1, { groupId: G, memberId, shareSessionEpoch: 2, topics: partition0([ackBatch(0, 0, ACCEPT)]) });
    expect(ack.errorCode).to.equal(ErrorCode.NONE);
    expect(ack.responses[0].partitions[0].errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    // DESCRIBE on the topic: the heartbeat goes through, the fetch still needs READ
    await a.allow({ principal: 'User:bob', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: TOPIC });
    const j = await checkFor(async () => {
      const x = await bob.call(ApiKeys.ShareGroupHeartbeat, 1, heartbeat(memberId));
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 20_000, 50);
    expect(j.assignment.topicPartitions).to.deep.equal([{ topicId, partitions: [0] }]);
    expect((await bob.call(ApiKeys.ShareFetch, 1, fetchBody(G, memberId, 3, []))).responses[0].partitions[0].errorCode).to.equal(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  });

  it('READ on the group and the topic: the member fetches; ShareGroupDescribe needs DESCRIBE on the topics the group uses', async () => {
    const a = suite();
    await a.allow(
      { principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.GROUP, resourceName: G },
      { principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.TOPIC, resourceName: TOPIC },
    );
    const alice = await a.login('alice');
    const memberId = newMemberId();
    const j = await checkFor(async () => {
      const x = await alice.call(ApiKeys.ShareGroupHeartbeat, 1, heartbeat(memberId));
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 20_000, 50);
    expect(j.memberId).to.equal(memberId);
    const f = await checkFor(async () => {
      const r = await alice.call(ApiKeys.ShareFetch, 1, fetchBody(G, memberId, 0, partition0()));
      return r.errorCode === ErrorCode.NONE && r.responses[0]?.partitions[0]?.errorCode === ErrorCode.NONE ? r : null;
    }, 20_000, 100);
    expect(f.responses[0].partitions[0].acquiredRecords).to.deep.equal([]);
    const d = await alice.call(ApiKeys.ShareGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: true });
    expect(d.groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.NONE });
    // READ and its implied DESCRIBE on the group, nothing else
    expect(d.groups[0].authorizedOperations).to.equal((1 << AclOperation.READ) | (1 << AclOperation.DESCRIBE));
    // bob may DESCRIBE the group but, without DESCRIBE on the topic it uses, not see it described
    await a.revokeAll();
    await a.allow({ principal: 'User:bob', operation: AclOperation.DESCRIBE, resourceType: ResourceType.GROUP, resourceName: G });
    const bob = await a.login('bob');
    const hidden = await bob.call(ApiKeys.ShareGroupDescribe, 1, { groupIds: [G], includeAuthorizedOperations: false });
    expect(hidden.groups[0]).to.deep.include({ groupId: G, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
  });
});

describe('share sessions (the broker\'s cache)', () => {
  const clock = { t: 0, now() { return this.t; } };
  const gone: string[] = [];
  const cache = () => new ShareSessionCache(2, clock, (g, m) => gone.push(`${g}/${m}`));
  const p = (topicId: string, partition: number) => ({ topicId, partition });
  beforeEach(() => gone.splice(0));

  it('opens with epoch 1 and the partitions named; an incremental request adds and forgets partitions and moves the epoch on', () => {
    const c = cache();
    const s = c.open('g', 'm1', [p('t', 0), p('t', 1)], 'conn-1')!;
    expect(s.epoch).to.equal(1);
    c.update(s, [p('u', 0), p('t', 0)], [p('t', 1)]);
    expect([...s.partitions.values()]).to.deep.equal([p('t', 0), p('u', 0)]);
    expect(s.epoch).to.equal(2);
    c.advance(s);
    expect(c.get('g', 'm1')!.epoch).to.equal(3);
    expect(c.totalPartitions).to.equal(2);
    expect(nextShareEpoch(2147483647)).to.equal(1);
    expect(nextShareEpoch(-1)).to.equal(-1);
  });

  it('holds at most maxEntries sessions (Kafka evicts none); a member opening again replaces its own, without telling it gone', () => {
    const c = cache();
    expect(c.open('g', 'm1', [], 'conn-1')).to.not.equal(null);
    expect(c.open('g', 'm2', [], 'conn-1')).to.not.equal(null);
    expect(c.open('g', 'm3', [], 'conn-2')).to.equal(null);
    const again = c.open('g', 'm1', [p('t', 0)], 'conn-2')!;
    expect(again.partitions.size).to.equal(1);
    expect(c.size).to.equal(2);
    expect(gone).to.deep.equal([]);
  });

  it('closing a session tells the member gone; a closing connection ends the sessions it opened and still holds; an orphaned fetch tells it again', () => {
    const c = cache();
    c.open('g', 'm1', [], 'conn-1');
    c.open('h', 'm2', [], 'conn-1');
    expect(c.close('g', 'm1')).to.equal(true);
    expect(c.close('g', 'm1')).to.equal(false);
    expect(gone).to.deep.equal(['g/m1']);
    // m2 opens again on another connection: the first connection closing leaves it be
    c.open('h', 'm2', [], 'conn-2');
    c.connectionClosed('conn-1');
    expect(c.get('h', 'm2')).to.not.equal(undefined);
    c.connectionClosed('conn-2');
    expect(c.get('h', 'm2')).to.equal(undefined);
    expect(gone).to.deep.equal(['g/m1', 'h/m2']);
    expect(c.disconnected).to.equal(1);
    // a member without a session whose waiting fetch acquired records: told gone again; one with a session is not
    expect(c.releaseOrphaned('h', 'm2')).to.equal(true);
    c.open('g', 'm3', [], 'conn-3');
    expect(c.releaseOrphaned('g', 'm3')).to.equal(false);
    expect(gone).to.deep.equal(['g/m1', 'h/m2', 'h/m2']);
  });

  it('setEnabled(false) (share.version lowered to 0): every session ends, no member told gone; a connection closing after it ends nothing more', () => {
    const c = cache();
    expect(c.enabled).to.equal(true);
    c.open('g', 'm1', [], 'conn-1');
    c.open('g', 'm2', [], 'conn-2');
    expect(c.setEnabled(false)).to.equal(2);
    expect(c.enabled).to.equal(false);
    expect(c.get('g', 'm1')).to.equal(undefined);
    expect(c.get('g', 'm2')).to.equal(undefined);
    c.connectionClosed('conn-1');
    expect(gone).to.deep.equal([]);
    expect(c.removeAll()).to.equal(0);
    expect(c.setEnabled(true)).to.equal(0);
    expect(c.enabled).to.equal(true);
    // members open new sessions
    expect(c.open('g', 'm1', [], 'conn-1')).to.not.equal(null);
  });

  it('acknowledgement batches as Kafka checks them', () => {
    const b = (firstOffset: number, lastOffset: number, ...acknowledgeTypes: number[]) => ({ firstOffset, lastOffset, acknowledgeTypes });
    expect(invalidAcknowledgement([b(0, 2, 1), b(3, 3, 2), b(4, 5, 3, 0)], 1, false)).to.equal(null);
    expect(invalidAcknowledgement([b(2, 1, 1)], 1, false)).to.match(/first offset is after its last/);
    expect(invalidAcknowledgement([b(0, 4, 1), b(3, 5, 1)], 1, false)).to.match(/overlaps/);
    expect(invalidAcknowledgement([b(0, 1)], 1, false)).to.match(/no acknowledge types/);
    expect(invalidAcknowledgement([b(0, 2, 1, 1)], 1, false)).to.match(/expected 1 or 3/);
    expect(invalidAcknowledgement([b(0, 0, 5)], 2, true)).to.match(/unknown acknowledge type 5/);
    // Renew (4): v2 only, and only in a request marked IsRenewAck
    expect(invalidAcknowledgement([b(0, 0, 4)], 1, true)).to.match(/unknown acknowledge type 4/);
    expect(invalidAcknowledgement([b(0, 0, 4)], 2, false)).to.match(/needs a request marked IsRenewAck/);
    expect(invalidAcknowledgement([b(0, 0, 4), b(1, 1, 1)], 2, true)).to.equal(null);
  });
});
