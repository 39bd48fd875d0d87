/**
 * `samsa delegation-tokens`: Kafka's token table and dates, the command lines refused before
 * connecting (exit 2), and the command as a user runs it against a cluster with a secret key:
 * create (owner, renewers, max life), describe (all, by owner), renew and expire by HMAC; and
 * a cluster without one refusing with DELEGATION_TOKEN_AUTH_DISABLED (exit 1).
 */
import { expect } from 'chai';
import { tokenDate, tokenLines } from '../../src/cli/commands/delegation-tokens.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli/commands/delegation-tokens: output and usage', () => {
  it("formats dates as Kafka's yyyy-MM-ddTHH:mm in local time, and the token table as its printf columns", () => {
    const at = new Date(2026, 0, 2, 3, 4, 59).getTime();
    expect(tokenDate(at)).to.equal('2026-01-02T03:04');
    const hmac = Buffer.alloc(64, 1);
    const lines = tokenLines([{ tokenInfo: { tokenId: 'tok', owner: 'User:alice', tokenRequester: 'User:alice', renewers: ['User:bob', 'User:carol'], issueTimestamp: at, expiryTimestamp: at, maxTimestamp: at }, hmac }]);
    expect(lines[0]).to.equal('');
    expect(lines[1]).to.equal(`${'TOKENID'.padEnd(15)} ${'HMAC'.padEnd(30)} ${'OWNER'.padEnd(15)} ${'REQUESTER'.padEnd(15)} ${'RENEWERS'.padEnd(25)} ${'ISSUEDATE'.padEnd(15)} ${'EXPIRYDATE'.padEnd(15)} ${'MAXDATE'.padEnd(15)}`);
    expect(lines[2]).to.equal('');
    expect(lines[3]!.split(/\s+/).filter(Boolean)).to.deep.equal(['tok', hmac.toString('base64'), 'User:alice', 'User:alice', '[User:bob,', 'User:carol]', '2026-01-02T03:04', '2026-01-02T03:04', '2026-01-02T03:04']);
    expect(tokenLines([])).to.have.length(2);
  });

  it('refuses bad command lines before connecting (exit 2)', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /exactly one action: --create, --renew, --expire or --describe/ },
      { argv: ['--create', '--describe'], says: /exactly one action/ },
      { argv: ['--create', '--owner-principal', 'User:a'], says: /--max-life-time-period is required/ },
      { argv: ['--create', '--max-life-time-period', '-1'], says: /--owner-principal is required with --create/ },
      { argv: ['--create', '--owner-principal', 'alice', '--max-life-time-period', '-1'], says: /not a principal in principalType:name format/ },
      { argv: ['--create', '--owner-principal', 'User:a', '--max-life-time-period', 'soon'], says: /not a number of milliseconds/ },
      { argv: ['--create', '--owner-principal', 'User:a', '--max-life-time-period', '-1', '--hmac', 'AAAA'], says: /--hmac goes with --renew or --expire/ },
      { argv: ['--renew', '--renew-time-period', '-1'], says: /--hmac is required/ },
      { argv: ['--renew', '--hmac', 'AAAA'], says: /--renew-time-period is required/ },
      { argv: ['--renew', '--hmac', 'not base64!', '--renew-time-period', '-1'], says: /is not base64/ },
      { argv: ['--renew', '--hmac', 'AAAA', '--renew-time-period', '-1', '--owner-principal', 'User:a'], says: /--owner-principal goes with --create or --describe/ },
      { argv: ['--expire', '--hmac', 'AAAA'], says: /--expiry-time-period is required/ },
      { argv: ['--describe', '--max-life-time-period', '1'], says: /--max-life-time-period goes with --create/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['delegation-tokens', '--bootstrap-server', '127.0.0.1:1', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });

  it('shows up in `samsa --help` and has its own help', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['delegation-tokens', '--help'])]);
    expect(top.stdout).to.match(/^ {2}delegation-tokens +create, renew, expire and describe delegation tokens/m);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/usage: samsa delegation-tokens \[--bootstrap-server host:port\] --create --owner-principal/);
    expect(own.stdout).to.include('--expiry-time-period');
  });
});

describe('cli/commands/delegation-tokens: against a cluster', function () {
  this.timeout(60_000);
  let c: CliCluster;
  before(async () => {
    c = await CliCluster.start(1, { 'delegation.token.secret.key': 'cli-secret' });
  });
  after(async () => {
    await c?.stop();
  });

  it('creates, describes, renews and expires a token', async () => {
    const created = await c.run('delegation-tokens', ['--create', '--owner-principal', 'User:alice', '--renewer-principal', 'User:bob', '--renewer-principal', ' User:carol ', '--max-life-time-period', '3600000']);
    expect(created.code, created.stderr).to.equal(0);
    const lines = created.stdout.split('\n');
    expect(lines[0]).to.equal('Calling create token operation with renewers :[User:bob, User:carol] , max-life-time-period :3600000');
    const id = /^Created delegation token with tokenId : (\S+)$/.exec(lines[1]!)![1]!;
    expect(lines[2]).to.equal('');
    expect(lines[3]).to.match(/^TOKENID\s+HMAC\s+OWNER\s+REQUESTER\s+RENEWERS\s+ISSUEDATE\s+EXPIRYDATE\s+MAXDATE\s*$/);
    const cells = lines[5]!.split(/\s+/);
    expect(cells[0]).to.equal(id);
    const hmac = cells[1]!;
    expect(Buffer.from(hmac, 'base64')).to.have.length(64);
    expect(cells.slice(2, 6)).to.deep.equal(['User:alice', 'User:alice', '[User:bob,', 'User:carol]']);

    const other = await c.run('delegation-tokens', ['--create', '--owner-principal', 'User:dan', '--max-life-time-period', '-1']);
    expect(other.code, other.stderr).to.equal(0);
    const all = await c.run('delegation-tokens', ['--describe']);
    expect(all.code, all.stderr).to.equal(0);
    expect(all.stdout).to.match(/^Calling describe token operation for every owner\.\nTotal number of tokens : 2\n/);
    const bob = await c.run('delegation-tokens', ['--describe', '--owner-principal', 'User:bob']);
    expect(bob.stdout).to.match(/^Calling describe token operation for owners: \[User:bob\]\nTotal number of tokens : 1\n/);
    expect(bob.stdout).to.include(id);

    const renewed = await c.run('delegation-tokens', ['--renew', '--hmac', hmac, '--renew-time-period', '-1']);
    expect(renewed.code, renewed.stderr).to.equal(0);
    expect(renewed.stdout).to.match(new RegExp(`^Calling renew token operation with hmac :${hmac.replace(/[+/]/g, '\\$&')} , renew-time-period :-1\nCompleted renew operation\\. New expiry date : \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d\n$`));
    const expired = await c.run('delegation-tokens', ['--expire', '--hmac', hmac, '--expiry-time-period', '-1']);
    expect(expired.code, expired.stderr).to.equal(0);
    expect(expired.stdout).to.match(/Completed expire operation\. New expiry date : /);
    expect((await c.run('delegation-tokens', ['--describe', '--owner-principal', 'User:bob'])).stdout).to.match(/Total number of tokens : 0/);
    const again = await c.run('delegation-tokens', ['--renew', '--hmac', hmac, '--renew-time-period', '-1']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/DELEGATION_TOKEN_NOT_FOUND/);
  });

  it('exits 1 with the reason on a cluster without delegation.token.secret.key', async () => {
    const off = await CliCluster.start(1);
    try {
      const r = await off.run('delegation-tokens', ['--describe']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/DELEGATION_TOKEN_AUTH_DISABLED/);
    } finally {
      await off.stop();
    }
  });
});
