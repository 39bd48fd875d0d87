/**
 * admin.alterBrokerConfigs, describeBrokerConfigs and describeConfigs on a real three-broker
 * cluster (its topology sets log.retention.ms): a cluster-wide default and a broker's own value
 * reach the replicas of topics without their own value at once; the metadata's dynamic values;
 * each key's value in force, source and synonyms as a broker has them, a topic's on its leader;
 * deletes go back; keys that cannot change at run time, bad values and malformed requests are
 * refused, each resource on its own; a stopped broker cannot describe itself, while its dynamic
 * configs stay readable from the metadata.
 */
import { expect } from 'chai';
import type { Admin, ConfigEntry } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { fastFailover, TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';

const STATIC_RETENTION = '3600000';
/** The cluster-wide min.insync.replicas a new cluster starts with: eligible leader replicas are on (KIP-966), from the controller's own. */
const MIN_ISR = { 'min.insync.replicas': '1' };

function byName(configs: ConfigEntry[]): Map<string, ConfigEntry> {
  return new Map(configs.map((c) => [c.name, c]));
}

describe('client/admin dynamic broker configs', function () {
  this.timeout(90_000);
  let c: TestCluster;
  let admin: Admin;

  const logConfig = async (broker: number, topic: string): Promise<Record<string, string> | null> => {
    const r = await c.client.describeReplica(await c.client.metadata(), broker, topic, 0);
    return r ? r.logConfig : null;
  };

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...fastFailover({ 'log.retention.ms': Number(STATIC_RETENTION) }) });
    admin = c.samsa('broker-configs-test').admin();
    await admin.connect();
    await c.client.createTopics([
      { name: 'plain', assignments: [[1, 2, 3]] },
      { name: 'own', assignments: [[2, 1, 3]], config: { 'retention.ms': 60_000 } },
    ]);
    await c.client.waitForLeaders('plain');
    await c.client.waitForLeaders('own');
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('starts with only the cluster-wide min.insync.replicas', async () => {
    expect(await admin.describeBrokerConfigs()).to.deep.equal([{ broker: null, configs: MIN_ISR }]);
    expect(await admin.describeBrokerConfigs({ broker: null })).to.deep.equal([{ broker: null, configs: MIN_ISR }]);
    expect(await admin.describeBrokerConfigs({ broker: 2 })).to.deep.equal([{ broker: 2, configs: {} }]);
  });

  it('a cluster-wide default and a broker\'s own value reach every replica of topics without their own, at once', async () => {
    await admin.alterBrokerConfigs({
      brokers: [
        { broker: null, set: { 'log.retention.ms': '123456', 'log.segment.bytes': '4194304' } },
        { broker: 2, set: { 'log.segment.bytes': '2097152' } },
      ],
    });
    expect(await admin.describeBrokerConfigs()).to.deep.equal([
      { broker: null, configs: { 'log.retention.ms': '123456', 'log.segment.bytes': '4194304', ...MIN_ISR } },
      { broker: 2, configs: { 'log.segment.bytes': '2097152' } },
    ]);
    expect(await admin.describeBrokerConfigs({ broker: 2 })).to.deep.equal([{ broker: 2, configs: { 'log.segment.bytes': '2097152' } }]);
    await checkFor(
      async () => {
        const [p1, p2, p3, o1, o2] = await Promise.all([logConfig(1, 'plain'), logConfig(2, 'plain'), logConfig(3, 'plain'), logConfig(1, 'own'), logConfig(2, 'own')]);
        return (
          p1?.['retention.ms'] === '123456' &&
          p2?.['retention.ms'] === '123456' &&
          p1['segment.bytes'] === '4194304' &&
          p3?.['segment.bytes'] === '4194304' &&
          p2['segment.bytes'] === '2097152' &&
          // the topic's own value wins over any broker default
          o1?.['retention.ms'] === '60000' &&
          o2?.['retention.ms'] === '60000' &&
          o2['segment.bytes'] === '2097152'
        );
      },
      10_000,
      20,
    );
  });

  it("describeConfigs: a broker's every key with its value in force, source and synonyms", async () => {
    const { brokerId, configs } = await admin.describeConfigs({ broker: 2 });
    expect(brokerId).to.equal(2);
    const two = byName(configs);
    expect(configs.map((x) => x.name)).to.deep.equal([...configs.map((x) => x.name)].sort());
    expect(two.get('log.segment.bytes')).to.include({ value: '2097152', source: 'DYNAMIC_BROKER_CONFIG', readOnly: false, isDefault: false, sensitive: false });
    expect(two.get('log.segment.bytes')!.synonyms.map((s) => `${s.source}:${s.value}`)).to.deep.equal(['DYNAMIC_BROKER_CONFIG:2097152', 'DYNAMIC_DEFAULT_BROKER_CONFIG:4194304', 'DEFAULT_CONFIG:1073741824']);
    expect(two.get('log.retention.ms')).to.include({ value: '123456', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(two.get('log.retention.ms')!.synonyms.map((s) => s.source)).to.deep.equal(['DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG']);
    expect(two.get('log.retention.ms')!.synonyms[1]!.value).to.equal(STATIC_RETENTION);
    // a key that cannot change at run time: read-only; one the topology sets: static
    expect(two.get('socket.request.max.bytes')).to.include({ readOnly: true, source: 'DEFAULT_CONFIG', isDefault: true });
    expect(two.get('broker.heartbeat.interval.ms')).to.include({ value: '200', source: 'STATIC_BROKER_CONFIG', readOnly: true });

    const one = byName((await admin.describeConfigs({ broker: 1 })).configs);
    expect(one.get('log.segment.bytes')).to.include({ value: '4194304', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });

    const defaults = await admin.describeConfigs({ broker: null });
    expect(defaults.brokerId).to.equal(null);
    expect(defaults.configs.map((x) => `${x.name}=${x.value} ${x.source}`)).to.deep.equal([
      'log.retention.ms=123456 DYNAMIC_DEFAULT_BROKER_CONFIG',
      'log.segment.bytes=4194304 DYNAMIC_DEFAULT_BROKER_CONFIG',
      'min.insync.replicas=1 DYNAMIC_DEFAULT_BROKER_CONFIG',
    ]);
  });

  it("describeConfigs: a topic's every key, its override over its leader's broker defaults", async () => {
    const own = await admin.describeConfigs({ topic: 'own' });
    expect(own.brokerId).to.equal(2);
    const t = byName(own.configs);
    expect(t.get('retention.ms')).to.include({ value: '60000', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect(t.get('retention.ms')!.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`)).to.deep.equal([
      'DYNAMIC_TOPIC_CONFIG:retention.ms=60000',
      'DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=123456',
      `STATIC_BROKER_CONFIG:log.retention.ms=${STATIC_RETENTION}`,
      'DEFAULT_CONFIG:log.retention.ms=604800000',
    ]);
    expect(t.get('segment.bytes')).to.include({ value: '2097152', source: 'DYNAMIC_BROKER_CONFIG' });
    expect(t.get('cleanup.policy')).to.include({ value: 'delete', source: 'DEFAULT_CONFIG', isDefault: true });
    expect(t.get('unclean.leader.election.enable')).to.include({ value: 'false', source: 'DEFAULT_CONFIG' });
    expect(t.get('min.insync.replicas')).to.include({ value: '1', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });

    const plain = await admin.describeConfigs({ topic: 'plain' });
    expect(plain.brokerId).to.equal(1);
    expect(byName(plain.configs).get('segment.bytes')).to.include({ value: '4194304', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
  });

  it('deletes go back to the default, then to the topology config', async () => {
    await admin.alterBrokerConfigs({ brokers: [{ broker: 2, delete: ['log.segment.bytes'] }] });
    expect(await admin.describeBrokerConfigs()).to.deep.equal([{ broker: null, configs: { 'log.retention.ms': '123456', 'log.segment.bytes': '4194304', ...MIN_ISR } }]);
    await checkFor(async () => (await logConfig(2, 'plain'))?.['segment.bytes'] === '4194304', 10_000, 20);
    await admin.alterBrokerConfigs({ brokers: [{ broker: null, delete: ['log.retention.ms', 'log.segment.bytes'] }] });
    expect(await admin.describeBrokerConfigs()).to.deep.equal([{ broker: null, configs: MIN_ISR }]);
    await checkFor(async () => {
      const p = await logConfig(3, 'plain');
      return p?.['retention.ms'] === STATIC_RETENTION && p['segment.bytes'] === '1073741824';
    }, 10_000, 20);
    await checkFor(async () => byName((await admin.describeConfigs({ broker: 3 })).configs).get('log.retention.ms')?.source === 'STATIC_BROKER_CONFIG', 10_000, 20);
  });

  it('refuses keys that cannot change at run time and bad values, each resource on its own; validateOnly changes nothing', async () => {
    const fixed = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: 1, set: { 'socket.request.max.bytes': '1000' } }] }));
    expect(fixed.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(fixed.message).to.match(/broker 1: socket\.request\.max\.bytes cannot be changed while the broker runs/);
    const unknown = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: null, set: { 'no.such.key': '1' } }] }));
    expect(unknown.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(unknown.message).to.match(/the cluster-wide default: unknown broker config key no\.such\.key/);
    const bad = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: null, set: { 'min.insync.replicas': '0' } }] }));
    expect(bad.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    expect(bad.message).to.match(/min\.insync\.replicas/);
    const notDynamic = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: 1, delete: ['request.timeout.ms'] }] }));
    expect(notDynamic.message).to.match(/request\.timeout\.ms is not a dynamic broker config/);
    // eligible leader replicas on (KIP-966): min.insync.replicas is cluster-wide, with Kafka's refusals
    const own = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: 1, set: { 'min.insync.replicas': '2' } }] }));
    expect(own.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    expect(own.message).to.equal('INVALID_CONFIG: broker 1: Broker-level min.insync.replicas cannot be altered while ELR is enabled.');
    const removed = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: null, delete: ['min.insync.replicas'] }] }));
    expect(removed.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    expect(removed.message).to.equal('INVALID_CONFIG: the cluster-wide default: Cluster-level min.insync.replicas cannot be removed while ELR is enabled.');

    // one resource refused, the other taken
    const mixed = await refused(
      admin.alterBrokerConfigs({
        brokers: [
          { broker: 1, set: { 'compression.type': 'gzip' } },
          { broker: 3, set: { 'compression.type': 'rot13' } },
        ],
      }),
    );
    expect(mixed.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    expect(mixed.message).to.match(/broker 3: /).and.not.match(/broker 1/);
    expect(await admin.describeBrokerConfigs()).to.deep.equal([{ broker: null, configs: MIN_ISR }, { broker: 1, configs: { 'compression.type': 'gzip' } }]);

    await admin.alterBrokerConfigs({ brokers: [{ broker: null, set: { 'log.retention.ms': '1000' } }], validateOnly: true });
    const invalidOnly = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: null, set: { 'log.retention.ms': 'soon' } }], validateOnly: true }));
    expect(invalidOnly.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    expect(await admin.describeBrokerConfigs()).to.deep.equal([{ broker: null, configs: MIN_ISR }, { broker: 1, configs: { 'compression.type': 'gzip' } }]);
    await admin.alterBrokerConfigs({ brokers: [{ broker: 1, delete: ['compression.type'] }] });
    await admin.alterBrokerConfigs({ brokers: [] });
  });

  it('malformed requests throw INVALID_REQUEST; unknown topics and brokers are named', async () => {
    for (const b of [-1, 1.5, '1', undefined]) {
      const e = await refused(admin.alterBrokerConfigs({ brokers: [{ broker: b as unknown as number, set: { 'log.retention.ms': '1' } }] }));
      expect(e.errorCode, String(b)).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(/brokers\[0\]: broker must be a broker id, or null/);
    }
    expect((await refused(admin.alterBrokerConfigs({} as never))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.describeBrokerConfigs({ broker: -2 }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.describeConfigs({} as never))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    const topic = await refused(admin.describeConfigs({ topic: 'no-such-topic' }));
    expect(topic.errorCode).to.equal(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(topic.message).to.match(/no-such-topic/);
    const broker = await refused(admin.describeConfigs({ broker: 9 }));
    expect(broker.errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
    expect(broker.message).to.match(/broker 9 is not registered/);
  });

  it('a stopped broker cannot describe itself; its dynamic configs stay in the metadata', async () => {
    await admin.alterBrokerConfigs({ brokers: [{ broker: 3, set: { 'log.roll.ms': '600000' } }] });
    await c.killBroker(3);
    await checkFor(async () => (await c.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced === true, 15_000, 50);
    const e = await refused(admin.describeConfigs({ broker: 3 }));
    expect(e.errorCode).to.equal(ErrorCode.BROKER_NOT_AVAILABLE);
    expect(e.message).to.match(/broker 3 is fenced/);
    expect(await admin.describeBrokerConfigs({ broker: 3 })).to.deep.equal([{ broker: 3, configs: { 'log.roll.ms': '600000' } }]);
  });
});
