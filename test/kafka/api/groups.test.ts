/**
 * The group APIs over the Kafka protocol: FindCoordinator (single and batched keys; v6's share
 * key type answered with the leader of the key's __share_group_state partition, a malformed key
 * refused), JoinGroup with and without MEMBER_ID_REQUIRED (v4+ vs v0-v3), the join and
 * leave reasons (JoinGroup v8, LeaveGroup v5) in the coordinator's log, a static leader rejoining
 * with SkipAssignment (JoinGroup v9) or without (v8), SyncGroup, Heartbeat, DescribeGroups (v6's
 * GROUP_ID_NOT_FOUND and messages, KIP-1043, against v5),
 * ListGroups (v5's type filter), LeaveGroup, and committed offsets (OffsetCommit / OffsetFetch,
 * including v8's several groups at once and "every committed partition").
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { rootLogger, setLogLevel, type LogLevel } from '../../../src/runtime/logger.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { checkFor } from '../../helpers/check-for.js';

const TOPIC = 'grouped';
const META = Buffer.from([0, 1, 2, 3]);

describe('Kafka API: groups and committed offsets', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  const open: KafkaCaller[] = [];

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, topics: [{ name: TOPIC, partitions: 3, replicationFactor: 2 }] });
  });
  afterEach(() => {
    for (const k of open.splice(0)) k.end();
  });
  after(async () => {
    await c?.stop();
  });

  async function caller(endpoint: string): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint);
    open.push(k);
    return k;
  }

  /** Connects to the group's coordinator, found with FindCoordinator v`version`. */
  async function coordinatorFor(groupId: string): Promise<KafkaCaller> {
    const any = await caller(c.bootstrap[0]!);
    const found = await checkFor(async () => {
      const r = await any.call(ApiKeys.FindCoordinator, 2, { key: groupId, keyType: 0 });
      return r.errorCode === ErrorCode.NONE ? r : null;
    }, 15_000, 50);
    expect(c.bootstrap).to.include(`${found.host}:${found.port}`);
    return caller(`${found.host}:${found.port}`);
  }

  it('FindCoordinator v4 answers several keys at once; a transaction key is answered with its transaction coordinator', async () => {
    const k = await caller(c.bootstrap[1]!);
    const r = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-a', 'g-b', 'g-c'] });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    expect(r.coordinators.map((co: { key: string }) => co.key)).to.deep.equal(['g-a', 'g-b', 'g-c']);
    for (const co of r.coordinators) expect(c.bootstrap).to.include(`${co.host}:${co.port}`);
    const txn = await checkFor(async () => {
      const x = (await k.call(ApiKeys.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0];
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 15_000, 50);
    expect(c.bootstrap).to.include(`${txn.host}:${txn.port}`);
    expect((await k.call(ApiKeys.FindCoordinator, 4, { keyType: 2, coordinatorKeys: ['x'] })).coordinators[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const v0 = await k.call(ApiKeys.FindCoordinator, 0, { key: 'g-a' });
    expect(v0.errorCode).to.equal(ErrorCode.NONE);
    expect(v0.nodeId).to.equal(r.coordinators[0].nodeId);
  });

  it('FindCoordinator v5 and v6 answer group and transaction keys as v4; v6 answers a share-state key (type 2) with its share coordinator, a malformed one INVALID_REQUEST', async () => {
    const k = await caller(c.bootstrap[0]!);
    const v4 = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g-a', 'g-b'] });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    for (const version of [5, 6]) {
      const r = await k.call(ApiKeys.FindCoordinator, version, { keyType: 0, coordinatorKeys: ['g-a', 'g-b'] });
      expect(r.coordinators, `v${version}`).to.deep.equal(v4.coordinators);
      const txn = await checkFor(async () => {
        const x = (await k.call(ApiKeys.FindCoordinator, version, { keyType: 1, coordinatorKeys: ['tx'] })).coordinators[0];
        return x.errorCode === ErrorCode.NONE ? x : null;
      }, 15_000, 50);
      expect(c.bootstrap).to.include(`${txn.host}:${txn.port}`);
    }
    const share = await k.call(ApiKeys.FindCoordinator, 6, { keyType: 2, coordinatorKeys: ['g-a:topic-id:0', 'g-b:topic-id:1'] });
    expect(share.coordinators.map((co: { key: string; errorCode: number; nodeId: number; port: number }) => [co.key, co.errorCode, co.nodeId, co.port])).to.deep.equal([
      ['g-a:topic-id:0', ErrorCode.INVALID_REQUEST, -1, -1],
      ['g-b:topic-id:1', ErrorCode.INVALID_REQUEST, -1, -1],
    ]);
    // a well-formed key: the leader of its __share_group_state partition (created on first need)
    const shareKey = 'g-a:AAAAAAAAAAAAAAAAAAAAAg:0';
    const sc = await checkFor(async () => {
      const x = (await k.call(ApiKeys.FindCoordinator, 6, { keyType: 2, coordinatorKeys: [shareKey] })).coordinators[0];
      return x.errorCode === ErrorCode.NONE ? x : null;
    }, 15_000, 50);
    expect(sc.key).to.equal(shareKey);
    expect(c.bootstrap).to.include(`${sc.host}:${sc.port}`);
    expect((await k.call(ApiKeys.FindCoordinator, 6, { keyType: 3, coordinatorKeys: ['x'] })).coordinators[0].errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('a group not coordinated by the broker asked gets NOT_COORDINATOR', async () => {
    const k = await caller(c.bootstrap[0]!);
    const found = await checkFor(async () => {
      const x = await k.call(ApiKeys.FindCoordinator, 4, { keyType: 0, coordinatorKeys: Array.from({ length: 20 }, (_, i) => `probe-${i}`) });
      return x.coordinators.every((co: { errorCode: number }) => co.errorCode === ErrorCode.NONE) ? x : null;
    }, 15_000, 50);
    const elsewhere = found.coordinators.find((co: { port: number }) => `127.0.0.1:${co.port}` !== c.bootstrap[0]);
    expect(elsewhere, 'some group is coordinated by the other broker').to.not.equal(undefined);
    const r = await k.call(ApiKeys.Heartbeat, 3, { groupId: elsewhere.key, generationId: 1, memberId: 'm', groupInstanceId: null });
    expect(r.errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
  });

  it("DescribeGroups v6 (KIP-1043): a group that is not there is GROUP_ID_NOT_FOUND, Dead, with Kafka's message; v5 answers it Dead with no error, as before; NOT_COORDINATOR carries a message at v6", async () => {
    const G = 'v6-never-seen';
    const k = await coordinatorFor(G);
    const v6 = await k.call(ApiKeys.DescribeGroups, 6, { groups: [G], includeAuthorizedOperations: true });
    expect(v6.groups).to.deep.equal([
      { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${G} not found.`, groupId: G, groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: -2147483648 },
    ]);
    const v5 = await k.call(ApiKeys.DescribeGroups, 5, { groups: [G], includeAuthorizedOperations: true });
    expect(v5.groups[0]).to.deep.include({ errorCode: ErrorCode.NONE, groupId: G, groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: 3400 });
    // the other broker does not coordinate the group
    const found = await k.call(ApiKeys.FindCoordinator, 2, { key: G, keyType: 0 });
    const other = await caller(c.bootstrap.find((b) => b !== `${found.host}:${found.port}`)!);
    const elsewhere = await other.call(ApiKeys.DescribeGroups, 6, { groups: [G], includeAuthorizedOperations: false });
    expect(elsewhere.groups[0]).to.deep.include({ errorCode: ErrorCode.NOT_COORDINATOR, errorMessage: 'This is not the correct coordinator.', groupState: '' });
    expect((await other.call(ApiKeys.DescribeGroups, 5, { groups: [G], includeAuthorizedOperations: false })).groups[0].errorCode).to.equal(ErrorCode.NOT_COORDINATOR);
  });

  it('JoinGroup v3 admits a new member at once; v5 first answers MEMBER_ID_REQUIRED with the id to rejoin with', async () => {
    const old = await coordinatorFor('g-old');
    const j3 = await old.call(ApiKeys.JoinGroup, 3, { groupId: 'g-old', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    expect(j3.errorCode).to.equal(ErrorCode.NONE);
    expect(j3.memberId).to.match(/.+/);
    expect(j3.leader).to.equal(j3.memberId);
    expect(j3.members).to.have.length(1);

    const k = await coordinatorFor('g-new');
    const join = (memberId: string) =>
      k.call(ApiKeys.JoinGroup, 5, { groupId: 'g-new', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    const first = await join('');
    expect(first.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).to.match(/.+/);
    const second = await join(first.memberId);
    expect(second.errorCode).to.equal(ErrorCode.NONE);
    expect(second.generationId).to.equal(1);
    expect(second.protocolName).to.equal('range');
    expect(second.members[0].metadata.equals(META)).to.equal(true);
  });

  it('JoinGroup v9 (KIP-814): a static leader rejoining a stable group learns it leads, with the members, and to skip the assignment; v8 is told the old leader', async () => {
    const G = 'g-static';
    const lead = await coordinatorFor(G);
    const other = await coordinatorFor(G);
    const join = (k: KafkaCaller, version: number, memberId: string, instance: string, metadata = META) =>
      k.call(ApiKeys.JoinGroup, version, { groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: instance, protocolType: 'consumer', protocols: [{ name: 'range', metadata }], reason: null });
    const sync = (k: KafkaCaller, generationId: number, memberId: string, instance: string, assignments: { memberId: string; assignment: Buffer }[]) =>
      k.call(ApiKeys.SyncGroup, 5, { groupId: G, generationId, memberId, groupInstanceId: instance, protocolType: 'consumer', protocolName: 'range', assignments });

    // generation 1: a alone; then b joins and a rejoins: generation 2 with a as leader
    const a1 = await join(lead, 9, '', 'i-a');
    expect(a1).to.include({ errorCode: ErrorCode.NONE, generationId: 1, leader: a1.memberId, skipAssignment: false });
    expect((await sync(lead, 1, a1.memberId, 'i-a', [{ memberId: a1.memberId, assignment: Buffer.from('a-only') }])).errorCode).to.equal(ErrorCode.NONE);
    const bJoining = join(other, 9, '', 'i-b', Buffer.from([9]));
    await checkFor(async () => ((await lead.call(ApiKeys.Heartbeat, 4, { groupId: G, generationId: 1, memberId: a1.memberId, groupInstanceId: 'i-a' })).errorCode === ErrorCode.REBALANCE_IN_PROGRESS ? true : null), 10_000, 20);
    const a2 = await join(lead, 9, a1.memberId, 'i-a');
    const b2 = await bJoining;
    expect(a2).to.include({ errorCode: ErrorCode.NONE, generationId: 2, leader: a1.memberId });
    expect(b2).to.include({ errorCode: ErrorCode.NONE, generationId: 2, leader: a1.memberId });
    const assignments = [
      { memberId: a1.memberId, assignment: Buffer.from('for-a') },
      { memberId: b2.memberId, assignment: Buffer.from('for-b') },
    ];
    const [sa, sb] = await Promise.all([sync(lead, 2, a1.memberId, 'i-a', assignments), sync(other, 2, b2.memberId, 'i-b', [])]);
    expect(sa.assignment.toString()).to.equal('for-a');
    expect(sb.assignment.toString()).to.equal('for-b');

    // b (not the leader) restarts: a new member id, nothing to do for it
    const b3 = await join(other, 9, '', 'i-b', Buffer.from([9]));
    expect(b3).to.include({ errorCode: ErrorCode.NONE, generationId: 2, leader: a1.memberId, skipAssignment: false });
    expect(b3.memberId).to.not.equal(b2.memberId);
    expect(b3.members).to.deep.equal([]);

    // a (the leader) restarts on v9: told it leads, given the members, and to skip the assignment
    const a3 = await join(lead, 9, '', 'i-a');
    expect(a3).to.include({ errorCode: ErrorCode.NONE, generationId: 2, protocolName: 'range', skipAssignment: true });
    expect(a3.memberId).to.not.equal(a1.memberId);
    expect(a3.leader).to.equal(a3.memberId);
    const members = (a3.members as { memberId: string; groupInstanceId: string; metadata: Buffer }[]).map((m) => [m.memberId, m.groupInstanceId, [...m.metadata]]);
    expect(members).to.have.deep.members([
      [a3.memberId, 'i-a', [...META]],
      [b3.memberId, 'i-b', [9]],
    ]);
    // the group is still stable: its assignment stands for the new member id, with no rebalance
    const sa3 = await sync(lead, 2, a3.memberId, 'i-a', []);
    expect(sa3).to.include({ errorCode: ErrorCode.NONE });
    expect(sa3.assignment.toString()).to.equal('for-a');
    expect((await other.call(ApiKeys.Heartbeat, 4, { groupId: G, generationId: 2, memberId: b3.memberId, groupInstanceId: 'i-b' })).errorCode).to.equal(ErrorCode.NONE);

    // the same restart on v8: the client is told the leader it had before, so it does not assign
    const a4 = await join(lead, 8, '', 'i-a');
    expect(a4).to.include({ errorCode: ErrorCode.NONE, generationId: 2, leader: a3.memberId });
    expect(a4.memberId).to.not.equal(a3.memberId);
    expect(a4.members).to.deep.equal([]);
    expect(a4.skipAssignment).to.not.equal(true);
  });

  it('JoinGroup v8 and LeaveGroup v5 reasons (KIP-800) are logged with the rebalance and the removal they cause; without one, "not provided"', async () => {
    const lines: Record<string, unknown>[] = [];
    const transport = new winston.transports.Stream({
      stream: new Writable({
        objectMode: true,
        write(info: Record<string, unknown>, _enc, next) {
          lines.push(info);
          next();
        },
      }),
    });
    const levelBefore = (process.env.SAMSA_LOG_LEVEL ?? 'silent') as LogLevel;
    const stderr = rootLogger.transports.find((t) => t instanceof winston.transports.Console);
    const stderrSilent = stderr?.silent;
    if (stderr) stderr.silent = true;
    rootLogger.add(transport);
    setLogLevel('info');
    try {
      const k = await coordinatorFor('g-reasons');
      const join = (version: number, memberId: string, reason: string | null) =>
        k.call(ApiKeys.JoinGroup, version, { groupId: 'g-reasons', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }], reason });
      const first = await join(8, '', 'first start');
      expect(first.errorCode).to.equal(ErrorCode.MEMBER_ID_REQUIRED);
      const joined = await join(8, first.memberId, 'first start');
      expect(joined.errorCode).to.equal(ErrorCode.NONE);
      const me = joined.memberId as string;
      // winston hands lines to the stream transport a tick later
      const reasonsOf = (msg: string, n: number) =>
        checkFor(async () => {
          const found = lines.filter((l) => l.message === msg && l.groupId === 'g-reasons').map((l) => String(l.reason));
          return found.length >= n ? found : null;
        }, 5_000, 10);
      expect(await reasonsOf('member joins group', 1)).to.deep.equal(['first start']);
      expect(await reasonsOf('preparing to rebalance group', 1)).to.deep.equal([`adding new member ${me}; client reason: first start`]);
      const sync = async (generationId: number) =>
        expect((await k.call(ApiKeys.SyncGroup, 5, { groupId: 'g-reasons', generationId, memberId: me, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })).errorCode).to.equal(ErrorCode.NONE);
      await sync(joined.generationId);
      // the leader rejoining a stable group rebalances it, for the reason it gives
      const again = await join(8, me, 'metadata changed');
      expect(again.errorCode).to.equal(ErrorCode.NONE);
      expect((await reasonsOf('preparing to rebalance group', 2))[1]).to.equal(`member ${me} rejoined as leader; client reason: metadata changed`);
      await sync(again.generationId);
      // v7 has no reason field
      expect((await join(7, me, 'never sent')).errorCode).to.equal(ErrorCode.NONE);
      expect((await reasonsOf('preparing to rebalance group', 3))[2]).to.equal(`member ${me} rejoined as leader; client reason: not provided`);
      const left = await k.call(ApiKeys.LeaveGroup, 5, { groupId: 'g-reasons', members: [{ memberId: me, groupInstanceId: null, reason: 'shutting down' }] });
      expect(left.members[0]).to.include({ memberId: me, errorCode: ErrorCode.NONE });
      expect(await reasonsOf('member removed from group', 1)).to.deep.equal([`member ${me} left the group through LeaveGroup; client reason: shutting down`]);
    } finally {
      rootLogger.remove(transport);
      if (stderr) stderr.silent = stderrSilent;
      setLogLevel(levelBefore);
    }
  });

  it('ListGroups v5 (KIP-848) names a classic group "classic" and filters by type: classic in any case lists it, consumer or an unknown type not', async () => {
    const k = await coordinatorFor('g-typed');
    const j = await k.call(ApiKeys.JoinGroup, 3, { groupId: 'g-typed', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    expect(j.errorCode).to.equal(ErrorCode.NONE);
    const list = async (typesFilter: string[], statesFilter: string[] = []) => {
      const r = await k.call(ApiKeys.ListGroups, 5, { statesFilter, typesFilter });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      return (r.groups as { groupId: string; protocolType: string; groupState: string; groupType: string }[]).filter((g) => g.groupId === 'g-typed');
    };
    expect(await list([])).to.deep.equal([{ groupId: 'g-typed', protocolType: 'consumer', groupState: 'CompletingRebalance', groupType: 'classic' }]);
    expect(await list(['classic'])).to.have.length(1);
    expect(await list(['Classic'])).to.have.length(1);
    expect(await list(['consumer', 'CLASSIC'])).to.have.length(1);
    expect(await list(['classic'], [' completingrebalance '])).to.have.length(1);
    expect(await list(['classic'], ['Stable'])).to.deep.equal([]);
    expect(await list(['consumer'])).to.deep.equal([]);
    expect(await list(['share'])).to.deep.equal([]);
    expect(await list(['no-such-type'])).to.deep.equal([]);
    // v4 has no type filter nor type
    const v4 = await k.call(ApiKeys.ListGroups, 4, { statesFilter: [] });
    expect(v4.groups.find((g: { groupId: string }) => g.groupId === 'g-typed')).to.deep.equal({ groupId: 'g-typed', protocolType: 'consumer', groupState: 'CompletingRebalance', groupType: '' });
  });

  it('a whole group life: join, sync, heartbeat, describe, list, commit, fetch offsets, leave', async () => {
    const k = await coordinatorFor('life');
    const j = await k.call(ApiKeys.JoinGroup, 7, { groupId: 'life', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: META }] });
    const joined = j.errorCode === ErrorCode.MEMBER_ID_REQUIRED
      ? await k.call(ApiKeys.JoinGroup, 7, { groupId: 'life', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: j.memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: META }] })
      : j;
    expect(joined.errorCode).to.equal(ErrorCode.NONE);
    expect(joined.protocolType).to.equal('consumer');
    const me = joined.memberId as string;
    const assignment = Buffer.from('assignment-bytes');
    const sync = await k.call(ApiKeys.SyncGroup, 5, { groupId: 'life', generationId: joined.generationId, memberId: me, groupInstanceId: null, protocolType: 'consumer', protocolName: 'roundrobin', assignments: [{ memberId: me, assignment }] });
    expect(sync.errorCode).to.equal(ErrorCode.NONE);
    expect(sync.assignment.equals(assignment)).to.equal(true);
    expect((await k.call(ApiKeys.Heartbeat, 4, { groupId: 'life', generationId: joined.generationId, memberId: me, groupInstanceId: null })).errorCode).to.equal(ErrorCode.NONE);
    expect((await k.call(ApiKeys.Heartbeat, 0, { groupId: 'life', generationId: joined.generationId + 7, memberId: me })).errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);

    const d = await k.call(ApiKeys.DescribeGroups, 5, { groups: ['life', 'never-seen'], includeAuthorizedOperations: false });
    const life = d.groups[0];
    expect(life).to.include({ errorCode: ErrorCode.NONE, groupId: 'life', groupState: 'Stable', protocolType: 'consumer', protocolData: 'roundrobin' });
    expect(life.members[0].memberId).to.equal(me);
    expect(life.members[0].clientId).to.equal('raw-test');
    expect(life.members[0].memberAssignment.equals(assignment)).to.equal(true);
    expect(d.groups[1]).to.include({ groupId: 'never-seen', groupState: 'Dead' });
    expect(life.authorizedOperations).to.equal(-2147483648);
    const ops = await k.call(ApiKeys.DescribeGroups, 3, { groups: ['life'], includeAuthorizedOperations: true });
    // READ DELETE DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS = bits 3, 6, 8, 10, 11
    expect(ops.groups[0].authorizedOperations).to.equal(3400);
    const d6 = await k.call(ApiKeys.DescribeGroups, 6, { groups: ['life'], includeAuthorizedOperations: true });
    expect(d6.groups[0]).to.deep.include({ errorCode: ErrorCode.NONE, errorMessage: null, groupId: 'life', groupState: 'Stable', protocolType: 'consumer', protocolData: 'roundrobin', authorizedOperations: 3400 });
    expect(d6.groups[0].members.map((m: { memberId: string }) => m.memberId)).to.deep.equal([me]);

    const listed = await k.call(ApiKeys.ListGroups, 4, { statesFilter: ['Stable'] });
    expect(listed.groups.map((g: { groupId: string }) => g.groupId)).to.include('life');
    const empties = await k.call(ApiKeys.ListGroups, 4, { statesFilter: ['Empty'] });
    expect(empties.groups.map((g: { groupId: string }) => g.groupId)).to.not.include('life');

    const commit = await k.call(ApiKeys.OffsetCommit, 8, {
      groupId: 'life',
      generationIdOrMemberEpoch: joined.generationId,
      memberId: me,
      groupInstanceId: null,
      topics: [{ name: TOPIC, partitions: [0, 1, 2].map((p) => ({ partitionIndex: p, committedOffset: 10 + p, committedLeaderEpoch: -1, committedMetadata: `m${p}` })) }],
    });
    expect(commit.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([0, 0, 0]);
    const stale = await k.call(ApiKeys.OffsetCommit, 2, { groupId: 'life', generationIdOrMemberEpoch: joined.generationId + 1, memberId: me, retentionTimeMs: -1, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 99, committedMetadata: null }] }] });
    expect(stale.topics[0].partitions[0].errorCode).to.equal(ErrorCode.ILLEGAL_GENERATION);

    const f1 = await k.call(ApiKeys.OffsetFetch, 1, { groupId: 'life', topics: [{ name: TOPIC, partitionIndexes: [0, 2] }] });
    expect(f1.topics[0].partitions.map((p: { partitionIndex: number; committedOffset: number; metadata: string }) => [p.partitionIndex, p.committedOffset, p.metadata])).to.deep.equal([
      [0, 10, 'm0'],
      [2, 12, 'm2'],
    ]);
    const all = await k.call(ApiKeys.OffsetFetch, 7, { groupId: 'life', topics: null, requireStable: false });
    expect(all.errorCode).to.equal(ErrorCode.NONE);
    expect(all.topics[0].partitions).to.have.length(3);

    // v3+: each member's own answer (the known one leaves, the unknown one is told so)
    const left = await k.call(ApiKeys.LeaveGroup, 4, { groupId: 'life', members: [{ memberId: 'ghost', groupInstanceId: null }, { memberId: me, groupInstanceId: null }] });
    expect(left.errorCode).to.equal(ErrorCode.NONE);
    expect(left.members.map((m: { memberId: string; errorCode: number }) => [m.memberId, m.errorCode])).to.deep.equal([
      ['ghost', ErrorCode.UNKNOWN_MEMBER_ID],
      [me, ErrorCode.NONE],
    ]);
    const again = await k.call(ApiKeys.LeaveGroup, 0, { groupId: 'life', memberId: me });
    expect(again.errorCode).to.equal(ErrorCode.UNKNOWN_MEMBER_ID);
    const after = await k.call(ApiKeys.DescribeGroups, 0, { groups: ['life'] });
    expect(after.groups[0].groupState).to.equal('Empty');
  });

  it('OffsetDelete drops an empty group\'s offsets; DeleteGroups removes empty groups and refuses busy or unknown ones', async () => {
    const k = await coordinatorFor('tidy');
    const commit = await k.call(ApiKeys.OffsetCommit, 2, { groupId: 'tidy', generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1, topics: [{ name: TOPIC, partitions: [0, 1].map((p) => ({ partitionIndex: p, committedOffset: 3, committedMetadata: null })) }] });
    expect(commit.topics[0].partitions.map((p: { errorCode: number }) => p.errorCode)).to.deep.equal([0, 0]);
    const od = await k.call(ApiKeys.OffsetDelete, 0, { groupId: 'tidy', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }] });
    expect(od.errorCode).to.equal(ErrorCode.NONE);
    expect(od.topics[0].partitions[0]).to.include({ partitionIndex: 0, errorCode: ErrorCode.NONE });
    const left = await k.call(ApiKeys.OffsetFetch, 5, { groupId: 'tidy', topics: null });
    expect(left.topics[0].partitions.map((p: { partitionIndex: number }) => p.partitionIndex)).to.deep.equal([1]);

    // a group with a member cannot be deleted
    const busy = await coordinatorFor('busy');
    const j = await busy.call(ApiKeys.JoinGroup, 3, { groupId: 'busy', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: META }] });
    expect(j.errorCode).to.equal(ErrorCode.NONE);
    const d1 = await busy.call(ApiKeys.DeleteGroups, 2, { groupsNames: ['busy'] });
    expect(d1.results).to.deep.equal([{ groupId: 'busy', errorCode: ErrorCode.NON_EMPTY_GROUP }]);
    const d2 = await k.call(ApiKeys.DeleteGroups, 0, { groupsNames: ['tidy'] });
    expect(d2.results).to.deep.equal([{ groupId: 'tidy', errorCode: ErrorCode.NONE }]);
    expect((await k.call(ApiKeys.OffsetFetch, 5, { groupId: 'tidy', topics: null })).topics).to.deep.equal([]);
    const d3 = await k.call(ApiKeys.DeleteGroups, 1, { groupsNames: ['tidy'] });
    expect(d3.results[0].errorCode).to.equal(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('standalone commits (OffsetCommit v1 without a member), OffsetFetch v8 for several groups at once', async () => {
    for (const g of ['solo-a', 'solo-b']) {
      const k = await coordinatorFor(g);
      const r = await k.call(ApiKeys.OffsetCommit, 1, { groupId: g, generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: TOPIC, partitions: [{ partitionIndex: 1, committedOffset: g === 'solo-a' ? 5 : 6, commitTimestamp: -1, committedMetadata: null }] }] });
      expect(r.topics[0].partitions[0].errorCode).to.equal(ErrorCode.NONE);
    }
    const a = await coordinatorFor('solo-a');
    const b = await coordinatorFor('solo-b');
    const groups = [{ groupId: 'solo-a', topics: [{ name: TOPIC, partitionIndexes: [1] }] }, { groupId: 'solo-b', topics: null }];
    // v8 names several groups; each is answered by its own coordinator (NOT_COORDINATOR elsewhere)
    const ra = await a.call(ApiKeys.OffsetFetch, 8, { groups, requireStable: false });
    expect(ra.groups[0]).to.deep.include({ groupId: 'solo-a', errorCode: ErrorCode.NONE });
    expect(ra.groups[0].topics[0].partitions[0].committedOffset).to.equal(5);
    const rb = await b.call(ApiKeys.OffsetFetch, 8, { groups, requireStable: false });
    expect(rb.groups[1].errorCode).to.equal(ErrorCode.NONE);
    expect(rb.groups[1].topics[0].partitions[0]).to.include({ partitionIndex: 1, committedOffset: 6 });
    // a partition with nothing committed
    const none = await a.call(ApiKeys.OffsetFetch, 3, { groupId: 'solo-a', topics: [{ name: TOPIC, partitionIndexes: [2] }] });
    expect(none.topics[0].partitions[0].committedOffset).to.equal(-1);
  });
});
