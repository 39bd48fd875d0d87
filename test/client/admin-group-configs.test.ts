/**
 * admin.alterGroupConfigs, describeGroupConfigs and describeConfigs({ group }) on a real
 * three-broker cluster whose brokers and controller take lower group.consumer bounds than
 * Kafka's (so small values can be set): a group's consumer.session.timeout.ms and
 * consumer.heartbeat.interval.ms set, in the metadata, described with their sources (the group's
 * own, DYNAMIC_GROUP_CONFIG, over its coordinator's broker default, DEFAULT_CONFIG), told by the
 * group's coordinator to its KIP-848 members, deleted back to the defaults; a share group's
 * share.* keys set, described and refused the same way; unknown keys, values out of the bounds, a
 * heartbeat not below the session timeout and an empty group name refused per group, as data;
 * validateOnly changing nothing; malformed requests thrown.
 */
import { expect } from 'chai';
import { coordinatorPath, type ConsumerGroupHeartbeatResponse, type CoordinatorMsg } from '../../actors/group-coordinator/messages.js';
import type { Admin, ConfigEntry } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { fastFailover, TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';
import { LOW_GROUP_BOUNDS as BOUNDS } from '../helpers/group-records.js';

const SESSION = 'consumer.session.timeout.ms';
const HEARTBEAT = 'consumer.heartbeat.interval.ms';

/** The share group keys of a group with none of its own: Kafka's group.share.* defaults (the brokers here keep them). */
const SHARE_DEFAULTS: [string, string][] = [
  ['share.auto.offset.reset', 'latest'],
  ['share.delivery.count.limit', '5'],
  ['share.heartbeat.interval.ms', '5000'],
  ['share.isolation.level', 'read_uncommitted'],
  ['share.partition.max.record.locks', '2000'],
  ['share.record.lock.duration.ms', '30000'],
  ['share.session.timeout.ms', '45000'],
];
const consumerOnly = (configs: ConfigEntry[]) => configs.filter((e) => e.name.startsWith('consumer.'));
const view = (configs: ConfigEntry[]) => configs.map((e) => ({ name: e.name, value: e.value, source: e.source, isDefault: e.isDefault, readOnly: e.readOnly, synonyms: e.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`) }));
const defaultEntry = (name: string, value: string) => ({ name, value, source: 'DEFAULT_CONFIG', isDefault: true, readOnly: false, synonyms: [`DEFAULT_CONFIG:${name}=${value}`] });
const groupEntry = (name: string, value: string, brokerValue: string) => ({
  name,
  value,
  source: 'DYNAMIC_GROUP_CONFIG',
  isDefault: false,
  readOnly: false,
  synonyms: [`DYNAMIC_GROUP_CONFIG:${name}=${value}`, `DEFAULT_CONFIG:${name}=${brokerValue}`],
});

describe('client/admin group configs', function () {
  this.timeout(90_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 3, ...fastFailover({ ...BOUNDS, 'offsets.topic.num.partitions': 3, 'group.initial.rebalance.delay.ms': 0 }, BOUNDS) });
    admin = c.samsa('group-configs-test').admin();
    await admin.connect();
    await c.client.createTopics([{ name: 'gc-topic', assignments: [[1, 2, 3]] }]);
    await c.client.waitForLeaders('gc-topic');
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it("starts without group configs; a group's keys are the broker defaults (DEFAULT_CONFIG), whether or not it exists", async () => {
    expect(await admin.describeGroupConfigs()).to.deep.equal([]);
    expect(await admin.describeGroupConfigs({ group: 'nobody' })).to.deep.equal([{ group: 'nobody', configs: {} }]);
    const d = await admin.describeConfigs({ group: 'nobody' });
    expect(d.brokerId).to.be.oneOf([1, 2, 3]);
    expect(view(d.configs)).to.deep.equal([defaultEntry(HEARTBEAT, '3000'), defaultEntry(SESSION, '30000'), ...SHARE_DEFAULTS.map(([k, v]) => defaultEntry(k, v))]);
  });

  it("sets a group's values, each group answered: in the metadata, and described as DYNAMIC_GROUP_CONFIG over the broker default", async () => {
    const results = await admin.alterGroupConfigs([
      { group: 'app', set: { [SESSION]: '20000', [HEARTBEAT]: '2000' } },
      { group: 'other', set: { [HEARTBEAT]: '1000' } },
    ]);
    expect(results).to.deep.equal([
      { group: 'app', errorCode: ErrorCode.NONE, errorMessage: null },
      { group: 'other', errorCode: ErrorCode.NONE, errorMessage: null },
    ]);
    expect(await admin.describeGroupConfigs()).to.deep.equal([
      { group: 'app', configs: { [HEARTBEAT]: '2000', [SESSION]: '20000' } },
      { group: 'other', configs: { [HEARTBEAT]: '1000' } },
    ]);
    expect(await admin.describeGroupConfigs({ group: 'other' })).to.deep.equal([{ group: 'other', configs: { [HEARTBEAT]: '1000' } }]);
    expect(view(consumerOnly((await admin.describeConfigs({ group: 'app' })).configs))).to.deep.equal([groupEntry(HEARTBEAT, '2000', '3000'), groupEntry(SESSION, '20000', '30000')]);
    expect(view(consumerOnly((await admin.describeConfigs({ group: 'other' })).configs))).to.deep.equal([groupEntry(HEARTBEAT, '1000', '3000'), defaultEntry(SESSION, '30000')]);

    // the keys not named stay
    expect((await admin.alterGroupConfigs([{ group: 'app', set: { [SESSION]: '25000' } }]))[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(await admin.describeGroupConfigs({ group: 'app' })).to.deep.equal([{ group: 'app', configs: { [HEARTBEAT]: '2000', [SESSION]: '25000' } }]);
  });

  it("the group's coordinator (the broker describeConfigs names) tells its KIP-848 members the heartbeat interval set here", async () => {
    const groupId = 'gc-members';
    expect((await admin.alterGroupConfigs([{ group: groupId, set: { [HEARTBEAT]: '700' } }]))[0]!.errorCode).to.equal(ErrorCode.NONE);
    // a coordinator lookup creates __consumer_offsets
    await admin.describeConsumerGroups([groupId]);
    const join: CoordinatorMsg = { type: 'ConsumerGroupHeartbeat', groupId, memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['gc-topic'], serverAssignor: null, topicPartitions: [] };
    const answer = await checkFor(
      async () => {
        const { brokerId } = await admin.describeConfigs({ group: groupId });
        const broker = (await c.client.metadata()).brokers.find((b) => b.brokerId === brokerId)!;
        const r = await c.system().ask<ConsumerGroupHeartbeatResponse>({ node: broker.node, path: coordinatorPath(brokerId!) }, join, { timeoutMs: 5_000 });
        return !isFailure(r) && r.errorCode === ErrorCode.NONE && r.heartbeatIntervalMs === 700 ? r : null;
      },
      15_000,
      50,
    );
    expect(answer.memberEpoch).to.be.greaterThan(0);
    await admin.alterGroupConfigs([{ group: groupId, delete: [HEARTBEAT] }]);
  });

  it('deletes go back to the broker defaults; a group left without values leaves the metadata', async () => {
    expect(await admin.alterGroupConfigs([{ group: 'app', delete: [SESSION, HEARTBEAT] }])).to.deep.equal([{ group: 'app', errorCode: ErrorCode.NONE, errorMessage: null }]);
    expect(await admin.describeGroupConfigs({ group: 'app' })).to.deep.equal([{ group: 'app', configs: {} }]);
    expect((await admin.describeGroupConfigs()).map((g) => g.group)).to.not.include('app');
    expect(view(consumerOnly((await admin.describeConfigs({ group: 'app' })).configs))).to.deep.equal([defaultEntry(HEARTBEAT, '3000'), defaultEntry(SESSION, '30000')]);
    // a key the group does not have: nothing to change
    expect((await admin.alterGroupConfigs([{ group: 'other', delete: [SESSION] }]))[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(await admin.describeGroupConfigs({ group: 'other' })).to.deep.equal([{ group: 'other', configs: { [HEARTBEAT]: '1000' } }]);
  });

  it('refuses unknown keys, values out of the bounds, a heartbeat not below the session timeout and an empty group name, each group on its own', async () => {
    const results = await admin.alterGroupConfigs([
      { group: 'bad-key', set: { 'consumer.rebalance.timeout.ms': '1000' } },
      { group: 'bad-low', set: { [SESSION]: '500' } },
      { group: 'bad-high', set: { [SESSION]: '70000' } },
      { group: 'bad-hb', set: { [HEARTBEAT]: '16000' } },
      { group: 'bad-order', set: { [SESSION]: '2000', [HEARTBEAT]: '2000' } },
      { group: 'bad-word', set: { [SESSION]: 'soon' } },
      { group: '', set: { [SESSION]: '20000' } },
      { group: 'fine', set: { [SESSION]: '20000' } },
    ]);
    const codes = results.map((r) => [r.group, r.errorCode]);
    expect(codes).to.deep.equal([
      ['bad-key', ErrorCode.INVALID_CONFIG],
      ['bad-low', ErrorCode.INVALID_CONFIG],
      ['bad-high', ErrorCode.INVALID_CONFIG],
      ['bad-hb', ErrorCode.INVALID_CONFIG],
      ['bad-order', ErrorCode.INVALID_CONFIG],
      ['bad-word', ErrorCode.INVALID_CONFIG],
      ['', ErrorCode.INVALID_REQUEST],
      ['fine', ErrorCode.NONE],
    ]);
    const messages = results.map((r) => r.errorMessage ?? '');
    expect(messages[0]).to.match(/^Unknown group config name: consumer\.rebalance\.timeout\.ms/);
    expect(messages[1]).to.equal('consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms (1000)');
    expect(messages[2]).to.equal('consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms (60000)');
    expect(messages[3]).to.equal('consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms (15000)');
    expect(messages[4]).to.equal('consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms');
    expect(messages[5]).to.match(/Invalid value "soon" for configuration consumer\.session\.timeout\.ms/);
    expect(messages[6]).to.equal('Group name must not be empty');
    expect(results[7]!.errorMessage).to.equal(null);
    // only the valid group was taken
    expect((await admin.describeGroupConfigs()).map((g) => g.group)).to.deep.equal(['fine', 'other']);
    // the heartbeat checked against the session timeout in force: the broker default's
    const overDefault = await admin.alterGroupConfigs([{ group: 'fine', set: { [HEARTBEAT]: '25000' } }]);
    expect(overDefault[0]!.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    const emptyDescribe = await refused(admin.describeConfigs({ group: '' }));
    expect(emptyDescribe.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(emptyDescribe.message).to.match(/Group name must not be empty/);
    await admin.alterGroupConfigs([{ group: 'fine', delete: [SESSION] }]);
  });

  it("sets a share group's share.* keys, described as DYNAMIC_GROUP_CONFIG over the broker defaults; refuses bad ones with Kafka's messages", async () => {
    const results = await admin.alterGroupConfigs([
      { group: 'workers', set: { 'share.auto.offset.reset': 'by_duration:PT2H', 'share.record.lock.duration.ms': '45000', 'share.delivery.count.limit': '3' } },
      { group: 'bad-reset', set: { 'share.auto.offset.reset': 'by_duration:PT-2H' } },
      { group: 'bad-lock', set: { 'share.record.lock.duration.ms': '14000' } },
      { group: 'bad-level', set: { 'share.isolation.level': 'read_committed ', 'share.partition.max.record.locks': '20000' } },
    ]);
    expect(results.map((r) => [r.group, r.errorCode, r.errorMessage])).to.deep.equal([
      ['workers', ErrorCode.NONE, null],
      ['bad-reset', ErrorCode.INVALID_CONFIG, "Invalid value \"by_duration:PT-2H\" for configuration share.auto.offset.reset: Invalid value `by_duration:PT-2H` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."],
      ['bad-lock', ErrorCode.INVALID_CONFIG, 'share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms (15000)'],
      ['bad-level', ErrorCode.INVALID_CONFIG, 'share.partition.max.record.locks must be less than or equal to 10000'],
    ]);
    expect(await admin.describeGroupConfigs({ group: 'workers' })).to.deep.equal([{ group: 'workers', configs: { 'share.auto.offset.reset': 'by_duration:PT2H', 'share.delivery.count.limit': '3', 'share.record.lock.duration.ms': '45000' } }]);
    const shareView = view((await admin.describeConfigs({ group: 'workers' })).configs).filter((e) => e.name.startsWith('share.'));
    const own: Record<string, string> = { 'share.auto.offset.reset': 'by_duration:PT2H', 'share.delivery.count.limit': '3', 'share.record.lock.duration.ms': '45000' };
    expect(shareView).to.deep.equal(SHARE_DEFAULTS.map(([k, v]) => (own[k] !== undefined ? groupEntry(k, own[k]!, v) : defaultEntry(k, v))));
    expect((await admin.alterGroupConfigs([{ group: 'workers', delete: Object.keys(own) }]))[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(await admin.describeGroupConfigs({ group: 'workers' })).to.deep.equal([{ group: 'workers', configs: {} }]);
  });

  it('validateOnly checks without changing anything', async () => {
    const ok = await admin.alterGroupConfigs([{ group: 'dry', set: { [SESSION]: '20000' } }], { validateOnly: true });
    expect(ok).to.deep.equal([{ group: 'dry', errorCode: ErrorCode.NONE, errorMessage: null }]);
    const bad = await admin.alterGroupConfigs([{ group: 'dry', set: { [SESSION]: '1' } }], { validateOnly: true });
    expect(bad[0]!.errorCode).to.equal(ErrorCode.INVALID_CONFIG);
    const deleted = await admin.alterGroupConfigs([{ group: 'other', delete: [HEARTBEAT] }], { validateOnly: true });
    expect(deleted[0]!.errorCode).to.equal(ErrorCode.NONE);
    expect(await admin.describeGroupConfigs()).to.deep.equal([{ group: 'other', configs: { [HEARTBEAT]: '1000' } }]);
    expect(view(consumerOnly((await admin.describeConfigs({ group: 'dry' })).configs))).to.deep.equal([defaultEntry(HEARTBEAT, '3000'), defaultEntry(SESSION, '30000')]);
  });

  it('malformed requests throw INVALID_REQUEST and send nothing', async () => {
    expect((await refused(admin.alterGroupConfigs({} as never))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    for (const g of [null, { group: 1 }, { set: {} }]) {
      const e = await refused(admin.alterGroupConfigs([g as never]));
      expect(e.errorCode, JSON.stringify(g)).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(/groups\[0\]: group must be a group id/);
    }
    expect(await admin.alterGroupConfigs([])).to.deep.equal([]);
    expect((await refused(admin.describeGroupConfigs({ group: 1 as never }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.describeConfigs({ group: 1 } as never))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });
});
