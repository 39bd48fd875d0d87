/**
 * ApiVersions (src/kafka/api/versions.ts) over the wire: v4 (KIP-1022) has the ranges v3 has,
 * and the features (KIP-584) with ranges from 0 that v3 leaves out; a v3+ request whose client software name or version is not
 * Kafka's pattern is INVALID_REQUEST with no ranges, as Kafka's ApiVersionsRequest.isValid.
 * (An ApiVersions version the listener does not speak: test/kafka/listener.test.ts.)
 */
import { expect } from 'chai';
import { SUPPORTED_VERSIONS } from '../../../src/kafka/api/versions.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

describe('Kafka API: ApiVersions', function () {
  this.timeout(30_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1 });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it('v4 advertises the ranges v3 does, ApiVersions 0-4 among them; v4 lists every feature, v3 those whose range starts above 0 (KIP-1022)', async () => {
    const v3 = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '3.9.0' });
    const v4 = await k.call(ApiKeys.ApiVersions, 4, { clientSoftwareName: 'apache-kafka-java', clientSoftwareVersion: '4.0.0' });
    expect(v4.errorCode).to.equal(ErrorCode.NONE);
    expect(v4.apiKeys).to.deep.equal(v3.apiKeys);
    expect(v4.apiKeys).to.have.length(SUPPORTED_VERSIONS.size);
    expect(v4.apiKeys.find((a: { apiKey: number }) => a.apiKey === ApiKeys.ApiVersions)).to.deep.include({ minVersion: 0, maxVersion: 4 });
    expect(v4.supportedFeatures).to.deep.equal([
      { name: 'eligible.leader.replicas.version', minVersion: 0, maxVersion: 1 },
      { name: 'group.version', minVersion: 0, maxVersion: 1 },
      { name: 'kraft.version', minVersion: 0, maxVersion: 1 },
      { name: 'metadata.version', minVersion: 22, maxVersion: 27 },
      { name: 'share.version', minVersion: 0, maxVersion: 1 },
      { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
    ]);
    expect(v3.supportedFeatures).to.deep.equal([{ name: 'metadata.version', minVersion: 22, maxVersion: 27 }]);
    // a new cluster's defaults, finalized by its first active controller; levels at 0 are not listed
    for (const r of [v3, v4]) {
      expect(r.finalizedFeatures).to.deep.equal([
        { name: 'eligible.leader.replicas.version', maxVersionLevel: 1, minVersionLevel: 1 },
        { name: 'group.version', maxVersionLevel: 1, minVersionLevel: 1 },
        { name: 'kraft.version', maxVersionLevel: 1, minVersionLevel: 1 },
        { name: 'metadata.version', maxVersionLevel: 27, minVersionLevel: 27 },
        { name: 'share.version', maxVersionLevel: 1, minVersionLevel: 1 },
        { name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 },
      ]);
      expect(r.finalizedFeaturesEpoch).to.be.greaterThan(0);
    }
    // v0-v2 have no feature fields
    const v2 = await k.call(ApiKeys.ApiVersions, 2, {});
    expect(v2.apiKeys).to.deep.equal(v3.apiKeys);
    expect(v2.supportedFeatures ?? []).to.deep.equal([]);
  });

  it('v3 and v4 with a client software name or version outside [a-zA-Z0-9](?:[a-zA-Z0-9-.]*[a-zA-Z0-9])? are INVALID_REQUEST, without ranges', async () => {
    const bad = [
      { clientSoftwareName: '', clientSoftwareVersion: '1.0' },
      { clientSoftwareName: 'kafka java', clientSoftwareVersion: '1.0' },
      { clientSoftwareName: 'kafkajs', clientSoftwareVersion: '2.2.4-' },
      { clientSoftwareName: '-kafkajs', clientSoftwareVersion: '2.2.4' },
      { clientSoftwareName: 'kafkajs', clientSoftwareVersion: '' },
    ];
    for (const version of [3, 4]) {
      for (const body of bad) {
        const r = await k.call(ApiKeys.ApiVersions, version, body);
        expect(r.errorCode, `v${version} ${JSON.stringify(body)}`).to.equal(ErrorCode.INVALID_REQUEST);
        expect(r.apiKeys).to.deep.equal([]);
      }
      const ok = await k.call(ApiKeys.ApiVersions, version, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.3.0-RC1.x' });
      expect(ok.errorCode).to.equal(ErrorCode.NONE);
    }
    // v0-v2 carry no software name
    expect((await k.call(ApiKeys.ApiVersions, 2, {})).errorCode).to.equal(ErrorCode.NONE);
  });
});
