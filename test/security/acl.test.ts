/**
 * ACL bindings and filters: what may be bound (Kafka's checks at CreateAcls), which filters are
 * usable, and how a filter selects bindings (ANY, exact fields, MATCH's "applies to this name").
 */
import { expect } from 'chai';
import { AclOperation, AclPermission, PatternType, ResourceType, bindingKey, bindingProblem, compareBindings, describeBinding, filterMatches, filterProblem, type AclBinding, type AclBindingFilter } from '../../src/security/acl.js';

const binding = (over: Partial<AclBinding> = {}): AclBinding => ({
  resourceType: ResourceType.TOPIC,
  resourceName: 'orders',
  patternType: PatternType.LITERAL,
  principal: 'User:alice',
  host: '*',
  operation: AclOperation.READ,
  permission: AclPermission.ALLOW,
  ...over,
});

const anyFilter = (over: Partial<AclBindingFilter> = {}): AclBindingFilter => ({
  resourceType: ResourceType.ANY,
  resourceName: null,
  patternType: PatternType.ANY,
  principal: null,
  host: null,
  operation: AclOperation.ANY,
  permission: AclPermission.ANY,
  ...over,
});

describe('ACL bindings', () => {
  it('a well-formed binding has no problem, of every resource type', () => {
    expect(bindingProblem(binding())).to.equal(null);
    expect(bindingProblem(binding({ resourceType: ResourceType.GROUP, patternType: PatternType.PREFIXED }))).to.equal(null);
    expect(bindingProblem(binding({ resourceType: ResourceType.CLUSTER, resourceName: 'kafka-cluster', operation: AclOperation.ALTER }))).to.equal(null);
    expect(bindingProblem(binding({ resourceType: ResourceType.TRANSACTIONAL_ID, resourceName: '*', operation: AclOperation.WRITE, permission: AclPermission.DENY }))).to.equal(null);
  });

  const bad: [string, Partial<AclBinding>, RegExp][] = [
    ['resource type ANY', { resourceType: ResourceType.ANY }, /resource type 1/],
    ['resource type UNKNOWN', { resourceType: 0 }, /resource type 0/],
    ['resource type 99', { resourceType: 99 }, /resource type 99/],
    ['pattern type MATCH', { patternType: PatternType.MATCH }, /MATCH cannot be bound/],
    ['pattern type ANY', { patternType: PatternType.ANY }, /ANY cannot be bound/],
    ['an empty name', { resourceName: '' }, /empty/],
    ["a '*' prefix", { resourceName: '*', patternType: PatternType.PREFIXED }, /cannot be a prefix/],
    ['a cluster named otherwise', { resourceType: ResourceType.CLUSTER, resourceName: 'c' }, /kafka-cluster/],
    ['a prefixed cluster', { resourceType: ResourceType.CLUSTER, resourceName: 'kafka-cluster', patternType: PatternType.PREFIXED }, /kafka-cluster/],
    ['a principal without a type', { principal: 'alice' }, /Type:name/],
    ['a principal without a name', { principal: 'User:' }, /Type:name/],
    ['an empty host', { host: '' }, /host is empty/],
    ['operation ANY', { operation: AclOperation.ANY }, /operation 1/],
    ['operation 42', { operation: 42 }, /operation 42/],
    ['permission ANY', { permission: AclPermission.ANY }, /permission 1/],
  ];
  for (const [what, over, why] of bad) {
    it(`refuses ${what}`, () => {
      expect(bindingProblem(binding(over))).to.match(why);
    });
  }

  it('filters with UNKNOWN or out-of-range codes are refused; ANY and MATCH are usable', () => {
    expect(filterProblem(anyFilter())).to.equal(null);
    expect(filterProblem(anyFilter({ patternType: PatternType.MATCH }))).to.equal(null);
    expect(filterProblem(anyFilter({ resourceType: 0 }))).to.match(/resource type/);
    expect(filterProblem(anyFilter({ patternType: 0 }))).to.match(/pattern type/);
    expect(filterProblem(anyFilter({ operation: 0 }))).to.match(/operation/);
    expect(filterProblem(anyFilter({ permission: 9 }))).to.match(/permission/);
  });

  it('codes that are not integers are refused, even objects that cannot be printed', () => {
    const unprintable = { toString: null };
    for (const field of ['resourceType', 'patternType', 'operation', 'permission'] as const) {
      expect(filterProblem(anyFilter({ [field]: unprintable } as never))).to.equal(`${field} must be an integer code`);
      expect(bindingProblem(binding({ [field]: unprintable } as never))).to.equal(`${field} must be an integer code`);
      expect(filterProblem(anyFilter({ [field]: '2' } as never))).to.equal(`${field} must be an integer code`);
    }
    expect(bindingProblem(binding({ principal: unprintable } as never))).to.match(/principal must be a string/);
  });

  it('ANY and null select everything; other fields must be equal', () => {
    const b = binding();
    expect(filterMatches(anyFilter(), b)).to.equal(true);
    expect(filterMatches(anyFilter({ resourceType: ResourceType.TOPIC, resourceName: 'orders', patternType: PatternType.LITERAL, principal: 'User:alice', host: '*', operation: AclOperation.READ, permission: AclPermission.ALLOW }), b)).to.equal(true);
    expect(filterMatches(anyFilter({ resourceType: ResourceType.GROUP }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ resourceName: 'order' }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ patternType: PatternType.PREFIXED }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ principal: 'User:bob' }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ host: '10.0.0.1' }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ operation: AclOperation.WRITE }), b)).to.equal(false);
    expect(filterMatches(anyFilter({ permission: AclPermission.DENY }), b)).to.equal(false);
  });

  it('MATCH selects the bindings that apply to the name: itself, the wildcard, its prefixes', () => {
    const f = anyFilter({ resourceType: ResourceType.TOPIC, resourceName: 'orders-eu', patternType: PatternType.MATCH });
    expect(filterMatches(f, binding({ resourceName: 'orders-eu' }))).to.equal(true);
    expect(filterMatches(f, binding({ resourceName: '*' }))).to.equal(true);
    expect(filterMatches(f, binding({ resourceName: 'orders', patternType: PatternType.PREFIXED }))).to.equal(true);
    expect(filterMatches(f, binding({ resourceName: 'orders' }))).to.equal(false);
    expect(filterMatches(f, binding({ resourceName: 'orders-eu-1', patternType: PatternType.PREFIXED }))).to.equal(false);
  });

  it('keys tell bindings apart by every field; order is by resource then entry; a readable line', () => {
    expect(bindingKey(binding())).to.equal(bindingKey(binding()));
    expect(bindingKey(binding())).to.not.equal(bindingKey(binding({ host: '10.0.0.1' })));
    const sorted = [binding({ resourceName: 'b' }), binding({ resourceType: ResourceType.GROUP }), binding({ resourceName: 'a', principal: 'User:zed' }), binding({ resourceName: 'a' })].sort(compareBindings);
    expect(sorted.map((b) => `${b.resourceType}:${b.resourceName}:${b.principal}`)).to.deep.equal(['2:a:User:alice', '2:a:User:zed', '2:b:User:alice', '3:orders:User:alice']);
    expect(describeBinding(binding())).to.equal('(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) on TOPIC:LITERAL:orders');
  });
});
