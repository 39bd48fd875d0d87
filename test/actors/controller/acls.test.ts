/**
 * ACLs in the controller (acls.ts, its CreateAcls / DeleteAcls / DescribeAcls handlers and the
 * AccessControlEntry records): created once, refused per entry when malformed, deleted by filter
 * (each filter lists what it matched, a binding removed once), described by filter, durable
 * across a controller restart, and sent to the brokers in the metadata.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { aclCreations, aclDeletions, describeAcls } from '../../../actors/controller/acls.js';
import { MetadataRecordError, applyRecord, applyRecords, emptyMetadata, toClusterMetadata } from '../../../actors/controller/metadata-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { AclOperation, AclPermission, PatternType, ResourceType, type AclBinding, type AclBindingFilter } from '../../../src/security/acl.js';
import { ControllerHarness } from './harness.js';

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
const all: AclBindingFilter = { resourceType: ResourceType.ANY, resourceName: null, patternType: PatternType.ANY, principal: null, host: null, operation: AclOperation.ANY, permission: AclPermission.ANY };

describe('actors/controller: ACLs', () => {
  describe('records', () => {
    it('AccessControlEntry adds a binding, RemoveAccessControlEntry takes it away; the metadata lists them', () => {
      const s1 = applyRecord(emptyMetadata(), { type: 'AccessControlEntry', binding: binding() });
      expect([...s1.acls.values()]).to.deep.equal([binding()]);
      expect(toClusterMetadata(s1, 'n').acls).to.deep.equal([binding()]);
      const s2 = applyRecord(s1, { type: 'RemoveAccessControlEntry', binding: binding() });
      expect(s2.acls.size).to.equal(0);
      expect(s1.acls.size, 'the input state is unchanged').to.equal(1);
    });

    it('refuses a binding that exists, a removal of one that does not, and a malformed binding', () => {
      const s1 = applyRecord(emptyMetadata(), { type: 'AccessControlEntry', binding: binding() });
      expect(() => applyRecord(s1, { type: 'AccessControlEntry', binding: binding() })).to.throw(MetadataRecordError, /exists/);
      expect(() => applyRecord(s1, { type: 'RemoveAccessControlEntry', binding: binding({ host: 'h' }) })).to.throw(MetadataRecordError, /no such binding/);
      expect(() => applyRecord(s1, { type: 'AccessControlEntry', binding: binding({ principal: 'alice' }) })).to.throw(MetadataRecordError, /Type:name/);
    });
  });

  describe('operations (pure)', () => {
    it('creations: a record per new binding, one for a binding named twice, none for one that exists; an answer per entry', () => {
      const state = applyRecord(emptyMetadata(), { type: 'AccessControlEntry', binding: binding() });
      const { records, results } = aclCreations(state, [binding(), binding({ operation: AclOperation.WRITE }), binding({ operation: AclOperation.WRITE }), binding({ patternType: PatternType.MATCH }), 'junk']);
      expect(records).to.deep.equal([{ type: 'AccessControlEntry', binding: binding({ operation: AclOperation.WRITE }) }]);
      expect(results.map((r) => r.errorCode)).to.deep.equal([0, 0, 0, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
      expect(results[3]!.errorMessage).to.match(/MATCH cannot be bound/);
      expect(results[4]!.errorMessage).to.match(/object/);
    });

    it('creations keep only the binding fields', () => {
      const { records } = aclCreations(emptyMetadata(), [{ ...binding(), extra: 'x' }]);
      expect(records).to.deep.equal([{ type: 'AccessControlEntry', binding: binding() }]);
    });

    it('deletions: each filter lists what it matched; a binding matched twice is removed once; a bad filter is answered alone', () => {
      const state = applyRecords(emptyMetadata(), [binding(), binding({ principal: 'User:bob' }), binding({ resourceType: ResourceType.GROUP, resourceName: 'g' })].map((b) => ({ type: 'AccessControlEntry' as const, binding: b })));
      const { records, results } = aclDeletions(state, [
        { ...all, resourceType: ResourceType.TOPIC },
        { ...all, principal: 'User:bob' },
        { ...all, operation: 0 },
        { ...all, principal: 'User:nobody' },
      ]);
      expect(records.map((r) => r.type === 'RemoveAccessControlEntry' && r.binding.principal)).to.deep.equal(['User:alice', 'User:bob']);
      expect(results.map((r) => [r.errorCode, r.matchingAcls.length])).to.deep.equal([[0, 2], [0, 1], [ErrorCode.INVALID_REQUEST, 0], [0, 0]]);
      const after = applyRecords(state, records);
      expect([...after.acls.values()]).to.deep.equal([binding({ resourceType: ResourceType.GROUP, resourceName: 'g' })]);
    });

    it('describe: the bindings a filter selects, sorted; a malformed filter is INVALID_REQUEST', () => {
      const state = applyRecords(emptyMetadata(), [binding({ resourceName: 'b' }), binding({ resourceName: 'a' }), binding({ resourceType: ResourceType.GROUP })].map((b) => ({ type: 'AccessControlEntry' as const, binding: b })));
      expect(describeAcls(state, { ...all, resourceType: ResourceType.TOPIC }).acls.map((b) => b.resourceName)).to.deep.equal(['a', 'b']);
      expect(describeAcls(state, { ...all, resourceType: ResourceType.TOPIC, resourceName: 'a', patternType: PatternType.MATCH }).acls).to.have.length(1);
      const bad = describeAcls(state, { ...all, resourceName: 5 });
      expect(bad.answer.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      expect(bad.acls).to.deep.equal([]);
    });
  });

  describe('handlers', () => {
    let h: ControllerHarness;
    let dir: string | null = null;
    afterEach(async () => {
      await h?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      dir = null;
    });

    it('CreateAcls, DescribeAcls, DeleteAcls: answered per entry, durable across a restart, sent to the brokers', async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-acls-'));
      h = await ControllerHarness.start({ brokers: [1, 2], args: { metadataDir: dir } });
      h.clearInboxes();
      const created = await h.ask<'CreateAclsResponse'>({ type: 'CreateAcls', creations: [binding(), binding({ principal: 'bad' })] });
      expect(created.results.map((r) => r.errorCode)).to.deep.equal([0, ErrorCode.INVALID_REQUEST]);
      await h.settle();
      for (const id of [1, 2]) {
        const updates = h.received(id, 'UpdateMetadataRequest');
        expect(updates.at(-1)?.metadata.acls, `broker ${id}`).to.deep.equal([binding()]);
      }

      await h.restartController();
      const described = await h.ask<'DescribeAclsResponse'>({ type: 'DescribeAcls', filter: all });
      expect(described).to.deep.equal({ type: 'DescribeAclsResponse', errorCode: 0, errorMessage: null, acls: [binding()] });

      h.clearInboxes();
      const deleted = await h.ask<'DeleteAclsResponse'>({ type: 'DeleteAcls', filters: [{ ...all, principal: 'User:alice' }] });
      expect(deleted.filterResults).to.deep.equal([{ errorCode: 0, errorMessage: null, matchingAcls: [binding()] }]);
      await h.settle();
      expect(h.received(1, 'UpdateMetadataRequest').at(-1)?.metadata.acls).to.deep.equal([]);
      await h.restartController();
      expect((await h.ask<'DescribeAclsResponse'>({ type: 'DescribeAcls', filter: all })).acls).to.deep.equal([]);
    });

    it('nothing to change: no metadata sent; malformed messages are refused', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      await h.ask<'CreateAclsResponse'>({ type: 'CreateAcls', creations: [binding()] });
      await h.settle();
      h.clearInboxes();
      const again = await h.ask<'CreateAclsResponse'>({ type: 'CreateAcls', creations: [binding()] });
      expect(again.results).to.deep.equal([{ errorCode: 0, errorMessage: null }]);
      const none = await h.ask<'DeleteAclsResponse'>({ type: 'DeleteAcls', filters: [{ ...all, principal: 'User:nobody' }] });
      expect(none.filterResults).to.deep.equal([{ errorCode: 0, errorMessage: null, matchingAcls: [] }]);
      await h.settle();
      expect(h.received(1, 'UpdateMetadataRequest')).to.deep.equal([]);
      const r = await h.client.ask(h.controllerRef, { type: 'CreateAcls', creations: 'all of them' } as never, { timeoutMs: 5_000 });
      expect(r).to.include({ errorCode: ErrorCode.INVALID_REQUEST });
    });
  });
});
