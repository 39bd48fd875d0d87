/**
 * `samsa acls`: the command line read as kafka-acls reads it (principals x operations x hosts on
 * every resource, --producer / --consumer, pattern types), the command lines that cannot work
 * (exit 2, before connecting), kafka-acls' output, and the command against a cluster: --add,
 * --list (all, by resource, by pattern match, by principal) and --remove with its confirmation
 * (y, n, no answer, --force).
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { aclLines, aclsCommand, parseOperation, planAcls, type AclPlan } from '../../src/cli/commands/acls.js';
import { UsageError } from '../../src/cli/errors.js';
import type { Admin } from '../../src/client/admin.js';
import { AclOperation, AclPermission, PatternType, ResourceType } from '../../src/security/acl.js';
import { CliCluster, runCli } from './cli-harness.js';

const plan = (...argv: string[]): AclPlan => planAcls(parseArgs(argv, aclsCommand.options));
const { TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID } = ResourceType;
const { ALLOW, DENY } = AclPermission;
const { READ, WRITE, CREATE, DESCRIBE, ALL, IDEMPOTENT_WRITE } = AclOperation;

/** resource -> 'principal host operation permission' lines, for compact comparisons. */
function flat(p: AclPlan): Record<string, string[]> {
  return Object.fromEntries(
    p.resources.map(({ resource: r, entries }) => [
      `${r.resourceType}:${r.resourceName}:${r.patternType}`,
      entries.map((e) => `${e.principal} ${e.host} ${e.operation} ${e.permission}`),
    ]),
  );
}

describe('cli/commands/acls: the command line', () => {
  it('reads operations by Kafka\'s names in any case, with or without _ and -', () => {
    for (const s of ['Read', 'READ', 'read']) expect(parseOperation(s)).to.equal(READ);
    for (const s of ['IdempotentWrite', 'IDEMPOTENT_WRITE', 'idempotent-write']) expect(parseOperation(s)).to.equal(IDEMPOTENT_WRITE);
    expect(parseOperation('All')).to.equal(ALL);
    for (const s of ['Reed', 'Any', 'Unknown', 'CreateTokens', '']) expect(() => parseOperation(s), s).to.throw(UsageError, /unknown operation .*--operation takes All, Read, Write/);
  });

  it('--add binds every principal with every operation from every host to every resource', () => {
    const p = plan('--add', '--allow-principal', 'User:alice', '--allow-principal', 'User:bob', '--allow-host', '10.0.0.1', '--deny-principal', 'User:eve', '--operation', 'Read', '--operation', 'Describe', '--topic', 'a', '--group', 'g');
    expect(p.mode).to.equal('add');
    const topicEntries = [
      `User:alice 10.0.0.1 ${READ} ${ALLOW}`,
      `User:alice 10.0.0.1 ${DESCRIBE} ${ALLOW}`,
      `User:bob 10.0.0.1 ${READ} ${ALLOW}`,
      `User:bob 10.0.0.1 ${DESCRIBE} ${ALLOW}`,
      `User:eve * ${READ} ${DENY}`,
      `User:eve * ${DESCRIBE} ${DENY}`,
    ];
    expect(flat(p)).to.deep.equal({ [`${TOPIC}:a:${PatternType.LITERAL}`]: topicEntries, [`${GROUP}:g:${PatternType.LITERAL}`]: topicEntries });
    // the operation defaults to All, hosts to '*'; prefixed names; the cluster is always literal kafka-cluster
    expect(flat(plan('--add', '--allow-principal', 'User:a', '--topic', 'orders-', '--resource-pattern-type', 'prefixed'))).to.deep.equal({ [`${TOPIC}:orders-:${PatternType.PREFIXED}`]: [`User:a * ${ALL} ${ALLOW}`] });
    expect(flat(plan('--add', '--allow-principal', 'User:a', '--operation', 'ClusterAction', '--cluster'))).to.deep.equal({ [`${CLUSTER}:kafka-cluster:${PatternType.LITERAL}`]: [`User:a * ${AclOperation.CLUSTER_ACTION} ${ALLOW}`] });
  });

  it('--producer and --consumer bind kafka-acls\' operations; --idempotent adds IdempotentWrite on the cluster', () => {
    const lit = PatternType.LITERAL;
    expect(flat(plan('--add', '--allow-principal', 'User:p', '--producer', '--topic', 't', '--transactional-id', 'tx'))).to.deep.equal({
      [`${TOPIC}:t:${lit}`]: [`User:p * ${WRITE} ${ALLOW}`, `User:p * ${DESCRIBE} ${ALLOW}`, `User:p * ${CREATE} ${ALLOW}`],
      [`${TRANSACTIONAL_ID}:tx:${lit}`]: [`User:p * ${WRITE} ${ALLOW}`, `User:p * ${DESCRIBE} ${ALLOW}`],
    });
    expect(flat(plan('--add', '--allow-principal', 'User:p', '--producer', '--idempotent', '--topic', 't'))).to.deep.equal({
      [`${TOPIC}:t:${lit}`]: [`User:p * ${WRITE} ${ALLOW}`, `User:p * ${DESCRIBE} ${ALLOW}`, `User:p * ${CREATE} ${ALLOW}`],
      [`${CLUSTER}:kafka-cluster:${lit}`]: [`User:p * ${IDEMPOTENT_WRITE} ${ALLOW}`],
    });
    expect(flat(plan('--add', '--allow-principal', 'User:p', '--producer', '--idempotent', '--topic', 't-', '--resource-pattern-type', 'prefixed'))).to.deep.equal({
      [`${TOPIC}:t-:${PatternType.PREFIXED}`]: [`User:p * ${WRITE} ${ALLOW}`, `User:p * ${DESCRIBE} ${ALLOW}`, `User:p * ${CREATE} ${ALLOW}`],
      [`${CLUSTER}:kafka-cluster:${lit}`]: [`User:p * ${IDEMPOTENT_WRITE} ${ALLOW}`],
    });
    expect(flat(plan('--add', '--allow-principal', 'User:c', '--consumer', '--topic', 't', '--group', 'g'))).to.deep.equal({
      [`${TOPIC}:t:${lit}`]: [`User:c * ${READ} ${ALLOW}`, `User:c * ${DESCRIBE} ${ALLOW}`],
      [`${GROUP}:g:${lit}`]: [`User:c * ${READ} ${ALLOW}`],
    });
    expect(flat(plan('--add', '--allow-principal', 'User:x', '--producer', '--consumer', '--topic', 't', '--group', 'g'))[`${TOPIC}:t:${lit}`]).to.deep.equal([
      `User:x * ${WRITE} ${ALLOW}`,
      `User:x * ${DESCRIBE} ${ALLOW}`,
      `User:x * ${CREATE} ${ALLOW}`,
      `User:x * ${READ} ${ALLOW}`,
    ]);
  });

  it('--remove without a principal selects every ACL of the resources; --list takes filter pattern types and principals', () => {
    expect(flat(plan('--remove', '--topic', 't', '--resource-pattern-type', 'match'))).to.deep.equal({ [`${TOPIC}:t:${PatternType.MATCH}`]: [] });
    const l = plan('--list', '--principal', 'User:alice', '--principal', 'User:alice', '--group', 'g', '--resource-pattern-type', 'ANY');
    expect(l.principals).to.deep.equal(['User:alice']);
    expect(flat(l)).to.deep.equal({ [`${GROUP}:g:${PatternType.ANY}`]: [] });
    expect(plan('--list').resources).to.deep.equal([]);
  });

  it('refuses command lines that cannot work, saying why', () => {
    const cases: [string[], RegExp][] = [
      [[], /give one of --add, --remove, --list/],
      [['--add', '--list'], /give only one of/],
      [['--add', '--topic', 't'], /--add needs --allow-principal or --deny-principal/],
      [['--add', '--allow-principal', 'User:a'], /--add needs a resource: --topic t, --group g, --cluster or --transactional-id id/],
      [['--remove', '--allow-principal', 'User:a'], /--remove needs a resource/],
      [['--add', '--allow-principal', 'alice', '--topic', 't'], /--allow-principal takes a principal of the form Type:name.*got 'alice'/],
      [['--add', '--allow-principal', 'User:a', '--operation', 'Reed', '--topic', 't'], /unknown operation 'Reed'/],
      [['--add', '--allow-principal', 'User:a', '--operation', 'Read', '--cluster'], /Read cannot apply to the cluster: CLUSTER has the operations All, Create, ClusterAction/],
      [['--add', '--allow-principal', 'User:a', '--operation', 'IdempotentWrite', '--topic', 't'], /IdempotentWrite cannot apply to a topic/],
      [['--add', '--allow-principal', 'User:a', '--operation', 'Read', '--transactional-id', 'x'], /Read cannot apply to a transactional id: TRANSACTIONAL_ID has the operations All, Describe, Write/],
      [['--add', '--allow-principal', 'User:a', '--operation', 'Write', '--group', 'g'], /Write cannot apply to a group/],
      [['--add', '--allow-principal', 'User:a', '--topic', 't', '--resource-pattern-type', 'match'], /--resource-pattern-type match is not valid with --add/],
      [['--list', '--resource-pattern-type', 'glob'], /--resource-pattern-type must be one of literal, prefixed, any, match; got 'glob'/],
      [['--add', '--allow-principal', 'User:a', '--cluster', '--resource-pattern-type', 'prefixed'], /the cluster is the literal resource kafka-cluster: --cluster does not go with --resource-pattern-type prefixed/],
      [['--add', '--allow-principal', 'User:a', '--topic', '*', '--resource-pattern-type', 'prefixed'], /'\*' cannot be a prefix/],
      [['--add', '--allow-principal', 'User:a', '--topic', ''], /--topic needs a name/],
      [['--add', '--allow-host', '10.0.0.1', '--deny-principal', 'User:a', '--topic', 't'], /--allow-host goes with --allow-principal/],
      [['--remove', '--operation', 'Read', '--topic', 't'], /--operation goes with --allow-principal or --deny-principal/],
      [['--add', '--allow-principal', 'User:a', '--producer'], /--producer needs --topic/],
      [['--add', '--allow-principal', 'User:a', '--consumer', '--topic', 't'], /--consumer needs --topic and --group/],
      [['--add', '--allow-principal', 'User:a', '--consumer', '--topic', 't', '--group', 'g', '--cluster'], /--cluster does not go with --consumer/],
      [['--add', '--allow-principal', 'User:a', '--producer', '--topic', 't', '--cluster'], /--cluster does not go with --producer: --idempotent adds IdempotentWrite/],
      [['--add', '--allow-principal', 'User:a', '--producer', '--topic', 't', '--operation', 'Read'], /--operation does not go with --producer/],
      [['--add', '--allow-principal', 'User:a', '--consumer', '--topic', 't', '--group', 'g', '--deny-principal', 'User:b'], /--deny-principal does not go with --consumer/],
      [['--add', '--allow-principal', 'User:a', '--producer', '--topic', 't', '--group', 'g'], /--group goes with --consumer/],
      [['--add', '--allow-principal', 'User:a', '--consumer', '--topic', 't', '--group', 'g', '--transactional-id', 'x'], /--transactional-id goes with --producer/],
      [['--add', '--allow-principal', 'User:a', '--idempotent', '--topic', 't'], /--idempotent goes with --producer/],
      [['--remove', '--producer', '--topic', 't'], /--producer needs --allow-principal/],
      [['--list', '--allow-principal', 'User:a'], /--allow-principal goes with --add or --remove, not with --list/],
      [['--add', '--principal', 'User:a', '--topic', 't'], /--principal goes with --list/],
      [['--add', '--force', '--allow-principal', 'User:a', '--topic', 't'], /--force goes with --remove/],
    ];
    for (const [argv, says] of cases) expect(() => plan(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it("prints bindings as kafka-acls does: a heading per resource pattern, tab-indented entries, a blank line", () => {
    const b = (resourceName: string, principal: string, operation: number, permission: number = ALLOW) => ({ resourceType: TOPIC, resourceName, patternType: PatternType.LITERAL, principal, host: '*', operation, permission });
    expect(aclLines('Current ACLs for resource', [b('t', 'User:bob', WRITE), b('t', 'User:alice', READ), b('a', 'User:eve', READ, DENY), b('t', 'User:bob', WRITE)])).to.deep.equal([
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=a, patternType=LITERAL)`:',
      '\t(principal=User:eve, host=*, operation=READ, permissionType=DENY)',
      '',
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:',
      '\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)',
      '\t(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)',
      '',
    ]);
    expect(aclLines('x', [])).to.deep.equal([]);
  });

  it('exits 2 for a command line that cannot work, before connecting, and lists acls in --help', async () => {
    const bad = await runCli(['acls', '--bootstrap-server', '127.0.0.1:1', '--add', '--allow-principal', 'User:a', '--operation', 'Read', '--cluster']);
    expect(bad.code, bad.stderr).to.equal(2);
    expect(bad.stderr).to.match(/samsa acls: Read cannot apply to the cluster/);
    expect(bad.stdout).to.equal('');
    const help = await runCli(['acls', '--help']);
    expect(help.code).to.equal(0);
    for (const o of ['--add', '--remove', '--list', '--allow-principal', '--deny-principal', '--allow-host', '--deny-host', '--operation', '--topic', '--group', '--cluster', '--transactional-id', '--resource-pattern-type', '--principal', '--producer', '--consumer', '--idempotent', '--force']) {
      expect(help.stdout).to.contain(o);
    }
    expect((await runCli(['--help'])).stdout).to.match(/^ {2}acls {2,}add, remove and list ACLs/m);
  });
});

describe('cli: acls against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;
  let admin: Admin;

  before(async () => {
    c = await CliCluster.start(1);
    admin = c.cluster.samsa('acls-cli-check').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });
  afterEach(async () => {
    await admin.deleteAcls({ filters: [{}] });
  });

  const count = async () => (await admin.describeAcls()).resources.reduce((n, r) => n + r.acls.length, 0);

  it('--add prints what it adds and then the ACLs of the resources; the ACLs are in the cluster', async () => {
    const r = await c.run('acls', ['--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--operation', 'Describe', '--topic', 'orders']);
    expect(r.code, r.stderr).to.equal(0);
    const heading = 'ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:';
    const entries = ['\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)', '\t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)'];
    expect(r.stdout).to.equal([`Adding ${heading}`, ...entries, '', `Current ${heading}`, ...entries, '', ''].join('\n'));
    expect((await admin.describeAcls()).resources).to.deep.equal([
      {
        resourceType: TOPIC,
        resourceName: 'orders',
        resourcePatternType: PatternType.LITERAL,
        acls: [
          { principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW },
          { principal: 'User:alice', host: '*', operation: DESCRIBE, permissionType: ALLOW },
        ],
      },
    ]);
    // adding it again is no change
    expect((await c.run('acls', ['--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'orders'])).code).to.equal(0);
    expect(await count()).to.equal(2);
  });

  it('--producer --idempotent and --consumer add their ACLs', async () => {
    const p = await c.run('acls', ['--add', '--allow-principal', 'User:p', '--producer', '--idempotent', '--topic', 'orders-', '--resource-pattern-type', 'prefixed']);
    expect(p.code, p.stderr).to.equal(0);
    const q = await c.run('acls', ['--add', '--allow-principal', 'User:c', '--allow-host', '10.1.2.3', '--consumer', '--topic', 'orders', '--group', 'billing']);
    expect(q.code, q.stderr).to.equal(0);
    const all = (await admin.describeAcls()).resources.map((r) => `${r.resourceType}:${r.resourceName}:${r.resourcePatternType} ${r.acls.map((a) => `${a.principal}@${a.host}/${a.operation}`).join(' ')}`);
    expect(all).to.deep.equal([
      `${TOPIC}:orders:${PatternType.LITERAL} User:c@10.1.2.3/${READ} User:c@10.1.2.3/${DESCRIBE}`,
      `${TOPIC}:orders-:${PatternType.PREFIXED} User:p@*/${WRITE} User:p@*/${CREATE} User:p@*/${DESCRIBE}`,
      `${GROUP}:billing:${PatternType.LITERAL} User:c@10.1.2.3/${READ}`,
      `${CLUSTER}:kafka-cluster:${PatternType.LITERAL} User:p@*/${IDEMPOTENT_WRITE}`,
    ]);
  });

  it('--list prints every ACL, or those of the resources (match: every ACL that applies), or of a principal', async () => {
    await admin.createAcls({
      acl: [
        { resourceType: TOPIC, resourceName: 'orders', resourcePatternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW },
        { resourceType: TOPIC, resourceName: '*', resourcePatternType: PatternType.LITERAL, principal: 'User:bob', host: '*', operation: DESCRIBE, permissionType: ALLOW },
        { resourceType: TOPIC, resourceName: 'ord', resourcePatternType: PatternType.PREFIXED, principal: 'User:eve', host: '*', operation: READ, permissionType: DENY },
        { resourceType: GROUP, resourceName: 'g', resourcePatternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW },
      ],
    });
    const headings = (stdout: string) => stdout.split('\n').filter((l) => !l.startsWith('\t') && l !== '');

    const all = await c.run('acls', ['--list']);
    expect(all.code, all.stderr).to.equal(0);
    expect(headings(all.stdout)).to.deep.equal([
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=*, patternType=LITERAL)`:',
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=ord, patternType=PREFIXED)`:',
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:',
      'Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=g, patternType=LITERAL)`:',
    ]);
    expect(all.stdout).to.contain('\t(principal=User:eve, host=*, operation=READ, permissionType=DENY)\n');

    const literal = await c.run('acls', ['--list', '--topic', 'orders']);
    expect(headings(literal.stdout)).to.deep.equal(['Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:']);
    const match = await c.run('acls', ['--list', '--topic', 'orders', '--resource-pattern-type', 'match']);
    expect(headings(match.stdout)).to.have.length(3);
    const both = await c.run('acls', ['--list', '--topic', 'orders', '--group', 'g']);
    expect(headings(both.stdout)).to.have.length(2);

    const alice = await c.run('acls', ['--list', '--principal', 'User:alice']);
    expect(alice.code, alice.stderr).to.equal(0);
    expect(alice.stdout.split('\n').filter((l) => l !== '')).to.deep.equal([
      'ACLs for principal `User:alice`',
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:',
      '\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)',
      'Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=g, patternType=LITERAL)`:',
      '\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)',
    ]);

    const none = await c.run('acls', ['--list', '--topic', 'nothing']);
    expect(none.code).to.equal(0);
    expect(none.stdout).to.equal('');
    expect(none.stderr).to.match(/No ACLs found/);
  });

  it('--remove asks on stdin: y removes, n and no answer do not (no answer exits 1), --force does not ask', async () => {
    const add = (principal: string, operation: number) =>
      admin.createAcls({ acl: [{ resourceType: TOPIC, resourceName: 't', resourcePatternType: PatternType.LITERAL, principal, host: '*', operation, permissionType: ALLOW }] });
    await add('User:alice', READ);
    await add('User:alice', WRITE);
    await add('User:bob', READ);
    const alicesRead = ['--remove', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 't'];

    // no answer, and n: neither removes anything, so they can ask together
    const [silent, no] = await Promise.all([c.run('acls', alicesRead), c.run('acls', alicesRead, { stdin: 'n\n' })]);
    expect(silent.code).to.equal(1);
    expect(silent.stderr).to.contain('ACLs to remove for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:\n\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)');
    expect(silent.stderr).to.match(/Are you sure you want to remove this ACL\? \(y\/n\)/);
    expect(silent.stderr).to.match(/no answer came on stdin: nothing was removed — answer y, or add --force/);
    expect(no.code, no.stderr).to.equal(0);
    expect(no.stderr).to.match(/Nothing was removed\./);
    expect(await count()).to.equal(3);

    const yes = await c.run('acls', alicesRead, { stdin: 'y\n' });
    expect(yes.code, yes.stderr).to.equal(0);
    expect(yes.stdout).to.equal('Removed ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`:\n\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n\n');
    expect(await count()).to.equal(2);

    // without a principal: every ACL of the resource
    const forced = await c.run('acls', ['--remove', '--topic', 't', '--force']);
    expect(forced.code, forced.stderr).to.equal(0);
    expect(forced.stderr).to.not.match(/Are you sure/);
    expect(forced.stdout.split('\n').filter((l) => l.startsWith('\t'))).to.have.length(2);
    expect(await count()).to.equal(0);

    const nothing = await c.run('acls', ['--remove', '--topic', 't']);
    expect(nothing.code, nothing.stderr).to.equal(0);
    expect(nothing.stderr).to.match(/No ACLs match `ResourcePattern\(resourceType=TOPIC, name=t, patternType=LITERAL\)`: nothing to remove/);
  });
});
