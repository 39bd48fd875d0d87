import { expect } from 'chai';
import crypto from 'node:crypto';
import { OAuthBearerServer, oauthBearerSettings, parseClientInitialResponse, validateToken, type OAuthBearerSettings } from '../../../src/kafka/sasl/oauthbearer.js';

const NOW = Date.UTC(2026, 0, 1);
const sec = (ms: number) => Math.floor(ms / 1000);

function keyPair(type: 'rsa' | 'ec' | 'ed25519', kid: string) {
  const { privateKey, publicKey } =
    type === 'rsa' ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }) : type === 'ec' ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }) : crypto.generateKeyPairSync('ed25519');
  return { privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig' } as crypto.JsonWebKey };
}

const rsa = keyPair('rsa', 'r1');
const ec = keyPair('ec', 'e1');
const ed = keyPair('ed25519', 'd1');

function sign(alg: string, key: crypto.KeyObject | null, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const h = Buffer.from(JSON.stringify({ alg, typ: 'JWT', ...header })).toString('base64url');
  const p = Buffer.from(JSON.stringify(claims)).toString('base64url');
  if (alg === 'none') return `${h}.${p}.`;
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const opts = alg.startsWith('PS') ? { key: key!, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST } : alg.startsWith('ES') ? { key: key!, dsaEncoding: 'ieee-p1363' as const } : key!;
  return `${h}.${p}.${crypto.sign(hash, Buffer.from(`${h}.${p}`), opts).toString('base64url')}`;
}

const good = { sub: 'alice', iat: sec(NOW) - 10, exp: sec(NOW) + 3600 };

function settings(over: Partial<OAuthBearerSettings> = {}): OAuthBearerSettings {
  return { ...oauthBearerSettings({ jwks: { keys: [rsa.jwk, ec.jwk, ed.jwk] } }, () => ''), ...over };
}

describe('kafka/sasl/oauthbearer', () => {
  describe('settings', () => {
    it("Kafka's defaults; a key set from a file; refuses no keys without unsecured, and a key set that is not one", () => {
      expect(settings()).to.deep.include({ unsecured: false, expectedAudience: [], expectedIssuer: null, subClaimName: 'sub', scopeClaimName: 'scope', clockSkewSeconds: 30 });
      expect(oauthBearerSettings({ jwks: 'keys.json' }, (f) => (f === 'keys.json' ? JSON.stringify({ keys: [ec.jwk] }) : '')).keys).to.have.length(1);
      expect(oauthBearerSettings({ unsecured: true }, () => '').unsecured).to.equal(true);
      expect(() => oauthBearerSettings({}, () => '')).to.throw(/give a jwks/);
      expect(() => oauthBearerSettings({ jwks: { keys: [] } }, () => '')).to.throw(/at least one key/);
      expect(() => oauthBearerSettings({ jwks: { keys: [{ kty: 'RSA', n: 'x' }] } }, () => '')).to.throw();
    });
  });

  describe("the client's message (RFC 7628)", () => {
    it('the token, the authzid and the extensions', () => {
      expect(parseClientInitialResponse('n,,\u0001auth=Bearer abc.def.ghi\u0001\u0001')).to.deep.equal({ authzid: '', token: 'abc.def.ghi', extensions: new Map() });
      const r = parseClientInitialResponse('n,a=alice,\u0001auth=bearer t-1\u0001traceId=42\u0001\u0001');
      expect(r).to.deep.equal({ authzid: 'alice', token: 't-1', extensions: new Map([['traceId', '42']]) });
    });
    it('refuses other schemes, a missing auth, and malformed messages', () => {
      expect(parseClientInitialResponse('n,,\u0001auth=Basic abc\u0001\u0001')).to.equal('Invalid scheme in OAUTHBEARER client first message: Basic');
      expect(parseClientInitialResponse('n,,\u0001x=1\u0001\u0001')).to.equal('no auth key');
      expect(parseClientInitialResponse('y,,\u0001auth=Bearer a\u0001\u0001')).to.equal('not an OAUTHBEARER client initial response');
      expect(parseClientInitialResponse('n,,\u0001auth=Bearer a b\u0001\u0001')).to.equal('malformed auth value');
    });
  });

  describe('token validation', () => {
    for (const [alg, key] of [
      ['RS256', rsa.privateKey],
      ['RS512', rsa.privateKey],
      ['PS256', rsa.privateKey],
      ['ES256', ec.privateKey],
      ['EdDSA', ed.privateKey],
    ] as const) {
      it(`${alg}: a good token names its subject, scopes and expiry`, () => {
        const kid = alg.startsWith('ES') ? 'e1' : alg === 'EdDSA' ? 'd1' : 'r1';
        const t = sign(alg, key, { ...good, scope: ['read', 'write'] }, { kid });
        expect(validateToken(t, settings(), NOW)).to.deep.equal({ principal: 'alice', scopes: ['read', 'write'], expiresAt: good.exp * 1000 });
      });
    }

    it('picks the key by kid; without a kid, the only key of its type; a wrong kid or key fails', () => {
      expect(validateToken(sign('ES256', ec.privateKey, good), settings(), NOW)).to.have.property('principal', 'alice');
      expect(validateToken(sign('RS256', rsa.privateKey, good, { kid: 'nope' }), settings(), NOW)).to.equal('no key with kid "nope"');
      const other = keyPair('rsa', 'r1');
      expect(validateToken(sign('RS256', other.privateKey, good, { kid: 'r1' }), settings(), NOW)).to.equal('the signature does not verify');
      const two = settings({ keys: [rsa.jwk, { ...keyPair('rsa', 'r2').jwk }] });
      expect(validateToken(sign('RS256', rsa.privateKey, good), two, NOW)).to.match(/no single RSA key/);
      const hs = `${Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url')}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.c2ln`;
      expect(validateToken(hs, settings(), NOW)).to.match(/unsupported or missing alg "HS256"/);
    });

    it('exp and iat required; exp and nbf within the clock skew', () => {
      const t = (claims: Record<string, unknown>) => validateToken(sign('RS256', rsa.privateKey, claims, { kid: 'r1' }), settings(), NOW);
      expect(t({ sub: 'a', iat: 1 })).to.equal('exp value must be non-null');
      expect(t({ sub: 'a', exp: sec(NOW) + 60 })).to.equal('iat value must be non-null');
      expect(t({ ...good, exp: sec(NOW) - 20 })).to.have.property('principal');
      expect(t({ ...good, exp: sec(NOW) - 31 })).to.match(/the token expired at/);
      expect(t({ ...good, nbf: sec(NOW) + 20 })).to.have.property('principal');
      expect(t({ ...good, nbf: sec(NOW) + 31 })).to.match(/not valid before/);
      expect(t({ ...good, exp: 'soon' })).to.equal('exp value must be a number');
    });

    it('audience and issuer when configured; the subject and scope claims by their configured names', () => {
      const s = settings({ expectedAudience: ['kafka', 'other'], expectedIssuer: 'https://idp', subClaimName: 'client_id', scopeClaimName: 'scp' });
      const t = (claims: Record<string, unknown>) => validateToken(sign('RS256', rsa.privateKey, claims, { kid: 'r1' }), s, NOW);
      const base = { ...good, client_id: 'svc-1', aud: ['kafka'], iss: 'https://idp', scp: 'read write' };
      expect(t(base)).to.deep.equal({ principal: 'svc-1', scopes: ['read write'], expiresAt: good.exp * 1000 });
      expect(t({ ...base, aud: 'other' })).to.have.property('principal', 'svc-1');
      expect(t({ ...base, aud: ['web'] })).to.equal('the audience (aud) is none of kafka, other');
      expect(t({ ...base, iss: 'https://evil' })).to.equal('the issuer (iss) is not https://idp');
      expect(t({ ...base, client_id: '  ' })).to.equal('client_id value must be a non-blank string');
      expect(t({ ...base, scp: ['a', 'a'] })).to.equal('scp value must not contain duplicates - a already present');
      expect(t({ ...base, scp: ['a', ''] })).to.equal('scp values must be non-blank strings');
    });

    it('unsigned tokens only when unsecured', () => {
      const none = sign('none', null, good);
      expect(validateToken(none, settings(), NOW)).to.equal('unsigned tokens (alg none) are not accepted');
      const dev = oauthBearerSettings({ unsecured: true }, () => '');
      expect(validateToken(none, dev, NOW)).to.have.property('principal', 'alice');
      expect(validateToken(sign('RS256', rsa.privateKey, good), dev, NOW)).to.equal('no keys to verify signed tokens with');
      expect(validateToken('a.b', dev, NOW)).to.equal('not a JWS compact serialization (three parts)');
    });
  });

  describe('the exchange', () => {
    const message = (token: string, authzid = '') => Buffer.from(`n,${authzid ? `a=${authzid}` : ''},\u0001auth=Bearer ${token}\u0001\u0001`);

    it('a good token: done at once, with the principal and the expiry', () => {
      const server = new OAuthBearerServer(settings(), () => NOW);
      expect(server.step(message(sign('RS256', rsa.privateKey, good, { kid: 'r1' })))).to.deep.include({ kind: 'authenticated', principal: 'alice', expiresAt: good.exp * 1000 });
    });
    it("a bad token: Kafka's JSON error, then the client's SOH fails the exchange with it", () => {
      const server = new OAuthBearerServer(settings(), () => NOW);
      const first = server.step(message(sign('RS256', rsa.privateKey, { ...good, exp: 1 }, { kid: 'r1' })));
      expect(first.kind).to.equal('challenge');
      expect((first as { response: Buffer }).response.toString()).to.equal('{"status":"invalid_token"}');
      expect(server.step(Buffer.from([1]))).to.deep.include({ kind: 'failed', errorMessage: '{"status":"invalid_token"}' });
    });
    it('an authzid other than the principal fails', () => {
      const server = new OAuthBearerServer(settings(), () => NOW);
      const r = server.step(message(sign('RS256', rsa.privateKey, good, { kid: 'r1' }), 'bob'));
      expect(r).to.deep.include({ kind: 'failed', errorMessage: "Authentication failed: Client requested an authorization id (bob) that is different from the token's principal name (alice)" });
    });
  });
});
