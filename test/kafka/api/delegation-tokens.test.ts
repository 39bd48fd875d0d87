/**
 * Delegation tokens over the Kafka wire (KIP-48): CreateDelegationToken, RenewDelegationToken,
 * ExpireDelegationToken and DescribeDelegationToken with Kafka's checks (who may ask, the owner /
 * renewer / requester rules, CREATE_TOKENS / DESCRIBE_TOKENS / DESCRIBE ACLs), and SCRAM logins
 * with a token (tokenauth=true) on every broker: the connection is the owner's, its session ends
 * with the token, and it may not ask for tokens itself. A PLAINTEXT listener refuses every token
 * request; a cluster without delegation.token.secret.key answers DELEGATION_TOKEN_AUTH_DISABLED.
 */
import { expect } from 'chai';
import { allowTokenRequests } from '../../../src/kafka/api/delegation-tokens.js';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ANONYMOUS, AclOperation, ResourceType } from '../../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const users = { alice: 'alice-secret', bob: 'bob-secret', carol: 'carol-secret', eve: 'eve-secret' };

describe('kafka api: delegation tokens', function () {
  this.timeout(60_000);
  let c: AuthorizedKafkaCluster;
  before(async () => {
    c = await startAuthorizedKafkaCluster(users, {
      brokers: 2,
      saslMechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
      controllerConfig: { 'delegation.token.secret.key': 'cluster-secret' },
      brokerConfig: { 'offsets.topic.replication.factor': 1 },
    });
  });
  after(async () => {
    await c?.stop();
  });

  const create = (k: KafkaCaller, renewers: string[] = [], extra: object = {}, version = 3) =>
    k.call(ApiKeys.CreateDelegationToken, version, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: renewers.map((r) => ({ principalType: r.split(':')[0], principalName: r.split(':')[1] })), maxLifetimeMs: -1, ...extra });
  const tokenLogin = (endpoint: string, tokenId: string, hmac: Buffer, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512' = 'SCRAM-SHA-512') =>
    KafkaCaller.scramLogin(endpoint, mechanism, tokenId, hmac.toString('base64'), { tokenauth: 'true' });
  const loginWorks = (endpoint: string, tokenId: string, hmac: Buffer, mechanism?: 'SCRAM-SHA-256' | 'SCRAM-SHA-512') =>
    tokenLogin(endpoint, tokenId, hmac, mechanism).then(
      (k) => (k.end(), true),
      () => false,
    );

  it("allows token requests as Kafka's allowTokenRequests: SASL or a client certificate, never a token-authenticated connection", () => {
    expect(allowTokenRequests({ sasl: true, principal: 'User:alice' })).to.equal(true);
    expect(allowTokenRequests({ sasl: false, principal: 'User:CN=alice' })).to.equal(true);
    expect(allowTokenRequests({ sasl: false, principal: ANONYMOUS })).to.equal(false);
    expect(allowTokenRequests({ sasl: true, principal: 'User:alice', tokenAuthenticated: true })).to.equal(false);
  });

  it('creates a token for its requester; a SCRAM login with it (tokenauth=true) on every broker is its owner, which may not ask for tokens', async () => {
    const alice = await c.login('alice');
    const r = await create(alice, ['User:bob']);
    expect(r).to.include({ errorCode: 0, principalType: 'User', principalName: 'alice', tokenRequesterPrincipalType: 'User', tokenRequesterPrincipalName: 'alice' });
    expect(r.expiryTimestampMs - r.issueTimestampMs).to.equal(86_400_000);
    expect(r.maxTimestampMs - r.issueTimestampMs).to.equal(604_800_000);
    expect(r.hmac.length).to.equal(64);
    expect(r.tokenId).to.match(/^[A-Za-z0-9_-]{22}$/);
    const hmac = Buffer.from(r.hmac);

    // the owner's ACLs apply to the token's connection
    await c.allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE, resourceType: ResourceType.TOPIC, resourceName: 'visible' }, { principal: 'User:admin', operation: AclOperation.ALL, resourceType: ResourceType.CLUSTER, resourceName: 'kafka-cluster' });
    const admin = await c.login('admin');
    expect((await admin.call(ApiKeys.CreateTopics, 4, { topics: [{ name: 'visible', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, { name: 'hidden', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false })).topics.map((t: { errorCode: number }) => t.errorCode)).to.deep.equal([0, 0]);
    for (const endpoint of c.cluster.bootstrap) {
      await checkFor(() => loginWorks(endpoint, r.tokenId, hmac), 10_000, 50);
      expect(await loginWorks(endpoint, r.tokenId, hmac, 'SCRAM-SHA-256')).to.equal(true);
      const k = await tokenLogin(endpoint, r.tokenId, hmac);
      // the session ends when the token expires (connections.max.reauth.ms is off here)
      expect(k.saslSessionLifetimeMs).to.be.within(r.expiryTimestampMs - Date.now() - 10_000, r.expiryTimestampMs - Date.now() + 1_000);
      const md = await k.call(ApiKeys.Metadata, 4, { topics: null, allowAutoTopicCreation: false });
      expect(md.topics.map((t: { name: string }) => t.name)).to.deep.equal(['visible']);
      // token-authenticated: none of the token APIs
      expect((await create(k)).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
      expect(await k.call(ApiKeys.RenewDelegationToken, 2, { hmac, renewPeriodMs: -1 })).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1 });
      expect(await k.call(ApiKeys.ExpireDelegationToken, 2, { hmac, expiryTimePeriodMs: -1 })).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1 });
      expect(await k.call(ApiKeys.DescribeDelegationToken, 3, { owners: null })).to.deep.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, tokens: [] });
      k.end();
    }
    // the token id as a plain SCRAM user, a wrong HMAC, an unknown token: refused
    const asUser = await KafkaCaller.scramLogin(c.cluster.bootstrap[0]!, 'SCRAM-SHA-512', r.tokenId, hmac.toString('base64')).then(() => 'in', (e: Error) => e.message);
    expect(asUser).to.match(/error 58/);
    expect(await loginWorks(c.cluster.bootstrap[0]!, r.tokenId, Buffer.alloc(64))).to.equal(false);
    const unknown = await tokenLogin(c.cluster.bootstrap[0]!, 'no-such-token', hmac).then(() => 'in', (e: Error) => e.message);
    expect(unknown).to.match(/client-first: error 58/);
  });

  it('refuses a token for another owner without CREATE_TOKENS on that user, and renewers that are not Users', async () => {
    const alice = await c.login('alice');
    const forCarol = { ownerPrincipalType: 'User', ownerPrincipalName: 'carol' };
    expect(await create(alice, [], forCarol)).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED, principalName: 'carol', tokenRequesterPrincipalName: 'alice', issueTimestampMs: -1, tokenId: '' });
    expect((await create(alice, ['Group:ops'])).errorCode).to.equal(ErrorCode.INVALID_PRINCIPAL_TYPE);
    await c.allow({ principal: 'User:alice', operation: AclOperation.CREATE_TOKENS, resourceType: ResourceType.USER, resourceName: 'User:carol' });
    const r = await create(alice, [], forCarol);
    expect(r).to.include({ errorCode: 0, principalName: 'carol', tokenRequesterPrincipalName: 'alice' });
    // v2 and older carry no requester; a token made with a shorter max lifetime
    const v1 = await create(alice, [], { maxLifetimeMs: 3_600_000 }, 1);
    expect(v1.errorCode).to.equal(0);
    expect(v1.maxTimestampMs - v1.issueTimestampMs).to.equal(3_600_000);
    expect(v1.expiryTimestampMs).to.equal(v1.maxTimestampMs);
  });

  it('renews and expires for the owner and renewers only; describes what the client owns, asked for, renews or may describe', async () => {
    const [alice, bob, eve, carol] = await Promise.all(['alice', 'bob', 'eve', 'carol'].map((u) => c.login(u)));
    const r = await create(alice!, ['User:bob']);
    const hmac = Buffer.from(r.hmac);
    const renewed = await bob!.call(ApiKeys.RenewDelegationToken, 2, { hmac, renewPeriodMs: 60_000 });
    expect(renewed.errorCode).to.equal(0);
    expect(renewed.expiryTimestampMs).to.be.within(r.issueTimestampMs + 60_000, r.issueTimestampMs + 120_000);
    expect((await eve!.call(ApiKeys.RenewDelegationToken, 0, { hmac, renewPeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
    expect((await eve!.call(ApiKeys.ExpireDelegationToken, 1, { hmac, expiryTimePeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
    expect((await bob!.call(ApiKeys.RenewDelegationToken, 1, { hmac: Buffer.alloc(64, 1), renewPeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);

    const ids = async (k: KafkaCaller, owners: string[] | null, version = 3) => {
      const d = await k.call(ApiKeys.DescribeDelegationToken, version, { owners: owners === null ? null : owners.map((o) => ({ principalType: 'User', principalName: o })) });
      expect(d.errorCode).to.equal(0);
      return d.tokens.map((t: { tokenId: string }) => t.tokenId) as string[];
    };
    expect(await ids(alice!, null)).to.include(r.tokenId);
    // bob renews this token and the first test's
    expect(await ids(bob!, null)).to.have.length(2).and.include(r.tokenId);
    expect(await ids(eve!, null)).to.deep.equal([]);
    expect(await ids(alice!, [])).to.deep.equal([]);
    expect(await ids(alice!, ['bob'])).to.have.length(2).and.include(r.tokenId);
    expect(await ids(alice!, ['nobody'])).to.deep.equal([]);
    const d = await bob!.call(ApiKeys.DescribeDelegationToken, 3, { owners: null });
    d.tokens = d.tokens.filter((t: { tokenId: string }) => t.tokenId === r.tokenId);
    expect(d.tokens[0]).to.deep.include({ principalType: 'User', principalName: 'alice', tokenRequesterPrincipalName: 'alice', issueTimestamp: r.issueTimestampMs, expiryTimestamp: renewed.expiryTimestampMs, maxTimestamp: r.maxTimestampMs, renewers: [{ principalType: 'User', principalName: 'bob' }] });
    expect(Buffer.from(d.tokens[0].hmac).equals(hmac)).to.equal(true);
    const v0 = await bob!.call(ApiKeys.DescribeDelegationToken, 0, { owners: null });
    expect(v0.tokens.map((t: { tokenRequesterPrincipalName?: string }) => t.tokenRequesterPrincipalName ?? '')).to.deep.equal(['', '']);
    // DESCRIBE_TOKENS on the owner, or DESCRIBE on the token itself
    await c.allow({ principal: 'User:eve', operation: AclOperation.DESCRIBE_TOKENS, resourceType: ResourceType.USER, resourceName: 'User:alice' });
    expect(await ids(eve!, null)).to.include(r.tokenId);
    await c.allow({ principal: 'User:carol', operation: AclOperation.DESCRIBE, resourceType: ResourceType.DELEGATION_TOKEN, resourceName: r.tokenId });
    expect(await ids(carol!, null)).to.include(r.tokenId);

    // expired at once: gone everywhere, and logins with it refused
    await checkFor(() => loginWorks(c.cluster.bootstrap[1]!, r.tokenId, hmac), 10_000, 50);
    const gone = await alice!.call(ApiKeys.ExpireDelegationToken, 2, { hmac, expiryTimePeriodMs: -1 });
    expect(gone.errorCode).to.equal(0);
    expect((await bob!.call(ApiKeys.RenewDelegationToken, 2, { hmac, renewPeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
    expect(await ids(alice!, null)).to.not.include(r.tokenId);
    for (const endpoint of c.cluster.bootstrap) await checkFor(async () => !(await loginWorks(endpoint, r.tokenId, hmac)), 10_000, 50);
  });
});

describe('kafka api: delegation tokens refused by the listener or the cluster', function () {
  this.timeout(60_000);
  const calls = (k: KafkaCaller) =>
    Promise.all([
      k.call(ApiKeys.CreateDelegationToken, 3, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: [], maxLifetimeMs: -1 }),
      k.call(ApiKeys.RenewDelegationToken, 2, { hmac: Buffer.alloc(64), renewPeriodMs: -1 }),
      k.call(ApiKeys.ExpireDelegationToken, 2, { hmac: Buffer.alloc(64), expiryTimePeriodMs: -1 }),
      k.call(ApiKeys.DescribeDelegationToken, 3, { owners: null }),
    ]);

  it('a PLAINTEXT listener refuses every token request (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, Kafka error timestamps)', async () => {
    const c = await startKafkaCluster({ controllerConfig: { 'delegation.token.secret.key': 's' } });
    try {
      const k = await KafkaCaller.connect(c.bootstrap[0]!);
      const [create, renew, expire, describe] = await calls(k);
      expect(create).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, principalName: 'ANONYMOUS', issueTimestampMs: -1, expiryTimestampMs: -1, maxTimestampMs: -1, tokenId: '' });
      expect(renew).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1 });
      expect(expire).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1 });
      expect(describe).to.deep.include({ errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, tokens: [] });
      k.end();
    } finally {
      await c.stop();
    }
  });

  it('a cluster without delegation.token.secret.key answers DELEGATION_TOKEN_AUTH_DISABLED', async () => {
    const c = await startKafkaCluster({ sasl: { mechanisms: ['PLAIN'], users: { alice: 'alice-secret' } } });
    try {
      const k = await KafkaCaller.plainLogin(c.bootstrap[0]!, 'alice', 'alice-secret');
      const [create, renew, expire, describe] = await calls(k);
      expect(create).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, principalName: 'alice', tokenRequesterPrincipalName: 'alice', issueTimestampMs: 0, tokenId: '' });
      for (const r of [renew, expire]) expect(r).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, expiryTimestampMs: 0 });
      expect(describe).to.deep.include({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [] });
      k.end();
    } finally {
      await c.stop();
    }
  });
});
