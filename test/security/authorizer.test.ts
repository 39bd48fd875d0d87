/**
 * The authorizer's rules, as Kafka's StandardAuthorizer applies them: literal, wildcard and
 * prefixed resource patterns; principal and host wildcards; DENY over ALLOW; operations that
 * imply DESCRIBE / DESCRIBE_CONFIGS (for ALLOW only); super users; the no-ACL default; readiness;
 * and authorizeAny (Kafka's authorizeByResourceType).
 */
import { expect } from 'chai';
import { AclOperation as Op, AclPermission, PatternType, ResourceType, type AclBinding } from '../../src/security/acl.js';
import { AclAuthorizer } from '../../src/security/authorizer.js';

const { TOPIC, GROUP, CLUSTER } = ResourceType;

function acl(over: Partial<AclBinding>): AclBinding {
  return { resourceType: TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: Op.READ, permission: AclPermission.ALLOW, ...over };
}

function authorizer(acls: AclBinding[], opts: ConstructorParameters<typeof AclAuthorizer>[0] = {}): AclAuthorizer {
  const a = new AclAuthorizer(opts);
  a.update(acls);
  return a;
}

describe('AclAuthorizer', () => {
  it('allows what a literal ALLOW names, for that principal, operation and resource only', () => {
    const a = authorizer([acl({})]);
    expect(a.authorize('User:alice', '10.0.0.1', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:bob', '10.0.0.1', Op.READ, TOPIC, 'orders')).to.equal(false);
    expect(a.authorize('User:alice', '10.0.0.1', Op.WRITE, TOPIC, 'orders')).to.equal(false);
    expect(a.authorize('User:alice', '10.0.0.1', Op.READ, TOPIC, 'orders2')).to.equal(false);
    expect(a.authorize('User:alice', '10.0.0.1', Op.READ, GROUP, 'orders')).to.equal(false);
  });

  it('a literal name that is a prefix of the resource does not match it', () => {
    const a = authorizer([acl({ resourceName: 'ord' })]);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
  });

  it('PREFIXED patterns match every name starting with them, the longest and shortest alike', () => {
    const a = authorizer([acl({ resourceName: 'pay', patternType: PatternType.PREFIXED }), acl({ resourceName: 'payments-eu-', patternType: PatternType.PREFIXED, operation: Op.WRITE })]);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'pay')).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'payments-us')).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.WRITE, TOPIC, 'payments-eu-1')).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.WRITE, TOPIC, 'payments-us')).to.equal(false);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'pa')).to.equal(false);
  });

  it("the literal wildcard '*' matches every resource of its type", () => {
    const a = authorizer([acl({ resourceName: '*' })]);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'anything')).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.READ, GROUP, 'anything')).to.equal(false);
  });

  it("principal 'User:*' matches every principal; a host other than '*' only that host", () => {
    const a = authorizer([acl({ principal: 'User:*', host: '10.0.0.1' })]);
    expect(a.authorize('User:bob', '10.0.0.1', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:ANONYMOUS', '10.0.0.1', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:bob', '10.0.0.2', Op.READ, TOPIC, 'orders')).to.equal(false);
  });

  it('a matching DENY wins over any ALLOW, from any pattern', () => {
    const a = authorizer([
      acl({ principal: 'User:*', operation: Op.ALL }),
      acl({ resourceName: 'ord', patternType: PatternType.PREFIXED, permission: AclPermission.DENY }),
    ]);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
    expect(a.authorize('User:alice', 'h', Op.WRITE, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:bob', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
    const wildDeny = authorizer([acl({}), acl({ resourceName: '*', principal: 'User:*', host: '10.9.9.9', operation: Op.ALL, permission: AclPermission.DENY })]);
    expect(wildDeny.authorize('User:alice', '10.9.9.9', Op.READ, TOPIC, 'orders')).to.equal(false);
    expect(wildDeny.authorize('User:alice', '10.0.0.1', Op.READ, TOPIC, 'orders')).to.equal(true);
  });

  it('ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER]) {
      expect(authorizer([acl({ operation: op })]).authorize('User:alice', 'h', Op.DESCRIBE, TOPIC, 'orders'), `op ${op}`).to.equal(true);
    }
    expect(authorizer([acl({ operation: Op.CREATE })]).authorize('User:alice', 'h', Op.DESCRIBE, TOPIC, 'orders')).to.equal(false);
    expect(authorizer([acl({ operation: Op.ALTER_CONFIGS })]).authorize('User:alice', 'h', Op.DESCRIBE_CONFIGS, TOPIC, 'orders')).to.equal(true);
    expect(authorizer([acl({ operation: Op.ALTER })]).authorize('User:alice', 'h', Op.DESCRIBE_CONFIGS, TOPIC, 'orders')).to.equal(false);
    expect(authorizer([acl({ operation: Op.DESCRIBE })]).authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
  });

  it('a DENY implies nothing: denying READ leaves DESCRIBE to the ALLOWs', () => {
    const a = authorizer([acl({ operation: Op.WRITE }), acl({ operation: Op.READ, permission: AclPermission.DENY })]);
    expect(a.authorize('User:alice', 'h', Op.DESCRIBE, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
  });

  it('ALL allows and denies every operation', () => {
    expect(authorizer([acl({ operation: Op.ALL })]).authorize('User:alice', 'h', Op.ALTER_CONFIGS, TOPIC, 'orders')).to.equal(true);
    expect(authorizer([acl({ operation: Op.ALL, permission: AclPermission.DENY }), acl({ operation: Op.READ })]).authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
  });

  it('super users may do everything, DENYs included', () => {
    const a = authorizer([acl({ principal: 'User:root', operation: Op.ALL, permission: AclPermission.DENY })], { superUsers: ['User:root'] });
    expect(a.authorize('User:root', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(a.authorize('User:root', 'h', Op.ALTER, CLUSTER, 'kafka-cluster')).to.equal(true);
    expect(a.isSuperUser('User:root')).to.equal(true);
    expect(a.isSuperUser('User:alice')).to.equal(false);
  });

  it('with no ACL for a resource: denied by default, allowed with allow.everyone.if.no.acl.found', () => {
    expect(authorizer([]).authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
    const open = authorizer([acl({ resourceName: 'secret', principal: 'User:bob' })], { allowEveryoneIfNoAclFound: true });
    expect(open.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(open.authorize('User:alice', 'h', Op.READ, GROUP, 'g')).to.equal(true);
    // some ACL applies to 'secret' (bob's): alice is not among those it allows
    expect(open.authorize('User:alice', 'h', Op.READ, TOPIC, 'secret')).to.equal(false);
    expect(open.authorize('User:bob', 'h', Op.READ, TOPIC, 'secret')).to.equal(true);
  });

  it('denies everything (super users aside) until the first ACL set arrives; whenReady waits for it', async () => {
    const a = new AclAuthorizer({ superUsers: ['User:root'], allowEveryoneIfNoAclFound: true });
    expect(a.isReady).to.equal(false);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
    expect(a.authorize('User:root', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(await a.whenReady(5)).to.equal(false);
    const waiting = a.whenReady(5_000);
    a.update([]);
    expect(await waiting).to.equal(true);
    expect(a.isReady).to.equal(true);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
    expect(await a.whenReady(0)).to.equal(true);
  });

  it('update replaces the whole set', () => {
    const a = authorizer([acl({})]);
    expect(a.size).to.equal(1);
    a.update([acl({ principal: 'User:bob' })]);
    expect(a.size).to.equal(1);
    expect(a.authorize('User:alice', 'h', Op.READ, TOPIC, 'orders')).to.equal(false);
    expect(a.authorize('User:bob', 'h', Op.READ, TOPIC, 'orders')).to.equal(true);
  });

  describe('authorizeAny (an operation on some resource of a type)', () => {
    it('allowed by any ALLOW no DENY covers: literal, prefixed, wildcard', () => {
      expect(authorizer([acl({ operation: Op.WRITE })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(true);
      expect(authorizer([acl({ operation: Op.WRITE, patternType: PatternType.PREFIXED })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(true);
      expect(authorizer([acl({ operation: Op.ALL, resourceName: '*', principal: 'User:*' })]).authorizeAny('User:bob', 'h', Op.WRITE, TOPIC)).to.equal(true);
      expect(authorizer([acl({ operation: Op.READ })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([acl({ operation: Op.WRITE })]).authorizeAny('User:bob', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([acl({ operation: Op.WRITE, host: '10.0.0.1' })]).authorizeAny('User:alice', '10.0.0.2', Op.WRITE, TOPIC)).to.equal(false);
    });

    it('a DENY of the same literal, of a prefix of it, or of the wildcard takes it away', () => {
      const deny = (over: Partial<AclBinding>) => acl({ operation: Op.WRITE, permission: AclPermission.DENY, ...over });
      expect(authorizer([acl({ operation: Op.WRITE }), deny({})]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([acl({ operation: Op.WRITE }), deny({ resourceName: 'or', patternType: PatternType.PREFIXED })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([acl({ operation: Op.WRITE, resourceName: 'orders-', patternType: PatternType.PREFIXED }), deny({ resourceName: 'or', patternType: PatternType.PREFIXED })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([acl({ operation: Op.WRITE }), deny({ resourceName: '*' })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      // a DENY of another name leaves this one
      expect(authorizer([acl({ operation: Op.WRITE }), deny({ resourceName: 'other' })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(true);
      // a longer prefix denied does not cover a shorter one allowed
      expect(authorizer([acl({ operation: Op.WRITE, resourceName: 'or', patternType: PatternType.PREFIXED }), deny({ resourceName: 'orders', patternType: PatternType.PREFIXED })]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(true);
    });

    it('super users always; no ACL of the type: the no-ACL default', () => {
      expect(authorizer([], { superUsers: ['User:root'] }).authorizeAny('User:root', 'h', Op.WRITE, TOPIC)).to.equal(true);
      expect(authorizer([]).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(false);
      expect(authorizer([], { allowEveryoneIfNoAclFound: true }).authorizeAny('User:alice', 'h', Op.WRITE, TOPIC)).to.equal(true);
    });
  });
});
