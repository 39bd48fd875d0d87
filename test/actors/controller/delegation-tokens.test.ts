/**
 * Delegation tokens in the controller (KIP-48: delegation-tokens.ts, its CreateDelegationToken,
 * RenewDelegationToken, ExpireDelegationToken, DescribeDelegationTokens handlers, the
 * DelegationToken / RemoveDelegationToken records and the expiry sweep): Kafka's lifetimes and
 * refusals, each legal and illegal change of a token, durable across a restart and in a snapshot,
 * the brokers given SCRAM credentials (never the HMAC), disabled without a secret key.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MetadataRecordError, applyRecord, applyRecords, emptyMetadata, type MetadataState } from '../../../actors/controller/metadata-state.js';
import { fromImage, toImage } from '../../../actors/controller/metadata-snapshot.js';
import {
  createToken,
  describeTokens,
  expireToken,
  expiredTokenRemovals,
  renewToken,
  tokenAuthEntries,
  tokenHmac,
  tokenVisible,
  type DelegationTokenConfig,
  type DelegationTokenEntry,
} from '../../../actors/controller/delegation-tokens.js';
import { parseControllerConfig } from '../../../actors/controller/controller-config.js';
import { scramCredentialFromSalted, saltedPassword } from '../../../src/kafka/sasl/scram.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ControllerHarness } from './harness.js';

const SECRET = 'the-secret';
const config: DelegationTokenConfig = { secretKey: SECRET, maxLifetimeMs: 10_000, expiryTimeMs: 4_000 };
const req = (over: Partial<{ owner: string; requester: string; renewers: string[]; maxLifetimeMs: number }> = {}) => ({ owner: 'User:alice', requester: 'User:alice', renewers: ['User:bob'], maxLifetimeMs: -1, ...over });

function withToken(now = 1_000, over = {}): { state: MetadataState; token: DelegationTokenEntry; hmac: Buffer } {
  const out = createToken(config, now, req(over), () => 'tok-1');
  if (out.errorCode !== ErrorCode.NONE || !out.record) throw new Error('not created');
  return { state: applyRecord(emptyMetadata(), out.record), token: out.token, hmac: out.hmac };
}

describe('actors/controller: delegation tokens', () => {
  describe('operations (pure)', () => {
    it('creates with Kafka lifetimes: expiry now + expiry time, max now + max lifetime (the asked one when smaller), the HMAC HmacSHA512 of the id', () => {
      const out = createToken(config, 1_000, req(), () => 'tok-1');
      expect(out.errorCode).to.equal(0);
      expect(out.token).to.deep.equal({ tokenId: 'tok-1', owner: 'User:alice', requester: 'User:alice', renewers: ['User:bob'], issueTimestamp: 1_000, maxTimestamp: 11_000, expiryTimestamp: 5_000 });
      expect(out.hmac!.equals(tokenHmac(SECRET, 'tok-1'))).to.equal(true);
      expect(out.hmac!.length).to.equal(64);
      expect(JSON.stringify(out.record)).to.not.include(out.hmac!.toString('base64'));
      expect(createToken(config, 1_000, req({ maxLifetimeMs: 2_000 }), () => 't').token).to.include({ maxTimestamp: 3_000, expiryTimestamp: 3_000 });
      expect(createToken(config, 1_000, req({ maxLifetimeMs: 99_000 }), () => 't').token).to.include({ maxTimestamp: 11_000 });
      expect(createToken(config, 1_000, req({ maxLifetimeMs: 0 }), () => 't').token).to.include({ maxTimestamp: 11_000 });
    });

    it('refuses to create without a secret key (DELEGATION_TOKEN_AUTH_DISABLED) or with a renewer that is not a User (INVALID_PRINCIPAL_TYPE)', () => {
      expect(createToken({ ...config, secretKey: null }, 0, req()).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect(createToken(config, 0, req({ renewers: ['User:bob', 'Group:x'] })).errorCode).to.equal(ErrorCode.INVALID_PRINCIPAL_TYPE);
    });

    it('renews: by the owner or a renewer, capped by the expiry time and the max; the period asked when smaller', () => {
      const { state, hmac } = withToken();
      const r = renewToken(state, config, 2_000, 'User:bob', hmac, -1);
      expect(r).to.include({ errorCode: 0, expiryTimestamp: 6_000 });
      expect(r.records).to.deep.equal([{ type: 'DelegationToken', token: { ...state.delegationTokens.get('tok-1')!, expiryTimestamp: 6_000 } }]);
      expect(renewToken(state, config, 2_000, 'User:alice', hmac, 1_000).expiryTimestamp).to.equal(3_000);
      // null: samsa's trusted admin client, acting for the owner
      expect(renewToken(state, config, 2_000, null, hmac, 1_000)).to.include({ errorCode: 0, expiryTimestamp: 3_000 });
      expect(expireToken(state, config, 2_000, null, hmac, -1).errorCode).to.equal(0);
      expect(renewToken(state, config, 2_000, 'User:alice', hmac, 60_000).expiryTimestamp).to.equal(6_000);
      expect(renewToken(state, config, 4_900, 'User:alice', hmac, -1).expiryTimestamp).to.equal(8_900);
      // near the max, the max
      const later = applyRecords(state, renewToken(state, config, 4_900, 'User:alice', hmac, -1).records);
      expect(renewToken(later, config, 8_000, 'User:alice', hmac, -1).expiryTimestamp).to.equal(11_000);
    });

    it('refuses to renew: no secret, an unknown HMAC, an expired token, a principal neither owner nor renewer (the requester is not a renewer)', () => {
      const { state, hmac } = withToken(1_000, { owner: 'User:carol', requester: 'User:alice' });
      expect(renewToken(state, { ...config, secretKey: null }, 2_000, 'User:carol', hmac, -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect(renewToken(state, config, 2_000, 'User:carol', tokenHmac('other', 'tok-1'), -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
      expect(renewToken(state, config, 2_000, 'User:carol', Buffer.from('short'), -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
      expect(renewToken(state, config, 5_001, 'User:carol', hmac, -1)).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_EXPIRED, expiryTimestamp: 0 });
      expect(renewToken(state, config, 2_000, 'User:alice', hmac, -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
      expect(renewToken(state, config, 2_000, 'User:eve', hmac, -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
      // the owner check comes after the expiry check, as Kafka's
      expect(renewToken(state, config, 5_001, 'User:eve', hmac, -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_EXPIRED);
    });

    it('expires: a negative period removes the token at once, else the expiry moves to now + period (capped by the max)', () => {
      const { state, hmac } = withToken();
      expect(expireToken(state, config, 2_000, 'User:alice', hmac, -1)).to.deep.equal({ errorCode: 0, expiryTimestamp: 2_000, records: [{ type: 'RemoveDelegationToken', tokenId: 'tok-1' }], tokenId: 'tok-1' });
      expect(expireToken(state, config, 2_000, 'User:bob', hmac, 500).records).to.deep.equal([{ type: 'DelegationToken', token: { ...state.delegationTokens.get('tok-1')!, expiryTimestamp: 2_500 } }]);
      expect(expireToken(state, config, 2_000, 'User:bob', hmac, 0).expiryTimestamp).to.equal(2_000);
      expect(expireToken(state, config, 2_000, 'User:bob', hmac, 50_000).expiryTimestamp).to.equal(11_000);
    });

    it('refuses to expire: no secret, an unknown HMAC, another principal (checked before expiry), an expired token unless removed at once', () => {
      const { state, hmac } = withToken();
      expect(expireToken(state, { ...config, secretKey: null }, 2_000, 'User:alice', hmac, -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect(expireToken(state, config, 2_000, 'User:alice', tokenHmac(SECRET, 'tok-2'), -1).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
      expect(expireToken(state, config, 9_000, 'User:eve', hmac, 100).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
      expect(expireToken(state, config, 9_000, 'User:alice', hmac, 100).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_EXPIRED);
      expect(expireToken(state, config, 9_000, 'User:alice', hmac, -1).errorCode).to.equal(0);
    });

    it('sweeps the tokens past their expiry or max timestamp', () => {
      const { state } = withToken();
      expect(expiredTokenRemovals(state, 5_000)).to.deep.equal([]);
      expect(expiredTokenRemovals(state, 5_001)).to.deep.equal([{ type: 'RemoveDelegationToken', tokenId: 'tok-1' }]);
    });

    it('describes every token with its HMAC; a requester sees its own, those it asked for or renews, else by DESCRIBE on the token or DESCRIBE_TOKENS on its owner', () => {
      const { state, token } = withToken(1_000, { owner: 'User:carol', requester: 'User:alice' });
      const d = describeTokens(state, config);
      expect(d.errorCode).to.equal(0);
      expect(d.tokens).to.deep.equal([{ ...token, hmac: tokenHmac(SECRET, 'tok-1').toString('base64') }]);
      expect(describeTokens(state, { ...config, secretKey: null })).to.deep.equal({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [] });
      const no = () => false;
      for (const p of ['User:carol', 'User:alice', 'User:bob']) expect(tokenVisible(p, null, token, no, no), p).to.equal(true);
      expect(tokenVisible('User:eve', null, token, no, no)).to.equal(false);
      expect(tokenVisible('User:eve', null, token, (id) => id === 'tok-1', no)).to.equal(true);
      expect(tokenVisible('User:eve', null, token, no, (o) => o === 'User:carol')).to.equal(true);
      // owners filter: a token whose owner, requester or a renewer is among them
      expect(tokenVisible('User:carol', ['User:bob'], token, no, no)).to.equal(true);
      expect(tokenVisible('User:carol', ['User:zed'], token, no, no)).to.equal(false);
    });

    it('records: a token expiring after its max, a token id reused with another owner, removing an unknown token are refused; a snapshot keeps the tokens', () => {
      const { state, token } = withToken();
      expect(() => applyRecord(state, { type: 'DelegationToken', token: { ...token, expiryTimestamp: token.maxTimestamp + 1 } })).to.throw(MetadataRecordError, /after its max/);
      expect(() => applyRecord(state, { type: 'DelegationToken', token: { ...token, owner: 'User:eve' } })).to.throw(MetadataRecordError, /another owner/);
      expect(() => applyRecord(state, { type: 'DelegationToken', token: { ...token, tokenId: '' } })).to.throw(MetadataRecordError, /not a delegation token/);
      expect(() => applyRecord(state, { type: 'RemoveDelegationToken', tokenId: 'nope' })).to.throw(MetadataRecordError, /no delegation token nope/);
      expect(applyRecord(state, { type: 'RemoveDelegationToken', tokenId: 'tok-1' }).delegationTokens.size).to.equal(0);
      expect(fromImage(JSON.parse(JSON.stringify(toImage(state))))).to.deep.equal(state);
      // an image written before tokens were kept
      const old = JSON.parse(JSON.stringify(toImage(emptyMetadata())));
      delete old.delegationTokens;
      expect(fromImage(old).delegationTokens.size).to.equal(0);
    });

    it("gives brokers SCRAM credentials whose password is the base64 HMAC, once per token, never the HMAC", () => {
      const { state } = withToken();
      const cache = new Map();
      const [e] = tokenAuthEntries(state, SECRET, cache);
      const password = tokenHmac(SECRET, 'tok-1').toString('base64');
      expect(JSON.stringify(e)).to.not.include(password);
      expect(e!.credentials.map((c) => c.mechanism)).to.deep.equal([1, 2]);
      for (const c of e!.credentials) {
        const hash = c.mechanism === 1 ? 'SHA-256' : 'SHA-512';
        const salt = Buffer.from(c.salt, 'base64');
        expect(scramCredentialFromSalted(hash, salt, saltedPassword(hash, password, salt, c.iterations), c.iterations).storedKey.toString('base64')).to.equal(c.storedKey);
      }
      expect(tokenAuthEntries(state, SECRET, cache)[0]!.credentials).to.deep.equal(e!.credentials);
      expect(tokenAuthEntries(emptyMetadata(), SECRET, cache)).to.deep.equal([]);
      expect(cache.size).to.equal(0);
      expect(tokenAuthEntries(state, null, cache)).to.deep.equal([]);
    });

    it("takes Kafka's config keys and defaults; the secret is never echoed in an error", () => {
      const c = parseControllerConfig({});
      expect(c).to.include({ delegationTokenSecretKey: null, delegationTokenMaxLifetimeMs: 604_800_000, delegationTokenExpiryTimeMs: 86_400_000, delegationTokenExpiryCheckIntervalMs: 3_600_000 });
      expect(parseControllerConfig({ 'delegation.token.secret.key': 's3', 'delegation.token.expiry.time.ms': '5' })).to.include({ delegationTokenSecretKey: 's3', delegationTokenExpiryTimeMs: 5 });
      expect(() => parseControllerConfig({ 'delegation.token.secret.key': '' })).to.throw(/non-empty string/);
      expect(() => parseControllerConfig({ 'delegation.token.max.lifetime.ms': 0 })).to.throw(/delegation.token.max.lifetime.ms/);
    });
  });

  describe('the controller', () => {
    let h: ControllerHarness;
    let dir: string;
    afterEach(async () => {
      await h?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    const tokenConfig = { 'delegation.token.secret.key': SECRET, 'delegation.token.max.lifetime.ms': 100_000, 'delegation.token.expiry.time.ms': 10_000, 'delegation.token.expiry.check.interval.ms': 1_000, 'broker.session.timeout.ms': 10_000_000 };

    it('creates, renews, expires and describes durably, tells brokers the credentials (not watchers, never the HMAC), and sweeps expired tokens', async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-tokens-'));
      h = await ControllerHarness.start({ brokers: [1], args: { metadataDir: dir, config: tokenConfig } });
      await h.watch();
      h.clearInboxes();
      const t0 = h.clock.now();
      const c = await h.ask<'CreateDelegationTokenResponse'>({ type: 'CreateDelegationToken', owner: 'User:alice', requester: 'User:alice', renewers: ['User:bob'], maxLifetimeMs: -1 });
      expect(c.errorCode).to.equal(0);
      expect(c.token).to.include({ owner: 'User:alice', issueTimestamp: t0, expiryTimestamp: t0 + 10_000, maxTimestamp: t0 + 100_000 });
      expect(c.hmac).to.equal(tokenHmac(SECRET, c.token!.tokenId).toString('base64'));
      await h.settle();
      const sent = h.received(1, 'UpdateMetadataRequest').at(-1)!;
      expect(sent.delegationTokens!.map((t) => [t.tokenId, t.owner])).to.deep.equal([[c.token!.tokenId, 'User:alice']]);
      expect(JSON.stringify(h.inbox(1))).to.not.include(c.hmac!);
      expect(h.watcherInbox.every((m) => m.type !== 'UpdateMetadataRequest' || m.delegationTokens === undefined)).to.equal(true);

      const r = await h.ask<'DelegationTokenExpiryResponse'>({ type: 'RenewDelegationToken', principal: 'User:bob', hmac: c.hmac!, renewPeriodMs: 5_000 });
      expect(r).to.include({ errorCode: 0, expiryTimestamp: t0 + 5_000 });
      const refused = await h.ask<'DelegationTokenExpiryResponse'>({ type: 'ExpireDelegationToken', principal: 'User:eve', hmac: c.hmac!, expiryTimePeriodMs: 1 });
      expect(refused.errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);

      await h.restartController();
      const d = await h.ask<'DescribeDelegationTokensResponse'>({ type: 'DescribeDelegationTokens' });
      expect(d.tokens.map((t) => [t.tokenId, t.expiryTimestamp, t.hmac])).to.deep.equal([[c.token!.tokenId, t0 + 5_000, c.hmac]]);

      // a second token expired at once is gone; the first is swept once past its expiry
      const c2 = await h.ask<'CreateDelegationTokenResponse'>({ type: 'CreateDelegationToken', owner: 'User:carol', requester: 'User:alice', renewers: [], maxLifetimeMs: 1_000_000 });
      expect(c2.token!.maxTimestamp).to.equal(t0 + 100_000);
      const gone = await h.ask<'DelegationTokenExpiryResponse'>({ type: 'ExpireDelegationToken', principal: 'User:carol', hmac: c2.hmac!, expiryTimePeriodMs: -1 });
      expect(gone).to.include({ errorCode: 0, expiryTimestamp: h.clock.now() });
      expect((await h.ask<'DescribeDelegationTokensResponse'>({ type: 'DescribeDelegationTokens' })).tokens).to.have.length(1);
      await h.advance(5_000);
      expect((await h.ask<'DescribeDelegationTokensResponse'>({ type: 'DescribeDelegationTokens' })).tokens).to.have.length(1);
      await h.advance(1_000);
      expect((await h.ask<'DescribeDelegationTokensResponse'>({ type: 'DescribeDelegationTokens' })).tokens).to.deep.equal([]);
      await h.settle();
      expect(h.received(1, 'UpdateMetadataRequest').at(-1)!.delegationTokens).to.deep.equal([]);
      const late = await h.ask<'DelegationTokenExpiryResponse'>({ type: 'RenewDelegationToken', principal: 'User:alice', hmac: c.hmac!, renewPeriodMs: -1 });
      expect(late.errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
    });

    it('answers DELEGATION_TOKEN_AUTH_DISABLED to every request without a secret key, and runs no sweep', async () => {
      h = await ControllerHarness.start({ brokers: [1] });
      const c = await h.ask<'CreateDelegationTokenResponse'>({ type: 'CreateDelegationToken', owner: 'User:alice', requester: 'User:alice', renewers: [], maxLifetimeMs: -1 });
      expect(c).to.include({ errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, token: null, hmac: null });
      const hmac = Buffer.alloc(64).toString('base64');
      expect((await h.ask<'DelegationTokenExpiryResponse'>({ type: 'RenewDelegationToken', principal: 'User:alice', hmac, renewPeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect((await h.ask<'DelegationTokenExpiryResponse'>({ type: 'ExpireDelegationToken', principal: 'User:alice', hmac, expiryTimePeriodMs: -1 })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
      expect((await h.ask<'DescribeDelegationTokensResponse'>({ type: 'DescribeDelegationTokens' })).errorCode).to.equal(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
    });
  });
});
