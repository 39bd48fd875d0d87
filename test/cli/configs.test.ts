/**
 * `samsa configs`: the command line read as kafka-configs reads it (--add-config with square
 * brackets, --delete-config, the entity options and their shorthands), the command lines that
 * cannot work (exit 2, before connecting), kafka-configs' output lines, and the command against a
 * three-broker cluster: the cluster-wide default and a broker's own configs set, described (with
 * synonyms, and --all) and deleted, replicas taking them; a topic's configs; keys that cannot
 * change at run time, bad values and deletes of keys not set refused (exit 2); a stopped broker
 * described from the metadata. Client quotas: users, clients, a user's clients and the defaults
 * named as kafka-configs names them (shorthands, or --entity-type with names and defaults paired
 * by position), set, listed in kafka-configs' lines and deleted; quota kinds samsa does not
 * enforce refused with the controller's reason (exit 2).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import {
  configLine,
  configsCommand,
  javaDouble,
  parseAddConfig,
  parseConfigFile,
  parseDeleteConfig,
  parseQuotaValue,
  planAlter,
  planQuotaAlter,
  quotaLine,
  resolveEntity,
  type ConfigEntity,
  type QuotaComponent,
} from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const args = (...argv: string[]) => parseArgs(argv, configsCommand.options);
const entity = (...argv: string[]): ConfigEntity => {
  const a = args(...argv);
  return resolveEntity(a, a.mode(['describe', 'alter']) as 'describe' | 'alter');
};

describe('cli/commands/configs: the command line', () => {
  it("reads --add-config as kafka-configs does: commas outside square brackets, brackets dropped, empty values", () => {
    expect(parseAddConfig(['retention.ms=1000,cleanup.policy=[compact,delete]'])).to.deep.equal({ 'retention.ms': '1000', 'cleanup.policy': 'compact,delete' });
    expect(parseAddConfig(['a = 1 , b=[x, y],c=', 'd=4'])).to.deep.equal({ a: '1', b: 'x, y', c: '', d: '4' });
    expect(parseAddConfig(['k=[a=b,c]'])).to.deep.equal({ k: 'a=b,c' });
    for (const bad of ['a', 'a=1,b', 'a=b=c', '=1', '']) expect(() => parseAddConfig([bad]), bad).to.throw(UsageError, /--add-config/);
    expect(() => parseAddConfig(['a=1,a=2'])).to.throw(UsageError, /sets a more than once/);
    expect(() => parseAddConfig(['a=1', 'a=2'])).to.throw(UsageError, /sets a more than once/);
    expect(() => parseAddConfig(['re tention.ms=1'])).to.throw(UsageError, /invalid character in config key 're tention.ms'/);
  });

  it('reads --delete-config and --add-config-file', () => {
    expect(parseDeleteConfig(['a,b', ' c ,a,'])).to.deep.equal(['a', 'b', 'c']);
    expect(() => parseDeleteConfig([','])).to.throw(UsageError, /needs config keys/);
    expect(() => parseDeleteConfig(['a,b c'])).to.throw(UsageError, /invalid character/);
    expect(parseConfigFile('# comment\n\nlog.retention.ms=1000\n! other\nlog.cleanup.policy: compact,delete\n', 'f')).to.deep.equal({ 'log.retention.ms': '1000', 'log.cleanup.policy': 'compact,delete' });
    expect(() => parseConfigFile('a=1\nnonsense\n', 'f')).to.throw(UsageError, /f, line 2: expected key=value/);
  });

  it('names the entity with --entity-type and --entity-name / --entity-default, or the shorthands', () => {
    expect(entity('--describe', '--entity-type', 'topics', '--entity-name', 't')).to.deep.equal({ type: 'topics', name: 't' });
    expect(entity('--describe', '--entity-type', 'topics')).to.deep.equal({ type: 'topics', name: null });
    expect(entity('--describe', '--topic', 't')).to.deep.equal({ type: 'topics', name: 't' });
    expect(entity('--describe', '--entity-type', 'topics', '--topic', 't')).to.deep.equal({ type: 'topics', name: 't' });
    expect(entity('--describe', '--entity-type', 'brokers')).to.deep.equal({ type: 'brokers', name: null });
    expect(entity('--describe', '--entity-type', 'brokers', '--entity-name', '2')).to.deep.equal({ type: 'brokers', name: 2 });
    expect(entity('--alter', '--entity-type', 'brokers', '--entity-default', '--add-config', 'a=1')).to.deep.equal({ type: 'brokers', name: 'default' });
    expect(entity('--alter', '--broker', '3', '--add-config', 'a=1')).to.deep.equal({ type: 'brokers', name: 3 });
    expect(entity('--describe', '--broker-defaults')).to.deep.equal({ type: 'brokers', name: 'default' });
  });

  it('refuses entities that cannot work, naming the problem', () => {
    const cases: [string[], RegExp][] = [
      [['--describe'], /give the entity: --entity-type topics\|brokers/],
      [['--describe', '--entity-type', 'partitions'], /unknown --entity-type 'partitions': give topics, brokers, broker-loggers, groups, users, clients, ips or client-metrics/],
      [['--describe', '--entity-type', 'topics', '--entity-type', 'brokers'], /--entity-type topics goes alone: only users and clients go together/],
      [['--describe', '--entity-type', 'topics', '--entity-name', 'a', '--entity-name', 'b'], /--entity-name is given more than once/],
      [['--describe', '--entity-name', 't'], /--entity-name goes with --entity-type/],
      [['--describe', '--entity-type', 'topics', '--entity-default'], /--entity-default goes with --entity-type brokers/],
      [['--describe', '--entity-type', 'brokers', '--entity-name', '1', '--entity-default'], /only one of --entity-name and --entity-default/],
      [['--describe', '--entity-type', 'brokers', '--entity-name', 'one'], /must be a broker id \(an integer\), got 'one'/],
      [['--describe', '--broker', '-1'], /must be a broker id/],
      [['--describe', '--topic', 't', '--broker', '1'], /only one of --topic, --broker, --broker-defaults, --broker-logger, --group and --client-metrics/],
      [['--describe', '--entity-type', 'brokers', '--topic', 't'], /--topic names a topic: it does not go with --entity-type brokers/],
      [['--describe', '--topic', 't', '--entity-name', 'u'], /--topic names the entity: it does not go with --entity-name/],
      [['--alter', '--entity-type', 'topics', '--add-config', 'a=1'], /--alter needs the topic/],
      [['--alter', '--entity-type', 'brokers', '--add-config', 'a=1'], /--alter needs the broker: --entity-name id, or --entity-default/],
    ];
    for (const [argv, says] of cases) expect(() => entity(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it("names quota entities as kafka-configs: users, clients, a user's clients, the defaults; names paired with types by position", () => {
    const q = (...components: QuotaComponent[]): ConfigEntity => ({ type: 'quotas', components });
    expect(entity('--describe', '--entity-type', 'users', '--entity-name', 'alice')).to.deep.equal(q({ entityType: 'user', match: 'alice' }));
    expect(entity('--describe', '--entity-type', 'users')).to.deep.equal(q({ entityType: 'user' }));
    expect(entity('--describe', '--entity-type', 'clients', '--entity-default')).to.deep.equal(q({ entityType: 'client-id', match: null }));
    expect(entity('--alter', '--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients', '--entity-name', 'app', '--add-config', 'a=1')).to.deep.equal(
      q({ entityType: 'user', match: 'alice' }, { entityType: 'client-id', match: 'app' }),
    );
    // the names and defaults in their order, whatever the options between them
    expect(entity('--alter', '--entity-type', 'clients', '--entity-default', '--entity-type', 'users', '--entity-name', 'bob', '--add-config', 'a=1')).to.deep.equal(
      q({ entityType: 'client-id', match: null }, { entityType: 'user', match: 'bob' }),
    );
    expect(entity('--alter', '--entity-type', 'users', '--entity-type', 'clients', '--entity-name', 'bob', '--entity-default', '--add-config', 'a=1')).to.deep.equal(
      q({ entityType: 'user', match: 'bob' }, { entityType: 'client-id', match: null }),
    );
    expect(entity('--alter', '--entity-type', 'users', '--entity-default', '--entity-type', 'clients', '--entity-default', '--add-config', 'a=1')).to.deep.equal(
      q({ entityType: 'user', match: null }, { entityType: 'client-id', match: null }),
    );
    expect(entity('--describe', '--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients')).to.deep.equal(q({ entityType: 'user', match: 'alice' }, { entityType: 'client-id' }));
    // the shorthands, in kafka-configs' order: named ones (client first), then the defaults
    expect(entity('--describe', '--user', 'alice')).to.deep.equal(q({ entityType: 'user', match: 'alice' }));
    expect(entity('--describe', '--user', 'alice', '--client', 'app')).to.deep.equal(q({ entityType: 'client-id', match: 'app' }, { entityType: 'user', match: 'alice' }));
    expect(entity('--alter', '--user', 'alice', '--client-defaults', '--add-config', 'a=1')).to.deep.equal(q({ entityType: 'user', match: 'alice' }, { entityType: 'client-id', match: null }));
    expect(entity('--alter', '--user-defaults', '--add-config', 'a=1')).to.deep.equal(q({ entityType: 'user', match: null }));
    expect(entity('--describe', '--client-defaults', '--user-defaults')).to.deep.equal(q({ entityType: 'client-id', match: null }, { entityType: 'user', match: null }));

    const cases: [string[], RegExp][] = [
      [['--describe', '--entity-type', 'users', '--entity-type', 'topics'], /only users and clients go together: --entity-type topics does not go with --entity-type users/],
      [['--describe', '--entity-type', 'users', '--entity-type', 'users'], /--entity-type users is given more than once/],
      [['--describe', '--entity-type', 'users', '--entity-name', 'a', '--entity-name', 'b'], /more entity names than entity types/],
      [['--alter', '--entity-type', 'users', '--entity-name', 'a', '--entity-type', 'clients', '--add-config', 'a=1'], /--alter needs a name for each --entity-type/],
      [['--alter', '--entity-type', 'users', '--add-config', 'a=1'], /--alter needs a name for each --entity-type/],
      [['--describe', '--entity-type', 'users', '--entity-name', ''], /--entity-name needs a user principal \(--entity-default for the default\)/],
      [['--describe', '--user', 'a', '--entity-type', 'users'], /--user names the entity: it does not go with --entity-type/],
      [['--describe', '--client', 'a', '--entity-name', 'x'], /--client names the entity: it does not go with --entity-name/],
      [['--describe', '--user', 'a', '--user-defaults'], /only one of --user and --user-defaults/],
      [['--describe', '--client', 'a', '--client-defaults'], /only one of --client and --client-defaults/],
      [['--describe', '--client', ''], /--client needs a client id \(--client-defaults for the default\)/],
      [['--describe', '--user', 'a', '--topic', 't'], /--topic does not go with --user/],
      [['--describe', '--entity-type', 'clients', '--broker-defaults'], /--broker-defaults does not go with --entity-type clients/],
    ];
    for (const [argv, says] of cases) expect(() => entity(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it('reads quota values as Java doubles and prints them as Java does, in kafka-configs\' line', () => {
    expect(parseQuotaValue('k', '1024')).to.equal(1024);
    expect(parseQuotaValue('k', ' 1.5e3 ')).to.equal(1500);
    expect(parseQuotaValue('k', '.5')).to.equal(0.5);
    for (const bad of ['', 'fast', '1,024', '10MB', '0x10']) expect(() => parseQuotaValue('producer_byte_rate', bad), bad).to.throw(UsageError, /Cannot parse quota configuration value for producer_byte_rate/);
    expect(planQuotaAlter({ set: { producer_byte_rate: '1024', request_percentage: '50' }, delete: ['consumer_byte_rate'] })).to.deep.equal({
      set: { producer_byte_rate: 1024, request_percentage: 50 },
      delete: ['consumer_byte_rate'],
    });
    const cases: [number, string][] = [
      [1024, '1024.0'],
      [100.5, '100.5'],
      [0.001, '0.001'],
      [0.0001, '1.0E-4'],
      [9999999, '9999999.0'],
      [10485760, '1.048576E7'],
      [1e7, '1.0E7'],
      [1.5e21, '1.5E21'],
    ];
    for (const [v, java] of cases) expect(javaDouble(v), String(v)).to.equal(java);
    expect(quotaLine({ entity: { user: 'alice', clientId: 'app' }, quotas: { producer_byte_rate: 1024, consumer_byte_rate: 2048 } })).to.equal(
      "Quota configs for user-principal 'alice', client-id 'app' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0",
    );
    expect(quotaLine({ entity: { user: null, clientId: null }, quotas: { producer_byte_rate: 10485760 } })).to.equal('Quota configs for the default user-principal, the default client-id are producer_byte_rate=1.048576E7');
    expect(quotaLine({ entity: { clientId: 'app' }, quotas: { consumer_byte_rate: 1.5 } })).to.equal("Quota configs for client-id 'app' are consumer_byte_rate=1.5");
  });

  it('--alter needs something to change, and no key both added and deleted', () => {
    expect(planAlter(args('--alter', '--topic', 't', '--add-config', 'a=1,b=[x,y]', '--delete-config', 'c'))).to.deep.equal({ set: { a: '1', b: 'x,y' }, delete: ['c'] });
    expect(() => planAlter(args('--alter', '--topic', 't'))).to.throw(UsageError, /--alter needs --add-config k=v, --add-config-file file or --delete-config k/);
    expect(() => planAlter(args('--alter', '--topic', 't', '--add-config', 'a=1,b=2', '--delete-config', 'b,a'))).to.throw(UsageError, /b, a are both added and deleted/);
    expect(() => planAlter(args('--alter', '--topic', 't', '--add-config', 'a=1', '--add-config-file', 'f'))).to.throw(UsageError, /only one of --add-config and --add-config-file/);
    expect(() => planAlter(args('--alter', '--topic', 't', '--add-config-file', '/no/such/file'))).to.throw(UsageError, /--add-config-file \/no\/such\/file cannot be read: ENOENT/);
  });

  it("prints kafka-configs' line for a config", () => {
    expect(
      configLine({
        name: 'log.retention.ms',
        value: '1000',
        source: 'DYNAMIC_BROKER_CONFIG',
        isDefault: false,
        readOnly: false,
        sensitive: false,
        synonyms: [
          { name: 'log.retention.ms', value: '1000', source: 'DYNAMIC_BROKER_CONFIG' },
          { name: 'log.retention.ms', value: '604800000', source: 'DEFAULT_CONFIG' },
        ],
      }),
    ).to.equal('  log.retention.ms=1000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=1000, DEFAULT_CONFIG:log.retention.ms=604800000}');
  });

  it('exits 2 for command lines that cannot work, before connecting', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['configs', '--entity-type', 'brokers'], says: /give one of --describe, --alter/ },
      { argv: ['configs', '--describe', '--alter', '--topic', 't'], says: /give only one of --describe, --alter/ },
      { argv: ['configs', '--describe', '--entity-type', 'client-metric'], says: /unknown --entity-type 'client-metric'/ },
      { argv: ['configs', '--alter', '--user', 'alice', '--add-config', 'producer_byte_rate=fast'], says: /Cannot parse quota configuration value for producer_byte_rate: fast/ },
      { argv: ['configs', '--describe', '--client', 'app', '--all'], says: /--all goes with topics, brokers and groups/ },
      { argv: ['configs', '--alter', '--topic', 't', '--add-config', 'retention.ms=1', '--delete-config', 'retention.ms'], says: /retention\.ms is both added and deleted/ },
      { argv: ['configs', '--describe', '--topic', 't', '--add-config', 'a=1'], says: /--add-config goes with --alter, not with --describe/ },
      { argv: ['configs', '--alter', '--topic', 't', '--add-config', 'a=1', '--all'], says: /--all goes with --describe, not with --alter/ },
      { argv: ['configs', '--alter', '--broker', 'x', '--add-config', 'a=1'], says: /must be a broker id \(an integer\), got 'x'/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.argv)));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
      expect(r.stderr).to.contain('run `samsa configs --help`');
      expect(r.stdout).to.equal('');
    });
    const help = await runCli(['configs', '--help']);
    expect(help.code).to.equal(0);
    for (const o of ['--describe', '--alter', '--entity-type', '--entity-name', '--entity-default', '--topic', '--broker', '--broker-defaults', '--group', '--user', '--user-defaults', '--client', '--client-defaults', '--ip', '--ip-defaults', '--add-config', '--add-config-file', '--delete-config', '--all']) {
      expect(help.stdout).to.contain(o);
    }
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/\n {2}configs +describe and alter topic configs, dynamic broker configs \(per broker or cluster-wide\), brokers' log levels, group configs, client quotas, IP connection rates, SCRAM credentials and client metrics subscriptions/);
  });
});

describe('cli: configs against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);
  const logConfig = async (broker: number, topic: string) => (await c.cluster.client.describeReplica(await c.cluster.client.metadata(), broker, topic, 0))?.logConfig;

  before(async () => {
    c = await CliCluster.start(3);
    await c.cluster.client.createTopics([
      { name: 'cfg', assignments: [[1, 2, 3]] },
      { name: 'other', assignments: [[2]] },
    ]);
    await c.cluster.client.waitForLeaders('cfg');
    await c.cluster.client.waitForLeaders('other');
  });
  after(async () => {
    await c?.stop();
  });

  it('sets the cluster-wide default and a broker\'s own configs; every replica takes them', async () => {
    const [d, b2] = await Promise.all([
      c.run('configs', ['--alter', '--broker-defaults', '--add-config', 'log.retention.ms=123456,log.segment.bytes=4194304']),
      c.run('configs', ['--alter', '--entity-type', 'brokers', '--entity-name', '2', '--add-config', 'log.segment.bytes=2097152']),
    ]);
    expect(d.code, d.stderr).to.equal(0);
    expect(d.stdout).to.equal('Completed updating default config for brokers in the cluster.\n');
    expect(b2.code, b2.stderr).to.equal(0);
    expect(b2.stdout).to.equal('Completed updating config for broker 2.\n');
    await checkFor(
      async () => {
        const [r1, r2, r3] = await Promise.all([logConfig(1, 'cfg'), logConfig(2, 'cfg'), logConfig(3, 'cfg')]);
        return r1?.['retention.ms'] === '123456' && r1['segment.bytes'] === '4194304' && r2?.['segment.bytes'] === '2097152' && r2['retention.ms'] === '123456' && r3?.['segment.bytes'] === '4194304';
      },
      10_000,
      20,
    );
  });

  it("--describe prints kafka-configs' lines: the default, a broker, every broker", async () => {
    const [d, b2, b1, all] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'brokers', '--entity-default']),
      c.run('configs', ['--describe', '--broker', '2']),
      c.run('configs', ['--describe', '--broker', '1']),
      c.run('configs', ['--describe', '--entity-type', 'brokers']),
    ]);
    for (const r of [d, b2, b1, all]) expect(r.code, r.stderr).to.equal(0);
    const defaults = [
      'Default configs for brokers in the cluster are:',
      '  log.retention.ms=123456 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=123456}',
      '  log.segment.bytes=4194304 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=4194304}',
      // a new cluster starts with it: eligible leader replicas are on (KIP-966)
      '  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}',
    ];
    expect(lines(d.stdout)).to.deep.equal(defaults);
    const two = [
      'Dynamic configs for broker 2 are:',
      '  log.segment.bytes=2097152 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.segment.bytes=2097152, DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=4194304, DEFAULT_CONFIG:log.segment.bytes=1073741824}',
    ];
    expect(lines(b2.stdout)).to.deep.equal(two);
    expect(lines(b1.stdout)).to.deep.equal(['Dynamic configs for broker 1 are:']);
    expect(lines(all.stdout)).to.deep.equal(['Dynamic configs for broker 1 are:', ...two, 'Dynamic configs for broker 3 are:', ...defaults]);
  });

  it('--describe --all gives every key of a broker with its value in force', async () => {
    const r = await c.run('configs', ['--describe', '--broker', '2', '--all']);
    expect(r.code, r.stderr).to.equal(0);
    const out = lines(r.stdout);
    expect(out[0]).to.equal('All configs for broker 2 are:');
    const keys = out.slice(1).map((l) => l.trim().split('=')[0]!);
    expect(keys).to.deep.equal([...keys].sort());
    expect(keys).to.include.members(['log.segment.bytes', 'log.retention.ms', 'socket.request.max.bytes', 'min.insync.replicas', 'broker.heartbeat.interval.ms']);
    expect(out).to.include('  log.segment.bytes=2097152 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.segment.bytes=2097152, DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=4194304, DEFAULT_CONFIG:log.segment.bytes=1073741824}');
    expect(out).to.include('  log.retention.ms=123456 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=123456, DEFAULT_CONFIG:log.retention.ms=604800000}');
    // the topology's value
    expect(out).to.include('  broker.heartbeat.interval.ms=200 sensitive=false synonyms={STATIC_BROKER_CONFIG:broker.heartbeat.interval.ms=200, DEFAULT_CONFIG:broker.heartbeat.interval.ms=2000}');
  });

  it('refuses keys that cannot change at run time, bad values and deletes of keys not set (exit 2)', async () => {
    const [fixed, unknown, bad, notSet, topicBad, ownMinIsr, clusterMinIsr] = await Promise.all([
      c.run('configs', ['--alter', '--broker', '1', '--add-config', 'socket.request.max.bytes=1000']),
      c.run('configs', ['--alter', '--broker-defaults', '--add-config', 'no.such.key=1']),
      c.run('configs', ['--alter', '--broker-defaults', '--add-config', 'min.insync.replicas=0']),
      c.run('configs', ['--alter', '--broker', '2', '--delete-config', 'log.segment.bytes,log.roll.ms']),
      c.run('configs', ['--alter', '--topic', 'cfg', '--add-config', 'retention.ms=soon']),
      // eligible leader replicas on (KIP-966): min.insync.replicas is cluster-wide
      c.run('configs', ['--alter', '--broker', '1', '--add-config', 'min.insync.replicas=2']),
      c.run('configs', ['--alter', '--broker-defaults', '--delete-config', 'min.insync.replicas']),
    ]);
    for (const r of [fixed, unknown, bad, notSet, topicBad, ownMinIsr, clusterMinIsr]) {
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal('');
    }
    expect(fixed.stderr).to.match(/broker 1: socket\.request\.max\.bytes cannot be changed while the broker runs/);
    expect(unknown.stderr).to.match(/the cluster-wide default: unknown broker config key no\.such\.key/);
    expect(bad.stderr).to.match(/min\.insync\.replicas/);
    expect(notSet.stderr).to.match(/Invalid config\(s\): log\.roll\.ms — not set for broker 2, nothing to delete \(set: log\.segment\.bytes\)/);
    expect(topicBad.stderr).to.match(/retention\.ms/);
    expect(ownMinIsr.stderr).to.include('broker 1: Broker-level min.insync.replicas cannot be altered while ELR is enabled.');
    expect(clusterMinIsr.stderr).to.include('the cluster-wide default: Cluster-level min.insync.replicas cannot be removed while ELR is enabled.');
    // nothing changed
    const d = await c.run('configs', ['--describe', '--broker', '2']);
    expect(lines(d.stdout)).to.have.length(2);
  });

  it("a topic's configs: set with brackets, described (--all: its leader's defaults), deleted", async () => {
    const set = await c.run('configs', ['--alter', '--topic', 'cfg', '--add-config', 'cleanup.policy=[compact,delete],retention.ms=60000']);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.equal('Completed updating config for topic cfg.\n');
    await checkFor(async () => (await logConfig(1, 'cfg'))?.['cleanup.policy'] === 'compact,delete', 10_000, 20);

    const [d, all, every] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'topics', '--entity-name', 'cfg']),
      c.run('configs', ['--describe', '--topic', 'cfg', '--all']),
      c.run('configs', ['--describe', '--entity-type', 'topics']),
    ]);
    for (const r of [d, all, every]) expect(r.code, r.stderr).to.equal(0);
    expect(lines(d.stdout)).to.deep.equal([
      'Dynamic configs for topic cfg are:',
      '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}',
      '  retention.ms=60000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=60000, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=123456, DEFAULT_CONFIG:log.retention.ms=604800000}',
    ]);
    const allLines = lines(all.stdout);
    expect(allLines[0]).to.equal('All configs for topic cfg are:');
    expect(allLines).to.include('  segment.bytes=4194304 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.segment.bytes=4194304, DEFAULT_CONFIG:log.segment.bytes=1073741824}');
    expect(allLines).to.include('  unclean.leader.election.enable=false sensitive=false synonyms={DEFAULT_CONFIG:unclean.leader.election.enable=false}');
    expect(allLines.filter((l) => l.includes('DYNAMIC_TOPIC_CONFIG'))).to.have.length(2);
    const everyLines = lines(every.stdout);
    expect(everyLines).to.include('Dynamic configs for topic cfg are:');
    expect(everyLines).to.include('Dynamic configs for topic other are:');

    const del = await c.run('configs', ['--alter', '--topic', 'cfg', '--delete-config', 'retention.ms']);
    expect(del.code, del.stderr).to.equal(0);
    await checkFor(async () => (await logConfig(2, 'cfg'))?.['retention.ms'] === '123456', 10_000, 20);
    const after = await c.run('configs', ['--describe', '--topic', 'cfg']);
    expect(lines(after.stdout)).to.have.length(2);
    expect(after.stdout).to.not.contain('retention.ms');

    const missing = await c.run('configs', ['--describe', '--topic', 'nope']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/topic 'nope' does not exist/);
    const missingAlter = await c.run('configs', ['--alter', '--topic', 'nope', '--add-config', 'retention.ms=1']);
    expect(missingAlter.code).to.equal(1);
    expect(missingAlter.stderr).to.match(/topic 'nope' does not exist/);
  });

  it('--add-config-file sets from a properties file; --delete-config goes back to the topology config', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-configs-'));
    const file = path.join(dir, 'broker.properties');
    fs.writeFileSync(file, '# dynamic defaults\nlog.cleaner.min.compaction.lag.ms=1000\n');
    try {
      const r = await c.run('configs', ['--alter', '--broker-defaults', '--add-config-file', file]);
      expect(r.code, r.stderr).to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const [b2, d] = await Promise.all([
      c.run('configs', ['--alter', '--broker', '2', '--delete-config', 'log.segment.bytes']),
      c.run('configs', ['--alter', '--entity-type', 'brokers', '--entity-default', '--delete-config', 'log.retention.ms,log.segment.bytes']),
    ]);
    expect(b2.code, b2.stderr).to.equal(0);
    expect(d.code, d.stderr).to.equal(0);
    const after = await c.run('configs', ['--describe', '--broker-defaults']);
    expect(lines(after.stdout)).to.deep.equal([
      'Default configs for brokers in the cluster are:',
      '  log.cleaner.min.compaction.lag.ms=1000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.min.compaction.lag.ms=1000}',
      '  min.insync.replicas=1 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=1}',
    ]);
    await checkFor(async () => {
      const r = await logConfig(2, 'cfg');
      return r?.['segment.bytes'] === '1073741824' && r['retention.ms'] === '604800000' && r['min.compaction.lag.ms'] === '1000';
    }, 10_000, 20);
  });

  it("client quotas: users, clients, a user's clients and the defaults set, listed in kafka-configs' lines, deleted", async () => {
    const sets = await Promise.all([
      c.run('configs', ['--alter', '--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients', '--entity-name', 'app', '--add-config', 'producer_byte_rate=1024,consumer_byte_rate=2048']),
      c.run('configs', ['--alter', '--user', 'alice', '--add-config', 'producer_byte_rate=4096']),
      c.run('configs', ['--alter', '--client', 'app', '--add-config', 'consumer_byte_rate=10485760']),
      c.run('configs', ['--alter', '--entity-type', 'users', '--entity-default', '--add-config', 'producer_byte_rate=512.5']),
      c.run('configs', ['--alter', '--client-defaults', '--user', 'bob', '--add-config', 'consumer_byte_rate=300']),
    ]);
    for (const r of sets) expect(r.code, r.stderr).to.equal(0);
    expect(sets.map((r) => r.stdout)).to.deep.equal([
      'Completed updating config for user alice.\n',
      'Completed updating config for user alice.\n',
      'Completed updating config for client app.\n',
      'Completed updating default config for users in the cluster.\n',
      'Completed updating config for user bob.\n',
    ]);
    const [users, clients, both, one, none] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'users']),
      c.run('configs', ['--describe', '--entity-type', 'clients']),
      c.run('configs', ['--describe', '--entity-type', 'users', '--entity-type', 'clients']),
      c.run('configs', ['--describe', '--user', 'alice', '--client', 'app']),
      c.run('configs', ['--describe', '--user', 'nobody']),
    ]);
    for (const r of [users, clients, both, one, none]) expect(r.code, r.stderr).to.equal(0);
    expect(lines(users.stdout)).to.deep.equal(['Quota configs for the default user-principal are producer_byte_rate=512.5', "Quota configs for user-principal 'alice' are producer_byte_rate=4096.0"]);
    expect(lines(clients.stdout)).to.deep.equal(["Quota configs for client-id 'app' are consumer_byte_rate=1.048576E7"]);
    const aliceApp = "Quota configs for user-principal 'alice', client-id 'app' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0";
    expect(lines(both.stdout)).to.deep.equal([aliceApp, "Quota configs for user-principal 'bob', the default client-id are consumer_byte_rate=300.0"]);
    expect(lines(one.stdout)).to.deep.equal([aliceApp]);
    expect(none.stdout).to.equal('');

    const [del, gone] = await Promise.all([
      c.run('configs', ['--alter', '--user', 'alice', '--client', 'app', '--delete-config', 'producer_byte_rate']),
      c.run('configs', ['--alter', '--entity-type', 'users', '--entity-default', '--delete-config', 'producer_byte_rate']),
    ]);
    expect(del.code, del.stderr).to.equal(0);
    expect(del.stdout).to.equal('Completed updating config for client app.\n');
    expect(gone.code, gone.stderr).to.equal(0);
    // the names of the user's clients: any (a type without a name), the default user gone with its only key
    const [after, users2] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients']),
      c.run('configs', ['--describe', '--entity-type', 'users']),
    ]);
    expect(lines(after.stdout)).to.deep.equal(["Quota configs for user-principal 'alice', client-id 'app' are consumer_byte_rate=2048.0"]);
    expect(lines(users2.stdout)).to.deep.equal(["Quota configs for user-principal 'alice' are producer_byte_rate=4096.0"]);
  });

  it("refuses unknown keys and bad values with the controller's reason, and deletes of keys not set (exit 2)", async () => {
    const [percent, mutation, unknown, zero, notSet] = await Promise.all([
      c.run('configs', ['--alter', '--user', 'carol', '--add-config', 'request_percentage=-50']),
      c.run('configs', ['--alter', '--client-defaults', '--add-config', 'controller_mutation_rate=0']),
      c.run('configs', ['--alter', '--client', 'app', '--add-config', 'retention.ms=1000']),
      c.run('configs', ['--alter', '--user', 'carol', '--add-config', 'producer_byte_rate=0']),
      c.run('configs', ['--alter', '--user', 'alice', '--delete-config', 'consumer_byte_rate']),
    ]);
    for (const r of [percent, mutation, unknown, zero, notSet]) {
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal('');
    }
    expect(percent.stderr).to.match(/user 'carol': request_percentage must be a positive percentage of a request handler thread's time, got -50/);
    expect(mutation.stderr).to.match(/the default client-id: controller_mutation_rate must be a positive number of partition mutations per second, got 0/);
    expect(unknown.stderr).to.match(/client-id 'app': unknown quota key 'retention\.ms' \(producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate\)/);
    expect(zero.stderr).to.match(/producer_byte_rate must be a positive number of bytes per second, got 0/);
    expect(notSet.stderr).to.match(/Invalid config\(s\): consumer_byte_rate — not set for user-principal 'alice', nothing to delete \(set: producer_byte_rate\)/);
    expect((await c.cluster.client.metadata()).clientQuotas?.filter((q) => q.entity.user === 'carol' || (q.entity.user === undefined && q.entity.clientId === null))).to.deep.equal([]);
  });

  it("request_percentage (KIP-124): set, listed in kafka-configs' line, deleted; a value that is not a number is a usage error", async () => {
    const set = await c.run('configs', ['--alter', '--user', 'dana', '--client', 'batch', '--add-config', 'request_percentage=150,producer_byte_rate=2048']);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.equal('Completed updating config for client batch.\n');
    const small = await c.run('configs', ['--alter', '--entity-type', 'clients', '--entity-name', 'poller', '--add-config', 'request_percentage=0.5']);
    expect(small.code, small.stderr).to.equal(0);
    const [dana, poller] = await Promise.all([
      c.run('configs', ['--describe', '--user', 'dana', '--client', 'batch']),
      c.run('configs', ['--describe', '--client', 'poller']),
    ]);
    expect(lines(dana.stdout)).to.deep.equal(["Quota configs for user-principal 'dana', client-id 'batch' are producer_byte_rate=2048.0, request_percentage=150.0"]);
    expect(lines(poller.stdout)).to.deep.equal(["Quota configs for client-id 'poller' are request_percentage=0.5"]);
    const word = await c.run('configs', ['--alter', '--user', 'dana', '--add-config', 'request_percentage=lots']);
    expect(word.code).to.equal(2);
    expect(word.stderr).to.match(/Cannot parse quota configuration value for request_percentage: lots/);
    const [del, delPoller] = await Promise.all([
      c.run('configs', ['--alter', '--user', 'dana', '--client', 'batch', '--delete-config', 'request_percentage']),
      c.run('configs', ['--alter', '--client', 'poller', '--delete-config', 'request_percentage']),
    ]);
    expect(del.code, del.stderr).to.equal(0);
    expect(delPoller.code, delPoller.stderr).to.equal(0);
    const after = await c.run('configs', ['--describe', '--user', 'dana', '--client', 'batch']);
    expect(lines(after.stdout)).to.deep.equal(["Quota configs for user-principal 'dana', client-id 'batch' are producer_byte_rate=2048.0"]);
    expect((await c.run('configs', ['--describe', '--client', 'poller'])).stdout).to.equal('');
    const gone = await c.run('configs', ['--alter', '--user', 'dana', '--client', 'batch', '--delete-config', 'producer_byte_rate']);
    expect(gone.code, gone.stderr).to.equal(0);
  });

  it('a stopped broker is described from the metadata, its dynamic configs only', async () => {
    const set = await c.run('configs', ['--alter', '--broker', '3', '--add-config', 'log.roll.ms=600000']);
    expect(set.code, set.stderr).to.equal(0);
    await c.cluster.killBroker(3);
    await checkFor(async () => (await c.cluster.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced === true, 15_000, 50);
    const [d, all, every] = await Promise.all([
      c.run('configs', ['--describe', '--broker', '3']),
      c.run('configs', ['--describe', '--broker', '3', '--all']),
      c.run('configs', ['--describe', '--entity-type', 'brokers']),
    ]);
    const three = ['Dynamic configs for broker 3 are:', '  log.roll.ms=600000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.roll.ms=600000}'];
    expect(d.code, d.stderr).to.equal(0);
    expect(lines(d.stdout)).to.deep.equal(three);
    expect(d.stderr).to.match(/broker 3 is fenced .* showing its dynamic configs, from the cluster metadata/);
    expect(all.code).to.equal(1);
    expect(lines(all.stdout)).to.deep.equal(['All configs for broker 3 are:', three[1]]);
    expect(all.stderr).to.match(/not every config could be described/);
    expect(every.code, every.stderr).to.equal(0);
    expect(lines(every.stdout)).to.include.ordered.members(['Dynamic configs for broker 1 are:', 'Dynamic configs for broker 2 are:', ...three]);
  });
});
