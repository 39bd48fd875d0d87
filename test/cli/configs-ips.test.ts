/**
 * `samsa configs` and IP quota entities (KIP-612), as kafka-configs takes them: --entity-type ips
 * with --entity-name or --entity-default, the shorthands --ip and --ip-defaults; ips alone (not
 * with users, clients or any other entity); the name an IP address (no host names; IPv6 kept in
 * the compressed form the listeners see); connection_creation_rate the only key ("Only
 * connection quota configs can be added for 'ips'", exit 2, before connecting). Against a
 * cluster: rates set for an ip and the default ip, listed in kafka-configs' lines, deleted, and
 * the refusals (a rate that is not a positive whole number, connection_creation_rate on a user,
 * a delete of a key not set: exit 2, nothing changed).
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { canonicalIp, configsCommand, planIpAlter, planUserAlter, quotaLine, resolveEntity, type ConfigEntity } from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster, runCli } from './cli-harness.js';

const entity = (...argv: string[]): ConfigEntity => {
  const a = parseArgs(argv, configsCommand.options);
  return resolveEntity(a, a.mode(['describe', 'alter']) as 'describe' | 'alter');
};
const ip = (match?: string | null): ConfigEntity => ({ type: 'quotas', components: [match === undefined ? { entityType: 'ip' } : { entityType: 'ip', match }] });

describe('cli/commands/configs: ips on the command line', () => {
  it('names an ip entity with --entity-type ips and --entity-name / --entity-default, or --ip / --ip-defaults', () => {
    expect(entity('--describe', '--entity-type', 'ips', '--entity-name', '1.2.3.4')).to.deep.equal(ip('1.2.3.4'));
    expect(entity('--describe', '--entity-type', 'ips', '--entity-default')).to.deep.equal(ip(null));
    expect(entity('--describe', '--entity-type', 'ips')).to.deep.equal(ip());
    expect(entity('--describe', '--entity-type', 'IPS')).to.deep.equal(ip());
    expect(entity('--alter', '--ip', '10.0.0.1', '--add-config', 'connection_creation_rate=1')).to.deep.equal(ip('10.0.0.1'));
    expect(entity('--alter', '--ip-defaults', '--add-config', 'connection_creation_rate=1')).to.deep.equal(ip(null));
    expect(entity('--describe', '--ip', '::1')).to.deep.equal(ip('::1'));
    // IPv6 as the listeners see connections: compressed, lower case; IPv4-mapped as IPv4
    expect(entity('--describe', '--entity-type', 'ips', '--entity-name', '2001:DB8:0:0:0:0:0:7')).to.deep.equal(ip('2001:db8::7'));
    expect(canonicalIp('1.2.3.4')).to.equal('1.2.3.4');
    expect(canonicalIp(' 1.2.3.4 ')).to.equal('1.2.3.4');
    expect(canonicalIp('0:0:0:0:0:0:0:1')).to.equal('::1');
    expect(canonicalIp('::ffff:192.168.1.2')).to.equal('192.168.1.2');
    expect(canonicalIp('::FFFF:C0A8:0102')).to.equal('192.168.1.2');
    expect(canonicalIp('fe80::1%eth0')).to.equal('fe80::1%eth0');
    for (const bad of ['localhost', 'broker.example.com', '1.2.3', '1.2.3.256', '01.2.3.4', '1.2.3.4/32', '::g', '']) expect(canonicalIp(bad), bad).to.equal(null);
  });

  it('refuses ip entities that cannot work, with exact messages', () => {
    const cases: [string[], string][] = [
      [['--describe', '--entity-type', 'ips', '--entity-name', 'localhost'], 'The entity name for ips must be a valid IP address, but it is: localhost (samsa takes IP addresses only: kafka-configs also resolves host names, samsa does not)'],
      [['--describe', '--ip', '1.2.3.999'], 'The entity name for ips must be a valid IP address, but it is: 1.2.3.999 (samsa takes IP addresses only: kafka-configs also resolves host names, samsa does not)'],
      [['--describe', '--ip', ''], '--ip needs an IP address (--ip-defaults for the default ip)'],
      [['--describe', '--entity-type', 'ips', '--entity-name', ' '], '--entity-name needs an IP address (--entity-default for the default ip)'],
      [['--describe', '--entity-type', 'ips', '--entity-type', 'users'], '--entity-type users does not go with --entity-type ips: ips go alone (only users and clients go together)'],
      [['--describe', '--entity-type', 'clients', '--entity-type', 'ips'], '--entity-type clients does not go with --entity-type ips: ips go alone (only users and clients go together)'],
      [['--describe', '--entity-type', 'topics', '--ip', '1.2.3.4'], '--entity-type topics does not go with --ip: ips go alone (only users and clients go together)'],
      [['--describe', '--ip', '1.2.3.4', '--user', 'alice'], '--user does not go with --ip: ips go alone (only users and clients go together)'],
      [['--describe', '--ip-defaults', '--client-defaults'], '--client-defaults does not go with --ip-defaults: ips go alone (only users and clients go together)'],
      [['--describe', '--entity-type', 'ips', '--broker', '1'], '--broker does not go with --entity-type ips: ips go alone (only users and clients go together)'],
      [['--describe', '--ip', '1.2.3.4', '--ip-defaults'], 'give only one of --ip and --ip-defaults'],
      [['--describe', '--ip', '1.2.3.4', '--entity-type', 'ips'], '--ip names the entity: it does not go with --entity-type (as in kafka-configs, give --entity-type/--entity-name/--entity-default or the shorthands)'],
      [['--describe', '--ip-defaults', '--entity-name', '1.2.3.4'], '--ip-defaults names the entity: it does not go with --entity-name (as in kafka-configs, give --entity-type/--entity-name/--entity-default or the shorthands)'],
      [['--describe', '--entity-type', 'ips', '--entity-type', 'ips'], '--entity-type ips is given more than once'],
      [['--describe', '--entity-type', 'ips', '--entity-name', '1.2.3.4', '--entity-name', '1.2.3.5'], '--entity-name is given more than once'],
      [['--describe', '--entity-type', 'ips', '--entity-name', '1.2.3.4', '--entity-default'], 'give only one of --entity-name and --entity-default'],
      [['--alter', '--entity-type', 'ips', '--add-config', 'connection_creation_rate=1'], '--alter needs the ip: --entity-name address, or --entity-default for the default ip (or --ip address, --ip-defaults)'],
    ];
    for (const [argv, says] of cases) {
      let message: string | undefined;
      try {
        entity(...argv);
      } catch (e) {
        expect(e, argv.join(' ')).to.be.instanceOf(UsageError);
        message = (e as Error).message;
      }
      expect(message, argv.join(' ')).to.equal(says);
    }
  });

  it("takes connection_creation_rate alone for an ip, as kafka-configs ('Only connection quota configs can be added for 'ips'')", () => {
    expect(planIpAlter({ set: { connection_creation_rate: '10' }, delete: [] })).to.deep.equal({ set: { connection_creation_rate: 10 }, delete: [] });
    expect(planIpAlter({ set: {}, delete: ['connection_creation_rate'] })).to.deep.equal({ set: {}, delete: ['connection_creation_rate'] });
    expect(planUserAlter([{ entityType: 'ip', match: null }], { set: { connection_creation_rate: '5' }, delete: [] })).to.deep.equal({ quotas: { set: { connection_creation_rate: 5 }, delete: [] }, scram: null });
    const cases: [{ set: Record<string, string>; delete: string[] }, string][] = [
      [{ set: { producer_byte_rate: '1024' }, delete: [] }, "Only connection quota configs can be added for 'ips'. Unexpected config names: producer_byte_rate (an ip takes connection_creation_rate only)"],
      [{ set: { connection_creation_rate: '10', consumer_byte_rate: '1' }, delete: ['request_percentage'] }, "Only connection quota configs can be added for 'ips'. Unexpected config names: consumer_byte_rate,request_percentage (an ip takes connection_creation_rate only)"],
      [{ set: { 'SCRAM-SHA-256': 'password=p' }, delete: [] }, "Only connection quota configs can be added for 'ips'. Unexpected config names: SCRAM-SHA-256 (an ip takes connection_creation_rate only)"],
      [{ set: { connection_creation_rate: 'many' }, delete: [] }, 'Cannot parse quota configuration value for connection_creation_rate: many'],
    ];
    for (const [change, says] of cases) expect(() => planUserAlter([{ entityType: 'ip', match: '1.2.3.4' }], change), says).to.throw(UsageError).with.property('message', says);
  });

  it("prints kafka-configs' line for an ip and the default ip", () => {
    expect(quotaLine({ entity: { ip: '1.2.3.4' }, quotas: { connection_creation_rate: 10 } })).to.equal("Quota configs for ip '1.2.3.4' are connection_creation_rate=10.0");
    expect(quotaLine({ entity: { ip: null }, quotas: { connection_creation_rate: 5 } })).to.equal('Quota configs for the default ip are connection_creation_rate=5.0');
  });

  it('exits 2 for ip command lines that cannot work, before connecting', async () => {
    const cases: { argv: string[]; says: string }[] = [
      { argv: ['--alter', '--ip', '1.2.3.4', '--add-config', 'producer_byte_rate=1024'], says: "Only connection quota configs can be added for 'ips'. Unexpected config names: producer_byte_rate (an ip takes connection_creation_rate only)" },
      { argv: ['--alter', '--ip-defaults', '--delete-config', 'consumer_byte_rate'], says: "Only connection quota configs can be added for 'ips'. Unexpected config names: consumer_byte_rate (an ip takes connection_creation_rate only)" },
      { argv: ['--alter', '--entity-type', 'ips', '--entity-name', 'broker.example.com', '--add-config', 'connection_creation_rate=10'], says: 'The entity name for ips must be a valid IP address, but it is: broker.example.com (samsa takes IP addresses only: kafka-configs also resolves host names, samsa does not)' },
      { argv: ['--alter', '--entity-type', 'ips', '--entity-name', '1.2.3.4', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'connection_creation_rate=10'], says: '--entity-type users does not go with --entity-type ips: ips go alone (only users and clients go together)' },
      { argv: ['--alter', '--ip', '1.2.3.4', '--client', 'app', '--add-config', 'connection_creation_rate=10'], says: '--client does not go with --ip: ips go alone (only users and clients go together)' },
      { argv: ['--alter', '--entity-type', 'ips', '--add-config', 'connection_creation_rate=10'], says: '--alter needs the ip: --entity-name address, or --entity-default for the default ip (or --ip address, --ip-defaults)' },
      { argv: ['--describe', '--ip', '1.2.3.4', '--all'], says: '--all goes with topics, brokers and groups: a quota entity has only the quotas set for it' },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['configs', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.equal(`samsa configs: ${cases[i]!.says}\nrun \`samsa configs --help\` for the options\n`);
      expect(r.stdout).to.equal('');
    });
    const help = await runCli(['configs', '--help']);
    expect(help.stdout).to.contain('--ip-defaults');
    expect(help.stdout).to.contain('connection_creation_rate');
  });
});

describe('cli: configs and ip quotas against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);
  const ipQuotas = async () => ((await c.cluster.client.metadata()).clientQuotas ?? []).filter((q) => q.entity.ip !== undefined);

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  it("sets connection_creation_rate for an ip and the default ip, lists them in kafka-configs' lines, deletes one", async () => {
    const sets = await Promise.all([
      c.run('configs', ['--alter', '--ip', '1.2.3.4', '--add-config', 'connection_creation_rate=10']),
      c.run('configs', ['--alter', '--entity-type', 'ips', '--entity-default', '--add-config', 'connection_creation_rate=5']),
      c.run('configs', ['--alter', '--entity-type', 'ips', '--entity-name', '2001:DB8:0:0:0:0:0:7', '--add-config', 'connection_creation_rate=20']),
    ]);
    for (const r of sets) expect(r.code, r.stderr).to.equal(0);
    expect(sets.map((r) => r.stdout)).to.deep.equal([
      'Completed updating config for ip 1.2.3.4.\n',
      'Completed updating default config for ips in the cluster.\n',
      'Completed updating config for ip 2001:db8::7.\n',
    ]);
    // what the brokers' listeners take: the entities as the admin client names them
    expect((await ipQuotas()).map((q) => [q.entity, q.quotas])).to.have.deep.members([
      [{ ip: '1.2.3.4' }, { connection_creation_rate: 10 }],
      [{ ip: null }, { connection_creation_rate: 5 }],
      [{ ip: '2001:db8::7' }, { connection_creation_rate: 20 }],
    ]);

    const one = "Quota configs for ip '1.2.3.4' are connection_creation_rate=10.0";
    const dflt = 'Quota configs for the default ip are connection_creation_rate=5.0';
    const v6 = "Quota configs for ip '2001:db8::7' are connection_creation_rate=20.0";
    const [byName, byShorthand, defaultLong, defaultShort, all, v6Long, unset, users, clients] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'ips', '--entity-name', '1.2.3.4']),
      c.run('configs', ['--describe', '--ip', '1.2.3.4']),
      c.run('configs', ['--describe', '--entity-type', 'ips', '--entity-default']),
      c.run('configs', ['--describe', '--ip-defaults']),
      c.run('configs', ['--describe', '--entity-type', 'ips']),
      c.run('configs', ['--describe', '--ip', '2001:db8:0::7']),
      c.run('configs', ['--describe', '--ip', '5.6.7.8']),
      c.run('configs', ['--describe', '--entity-type', 'users']),
      c.run('configs', ['--describe', '--entity-type', 'clients']),
    ]);
    for (const r of [byName, byShorthand, defaultLong, defaultShort, all, v6Long, unset, users, clients]) expect(r.code, r.stderr).to.equal(0);
    expect(lines(byName.stdout)).to.deep.equal([one]);
    expect(lines(byShorthand.stdout)).to.deep.equal([one]);
    expect(lines(defaultLong.stdout)).to.deep.equal([dflt]);
    expect(lines(defaultShort.stdout)).to.deep.equal([dflt]);
    expect(lines(all.stdout)).to.deep.equal([dflt, one, v6]);
    expect(lines(v6Long.stdout)).to.deep.equal([v6]);
    expect(unset.stdout).to.equal('');
    // an ip is not a user or a client
    expect(users.stdout).to.equal('');
    expect(clients.stdout).to.equal('');

    const [del, change] = await Promise.all([
      c.run('configs', ['--alter', '--entity-type', 'ips', '--entity-name', '1.2.3.4', '--delete-config', 'connection_creation_rate']),
      c.run('configs', ['--alter', '--ip-defaults', '--add-config', 'connection_creation_rate=7']),
    ]);
    expect(del.code, del.stderr).to.equal(0);
    expect(del.stdout).to.equal('Completed updating config for ip 1.2.3.4.\n');
    expect(change.code, change.stderr).to.equal(0);
    expect(change.stdout).to.equal('Completed updating default config for ips in the cluster.\n');
    const [after, gone] = await Promise.all([c.run('configs', ['--describe', '--entity-type', 'ips']), c.run('configs', ['--describe', '--ip', '1.2.3.4'])]);
    expect(lines(after.stdout)).to.deep.equal(['Quota configs for the default ip are connection_creation_rate=7.0', v6]);
    expect(gone.stdout).to.equal('');
  });

  it("refuses other keys, a rate that is not a positive whole number (the controller's reason), connection_creation_rate on a user, deletes of keys not set (exit 2)", async () => {
    const before = await ipQuotas();
    const [other, fraction, zero, onUser, onClient, notSet] = await Promise.all([
      c.run('configs', ['--alter', '--ip', '9.9.9.9', '--add-config', 'connection_creation_rate=3,producer_byte_rate=1024']),
      c.run('configs', ['--alter', '--ip', '9.9.9.9', '--add-config', 'connection_creation_rate=2.5']),
      c.run('configs', ['--alter', '--ip-defaults', '--add-config', 'connection_creation_rate=0']),
      c.run('configs', ['--alter', '--user', 'alice', '--add-config', 'connection_creation_rate=10']),
      c.run('configs', ['--alter', '--client-defaults', '--add-config', 'connection_creation_rate=10']),
      c.run('configs', ['--alter', '--ip', '9.9.9.9', '--delete-config', 'connection_creation_rate']),
    ]);
    for (const r of [other, fraction, zero, onUser, onClient, notSet]) {
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stdout).to.equal('');
    }
    expect(other.stderr).to.contain("Only connection quota configs can be added for 'ips'. Unexpected config names: producer_byte_rate (an ip takes connection_creation_rate only)");
    expect(fraction.stderr).to.match(/ip '9\.9\.9\.9': connection_creation_rate must be a positive whole number of connections per second, got 2\.5/);
    expect(zero.stderr).to.match(/the default ip: connection_creation_rate must be a positive whole number of connections per second, got 0/);
    expect(onUser.stderr).to.match(/user 'alice': connection_creation_rate applies to ip entities only/);
    expect(onClient.stderr).to.match(/the default client-id: connection_creation_rate applies to ip entities only/);
    expect(notSet.stderr).to.contain("Invalid config(s): connection_creation_rate — not set for ip '9.9.9.9', nothing to delete (it has no dynamic configs)");
    // nothing changed
    expect(await ipQuotas()).to.deep.equal(before);
    expect(((await c.cluster.client.metadata()).clientQuotas ?? []).filter((q) => q.entity.user === 'alice' || q.entity.clientId === null)).to.deep.equal([]);
  });
});
