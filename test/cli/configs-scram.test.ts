/**
 * `samsa configs` and users' SCRAM credentials (KIP-554), as kafka-configs takes them: the
 * SCRAM keys of --add-config read ([iterations=n,]password=p, iterations 4096 by default) and
 * told from quota keys (both in one command refused, as kafka-configs); the command lines that cannot work (a malformed value, a missing
 * password, SCRAM keys with clients or the default user: exit 2, before connecting, the password
 * never echoed); and against a cluster: credentials set (alone, or with quotas), listed in
 * kafka-configs' line after the quota lines (a user, every user; not for the default or a user's
 * clients), deleted, and the controller's refusals (iterations out of range, a credential to
 * delete that does not exist) ending the command with their reason (exit 1).
 */
import { expect } from 'chai';
import { parseAddConfig, parseScramCredential, planUserAlter, scramLine, scramMechanismOf, type QuotaComponent } from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster, runCli } from './cli-harness.js';

const alice: QuotaComponent[] = [{ entityType: 'user', match: 'alice' }];

describe('cli/commands/configs: SCRAM credentials on the command line', () => {
  it("reads a SCRAM key's value as kafka-configs does: [iterations=n,]password=p, the password the rest", () => {
    const [value] = Object.values(parseAddConfig(['SCRAM-SHA-256=[iterations=8192,password=alice-secret]']));
    expect(parseScramCredential('SCRAM-SHA-256', value!)).to.deep.equal({ iterations: 8192, password: 'alice-secret' });
    expect(parseScramCredential('SCRAM-SHA-512', 'password=a=b,c')).to.deep.equal({ password: 'a=b,c' });
    expect(parseScramCredential('SCRAM-SHA-512', 'iterations=-1,password=p')).to.deep.equal({ password: 'p' });
    expect(parseScramCredential('SCRAM-SHA-512', 'iterations=100, password=p')).to.deep.equal({ iterations: 100, password: 'p' });
    // a properties file (--add-config-file) keeps its brackets
    expect(parseScramCredential('SCRAM-SHA-512', '[iterations=8192,password=p]')).to.deep.equal({ iterations: 8192, password: 'p' });
    const cases: [string, RegExp][] = [
      ['', /SCRAM-SHA-256 needs a password: SCRAM-SHA-256=\[iterations=n,password=p\]/],
      ['iterations=8192', /SCRAM-SHA-256 needs a password/],
      ['password=', /SCRAM-SHA-256 needs a password: password= is empty/],
      ['iterations=many,password=top-secret', /Invalid credential property SCRAM-SHA-256: expected SCRAM-SHA-256=\[iterations=n,password=p\]/],
      ['salt=x,password=top-secret', /Invalid credential property SCRAM-SHA-256/],
      ['password=top-secret,iterations=8192', /iterations goes before the password/],
      ['iterations=99999999999999999999,password=top-secret', /iterations must be an integer/],
    ];
    for (const [raw, says] of cases) {
      expect(() => parseScramCredential('SCRAM-SHA-256', raw), raw).to.throw(UsageError, says);
      try {
        parseScramCredential('SCRAM-SHA-256', raw);
      } catch (e) {
        expect((e as Error).message).to.not.contain('top-secret');
      }
    }
  });

  it('tells SCRAM keys (any case) from quota keys, refusing both in one command as kafka-configs does; SCRAM keys need a named user alone', () => {
    expect(scramMechanismOf('scram-sha-512')).to.equal('SCRAM-SHA-512');
    expect(scramMechanismOf('SCRAM-SHA-1')).to.equal(null);
    expect(() => planUserAlter(alice, { set: { 'SCRAM-SHA-256': 'password=p', producer_byte_rate: '1024' }, delete: [] })).to.throw(UsageError, 'Cannot alter both quota and SCRAM credential configs simultaneously');
    expect(() => planUserAlter(alice, { set: { 'SCRAM-SHA-256': 'password=p' }, delete: ['consumer_byte_rate'] })).to.throw(UsageError, 'Cannot alter both quota and SCRAM credential configs simultaneously');
    expect(planUserAlter(alice, { set: { 'SCRAM-SHA-256': 'iterations=8192,password=p', 'scram-sha-512': 'password=q' }, delete: [] })).to.deep.equal({
      quotas: { set: {}, delete: [] },
      scram: {
        user: 'alice',
        upsertions: [
          { mechanism: 'SCRAM-SHA-256', iterations: 8192, password: 'p' },
          { mechanism: 'SCRAM-SHA-512', password: 'q' },
        ],
        deletions: [],
      },
    });
    expect(planUserAlter(alice, { set: {}, delete: ['SCRAM-SHA-512', 'scram-sha-512'] })).to.deep.equal({ quotas: { set: {}, delete: [] }, scram: { user: 'alice', upsertions: [], deletions: ['SCRAM-SHA-512'] } });
    // quotas alone: for any entity, as before
    expect(planUserAlter([{ entityType: 'user', match: null }], { set: { producer_byte_rate: '1' }, delete: [] })).to.deep.equal({ quotas: { set: { producer_byte_rate: 1 }, delete: [] }, scram: null });

    const cases: [QuotaComponent[], { set: Record<string, string>; delete: string[] }, RegExp][] = [
      [alice, { set: { 'SCRAM-SHA-256': 'password=p', 'scram-sha-256': 'password=q' }, delete: [] }, /--add-config sets SCRAM-SHA-256 more than once/],
      [alice, { set: { 'SCRAM-SHA-256': 'password=p' }, delete: ['scram-sha-256'] }, /SCRAM-SHA-256 is both added and deleted/],
      [[{ entityType: 'client-id', match: 'app' }], { set: { 'SCRAM-SHA-256': 'password=p' }, delete: [] }, /SCRAM-SHA-256: SCRAM credentials belong to a user alone: clients .* take quota configs only/],
      [[{ entityType: 'user', match: 'alice' }, { entityType: 'client-id', match: 'app' }], { set: {}, delete: ['SCRAM-SHA-512'] }, /SCRAM-SHA-512: SCRAM credentials belong to a user alone/],
      [[{ entityType: 'user', match: null }], { set: { 'SCRAM-SHA-256': 'password=p' }, delete: [] }, /--entity-default and --user-defaults do not go with SCRAM credentials/],
      [alice, { set: { 'SCRAM-SHA-256': 'password=p', producer_byte_rate: 'fast' }, delete: [] }, /Cannot parse quota configuration value for producer_byte_rate: fast|Cannot alter both quota and SCRAM credential configs simultaneously/],
    ];
    for (const [components, change, says] of cases) expect(() => planUserAlter(components, change), String(says)).to.throw(UsageError, says);
  });

  it("prints kafka-configs' line for a user's credentials", () => {
    expect(
      scramLine({
        user: 'alice',
        credentials: [
          { mechanism: 'SCRAM-SHA-256', iterations: 8192 },
          { mechanism: 'SCRAM-SHA-512', iterations: 4096 },
        ],
      }),
    ).to.equal("SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096");
  });

  it('exits 2 for SCRAM keys that cannot work, before connecting, without echoing the password', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=lots,password=top-secret]'], says: /Invalid credential property SCRAM-SHA-256/ },
      { argv: ['--user', 'alice', '--add-config', 'SCRAM-SHA-512=[iterations=8192]'], says: /SCRAM-SHA-512 needs a password/ },
      { argv: ['--entity-type', 'clients', '--entity-name', 'app', '--add-config', 'SCRAM-SHA-256=[password=top-secret]'], says: /SCRAM credentials belong to a user alone/ },
      { argv: ['--user', 'alice', '--client', 'app', '--delete-config', 'SCRAM-SHA-256'], says: /SCRAM credentials belong to a user alone/ },
      { argv: ['--user-defaults', '--add-config', 'SCRAM-SHA-256=[password=top-secret]'], says: /--entity-default and --user-defaults do not go with SCRAM credentials/ },
      { argv: ['--entity-type', 'users', '--entity-default', '--delete-config', 'SCRAM-SHA-256'], says: /--entity-default and --user-defaults do not go with SCRAM credentials/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['configs', '--alter', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
      expect(r.stderr).to.not.contain('top-secret');
      expect(r.stdout).to.equal('');
    });
    const help = await runCli(['configs', '--help']);
    expect(help.stdout).to.contain('SCRAM-SHA-256=[iterations=8192,password=alice-secret]');
  });
});

describe('cli: configs and SCRAM credentials against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  it("sets credentials (and quotas, one kind a command), lists them in kafka-configs' line, deletes them", async () => {
    const [a, b, bq] = await Promise.all([
      c.run('configs', ['--alter', '--entity-type', 'users', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]']),
      c.run('configs', ['--alter', '--user', 'bob', '--add-config', 'SCRAM-SHA-256=[password=bob-secret]']),
      c.run('configs', ['--alter', '--user', 'bob', '--add-config', 'producer_byte_rate=1024']),
    ]);
    for (const r of [a, b, bq]) {
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout + r.stderr).to.not.contain('-secret');
    }
    expect(a.stdout).to.equal('Completed updating config for user alice.\n');
    expect(b.stdout).to.equal('Completed updating config for user bob.\n');

    const aliceLine = "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096";
    const bobLine = "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=4096";
    const [one, all, bob, nobody, defaults, withClients] = await Promise.all([
      c.run('configs', ['--describe', '--entity-type', 'users', '--entity-name', 'alice']),
      c.run('configs', ['--describe', '--entity-type', 'users']),
      c.run('configs', ['--describe', '--user', 'bob']),
      c.run('configs', ['--describe', '--user', 'nobody']),
      c.run('configs', ['--describe', '--user-defaults']),
      c.run('configs', ['--describe', '--user', 'alice', '--client', 'app']),
    ]);
    for (const r of [one, all, bob, nobody, defaults, withClients]) expect(r.code, r.stderr).to.equal(0);
    expect(lines(one.stdout)).to.deep.equal([aliceLine]);
    expect(lines(all.stdout)).to.deep.equal(["Quota configs for user-principal 'bob' are producer_byte_rate=1024.0", aliceLine, bobLine]);
    expect(lines(bob.stdout)).to.deep.equal(["Quota configs for user-principal 'bob' are producer_byte_rate=1024.0", bobLine]);
    expect(nobody.stdout).to.equal('');
    expect(defaults.stdout).to.equal('');
    expect(withClients.stdout).to.equal('');

    const [del, replace, unquota] = await Promise.all([
      c.run('configs', ['--alter', '--entity-type', 'users', '--entity-name', 'alice', '--delete-config', 'SCRAM-SHA-512']),
      c.run('configs', ['--alter', '--user', 'bob', '--add-config', 'SCRAM-SHA-256=[iterations=16384,password=new-secret]']),
      c.run('configs', ['--alter', '--user', 'bob', '--delete-config', 'producer_byte_rate']),
    ]);
    expect(del.code, del.stderr).to.equal(0);
    expect(del.stdout).to.equal('Completed updating config for user alice.\n');
    expect(replace.code, replace.stderr).to.equal(0);
    expect(unquota.code, unquota.stderr).to.equal(0);
    const after = await c.run('configs', ['--describe', '--entity-type', 'users']);
    expect(lines(after.stdout)).to.deep.equal([
      "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192",
      "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=16384",
    ]);
  });

  it("ends with the controller's reason (exit 1): iterations out of range, a credential to delete that does not exist", async () => {
    const [few, many, missing] = await Promise.all([
      c.run('configs', ['--alter', '--user', 'carol', '--add-config', 'SCRAM-SHA-256=[iterations=100,password=carol-secret]']),
      c.run('configs', ['--alter', '--user', 'carol', '--add-config', 'SCRAM-SHA-512=[iterations=1000000000,password=carol-secret]']),
      c.run('configs', ['--alter', '--user', 'carol', '--delete-config', 'SCRAM-SHA-512']),
    ]);
    for (const r of [few, many, missing]) {
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.not.contain('-secret');
    }
    expect(few.stderr).to.match(/UNACCEPTABLE_CREDENTIAL: user 'carol': Too few iterations: at least 4096/);
    expect(many.stderr).to.match(/UNACCEPTABLE_CREDENTIAL: user 'carol': Too many iterations: at most 16384/);
    expect(missing.stderr).to.match(/RESOURCE_NOT_FOUND: user 'carol': Attempt to delete a user credential that does not exist — SCRAM-SHA-512 is not set for user-principal 'carol'/);
    // quota and SCRAM configs in one command: refused before anything changes (exit 2), as kafka-configs
    const mixed = await c.run('configs', ['--alter', '--user', 'dave', '--add-config', 'consumer_byte_rate=2048,SCRAM-SHA-256=[iterations=20000,password=dave-secret]']);
    expect(mixed.code).to.equal(2);
    expect(mixed.stderr).to.match(/Cannot alter both quota and SCRAM credential configs simultaneously/);
    expect(mixed.stderr).to.not.contain('-secret');
    const [carol, dave] = await Promise.all([c.run('configs', ['--describe', '--user', 'carol']), c.run('configs', ['--describe', '--user', 'dave'])]);
    expect(carol.stdout).to.equal('');
    expect(dave.stdout).to.equal('');
  });
});
