/**
 * `samsa configs` and group configs (Kafka's: KIP-848 consumer groups, KIP-932 share groups), as
 * kafka-configs takes them: --entity-type groups with --entity-name, or --group; groups alone,
 * with no default entity. Against a three-broker cluster with Kafka's bounds (session 45-60 s,
 * heartbeat 5-15 s, record lock 15-60 s): consumer.session.timeout.ms and
 * consumer.heartbeat.interval.ms set, described in kafka-configs' lines (the group's own values;
 * --all every key, the broker default DEFAULT_CONFIG for a key the group has not set), every group
 * listed without a name, deleted back to the default; a share group's share.* keys set, described
 * and deleted the same way; an unknown key, bad values, values out of the bounds and a delete of
 * a key not set refused (exit 2, nothing changed).
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { configsCommand, resolveEntity, type ConfigEntity } from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster, runCli } from './cli-harness.js';

const entity = (...argv: string[]): ConfigEntity => {
  const a = parseArgs(argv, configsCommand.options);
  return resolveEntity(a, a.mode(['describe', 'alter']) as 'describe' | 'alter');
};

const line = (name: string, value: string, synonyms: string[]) => `  ${name}=${value} sensitive=false synonyms={${synonyms.join(', ')}}`;
const SESSION = 'consumer.session.timeout.ms';
const HEARTBEAT = 'consumer.heartbeat.interval.ms';
/** The share group keys with the brokers' (Kafka's) defaults, in key order. */
const SHARE_DEFAULTS: [string, string][] = [
  ['share.auto.offset.reset', 'latest'],
  ['share.delivery.count.limit', '5'],
  ['share.heartbeat.interval.ms', '5000'],
  ['share.isolation.level', 'read_uncommitted'],
  ['share.partition.max.record.locks', '2000'],
  ['share.record.lock.duration.ms', '30000'],
  ['share.session.timeout.ms', '45000'],
];
const shareDefaultLines = (own: Record<string, string> = {}) =>
  SHARE_DEFAULTS.map(([k, v]) => (own[k] !== undefined ? line(k, own[k]!, [`DYNAMIC_GROUP_CONFIG:${k}=${own[k]}`, `DEFAULT_CONFIG:${k}=${v}`]) : line(k, v, [`DEFAULT_CONFIG:${k}=${v}`])));

describe('cli/commands/configs: groups on the command line', () => {
  it('names a group with --entity-type groups and --entity-name, or --group', () => {
    expect(entity('--describe', '--entity-type', 'groups', '--entity-name', 'app')).to.deep.equal({ type: 'groups', name: 'app' });
    expect(entity('--describe', '--entity-type', 'groups')).to.deep.equal({ type: 'groups', name: null });
    expect(entity('--alter', '--group', 'app', '--add-config', `${SESSION}=50000`)).to.deep.equal({ type: 'groups', name: 'app' });
    expect(entity('--describe', '--entity-type', 'groups', '--group', 'app')).to.deep.equal({ type: 'groups', name: 'app' });
  });

  it('refuses group entities that cannot work, naming the problem', () => {
    const cases: [string[], RegExp][] = [
      [['--alter', '--entity-type', 'groups', '--add-config', 'a=1'], /--alter needs the group: --entity-name g \(or --group g\)/],
      [['--describe', '--entity-type', 'groups', '--entity-default'], /groups have no default entity \(a group's defaults are the brokers' group\.consumer\.\* and group\.share\.\* values\)/],
      [['--describe', '--entity-type', 'groups', '--entity-name', ' '], /--entity-name needs a group id/],
      [['--describe', '--group', ''], /--group needs a group id/],
      [['--describe', '--group', 'app', '--topic', 't'], /only one of --topic, --broker, --broker-defaults, --broker-logger, --group and --client-metrics/],
      [['--describe', '--entity-type', 'topics', '--group', 'app'], /--group names a group: it does not go with --entity-type topics/],
      [['--describe', '--group', 'app', '--entity-name', 'other'], /--group names the entity: it does not go with --entity-name/],
      [['--describe', '--entity-type', 'groups', '--entity-type', 'brokers'], /--entity-type groups goes alone/],
      [['--describe', '--group', 'app', '--user', 'alice'], /--group does not go with --user/],
      [['--describe', '--group', 'app', '--ip', '1.2.3.4'], /--group does not go with --ip: ips go alone/],
    ];
    for (const [argv, says] of cases) expect(() => entity(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it('exits 2 for a group command line that cannot work, before connecting', async () => {
    const r = await runCli(['configs', '--alter', '--entity-type', 'groups', '--add-config', `${SESSION}=50000`]);
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).to.match(/--alter needs the group/);
    expect(r.stdout).to.equal('');
  });
});

describe('cli: configs of groups against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);
  const groupConfigs = async () => (await c.cluster.client.metadata()).groupConfigs ?? {};

  before(async () => {
    c = await CliCluster.start(3);
  });
  after(async () => {
    await c?.stop();
  });

  it("sets a group's session timeout and heartbeat interval", async () => {
    const [app, half] = await Promise.all([
      c.run('configs', ['--alter', '--entity-type', 'groups', '--entity-name', 'app', '--add-config', `${SESSION}=50000,${HEARTBEAT}=6000`]),
      c.run('configs', ['--alter', '--group', 'half', '--add-config', `${HEARTBEAT}=7000`]),
    ]);
    expect(app.code, app.stderr).to.equal(0);
    expect(app.stdout).to.equal('Completed updating config for group app.\n');
    expect(half.code, half.stderr).to.equal(0);
    expect(half.stdout).to.equal('Completed updating config for group half.\n');
    expect(await groupConfigs()).to.deep.equal({ app: { [SESSION]: '50000', [HEARTBEAT]: '6000' }, half: { [HEARTBEAT]: '7000' } });
  });

  it("--describe prints kafka-configs' lines: a group's own values, --all with the broker defaults, every group without a name", async () => {
    const [app, half, halfAll, nobody, every] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'groups', '--entity-name', 'app']),
      c.run('configs', ['--describe', '--group', 'half']),
      c.run('configs', ['--describe', '--group', 'half', '--all']),
      c.run('configs', ['--describe', '--group', 'nobody', '--all']),
      c.run('configs', ['--describe', '--entity-type', 'groups']),
    ]);
    for (const r of [app, half, halfAll, nobody, every]) expect(r.code, r.stderr).to.equal(0);
    const appLines = [
      'Dynamic configs for group app are:',
      line(HEARTBEAT, '6000', [`DYNAMIC_GROUP_CONFIG:${HEARTBEAT}=6000`, `DEFAULT_CONFIG:${HEARTBEAT}=5000`]),
      line(SESSION, '50000', [`DYNAMIC_GROUP_CONFIG:${SESSION}=50000`, `DEFAULT_CONFIG:${SESSION}=45000`]),
    ];
    expect(lines(app.stdout)).to.deep.equal(appLines);
    const halfHeartbeat = line(HEARTBEAT, '7000', [`DYNAMIC_GROUP_CONFIG:${HEARTBEAT}=7000`, `DEFAULT_CONFIG:${HEARTBEAT}=5000`]);
    expect(lines(half.stdout)).to.deep.equal(['Dynamic configs for group half are:', halfHeartbeat]);
    expect(lines(halfAll.stdout)).to.deep.equal(['All configs for group half are:', halfHeartbeat, line(SESSION, '45000', [`DEFAULT_CONFIG:${SESSION}=45000`]), ...shareDefaultLines()]);
    expect(lines(nobody.stdout)).to.deep.equal([
      'All configs for group nobody are:',
      line(HEARTBEAT, '5000', [`DEFAULT_CONFIG:${HEARTBEAT}=5000`]),
      line(SESSION, '45000', [`DEFAULT_CONFIG:${SESSION}=45000`]),
      ...shareDefaultLines(),
    ]);
    expect(lines(every.stdout)).to.deep.equal([...appLines, 'Dynamic configs for group half are:', halfHeartbeat]);
  });

  it('refuses an unknown key, values out of the bounds and a delete of a key not set (exit 2); nothing changes', async () => {
    const [unknown, low, high, word, notSet] = await Promise.all([
      c.run('configs', ['--alter', '--group', 'app', '--add-config', 'consumer.rebalance.timeout.ms=1000']),
      c.run('configs', ['--alter', '--group', 'app', '--add-config', `${SESSION}=40000`]),
      c.run('configs', ['--alter', '--entity-type', 'groups', '--entity-name', 'fresh', '--add-config', `${HEARTBEAT}=20000`]),
      c.run('configs', ['--alter', '--group', 'fresh', '--add-config', `${SESSION}=soon`]),
      c.run('configs', ['--alter', '--group', 'half', '--delete-config', `${SESSION}`]),
    ]);
    for (const r of [unknown, low, high, word, notSet]) {
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal('');
    }
    expect(unknown.stderr).to.match(/INVALID_CONFIG: group app: Unknown group config name: consumer\.rebalance\.timeout\.ms/);
    expect(low.stderr).to.match(/group app: consumer\.session\.timeout\.ms must be greater than or equal to group\.consumer\.min\.session\.timeout\.ms \(45000\)/);
    expect(high.stderr).to.match(/group fresh: consumer\.heartbeat\.interval\.ms must be less than or equal to group\.consumer\.max\.heartbeat\.interval\.ms \(15000\)/);
    expect(word.stderr).to.match(/group fresh: Invalid value "soon" for configuration consumer\.session\.timeout\.ms/);
    expect(notSet.stderr).to.match(/Invalid config\(s\): consumer\.session\.timeout\.ms — not set for group half, nothing to delete \(set: consumer\.heartbeat\.interval\.ms\)/);
    expect(await groupConfigs()).to.deep.equal({ app: { [SESSION]: '50000', [HEARTBEAT]: '6000' }, half: { [HEARTBEAT]: '7000' } });
  });

  it('--delete-config takes a key back to the broker default; a group without values is gone from the listing', async () => {
    const [app, half] = await Promise.all([
      c.run('configs', ['--alter', '--group', 'app', '--delete-config', HEARTBEAT]),
      c.run('configs', ['--alter', '--entity-type', 'groups', '--entity-name', 'half', '--delete-config', HEARTBEAT]),
    ]);
    expect(app.code, app.stderr).to.equal(0);
    expect(app.stdout).to.equal('Completed updating config for group app.\n');
    expect(half.code, half.stderr).to.equal(0);
    expect(await groupConfigs()).to.deep.equal({ app: { [SESSION]: '50000' } });
    const [appAll, every] = await Promise.all([c.run('configs', ['--describe', '--group', 'app', '--all']), c.run('configs', ['--describe', '--entity-type', 'groups'])]);
    expect(lines(appAll.stdout)).to.deep.equal([
      'All configs for group app are:',
      line(HEARTBEAT, '5000', [`DEFAULT_CONFIG:${HEARTBEAT}=5000`]),
      line(SESSION, '50000', [`DYNAMIC_GROUP_CONFIG:${SESSION}=50000`, `DEFAULT_CONFIG:${SESSION}=45000`]),
      ...shareDefaultLines(),
    ]);
    expect(lines(every.stdout)).to.deep.equal(['Dynamic configs for group app are:', line(SESSION, '50000', [`DYNAMIC_GROUP_CONFIG:${SESSION}=50000`, `DEFAULT_CONFIG:${SESSION}=45000`])]);
  });

  it("sets, describes and deletes a share group's share.* keys; refuses bad ones with Kafka's messages (exit 2)", async () => {
    const [reset, more] = await Promise.all([
      c.run('configs', ['--group', 'workers', '--alter', '--add-config', 'share.auto.offset.reset=earliest']),
      c.run('configs', ['--alter', '--entity-type', 'groups', '--entity-name', 'pool', '--add-config', 'share.auto.offset.reset=by_duration:P1DT2H,share.isolation.level=read_committed,share.record.lock.duration.ms=20000']),
    ]);
    expect(reset.code, reset.stderr).to.equal(0);
    expect(reset.stdout).to.equal('Completed updating config for group workers.\n');
    expect(more.code, more.stderr).to.equal(0);
    const pool = { 'share.auto.offset.reset': 'by_duration:P1DT2H', 'share.isolation.level': 'read_committed', 'share.record.lock.duration.ms': '20000' };
    expect(await groupConfigs()).to.deep.include({ workers: { 'share.auto.offset.reset': 'earliest' }, pool });
    const [workers, poolAll] = await Promise.all([c.run('configs', ['--describe', '--group', 'workers']), c.run('configs', ['--describe', '--group', 'pool', '--all'])]);
    expect(lines(workers.stdout)).to.deep.equal(['Dynamic configs for group workers are:', line('share.auto.offset.reset', 'earliest', ['DYNAMIC_GROUP_CONFIG:share.auto.offset.reset=earliest', 'DEFAULT_CONFIG:share.auto.offset.reset=latest'])]);
    expect(lines(poolAll.stdout)).to.deep.equal([
      'All configs for group pool are:',
      line(HEARTBEAT, '5000', [`DEFAULT_CONFIG:${HEARTBEAT}=5000`]),
      line(SESSION, '45000', [`DEFAULT_CONFIG:${SESSION}=45000`]),
      ...shareDefaultLines(pool),
    ]);

    const [bad, low, limit] = await Promise.all([
      c.run('configs', ['--alter', '--group', 'workers', '--add-config', 'share.auto.offset.reset=from_start']),
      c.run('configs', ['--alter', '--group', 'workers', '--add-config', 'share.record.lock.duration.ms=10000']),
      c.run('configs', ['--alter', '--group', 'workers', '--add-config', 'share.delivery.count.limit=1']),
    ]);
    for (const r of [bad, low, limit]) {
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal('');
    }
    expect(bad.stderr).to.include("group workers: Invalid value \"from_start\" for configuration share.auto.offset.reset: Invalid value `from_start` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.");
    expect(low.stderr).to.include('group workers: share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms (15000)');
    expect(limit.stderr).to.include('group workers: Invalid value "1" for configuration share.delivery.count.limit: Value must be at least 2');

    const [gone, poolGone] = await Promise.all([
      c.run('configs', ['--alter', '--group', 'workers', '--delete-config', 'share.auto.offset.reset']),
      c.run('configs', ['--alter', '--group', 'pool', '--delete-config', Object.keys(pool).join(',')]),
    ]);
    expect(gone.code, gone.stderr).to.equal(0);
    expect(poolGone.code, poolGone.stderr).to.equal(0);
    const after = await groupConfigs();
    expect(after).to.not.have.any.keys('workers', 'pool');
  });
});
