/**
 * AlterPartitionReassignments (45, v0-v1) and ListPartitionReassignments (46, v0) over the Kafka
 * protocol: the request bytes Kafka's flexible v0 defines (null replicas, null topics) and v1's
 * AllowReplicationFactorChange; the handlers' mapping of the controller's replies, and of its
 * silence, to the response (with a stand-in controller); and on three brokers: ApiVersions
 * advertises them, Kafka's per-partition errors, a reassignment that completes with every record
 * on the new replicas, one kept in progress (a target broker is down) that List shows and a
 * null-replicas Alter cancels, and v1's guard against changing the replication factor (KIP-860).
 */
import { expect } from 'chai';
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import type { ApiContext } from '../../../src/kafka/api/context.js';
import { alterPartitionReassignments, listPartitionReassignments } from '../../../src/kafka/api/reassignments.js';
import { ApiKeys, decodeRequest, encodeRequest } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { Failure, Message } from '../../../src/runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { checkFor } from '../../helpers/check-for.js';
import { TestCluster, fastFailover } from '../../helpers/cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

describe('Kafka API: partition reassignment requests (codec)', () => {
  it('AlterPartitionReassignments v0: compact fields, a null replica list (cancel) as length 0', () => {
    const frame = encodeRequest(
      { apiKey: ApiKeys.AlterPartitionReassignments, apiVersion: 0, correlationId: 7, clientId: 'c' },
      { timeoutMs: 1000, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3] }, { partitionIndex: 1, replicas: null }] }] },
    );
    expect(frame.toString('hex')).to.equal(
      '0000002a' + '002d' + '0000' + '00000007' + '000163' + '00' + // header v2
        '000003e8' + '02' + '0274' + '03' + // timeoutMs, 1 topic "t", 2 partitions
        '00000000' + '03' + '00000002' + '00000003' + '00' + // partition 0 -> [2, 3]
        '00000001' + '00' + '00' + // partition 1 -> null
        '00' + '00', // topic and body tag sections
    );
    const { body } = decodeRequest(frame.subarray(4));
    expect(body).to.deep.equal({ timeoutMs: 1000, allowReplicationFactorChange: true, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3] }, { partitionIndex: 1, replicas: null }] }] });
  });

  it('ListPartitionReassignments v0: null topics (list all) as length 0; timeoutMs defaults to 60000', () => {
    const frame = encodeRequest({ apiKey: ApiKeys.ListPartitionReassignments, apiVersion: 0, correlationId: 7, clientId: 'c' }, { timeoutMs: 1000, topics: null });
    expect(frame.toString('hex')).to.equal('00000012' + '002e' + '0000' + '00000007' + '000163' + '00' + '000003e8' + '00' + '00');
    expect(decodeRequest(frame.subarray(4)).body).to.deep.equal({ timeoutMs: 1000, topics: null });
    const empty = encodeRequest({ apiKey: ApiKeys.ListPartitionReassignments, apiVersion: 0, correlationId: 7, clientId: 'c' }, {});
    expect(decodeRequest(empty.subarray(4)).body).to.deep.equal({ timeoutMs: 60_000, topics: null });
  });
});

describe('Kafka API: partition reassignment handlers (a stand-in controller)', () => {
  const controller = { node: 'controller', path: '/controller' } as ApiContext['controller'];

  /**
   * A context whose controller answers `reply`; records what it was asked and with which timeout.
   * `allowed` answers the authorizer's questions (always yes: no authorizer).
   */
  function context(reply: ControllerReply | Failure | Message, allowed: (op: number) => boolean = () => true): { ctx: ApiContext; asked: { msg: ControllerMsg; timeoutMs: number }[] } {
    const asked: { msg: ControllerMsg; timeoutMs: number }[] = [];
    const ctx = {
      controller,
      config: { requestTimeoutMs: 30_000 },
      authorize: (op: number, resourceType: number, name: string) => {
        expect([resourceType, name]).to.deep.equal([ResourceType.CLUSTER, CLUSTER_NAME]);
        return allowed(op);
      },
      ask: async (to: unknown, msg: ControllerMsg, timeoutMs: number) => {
        expect(to).to.equal(controller);
        asked.push({ msg, timeoutMs });
        return reply;
      },
    } as unknown as ApiContext;
    return { ctx, asked };
  }

  const timedOut: Failure = { type: 'Failure', errorCode: ErrorCode.REQUEST_TIMED_OUT, reason: 'timeout', message: 'no reply from the controller in 90000 ms' };

  it('Alter forwards the partitions (null replicas kept) with the longer of request.timeout.ms and the request timeout, and maps the answer', async () => {
    const { ctx, asked } = context({
      type: 'AlterPartitionReassignmentsResponse',
      errorCode: ErrorCode.NONE,
      topics: [{ name: 't', partitions: [{ partition: 0, errorCode: ErrorCode.NONE, errorMessage: null }, { partition: 1, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'no reassignment' }] }],
    });
    const r = await alterPartitionReassignments(ctx, 0, { timeoutMs: 90_000, allowReplicationFactorChange: true, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3] }, { partitionIndex: 1, replicas: null }] }] });
    expect(asked).to.deep.equal([
      { msg: { type: 'AlterPartitionReassignments', topics: [{ name: 't', partitions: [{ partition: 0, replicas: [2, 3] }, { partition: 1, replicas: null }] }], allowReplicationFactorChange: true }, timeoutMs: 90_000 },
    ]);
    expect(r).to.deep.equal({
      throttleTimeMs: 0,
      allowReplicationFactorChange: true,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE, errorMessage: null }, { partitionIndex: 1, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'no reassignment' }] }],
    });
  });

  it("Alter passes on the controller's top-level error", async () => {
    const { ctx, asked } = context({ type: 'AlterPartitionReassignmentsResponse', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topic t named twice', topics: [] });
    const r = await alterPartitionReassignments(ctx, 0, { timeoutMs: 1_000, allowReplicationFactorChange: true, topics: [{ name: 't', partitions: [] }, { name: 't', partitions: [] }] });
    expect(asked[0]!.timeoutMs).to.equal(30_000);
    expect(r).to.deep.equal({ throttleTimeMs: 0, allowReplicationFactorChange: true, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'topic t named twice', responses: [] });
  });

  it("Alter v1 forwards AllowReplicationFactorChange and echoes it; v0 cannot ask: always allowed", async () => {
    const answer: ControllerReply = { type: 'AlterPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: [] };
    const topics = [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }];
    for (const [version, asked, expected] of [
      [1, false, false],
      [1, true, true],
      [0, false, true],
    ] as const) {
      const c = context(answer);
      const r = await alterPartitionReassignments(c.ctx, version, { timeoutMs: 1_000, allowReplicationFactorChange: asked, topics });
      expect(c.asked[0]!.msg).to.deep.include({ type: 'AlterPartitionReassignments', allowReplicationFactorChange: expected });
      expect(r).to.deep.include({ allowReplicationFactorChange: expected, errorCode: ErrorCode.NONE });
    }
    // Kafka's error response echoes it too
    const failed = await alterPartitionReassignments(context(timedOut).ctx, 1, { timeoutMs: 1_000, allowReplicationFactorChange: false, topics });
    expect(failed).to.deep.include({ allowReplicationFactorChange: false, errorCode: ErrorCode.REQUEST_TIMED_OUT });
  });

  it('Alter without an answer: the error at the top level and on every partition asked for', async () => {
    const { ctx } = context(timedOut);
    const r = await alterPartitionReassignments(ctx, 0, { timeoutMs: 1_000, allowReplicationFactorChange: true, topics: [{ name: 'a', partitions: [{ partitionIndex: 0, replicas: [1] }] }, { name: 'b', partitions: [{ partitionIndex: 2, replicas: null }, { partitionIndex: 3, replicas: [1, 2] }] }] });
    const e = { errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: timedOut.message };
    expect(r).to.deep.equal({
      throttleTimeMs: 0,
      allowReplicationFactorChange: true,
      ...e,
      responses: [
        { name: 'a', partitions: [{ partitionIndex: 0, ...e }] },
        { name: 'b', partitions: [{ partitionIndex: 2, ...e }, { partitionIndex: 3, ...e }] },
      ],
    });
    const odd = await alterPartitionReassignments(context({ type: 'MetadataResponse' }).ctx, 0, { timeoutMs: 1_000, allowReplicationFactorChange: true, topics: [{ name: 'a', partitions: [{ partitionIndex: 0, replicas: [1] }] }] });
    expect(odd?.errorCode).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(odd?.responses?.[0]?.partitions?.[0]?.errorCode).to.equal(ErrorCode.UNKNOWN_SERVER_ERROR);
  });

  it('List forwards the partitions asked for (or null) and maps the reassignments in progress', async () => {
    const ongoing = { partition: 4, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] };
    const { ctx, asked } = context({ type: 'ListPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: [{ name: 't', partitions: [ongoing] }] });
    const r = await listPartitionReassignments(ctx, 0, { timeoutMs: 60_000, topics: [{ name: 't', partitionIndexes: [0, 4] }] });
    expect(asked).to.deep.equal([{ msg: { type: 'ListPartitionReassignments', topics: [{ name: 't', partitions: [0, 4] }] }, timeoutMs: 60_000 }]);
    expect(r).to.deep.equal({
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 4, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] }] }],
    });
    await listPartitionReassignments(ctx, 0, { timeoutMs: 5_000, topics: null });
    expect(asked[1]).to.deep.equal({ msg: { type: 'ListPartitionReassignments', topics: null }, timeoutMs: 30_000 });
  });

  it("List without an answer: Kafka's error response (the error at the top level, the partitions asked for without replicas)", async () => {
    const r = await listPartitionReassignments(context(timedOut).ctx, 0, { timeoutMs: 1_000, topics: [{ name: 't', partitionIndexes: [1] }] });
    expect(r).to.deep.equal({
      throttleTimeMs: 0,
      errorCode: ErrorCode.REQUEST_TIMED_OUT,
      errorMessage: timedOut.message,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, replicas: [], addingReplicas: [], removingReplicas: [] }] }],
    });
    const all = await listPartitionReassignments(context(timedOut).ctx, 0, { timeoutMs: 1_000, topics: null });
    expect(all).to.deep.include({ errorCode: ErrorCode.REQUEST_TIMED_OUT, topics: [] });
  });

  it('a client without ALTER (Alter) or DESCRIBE (List) on the cluster gets CLUSTER_AUTHORIZATION_FAILED; the controller is not asked', async () => {
    const denied = { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
    const describeOnly = (op: number) => op === AclOperation.DESCRIBE;
    const a = context({ type: 'AlterPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: [] }, describeOnly);
    const alter = await alterPartitionReassignments(a.ctx, 0, { timeoutMs: 1_000, allowReplicationFactorChange: true, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [1] }] }] });
    expect(alter).to.deep.equal({ throttleTimeMs: 0, allowReplicationFactorChange: true, ...denied, responses: [{ name: 't', partitions: [{ partitionIndex: 0, ...denied }] }] });
    expect(a.asked).to.deep.equal([]);
    const l = context({ type: 'ListPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: [] }, () => false);
    const list = await listPartitionReassignments(l.ctx, 0, { timeoutMs: 1_000, topics: [{ name: 't', partitionIndexes: [0] }] });
    expect(list).to.deep.equal({ throttleTimeMs: 0, ...denied, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [], addingReplicas: [], removingReplicas: [] }] }] });
    expect(l.asked).to.deep.equal([]);
    // DESCRIBE is enough to list
    const ok = context({ type: 'ListPartitionReassignmentsResponse', errorCode: ErrorCode.NONE, topics: [] }, describeOnly);
    expect(await listPartitionReassignments(ok.ctx, 0, { timeoutMs: 1_000, topics: null })).to.deep.include({ errorCode: ErrorCode.NONE, topics: [] });
    expect(ok.asked).to.have.length(1);
  });
});

type AlterResult = { name: string; partitions: { partitionIndex: number; errorCode: number; errorMessage: string | null }[] };
type Ongoing = { partitionIndex: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] };

describe('Kafka API: AlterPartitionReassignments and ListPartitionReassignments (3 brokers)', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, kafka: true, ...fastFailover() });
    k = await KafkaCaller.connect((await c.kafkaBootstrap())[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const alter = (topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[]) =>
    k.call(ApiKeys.AlterPartitionReassignments, 0, { timeoutMs: 10_000, topics });
  const list = async (topics: { name: string; partitionIndexes: number[] }[] | null): Promise<{ name: string; partitions: Ongoing[] }[]> => {
    const r = await k.call(ApiKeys.ListPartitionReassignments, 0, { timeoutMs: 10_000, topics });
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    return r.topics;
  };
  /** topic -> partition -> error code. */
  const codes = (responses: AlterResult[]) => Object.fromEntries(responses.map((t) => [t.name, Object.fromEntries(t.partitions.map((p) => [p.partitionIndex, p.errorCode]))]));
  const metadataPartition = async (topic: string, partition: number) => {
    const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: topic }], allowAutoTopicCreation: false });
    return md.topics[0].partitions.find((p: { partitionIndex: number }) => p.partitionIndex === partition);
  };
  const createOnReplicas = async (name: string, assignments: number[][]) => {
    const r = await c.client.createTopics([{ name, assignments }]);
    expect(r.topics[0]!.errorCode).to.equal(ErrorCode.NONE);
    await c.client.waitForLeaders(name);
  };

  it('ApiVersions advertises Alter v0-1 and List v0', async () => {
    const av = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const keys = av.apiKeys.filter((a: { apiKey: number }) => a.apiKey === 45 || a.apiKey === 46);
    expect(keys).to.deep.equal([{ apiKey: 45, minVersion: 0, maxVersion: 1 }, { apiKey: 46, minVersion: 0, maxVersion: 0 }]);
  });

  it('v1 with AllowReplicationFactorChange false refuses the partitions whose replication factor would change (INVALID_REPLICATION_FACTOR), moves the others; v0 and v1 allowing it change it', async () => {
    await createOnReplicas('rf', [[1, 2], [1, 2], [1, 2], [1, 2]]);
    const alterV1 = (allowReplicationFactorChange: boolean, partitions: { partitionIndex: number; replicas: number[] | null }[]) =>
      k.call(ApiKeys.AlterPartitionReassignments, 1, { timeoutMs: 10_000, allowReplicationFactorChange, topics: [{ name: 'rf', partitions }] });
    const guarded = await alterV1(false, [
      { partitionIndex: 0, replicas: [1, 2, 3] },
      { partitionIndex: 1, replicas: [2, 3] },
      { partitionIndex: 2, replicas: [3] },
    ]);
    expect(guarded).to.deep.include({ errorCode: ErrorCode.NONE, allowReplicationFactorChange: false });
    expect((guarded.responses as AlterResult[])[0]!.partitions).to.deep.equal([
      { partitionIndex: 0, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: 'The replication factor is changed from 2 to 3' },
      { partitionIndex: 1, errorCode: ErrorCode.NONE, errorMessage: null },
      { partitionIndex: 2, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR, errorMessage: 'The replication factor is changed from 2 to 1' },
    ]);
    await checkFor(async () => (await metadataPartition('rf', 1)).replicaNodes.join() === '2,3', 20_000, 50);
    expect((await metadataPartition('rf', 0)).replicaNodes).to.deep.equal([1, 2]);
    expect((await metadataPartition('rf', 2)).replicaNodes).to.deep.equal([1, 2]);
    // allowed: at v1 with the flag, and at v0 (which cannot ask)
    const allowed = await alterV1(true, [{ partitionIndex: 2, replicas: [3] }]);
    expect(allowed).to.deep.include({ allowReplicationFactorChange: true });
    expect(codes(allowed.responses)).to.deep.equal({ rf: { 2: ErrorCode.NONE } });
    expect(codes((await alter([{ name: 'rf', partitions: [{ partitionIndex: 3, replicas: [1, 2, 3] }] }])).responses)).to.deep.equal({ rf: { 3: ErrorCode.NONE } });
    await checkFor(async () => (await metadataPartition('rf', 2)).replicaNodes.join() === '3' && (await metadataPartition('rf', 3)).replicaNodes.join() === '1,2,3', 20_000, 50);
  });

  it("per-partition errors are Kafka's: unknown topic or partition, invalid assignments, cancel without a reassignment", async () => {
    await createOnReplicas('rz', [[1], [1], [1], [1], [1]]);
    const r = await alter([
      { name: 'no-such-topic', partitions: [{ partitionIndex: 0, replicas: [1] }] },
      {
        name: 'rz',
        partitions: [
          { partitionIndex: 0, replicas: [] },
          { partitionIndex: 1, replicas: [2, 2] },
          { partitionIndex: 2, replicas: [2, 9] },
          { partitionIndex: 3, replicas: null },
          { partitionIndex: 9, replicas: [1] },
        ],
      },
    ]);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(codes(r.responses)).to.deep.equal({
      'no-such-topic': { 0: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      rz: {
        0: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        1: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        2: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        3: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
        9: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      },
    });
    for (const t of r.responses as AlterResult[]) for (const p of t.partitions) expect(p.errorMessage, `${t.name}-${p.partitionIndex}`).to.be.a('string');
    // nothing moved, nothing is in progress; List leaves out unknown topics and partitions
    for (let p = 0; p < 4; p++) expect((await metadataPartition('rz', p)).replicaNodes).to.deep.equal([1]);
    expect(await list([{ name: 'rz', partitionIndexes: [0, 1, 2, 3, 9] }, { name: 'no-such-topic', partitionIndexes: [0] }])).to.deep.equal([]);
  });

  it('moves a partition from [1] to [2, 3]: List shows nothing once done, the metadata shows [2, 3], every record is on the new leader', async () => {
    await createOnReplicas('mv', [[1]]);
    const values = Array.from({ length: 50 }, (_, i) => `mv-${i}`);
    for (let i = 0; i < values.length; i += 10) await c.client.produce('mv', 0, values.slice(i, i + 10));
    const r = await alter([{ name: 'mv', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }]);
    expect(r.errorCode).to.equal(ErrorCode.NONE);
    expect(codes(r.responses)).to.deep.equal({ mv: { 0: ErrorCode.NONE } });
    const done = await checkFor(async () => {
      if ((await list([{ name: 'mv', partitionIndexes: [0] }])).length > 0) return null;
      const p = await metadataPartition('mv', 0);
      return p.replicaNodes.join() === '2,3' ? p : null;
    }, 20_000, 50);
    expect([2, 3]).to.include(done.leaderId);
    expect([...done.isrNodes].sort()).to.deep.equal([2, 3]);
    expect(await list(null)).to.deep.equal([]);
    const read = await c.client.readAll('mv', 0);
    expect(read.map((rec) => rec.value?.toString())).to.deep.equal(values);
  });

  it('a reassignment onto a broker that is down stays in progress: List shows it, a null-replicas Alter cancels it', async () => {
    await createOnReplicas('og', [[1]]);
    await c.client.produce('og', 0, ['og-0', 'og-1', 'og-2']);
    // as in Kafka, a registered broker is a valid target while it is down (fenced): the move
    // waits for it to catch up
    await c.killBroker(3);
    await checkFor(async () => (await c.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced, 10_000, 50);
    const r = await alter([{ name: 'og', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }]);
    expect(codes(r.responses)).to.deep.equal({ og: { 0: ErrorCode.NONE } });
    const ongoing = [{ name: 'og', partitions: [{ partitionIndex: 0, replicas: [2, 3, 1], addingReplicas: [2, 3], removingReplicas: [1] }] }];
    expect(await list([{ name: 'og', partitionIndexes: [0] }])).to.deep.equal(ongoing);
    // still in progress once broker 2 is in the ISR
    await checkFor(async () => (await metadataPartition('og', 0)).isrNodes.includes(2), 10_000, 50);
    expect((await list(null)).filter((t) => t.name === 'og')).to.deep.equal(ongoing);
    expect((await metadataPartition('og', 0)).replicaNodes).to.deep.equal([2, 3, 1]);

    const cancel = await alter([{ name: 'og', partitions: [{ partitionIndex: 0, replicas: null }] }]);
    expect(codes(cancel.responses)).to.deep.equal({ og: { 0: ErrorCode.NONE } });
    await checkFor(async () => (await list([{ name: 'og', partitionIndexes: [0] }])).length === 0 && (await metadataPartition('og', 0)).replicaNodes.join() === '1', 10_000, 50);
    const again = await alter([{ name: 'og', partitions: [{ partitionIndex: 0, replicas: null }] }]);
    expect(codes(again.responses)).to.deep.equal({ og: { 0: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS } });
    expect((await c.client.readAll('og', 0)).map((rec) => rec.value?.toString())).to.deep.equal(['og-0', 'og-1', 'og-2']);

    await c.startBroker(3);
    await c.client.waitForBrokers(3);
  });
});
