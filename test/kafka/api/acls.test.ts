/**
 * DescribeAcls, CreateAcls and DeleteAcls through the Kafka protocol, with KafkaJS's admin: a
 * super user creates, lists and deletes bindings; another user is refused
 * (CLUSTER_AUTHORIZATION_FAILED) until an ACL lets it; every broker's listener gets the ACLs;
 * malformed bindings are answered per entry; a broker without an authorizer answers
 * SECURITY_DISABLED, as Kafka's.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, ResourcePatternTypes, logLevel, type Admin } from 'kafkajs';
import { kafkaListenerName, type KafkaListenerDescription } from '../../../actors/kafka-listener/listener.js';
import { STANDARD_AUTHORIZER } from '../../../actors/broker/broker-config.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';

const USERS = { admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' };
const TLS_DIR = fileURLToPath(new URL('../../fixtures/tls/', import.meta.url));
const pem = (f: string) => fs.readFileSync(TLS_DIR + f);

function adminFor(c: KafkaTestCluster, user: keyof typeof USERS | null): Admin {
  const sasl = user ? { sasl: { mechanism: 'plain' as const, username: user, password: USERS[user] } } : {};
  return new Kafka({ clientId: 'acl-test', brokers: c.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...sasl }).admin();
}

async function listenerAcls(c: KafkaTestCluster, brokerId: number, node = 'main'): Promise<number | null> {
  const r = await c.handle.mainSystem.ask<KafkaListenerDescription>({ node, path: `/${kafkaListenerName(brokerId)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 });
  return (r as KafkaListenerDescription).authorizer.acls;
}

const allFilter = {
  resourceType: AclResourceTypes.ANY,
  resourcePatternType: ResourcePatternTypes.ANY,
  operation: AclOperationTypes.ANY,
  permissionType: AclPermissionTypes.ANY,
};

describe('Kafka API: ACLs (DescribeAcls, CreateAcls, DeleteAcls)', function () {
  this.timeout(60_000);

  describe('with an authorizer', () => {
    let c: KafkaTestCluster;
    let root: Admin;
    before(async () => {
      c = await startKafkaCluster({ brokers: 2, sasl: { mechanisms: ['PLAIN'], users: USERS }, brokerConfig: { 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:admin' } });
      root = adminFor(c, 'admin');
      await root.connect();
    });
    after(async () => {
      await root?.disconnect();
      await c?.stop();
    });

    it('a super user creates, lists and deletes bindings; every broker authorizes with them', async () => {
      const read = { resourceType: AclResourceTypes.TOPIC, resourceName: 'orders', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:alice', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW };
      const write = { ...read, resourceName: 'orders-', resourcePatternType: ResourcePatternTypes.PREFIXED, operation: AclOperationTypes.WRITE };
      expect(await root.createAcls({ acl: [read, write] })).to.equal(true);
      // KafkaJS returns the resources only (an error code other than NONE is thrown)
      const listed = await root.describeAcls(allFilter);
      expect(listed.resources).to.deep.equal([
        { resourceType: AclResourceTypes.TOPIC, resourceName: 'orders', resourcePatternType: ResourcePatternTypes.LITERAL, acls: [{ principal: 'User:alice', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW }] },
        { resourceType: AclResourceTypes.TOPIC, resourceName: 'orders-', resourcePatternType: ResourcePatternTypes.PREFIXED, acls: [{ principal: 'User:alice', host: '*', operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.ALLOW }] },
      ]);
      // MATCH: what applies to the topic orders-eu (the prefix, not the other literal)
      const applying = await root.describeAcls({ ...allFilter, resourceType: AclResourceTypes.TOPIC, resourceName: 'orders-eu', resourcePatternType: ResourcePatternTypes.MATCH });
      expect(applying.resources.map((r) => r.resourceName)).to.deep.equal(['orders-']);
      await checkFor(async () => (await listenerAcls(c, 1)) === 2 && (await listenerAcls(c, 2)) === 2, 10_000, 20);

      const deleted = await root.deleteAcls({ filters: [{ ...allFilter, resourceType: AclResourceTypes.TOPIC, resourcePatternType: ResourcePatternTypes.PREFIXED }] });
      expect(deleted.filterResponses).to.have.length(1);
      expect(deleted.filterResponses[0]!.errorCode).to.equal(0);
      expect(deleted.filterResponses[0]!.matchingAcls.map((a) => [a.resourceName, a.operation])).to.deep.equal([['orders-', AclOperationTypes.WRITE]]);
      expect((await root.describeAcls(allFilter)).resources.map((r) => r.resourceName)).to.deep.equal(['orders']);
      await checkFor(async () => (await listenerAcls(c, 1)) === 1 && (await listenerAcls(c, 2)) === 1, 10_000, 20);
      await root.deleteAcls({ filters: [allFilter] });
    });

    it('another user is refused until an ACL on the cluster lets it (ALTER to change, DESCRIBE to list)', async () => {
      const alice = adminFor(c, 'alice');
      await alice.connect();
      try {
        const entry = { resourceType: AclResourceTypes.GROUP, resourceName: 'g', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:bob', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW };
        const refused = await alice.createAcls({ acl: [entry] }).then(() => null, (e: Error & { type?: string }) => e);
        expect(refused?.type).to.equal('CLUSTER_AUTHORIZATION_FAILED');
        const listRefused = await alice.describeAcls(allFilter).then(() => null, (e: Error & { type?: string }) => e);
        expect(listRefused?.type).to.equal('CLUSTER_AUTHORIZATION_FAILED');
        expect((await root.describeAcls(allFilter)).resources, 'nothing was created').to.deep.equal([]);

        await root.createAcls({ acl: [{ resourceType: AclResourceTypes.CLUSTER, resourceName: 'kafka-cluster', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:alice', host: '*', operation: AclOperationTypes.ALTER, permissionType: AclPermissionTypes.ALLOW }] });
        await checkFor(async () => (await listenerAcls(c, 1)) === 1 && (await listenerAcls(c, 2)) === 1, 10_000, 20);
        expect(await alice.createAcls({ acl: [entry] })).to.equal(true);
        // ALTER implies DESCRIBE
        expect((await alice.describeAcls({ ...allFilter, resourceType: AclResourceTypes.GROUP })).resources.map((r) => r.resourceName)).to.deep.equal(['g']);

        // a DENY for alice's host takes it away again
        await root.createAcls({ acl: [{ resourceType: AclResourceTypes.CLUSTER, resourceName: 'kafka-cluster', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:alice', host: '127.0.0.1', operation: AclOperationTypes.ALL, permissionType: AclPermissionTypes.DENY }] });
        await checkFor(async () => (await listenerAcls(c, 1)) === 3 && (await listenerAcls(c, 2)) === 3, 10_000, 20);
        const denied = await alice.deleteAcls({ filters: [allFilter] }).then(() => null, (e: Error & { type?: string }) => e);
        expect(denied?.type).to.equal('CLUSTER_AUTHORIZATION_FAILED');
        expect((await root.describeAcls(allFilter)).resources).to.have.length(2);
      } finally {
        await alice.disconnect();
        await root.deleteAcls({ filters: [allFilter] });
      }
    });

    it('a malformed binding is refused on its own; the others are created', async () => {
      const good = { resourceType: AclResourceTypes.TOPIC, resourceName: 't', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:bob', host: '*', operation: AclOperationTypes.DESCRIBE, permissionType: AclPermissionTypes.ALLOW };
      const badCluster = { ...good, resourceType: AclResourceTypes.CLUSTER, resourceName: 'my-cluster' };
      const err = await root.createAcls({ acl: [good, badCluster] }).then(() => null, (e: Error & { type?: string }) => e);
      expect(err?.type).to.equal('INVALID_REQUEST');
      expect((await root.describeAcls(allFilter)).resources.map((r) => r.resourceName)).to.deep.equal(['t']);
      const badPrincipal = await root.createAcls({ acl: [{ ...good, principal: 'bob' }] }).then(() => null, (e: Error & { type?: string }) => e);
      expect(badPrincipal?.type).to.equal('INVALID_REQUEST');
      await root.deleteAcls({ filters: [allFilter] });
    });
  });

  describe('principals from TLS certificates, brokers on worker threads', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({
        brokers: 2,
        kind: 'worker',
        tls: { keyFile: TLS_DIR + 'server.key', certFile: TLS_DIR + 'server.pem', caFile: TLS_DIR + 'ca.pem', clientAuth: 'requested' },
        brokerConfig: { 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:CN=samsa test client' },
      });
    });
    after(async () => c?.stop());

    it("a client certificate's subject is the principal; a client without one is ANONYMOUS", async () => {
      const kafka = (cert: boolean) =>
        new Kafka({ clientId: 'acl-tls', brokers: c.bootstrap, logLevel: logLevel.NOTHING, retry: { retries: 0 }, ssl: { ca: [pem('ca.pem')], ...(cert ? { cert: pem('client.pem'), key: pem('client.key') } : {}) } }).admin();
      const withCert = kafka(true);
      const anonymous = kafka(false);
      await withCert.connect();
      await anonymous.connect();
      try {
        const entry = { resourceType: AclResourceTypes.TOPIC, resourceName: 't', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:ANONYMOUS', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW };
        expect(await withCert.createAcls({ acl: [entry] })).to.equal(true);
        const refused = await anonymous.createAcls({ acl: [{ ...entry, resourceName: 'u' }] }).then(() => null, (e: Error & { type?: string }) => e);
        expect(refused?.type).to.equal('CLUSTER_AUTHORIZATION_FAILED');
        // the brokers' listeners run on their worker threads
        await checkFor(async () => (await listenerAcls(c, 1, 'b1')) === 1 && (await listenerAcls(c, 2, 'b2')) === 1, 10_000, 20);
      } finally {
        await withCert.disconnect();
        await anonymous.disconnect();
      }
    });
  });

  describe('without an authorizer', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 1 });
    });
    after(async () => c?.stop());

    it('answers SECURITY_DISABLED, as a Kafka broker without authorizer.class.name', async () => {
      const admin = adminFor(c, null);
      await admin.connect();
      try {
        const entry = { resourceType: AclResourceTypes.TOPIC, resourceName: 't', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:bob', host: '*', operation: AclOperationTypes.READ, permissionType: AclPermissionTypes.ALLOW };
        for (const call of [() => admin.createAcls({ acl: [entry] }), () => admin.describeAcls(allFilter), () => admin.deleteAcls({ filters: [allFilter] })]) {
          const err = await call().then(() => null, (e: Error & { type?: string }) => e);
          expect(err?.type).to.equal('SECURITY_DISABLED');
        }
        expect(await listenerAcls(c, 1)).to.equal(null);
      } finally {
        await admin.disconnect();
      }
    });
  });
});
