/**
 * Cluster features (KIP-584) end to end on a real cluster: a new cluster's levels as ApiVersions
 * tells them; UpdateFeatures (57) v0-v2 over the wire as the Java admin and kafka-features.sh
 * send it (validate only, a safe downgrade that drops group.version, an upgrade back, Kafka's
 * refusals, v0's AllowDowngrade, v2 without per-feature results); samsa's own admin; with an
 * authorizer, ALTER on the cluster.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import type { Admin } from '../../../src/client/admin.js';

const { NONE, INVALID_UPDATE_VERSION, CLUSTER_AUTHORIZATION_FAILED } = ErrorCode;
const SAFE = 2;

interface Finalized {
  epoch: number;
  levels: Record<string, number>;
}

async function finalized(k: KafkaCaller): Promise<Finalized> {
  const r = await k.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.0.0' });
  return { epoch: Number(r.finalizedFeaturesEpoch), levels: Object.fromEntries(r.finalizedFeatures.map((f: { name: string; maxVersionLevel: number }) => [f.name, f.maxVersionLevel])) };
}

const update = (k: KafkaCaller, version: number, featureUpdates: { feature: string; maxVersionLevel: number; upgradeType?: number; allowDowngrade?: boolean }[], validateOnly = false) =>
  k.call(ApiKeys.UpdateFeatures, version, { timeoutMs: 10_000, featureUpdates: featureUpdates.map((u) => ({ upgradeType: 1, allowDowngrade: false, ...u })), validateOnly });

describe('Kafka API: UpdateFeatures and the features of ApiVersions', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;
  let admin: Admin;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1 });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
    admin = c.handle.samsa('features-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    k?.end();
    await c?.stop();
  });

  it('validate only: checked, nothing changed', async () => {
    const before = await finalized(k);
    expect(before.levels).to.deep.equal({ 'eligible.leader.replicas.version': 1, 'group.version': 1, 'kraft.version': 1, 'metadata.version': 27, 'share.version': 1, 'transaction.version': 2 });
    const r = await update(k, 1, [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE }], true);
    expect(r).to.deep.include({ errorCode: NONE, errorMessage: null });
    expect(r.results).to.deep.equal([{ feature: 'group.version', errorCode: NONE, errorMessage: null }]);
    expect(await finalized(k)).to.deep.equal(before);
  });

  it("refused with Kafka's reasons, nothing changed: a downgrade sent as an upgrade, a level samsa lacks, kraft.version lowered", async () => {
    const before = await finalized(k);
    const cases: [Parameters<typeof update>[2], RegExp][] = [
      [[{ feature: 'group.version', maxVersionLevel: 0 }], /without setting the upgrade type to either safe or unsafe downgrade/],
      [[{ feature: 'group.version', maxVersionLevel: 2 }], /^The update failed for all features since the following feature had an error: Invalid update version 2 for feature group\.version\. Local controller \d+ only supports versions 0-1$/],
      [[{ feature: 'kraft.version', maxVersionLevel: 0, upgradeType: SAFE }], /Invalid update version 0 for feature kraft\.version\. Can't downgrade the version of this feature\.$/],
      // all or none: the good update is not made either
      [[{ feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE }, { feature: 'transaction.version', maxVersionLevel: 3 }], /transaction.version/],
    ];
    for (const [updates, why] of cases) {
      const r = await update(k, 1, updates);
      expect(r.errorCode, JSON.stringify(updates)).to.equal(INVALID_UPDATE_VERSION);
      expect(r.errorMessage).to.match(why);
      expect(r.results).to.deep.equal([]);
    }
    expect(await finalized(k)).to.deep.equal(before);
  });

  it('a safe downgrade drops group.version (a higher epoch in ApiVersions); v2 answers without per-feature results; an upgrade brings it back', async () => {
    const before = await finalized(k);
    const down = await update(k, 2, [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE }]);
    expect(down).to.deep.include({ errorCode: NONE, errorMessage: null });
    expect(down.results ?? []).to.deep.equal([]);
    const after = await checkFor(async () => {
      const f = await finalized(k);
      return f.levels['group.version'] === undefined ? f : null;
    });
    expect(after.epoch).to.be.greaterThan(before.epoch);
    expect(after.levels).to.deep.equal({ 'eligible.leader.replicas.version': 1, 'kraft.version': 1, 'metadata.version': 27, 'share.version': 1, 'transaction.version': 2 });
    // the consumer group protocol is off, as in Kafka 4.0 with group.version 0
    const join = () => k.call(ApiKeys.ConsumerGroupHeartbeat, 0, { groupId: 'gv-wire', memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], serverAssignor: null, topicPartitions: [] });
    await checkFor(async () => (await join()).errorCode === ErrorCode.UNSUPPORTED_VERSION);
    const described = await k.call(ApiKeys.ConsumerGroupDescribe, 0, { groupIds: ['gv-wire'], includeAuthorizedOperations: false });
    expect(described.groups.map((g: { errorCode: number }) => g.errorCode)).to.deep.equal([ErrorCode.UNSUPPORTED_VERSION]);
    expect((await update(k, 1, [{ feature: 'group.version', maxVersionLevel: 1 }])).errorCode).to.equal(NONE);
    await checkFor(async () => (await finalized(k)).levels['group.version'] === 1);
    await k.call(ApiKeys.FindCoordinator, 3, { key: 'gv-wire', keyType: 0 });
    await checkFor(async () => (await join()).errorCode === NONE);
  });

  it('v0: AllowDowngrade instead of an upgrade type; without it a lower level is refused', async () => {
    expect((await update(k, 0, [{ feature: 'group.version', maxVersionLevel: 0 }])).errorCode).to.equal(INVALID_UPDATE_VERSION);
    const r = await update(k, 0, [{ feature: 'group.version', maxVersionLevel: 0, allowDowngrade: true }]);
    expect(r).to.deep.include({ errorCode: NONE, results: [{ feature: 'group.version', errorCode: NONE, errorMessage: null }] });
    await checkFor(async () => (await finalized(k)).levels['group.version'] === undefined);
    expect((await update(k, 0, [{ feature: 'group.version', maxVersionLevel: 1 }])).errorCode).to.equal(NONE);
    await checkFor(async () => (await finalized(k)).levels['group.version'] === 1);
  });

  it("samsa's admin: describeFeatures and updateFeatures (a refusal throws with Kafka's code)", async () => {
    const md = await admin.describeFeatures();
    expect(md.supportedFeatures).to.deep.equal({
      'eligible.leader.replicas.version': { minVersion: 0, maxVersion: 1 },
      'group.version': { minVersion: 0, maxVersion: 1 },
      'kraft.version': { minVersion: 0, maxVersion: 1 },
      'metadata.version': { minVersion: 22, maxVersion: 27 },
      'share.version': { minVersion: 0, maxVersion: 1 },
      'transaction.version': { minVersion: 0, maxVersion: 2 },
    });
    expect(md.finalizedFeatures).to.deep.equal({
      'eligible.leader.replicas.version': { minVersionLevel: 1, maxVersionLevel: 1 },
      'group.version': { minVersionLevel: 1, maxVersionLevel: 1 },
      'kraft.version': { minVersionLevel: 1, maxVersionLevel: 1 },
      'metadata.version': { minVersionLevel: 27, maxVersionLevel: 27 },
      'share.version': { minVersionLevel: 1, maxVersionLevel: 1 },
      'transaction.version': { minVersionLevel: 2, maxVersionLevel: 2 },
    });
    expect(md.finalizedFeaturesEpoch).to.be.a('number');
    await admin.updateFeatures({ 'group.version': { maxVersionLevel: 0, upgradeType: 'safe-downgrade' } }, { validateOnly: true });
    expect((await admin.describeFeatures()).finalizedFeatures['group.version']).to.deep.equal({ minVersionLevel: 1, maxVersionLevel: 1 });
    const err = await admin.updateFeatures({ 'group.version': { maxVersionLevel: 0 } }).catch((e: unknown) => e);
    expect(err).to.have.property('errorName', 'INVALID_UPDATE_VERSION');
    await admin.updateFeatures({ 'group.version': { maxVersionLevel: 0, upgradeType: 'safe-downgrade' } });
    expect((await admin.describeFeatures()).finalizedFeatures['group.version']).to.equal(undefined);
    await admin.updateFeatures({ 'group.version': { maxVersionLevel: 1 } });
    expect((await admin.describeFeatures()).finalizedFeatures['group.version']).to.deep.equal({ minVersionLevel: 1, maxVersionLevel: 1 });
  });
});

describe('Kafka API: UpdateFeatures with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('needs ALTER on the cluster: else CLUSTER_AUTHORIZATION_FAILED, nothing changed', async () => {
    const alice = await cluster().login('alice');
    const root = await cluster().login('admin');
    const down = [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: SAFE }];
    expect(await update(alice, 1, down, true)).to.deep.equal({ throttleTimeMs: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', results: [] });
    expect((await update(root, 1, down, true)).errorCode).to.equal(NONE);
    await cluster().allow({ principal: 'User:alice', operation: AclOperation.ALTER, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
    expect((await update(alice, 1, down, true)).errorCode).to.equal(NONE);
    // anyone may read the levels (ApiVersions needs no ACL)
    expect((await finalized(alice)).levels['group.version']).to.equal(1);
  });
});
