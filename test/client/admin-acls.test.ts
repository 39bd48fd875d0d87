/**
 * admin.createAcls / describeAcls / deleteAcls on a real two-broker cluster, in KafkaJS's shapes
 * and field names: ACLs created, an existing one no change, listings grouped by resource pattern
 * and in order, filters (codes left out are ANY, MATCH selects what applies to a resource),
 * deletions answered per filter, and malformed requests refused before anything changes.
 */
import { expect } from 'chai';
import type { Admin, AclEntry } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { AclOperation, AclPermission, PatternType, ResourceType } from '../../src/security/acl.js';
import { TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';

const { TOPIC, GROUP, CLUSTER } = ResourceType;
const { LITERAL, PREFIXED, MATCH, ANY } = PatternType;
const { ALLOW, DENY } = AclPermission;
const { READ, WRITE, DESCRIBE, IDEMPOTENT_WRITE } = AclOperation;

function acl(resourceType: number, resourceName: string, resourcePatternType: number, principal: string, operation: number, permissionType: number = ALLOW, host = '*'): AclEntry {
  return { resourceType, resourceName, resourcePatternType, principal, host, operation, permissionType };
}

describe('client/admin ACLs', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 2 });
    admin = c.samsa('acls-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });
  afterEach(async () => {
    await admin.deleteAcls({ filters: [{}] });
  });

  it('creates ACLs and lists them grouped by resource pattern, in order, in KafkaJS shape', async () => {
    expect(
      await admin.createAcls({
        acl: [
          acl(TOPIC, 'orders', LITERAL, 'User:bob', WRITE),
          acl(TOPIC, 'orders', LITERAL, 'User:alice', READ),
          acl(GROUP, 'billing', LITERAL, 'User:alice', READ),
          acl(TOPIC, 'orders-', PREFIXED, 'User:alice', DESCRIBE, DENY, '10.0.0.1'),
          acl(CLUSTER, 'kafka-cluster', LITERAL, 'User:bob', IDEMPOTENT_WRITE),
        ],
      }),
    ).to.equal(true);
    expect(await admin.describeAcls()).to.deep.equal({
      resources: [
        {
          resourceType: TOPIC,
          resourceName: 'orders',
          resourcePatternType: LITERAL,
          acls: [
            { principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW },
            { principal: 'User:bob', host: '*', operation: WRITE, permissionType: ALLOW },
          ],
        },
        { resourceType: TOPIC, resourceName: 'orders-', resourcePatternType: PREFIXED, acls: [{ principal: 'User:alice', host: '10.0.0.1', operation: DESCRIBE, permissionType: DENY }] },
        { resourceType: GROUP, resourceName: 'billing', resourcePatternType: LITERAL, acls: [{ principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW }] },
        { resourceType: CLUSTER, resourceName: 'kafka-cluster', resourcePatternType: LITERAL, acls: [{ principal: 'User:bob', host: '*', operation: IDEMPOTENT_WRITE, permissionType: ALLOW }] },
      ],
    });
  });

  it('takes an ACL that exists already as no change, and a duplicate within one request once', async () => {
    const a = acl(TOPIC, 't', LITERAL, 'User:alice', READ);
    await admin.createAcls({ acl: [a, a] });
    await admin.createAcls({ acl: [a] });
    const { resources } = await admin.describeAcls();
    expect(resources).to.have.length(1);
    expect(resources[0]!.acls).to.have.length(1);
    expect(await admin.createAcls({ acl: [] })).to.equal(true);
  });

  it('filters by every field; codes left out are ANY, MATCH selects the ACLs that apply to a resource', async () => {
    await admin.createAcls({
      acl: [
        acl(TOPIC, 'orders', LITERAL, 'User:alice', READ),
        acl(TOPIC, '*', LITERAL, 'User:bob', READ),
        acl(TOPIC, 'ord', PREFIXED, 'User:carol', WRITE, DENY),
        acl(TOPIC, 'other', LITERAL, 'User:alice', WRITE, ALLOW, '10.0.0.2'),
        acl(GROUP, 'orders', LITERAL, 'User:alice', READ),
      ],
    });
    const names = (r: { resources: { resourceType: number; resourceName: string; acls: { principal: string }[] }[] }) =>
      r.resources.flatMap((x) => x.acls.map((a) => `${x.resourceType}:${x.resourceName}:${a.principal}`));

    expect(names(await admin.describeAcls({ resourceType: GROUP }))).to.deep.equal(['3:orders:User:alice']);
    expect(names(await admin.describeAcls({ resourceType: TOPIC, resourceName: 'orders', resourcePatternType: LITERAL }))).to.deep.equal(['2:orders:User:alice']);
    expect(names(await admin.describeAcls({ resourceName: 'orders' }))).to.deep.equal(['2:orders:User:alice', '3:orders:User:alice']);
    expect(names(await admin.describeAcls({ resourceType: TOPIC, resourceName: 'orders', resourcePatternType: MATCH }))).to.deep.equal(['2:*:User:bob', '2:ord:User:carol', '2:orders:User:alice']);
    expect(names(await admin.describeAcls({ resourceType: TOPIC, resourcePatternType: PREFIXED }))).to.deep.equal(['2:ord:User:carol']);
    expect(names(await admin.describeAcls({ principal: 'User:alice', operation: WRITE }))).to.deep.equal(['2:other:User:alice']);
    expect(names(await admin.describeAcls({ permissionType: DENY }))).to.deep.equal(['2:ord:User:carol']);
    expect(names(await admin.describeAcls({ host: '10.0.0.2' }))).to.deep.equal(['2:other:User:alice']);
    expect(names(await admin.describeAcls({ resourceType: TOPIC, resourceName: 'none', resourcePatternType: LITERAL }))).to.deep.equal([]);
    // KafkaJS passes every code: ANY spelled out is the same as left out
    expect(await admin.describeAcls({ resourceType: ResourceType.ANY, resourcePatternType: ANY, operation: AclOperation.ANY, permissionType: AclPermission.ANY })).to.deep.equal(await admin.describeAcls());
  });

  it('deletes what each filter selects, answering per filter; an ACL two filters select is removed once and listed under both', async () => {
    await admin.createAcls({
      acl: [acl(TOPIC, 'a', LITERAL, 'User:alice', READ), acl(TOPIC, 'a', LITERAL, 'User:bob', WRITE), acl(TOPIC, 'b', LITERAL, 'User:alice', READ), acl(GROUP, 'g', LITERAL, 'User:alice', READ)],
    });
    const r = await admin.deleteAcls({
      filters: [
        { resourceType: TOPIC, resourceName: 'a', resourcePatternType: LITERAL, principal: 'User:alice' },
        { principal: 'User:alice', operation: READ, resourceType: TOPIC },
        { resourceType: TOPIC, resourceName: 'nothing-here' },
      ],
    });
    const aliceA = { resourceType: TOPIC, resourceName: 'a', resourcePatternType: LITERAL, principal: 'User:alice', host: '*', operation: READ, permissionType: ALLOW, errorCode: ErrorCode.NONE, errorMessage: null };
    const aliceB = { ...aliceA, resourceName: 'b' };
    expect(r.filterResponses).to.deep.equal([
      { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls: [aliceA] },
      { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls: [aliceA, aliceB] },
      { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls: [] },
    ]);
    const left = (await admin.describeAcls()).resources.map((x) => `${x.resourceName}:${x.acls.map((a) => a.principal).join(',')}`);
    expect(left).to.deep.equal(['a:User:bob', 'g:User:alice']);
    expect((await admin.deleteAcls({ filters: [] })).filterResponses).to.deep.equal([]);
  });

  it('refuses a malformed ACL before sending any, naming it, so that nothing is created', async () => {
    const good = acl(TOPIC, 't', LITERAL, 'User:alice', READ);
    const cases: [unknown, RegExp][] = [
      [acl(TOPIC, 't', LITERAL, 'alice', READ), /acl\[1\]: principal 'alice' is not of the form Type:name/],
      [acl(TOPIC, 't', LITERAL, 'User:alice', READ, ALLOW, ''), /acl\[1\]: the host is empty/],
      [acl(CLUSTER, 'my-cluster', LITERAL, 'User:alice', IDEMPOTENT_WRITE), /acl\[1\]: the cluster resource is the LITERAL name 'kafka-cluster'/],
      [acl(TOPIC, '*', PREFIXED, 'User:alice', READ), /acl\[1\]: '\*' cannot be a prefix/],
      [acl(TOPIC, 't', MATCH, 'User:alice', READ), /acl\[1\]: pattern type MATCH cannot be bound/],
      [acl(ResourceType.ANY, 't', LITERAL, 'User:alice', READ), /acl\[1\]: resource type 1 is not a resource/],
      [acl(TOPIC, 't', LITERAL, 'User:alice', AclOperation.ANY), /acl\[1\]: operation 1 cannot be bound/],
      [acl(TOPIC, 't', LITERAL, 'User:alice', READ, AclPermission.ANY), /acl\[1\]: permission 1 cannot be bound/],
      [{ resourceType: TOPIC, resourceName: 't', patternType: LITERAL, principal: 'User:a', host: '*', operation: READ, permission: ALLOW }, /acl\[1\]: resourcePatternType \(not patternType\) and permissionType \(not permission\): the admin API takes KafkaJS's field names/],
      [null, /acl\[1\] must be \{ resourceType, resourceName/],
    ];
    for (const [bad, says] of cases) {
      const e = await refused(admin.createAcls({ acl: [good, bad as AclEntry] }));
      expect(e.errorCode, String(says)).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(says);
    }
    expect((await refused(admin.createAcls({} as never))).message).to.match(/acl must be \[\{ resourceType/);
    expect((await admin.describeAcls()).resources).to.deep.equal([]);
  });

  it('refuses a malformed filter before sending any, so that nothing is deleted', async () => {
    await admin.createAcls({ acl: [acl(TOPIC, 't', LITERAL, 'User:alice', READ)] });
    const cases: [unknown, RegExp][] = [
      [{ resourceType: 99 }, /filters\[1\]: resource type filter 99 is unknown/],
      [{ resourcePatternType: PatternType.UNKNOWN }, /filters\[1\]: pattern type filter 0 is unknown/],
      [{ operation: 42 }, /filters\[1\]: operation filter 42 is unknown/],
      [{ principal: 7 }, /filters\[1\]: principal must be a string, or null for any/],
      [{ permission: DENY }, /filters\[1\]: permissionType \(not permission\)/],
      ['all', /filters\[1\] must be an object/],
    ];
    for (const [bad, says] of cases) {
      const e = await refused(admin.deleteAcls({ filters: [{}, bad as never] }));
      expect(e.errorCode, String(says)).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(says);
    }
    expect((await refused(admin.deleteAcls({ filters: 'all' } as never))).message).to.match(/filters must be \[/);
    expect((await refused(admin.describeAcls({ resourceType: 99 }))).message).to.match(/the filter: resource type filter 99 is unknown/);
    expect((await admin.describeAcls()).resources).to.have.length(1);
  });

  it('another admin client sees the same ACLs (they live in the controller)', async () => {
    await admin.createAcls({ acl: [acl(TOPIC, 'shared', LITERAL, 'User:alice', READ)] });
    const other = c.samsa('acls-other').admin();
    await other.connect();
    try {
      expect((await other.describeAcls({ resourceName: 'shared' })).resources.map((r) => r.resourceName)).to.deep.equal(['shared']);
    } finally {
      await other.disconnect();
    }
  });
});
