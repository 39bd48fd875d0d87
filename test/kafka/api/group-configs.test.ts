/**
 * Group configs over the Kafka protocol (Kafka's GROUP config resources, type 32):
 * IncrementalAlterConfigs and AlterConfigs set a consumer group's consumer.session.timeout.ms and
 * consumer.heartbeat.interval.ms, and a share group's share.* keys, checked by the controller
 * against its group.consumer / group.share bounds; DescribeConfigs shows every key with its
 * source (the group's, or the broker's default) and type; the group's coordinator tells its
 * KIP-848 members the group's heartbeat interval; bad keys, bad values (Kafka's messages), values
 * out of the bounds, list operations and an empty group name are refused per resource.
 */
import { expect } from 'chai';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { checkFor } from '../../helpers/check-for.js';
import { joinHeartbeat } from '../../helpers/consumer-group-requests.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';
import { LOW_GROUP_BOUNDS as BOUNDS } from '../../helpers/group-records.js';

const GROUP = 32;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
/** Kafka's ConfigSource codes. */
const Source = { DEFAULT: 5, GROUP: 8 };
const TOPIC = 'gc-topic';
/** Share group settings of brokers and controller alike, off Kafka's defaults: the defaults described, the bounds checked. */
const SHARE = {
  'group.share.min.record.lock.duration.ms': 1_000,
  'group.share.record.lock.duration.ms': 20_000,
  'group.share.min.session.timeout.ms': 10_000,
  'group.share.session.timeout.ms': 30_000,
  'group.share.delivery.count.limit': 4,
  'group.share.partition.max.record.locks': 500,
};
/** Kafka's ConfigType codes. */
const INT = 3;
const STRING = 2;

describe('Kafka API: group configs', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, brokerConfig: { ...BOUNDS, ...SHARE }, controllerConfig: { ...BOUNDS, ...SHARE }, topics: [{ name: TOPIC, partitions: 2, replicationFactor: 2 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  const incremental = (resources: { resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[], validateOnly = false) =>
    k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: resources.map((r) => ({ resourceType: GROUP, ...r })), validateOnly });
  const answers = (r: { responses: { errorCode: number; errorMessage: string | null; resourceName: string }[] }) => r.responses.map((x) => [x.resourceName, x.errorCode, x.errorMessage]);
  const describe = async (groupId: string, version = 4) => {
    const r = await k.call(ApiKeys.DescribeConfigs, version, { resources: [{ resourceType: GROUP, resourceName: groupId, configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
    return r.results[0] as { errorCode: number; errorMessage: string | null; configs: { name: string; value: string; configSource: number; readOnly: boolean; configType: number; synonyms: { name: string; value: string; source: number }[] }[] };
  };
  const valuesOf = async (groupId: string) => Object.fromEntries((await describe(groupId)).configs.filter((x) => x.name.startsWith('consumer.')).map((x) => [x.name, [x.value, x.configSource]]));
  const shareValuesOf = async (groupId: string) => Object.fromEntries((await describe(groupId)).configs.filter((x) => x.name.startsWith('share.')).map((x) => [x.name, [x.value, x.configSource]]));

  it("describes a group's configs: the broker's defaults (DEFAULT_CONFIG) for a group without its own, whether or not it exists", async () => {
    const d = await describe('nobody-yet');
    expect(d.errorCode).to.equal(ErrorCode.NONE);
    expect(d.configs.map((x) => ({ name: x.name, value: x.value, source: x.configSource, readOnly: x.readOnly, type: x.configType }))).to.deep.equal([
      { name: 'consumer.heartbeat.interval.ms', value: '3000', source: Source.DEFAULT, readOnly: false, type: INT },
      { name: 'consumer.session.timeout.ms', value: '30000', source: Source.DEFAULT, readOnly: false, type: INT },
      // share groups' keys: the broker's group.share.* values, Kafka's defaults for the two without a broker key
      { name: 'share.auto.offset.reset', value: 'latest', source: Source.DEFAULT, readOnly: false, type: STRING },
      { name: 'share.delivery.count.limit', value: '4', source: Source.DEFAULT, readOnly: false, type: INT },
      { name: 'share.heartbeat.interval.ms', value: '5000', source: Source.DEFAULT, readOnly: false, type: INT },
      { name: 'share.isolation.level', value: 'read_uncommitted', source: Source.DEFAULT, readOnly: false, type: STRING },
      { name: 'share.partition.max.record.locks', value: '500', source: Source.DEFAULT, readOnly: false, type: INT },
      { name: 'share.record.lock.duration.ms', value: '20000', source: Source.DEFAULT, readOnly: false, type: INT },
      { name: 'share.session.timeout.ms', value: '30000', source: Source.DEFAULT, readOnly: false, type: INT },
    ]);
    expect(d.configs[1]!.synonyms).to.deep.equal([{ name: 'consumer.session.timeout.ms', value: '30000', source: Source.DEFAULT }]);
    const empty = await describe('');
    expect([empty.errorCode, empty.errorMessage]).to.deep.equal([ErrorCode.INVALID_REQUEST, 'Group name must not be empty']);
  });

  it("IncrementalAlterConfigs sets and deletes a group's values; DescribeConfigs shows them as GROUP_CONFIG; validateOnly changes nothing", async () => {
    const dry = await incremental([{ resourceName: 'g1', configs: [{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '20000' }] }], true);
    expect(answers(dry)).to.deep.equal([['g1', 0, null]]);
    expect(await valuesOf('g1')).to.deep.equal({ 'consumer.session.timeout.ms': ['30000', Source.DEFAULT], 'consumer.heartbeat.interval.ms': ['3000', Source.DEFAULT] });

    const r = await incremental([{ resourceName: 'g1', configs: [{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '20000' }, { name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '500' }] }]);
    expect(answers(r)).to.deep.equal([['g1', 0, null]]);
    await checkFor(async () => (await valuesOf('g1'))['consumer.session.timeout.ms']![0] === '20000', 10_000, 20);
    expect(await valuesOf('g1')).to.deep.equal({ 'consumer.session.timeout.ms': ['20000', Source.GROUP], 'consumer.heartbeat.interval.ms': ['500', Source.GROUP] });
    // another group keeps the defaults
    expect((await valuesOf('g2'))['consumer.session.timeout.ms']).to.deep.equal(['30000', Source.DEFAULT]);

    await incremental([{ resourceName: 'g1', configs: [{ name: 'consumer.heartbeat.interval.ms', configOperation: DELETE, value: null }] }]);
    await checkFor(async () => (await valuesOf('g1'))['consumer.heartbeat.interval.ms']![1] === Source.DEFAULT, 10_000, 20);
    expect(await valuesOf('g1')).to.deep.equal({ 'consumer.session.timeout.ms': ['20000', Source.GROUP], 'consumer.heartbeat.interval.ms': ['3000', Source.DEFAULT] });
  });

  it('AlterConfigs replaces the whole set of a group\'s values', async () => {
    await incremental([{ resourceName: 'g3', configs: [{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '25000' }] }]);
    await checkFor(async () => (await valuesOf('g3'))['consumer.session.timeout.ms']![0] === '25000', 10_000, 20);
    const r = await k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: GROUP, resourceName: 'g3', configs: [{ name: 'consumer.heartbeat.interval.ms', value: '1000' }] }], validateOnly: false });
    expect(answers(r)).to.deep.equal([['g3', 0, null]]);
    await checkFor(async () => (await valuesOf('g3'))['consumer.heartbeat.interval.ms']![0] === '1000', 10_000, 20);
    expect(await valuesOf('g3')).to.deep.equal({ 'consumer.session.timeout.ms': ['30000', Source.DEFAULT], 'consumer.heartbeat.interval.ms': ['1000', Source.GROUP] });
  });

  it('refuses, per group: an unknown key, a value out of the bounds or not an integer, a session timeout not above the heartbeat interval, APPEND, an empty name', async () => {
    const set = (resourceName: string, name: string, value: string) => ({ resourceName, configs: [{ name, configOperation: SET, value }] });
    const r = await incremental([
      set('bad1', 'consumer.rebalance.timeout.ms', '30000'),
      set('bad2', 'consumer.session.timeout.ms', '999'),
      set('bad3', 'consumer.heartbeat.interval.ms', 'often'),
      { resourceName: 'bad4', configs: [{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '12000' }, { name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '15000' }] },
      { resourceName: 'bad5', configs: [{ name: 'consumer.session.timeout.ms', configOperation: APPEND, value: '1' }] },
      set('', 'consumer.session.timeout.ms', '20000'),
      set('fine', 'consumer.session.timeout.ms', '20000'),
    ]);
    const out = answers(r);
    expect(out.map((x) => x.slice(0, 2))).to.deep.equal([
      ['bad1', ErrorCode.INVALID_CONFIG],
      ['bad2', ErrorCode.INVALID_CONFIG],
      ['bad3', ErrorCode.INVALID_CONFIG],
      ['bad4', ErrorCode.INVALID_CONFIG],
      ['bad5', ErrorCode.INVALID_CONFIG],
      ['', ErrorCode.INVALID_REQUEST],
      ['fine', ErrorCode.NONE],
    ]);
    expect(out[0]![2]).to.match(/Unknown group config name: consumer.rebalance.timeout.ms/);
    expect(out[1]![2]).to.match(/consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms/);
    expect(out[2]![2]).to.match(/Invalid value "often"/);
    expect(out[3]![2]).to.equal('consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    expect(out[5]![2]).to.equal('Group name must not be empty');
    for (const g of ['bad1', 'bad2', 'bad3', 'bad4', 'bad5']) expect((await valuesOf(g))['consumer.session.timeout.ms']).to.deep.equal(['30000', Source.DEFAULT]);
  });

  it("sets a share group's share.* keys (DescribeConfigs: GROUP_CONFIG over the broker's group.share.* default); AlterConfigs replaces them", async () => {
    const values = {
      'share.auto.offset.reset': 'by_duration:P1DT12H',
      'share.isolation.level': 'read_committed',
      'share.record.lock.duration.ms': '1000',
      'share.session.timeout.ms': '10000',
      'share.heartbeat.interval.ms': '9999',
      'share.delivery.count.limit': '10',
      'share.partition.max.record.locks': '100',
    };
    const r = await incremental([{ resourceName: 'sg1', configs: Object.entries(values).map(([name, value]) => ({ name, configOperation: SET, value })) }]);
    expect(answers(r)).to.deep.equal([['sg1', 0, null]]);
    await checkFor(async () => (await shareValuesOf('sg1'))['share.auto.offset.reset']![0] === 'by_duration:P1DT12H', 10_000, 20);
    expect(await shareValuesOf('sg1')).to.deep.equal(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, [v, Source.GROUP]])));
    const sync = (await describe('sg1')).configs.find((x) => x.name === 'share.record.lock.duration.ms')!;
    expect([sync.configType, sync.synonyms]).to.deep.equal([INT, [{ name: 'share.record.lock.duration.ms', value: '1000', source: Source.GROUP }]]);

    await incremental([{ resourceName: 'sg1', configs: [{ name: 'share.isolation.level', configOperation: DELETE, value: null }, { name: 'share.record.lock.duration.ms', configOperation: DELETE, value: null }] }]);
    await checkFor(async () => (await shareValuesOf('sg1'))['share.isolation.level']![1] === Source.DEFAULT, 10_000, 20);
    expect(await shareValuesOf('sg1')).to.deep.include({ 'share.isolation.level': ['read_uncommitted', Source.DEFAULT], 'share.record.lock.duration.ms': ['20000', Source.DEFAULT], 'share.auto.offset.reset': ['by_duration:P1DT12H', Source.GROUP] });

    const whole = await k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: GROUP, resourceName: 'sg1', configs: [{ name: 'share.auto.offset.reset', value: 'earliest' }] }], validateOnly: false });
    expect(answers(whole)).to.deep.equal([['sg1', 0, null]]);
    await checkFor(async () => (await shareValuesOf('sg1'))['share.auto.offset.reset']![0] === 'earliest', 10_000, 20);
    const after = await shareValuesOf('sg1');
    expect(Object.entries(after).filter(([, [, source]]) => source === Source.GROUP)).to.deep.equal([['share.auto.offset.reset', ['earliest', Source.GROUP]]]);
  });

  it("refuses bad share.* values with Kafka's messages, and values out of the bounds the controller was given", async () => {
    const set = (resourceName: string, name: string, value: string) => ({ resourceName, configs: [{ name, configOperation: SET, value }] });
    const cases: [string, string, string][] = [
      ['share.auto.offset.reset', 'by_duration:-PT1H', "Invalid value \"by_duration:-PT1H\" for configuration share.auto.offset.reset: Invalid value `by_duration:-PT1H` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."],
      ['share.auto.offset.reset', 'none', "Invalid value \"none\" for configuration share.auto.offset.reset: Invalid value `none` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."],
      ['share.isolation.level', 'serializable', 'Invalid value "serializable" for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted'],
      ['share.record.lock.duration.ms', '999', 'Invalid value "999" for configuration share.record.lock.duration.ms: Value must be at least 1000'],
      ['share.record.lock.duration.ms', '60001', 'share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms (60000)'],
      ['share.session.timeout.ms', '9999', 'share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms (10000)'],
      ['share.heartbeat.interval.ms', '4999', 'share.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms (5000)'],
      ['share.heartbeat.interval.ms', 'often', 'Invalid value "often" for configuration share.heartbeat.interval.ms: Not a number of type INT'],
      ['share.delivery.count.limit', '11', 'share.delivery.count.limit must be less than or equal to 10'],
      ['share.partition.max.record.locks', '99', 'Invalid value "99" for configuration share.partition.max.record.locks: Value must be at least 100'],
    ];
    const r = await incremental([...cases.map(([name, value], i) => set(`sbad${i}`, name, value)), set('sfine', 'share.session.timeout.ms', '10000')]);
    expect(answers(r)).to.deep.equal([...cases.map(([, , message], i) => [`sbad${i}`, ErrorCode.INVALID_CONFIG, message]), ['sfine', ErrorCode.NONE, null]]);
    // the share session timeout laid over the broker's heartbeat interval (5000)
    const order = await incremental([{ resourceName: 'sorder', configs: [{ name: 'share.session.timeout.ms', configOperation: SET, value: '12000' }, { name: 'share.heartbeat.interval.ms', configOperation: SET, value: '12000' }] }]);
    expect(answers(order)).to.deep.equal([['sorder', ErrorCode.INVALID_CONFIG, 'share.session.timeout.ms must be greater than share.heartbeat.interval.ms']]);
    for (const g of [...cases.map((_, i) => `sbad${i}`), 'sorder']) expect((await shareValuesOf(g))['share.session.timeout.ms']).to.deep.equal(['30000', Source.DEFAULT]);
  });

  it("the group's coordinator tells its KIP-848 members the group's heartbeat interval", async () => {
    const groupId = 'gc-members';
    const coordinator = async (): Promise<KafkaCaller> => {
      const found = await checkFor(async () => {
        const r = await k.call(ApiKeys.FindCoordinator, 2, { key: groupId, keyType: 0 });
        return r.errorCode === ErrorCode.NONE ? r : null;
      }, 15_000, 50);
      return KafkaCaller.connect(`${found.host}:${found.port}`);
    };
    const co = await coordinator();
    try {
      const before = await checkFor(async () => {
        const r = await co.call(ApiKeys.ConsumerGroupHeartbeat, 0, joinHeartbeat(groupId, [TOPIC]));
        return r.errorCode === ErrorCode.NONE ? r : null;
      }, 15_000, 50);
      expect(before.heartbeatIntervalMs).to.equal(3_000);
      await incremental([{ resourceName: groupId, configs: [{ name: 'consumer.heartbeat.interval.ms', configOperation: SET, value: '700' }] }]);
      await checkFor(async () => {
        const r = await co.call(ApiKeys.ConsumerGroupHeartbeat, 0, joinHeartbeat(groupId, [TOPIC]));
        return r.errorCode === ErrorCode.NONE && r.heartbeatIntervalMs === 700;
      }, 10_000, 50);
    } finally {
      co.end();
    }
  });
});
