/**
 * admin.createDelegationToken / renewDelegationToken / expireDelegationToken /
 * describeDelegationToken (KIP-48) on a real in-process cluster, in the Java admin's shapes: a
 * token for a named owner (this client has no principal of its own) with its HMAC, Kafka's
 * lifetimes, renewal and expiry as the owner or a named principal, the owners filter, the
 * controller's refusals thrown with their codes, malformed arguments refused before anything is
 * sent, and a cluster without delegation.token.secret.key refusing every call.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Admin } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';

describe('client/admin delegation tokens', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;
  before(async () => {
    c = await TestCluster.start({ brokers: 1, controllerConfig: { 'delegation.token.secret.key': 'admin-test-secret', 'delegation.token.expiry.time.ms': 60_000, 'delegation.token.max.lifetime.ms': 600_000 } });
    admin = c.samsa('tokens-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('creates a token for an owner, with its HMAC (HmacSHA512 of the id under the secret) and Kafka lifetimes', async () => {
    const t = await admin.createDelegationToken({ owner: 'User:alice', renewers: ['User:bob'] });
    expect(t.tokenInfo).to.include({ owner: 'User:alice', tokenRequester: 'User:alice' });
    expect(t.tokenInfo.renewers).to.deep.equal(['User:bob']);
    expect(t.tokenInfo.expiryTimestamp - t.tokenInfo.issueTimestamp).to.equal(60_000);
    expect(t.tokenInfo.maxTimestamp - t.tokenInfo.issueTimestamp).to.equal(600_000);
    expect(t.hmac.equals(crypto.createHmac('sha512', 'admin-test-secret').update(t.tokenInfo.tokenId).digest())).to.equal(true);
    const short = await admin.createDelegationToken({ owner: 'User:carol', requester: 'User:alice', maxLifetimeMs: 30_000 });
    expect(short.tokenInfo).to.include({ tokenRequester: 'User:alice' });
    expect(short.tokenInfo.maxTimestamp - short.tokenInfo.issueTimestamp).to.equal(30_000);
    expect(short.tokenInfo.expiryTimestamp).to.equal(short.tokenInfo.maxTimestamp);
  });

  it('describes every token or those of the owners named (owner, requester or renewer), with their HMACs', async () => {
    const all = await admin.describeDelegationToken();
    expect(all.map((t) => t.tokenInfo.owner)).to.deep.equal(['User:alice', 'User:carol']);
    expect((await admin.describeDelegationToken({ owners: ['User:bob'] })).map((t) => t.tokenInfo.owner)).to.deep.equal(['User:alice']);
    expect((await admin.describeDelegationToken({ owners: ['User:alice'] })).map((t) => t.tokenInfo.owner)).to.deep.equal(['User:alice', 'User:carol']);
    expect(await admin.describeDelegationToken({ owners: [] })).to.deep.equal([]);
    expect(all[0]!.hmac.length).to.equal(64);
  });

  it('renews and expires as the owner or a named principal; refusals throw with Kafka codes', async () => {
    const t = await admin.createDelegationToken({ owner: 'User:dan', renewers: ['User:erin'] });
    const renewed = await admin.renewDelegationToken(t.hmac, { renewTimePeriodMs: 10_000 });
    expect(renewed).to.be.within(t.tokenInfo.issueTimestamp + 10_000, t.tokenInfo.issueTimestamp + 20_000);
    expect(await admin.renewDelegationToken(t.hmac, { principal: 'User:erin' })).to.be.at.least(t.tokenInfo.issueTimestamp + 60_000);
    expect((await refused(admin.renewDelegationToken(t.hmac, { principal: 'User:mallory' }))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
    expect((await refused(admin.renewDelegationToken(Buffer.alloc(64)))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
    expect((await refused(admin.createDelegationToken({ owner: 'User:dan', renewers: ['Group:g'] }))).errorCode).to.equal(ErrorCode.INVALID_PRINCIPAL_TYPE);
    const at = await admin.expireDelegationToken(t.hmac, { expiryTimePeriodMs: 5_000 });
    expect(at).to.be.at.most(Date.now() + 5_000);
    expect((await admin.describeDelegationToken({ owners: ['User:dan'] }))[0]!.tokenInfo.expiryTimestamp).to.equal(at);
    await admin.expireDelegationToken(t.hmac);
    expect(await admin.describeDelegationToken({ owners: ['User:dan'] })).to.deep.equal([]);
    expect((await refused(admin.expireDelegationToken(t.hmac))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
  });

  it('refuses malformed arguments before sending anything', async () => {
    expect((await refused(admin.createDelegationToken({} as never))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.createDelegationToken({ owner: 'alice' }))).message).to.match(/owner must be a principal/);
    expect((await refused(admin.createDelegationToken({ owner: 'User:a', renewers: 'User:b' as never }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.createDelegationToken({ owner: 'User:a', maxLifetimeMs: 1.5 }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect((await refused(admin.renewDelegationToken('abc' as never))).message).to.match(/hmac/);
    expect((await refused(admin.describeDelegationToken({ owners: ['nobody'] }))).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
  });

  it('without delegation.token.secret.key every call is DELEGATION_TOKEN_AUTH_DISABLED', async () => {
    const off = await TestCluster.start({ brokers: 1 });
    const a = off.samsa('tokens-off').admin();
    try {
      await a.connect();
      expect((await refused(a.createDelegationToken({ owner: 'User:alice' }))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect((await refused(a.renewDelegationToken(Buffer.alloc(64)))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect((await refused(a.expireDelegationToken(Buffer.alloc(64)))).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect((await refused(a.describeDelegationToken())).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
    } finally {
      await a.disconnect();
      await off.stop();
    }
  });
});
