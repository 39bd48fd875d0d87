/**
 * A connection's SASL state machine (src/kafka/sasl/authenticator.ts), one test per transition:
 * AwaitingHandshake -> Authenticating (enabled mechanism) or stays (another one);
 * Authenticating -> Authenticated (PLAIN; SCRAM after its second step) or Failed (bad
 * credentials); SaslAuthenticate before a handshake, a second handshake, anything after a
 * failure -> Failed with ILLEGAL_SASL_STATE. Re-authentication (KIP-368): Authenticated ->
 * Authenticating on a handshake of the same mechanism, back to Authenticated as the same user;
 * another mechanism or another user fails. SCRAM credentials set at run time (KIP-554) are
 * taken, and win over a configured user's. Delegation tokens (KIP-48): Authenticating ->
 * Authenticated as the token's owner, marked token-authenticated, until the token expires.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import { SaslAuthenticator, saslSettings, setDelegationTokens, setDynamicScram } from '../../../src/kafka/sasl/authenticator.js';
import { saltedPassword, scramCredential } from '../../../src/kafka/sasl/scram.js';
import { oauthBearerSettings } from '../../../src/kafka/sasl/oauthbearer.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const settings = saslSettings(['PLAIN', 'SCRAM-SHA-256'], { alice: 'alice-secret', bob: 'bob-secret' });
const plain = (authzid: string, user: string, password: string) => Buffer.from(`${authzid}\u0000${user}\u0000${password}`);

describe('kafka/sasl/authenticator', () => {
  it('AwaitingHandshake -> Authenticating for an enabled mechanism, answering the enabled ones', () => {
    const a = new SaslAuthenticator(settings);
    expect(a.handshake('PLAIN')).to.deep.equal({ errorCode: 0, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] });
    expect(a.state).to.equal('Authenticating');
  });

  it('AwaitingHandshake stays for a mechanism not enabled (UNSUPPORTED_SASL_MECHANISM), and a retry may pick another', () => {
    const a = new SaslAuthenticator(settings);
    expect(a.handshake('SCRAM-SHA-512')).to.deep.equal({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] });
    expect(a.state).to.equal('AwaitingHandshake');
    expect(a.handshake('PLAIN').errorCode).to.equal(0);
  });

  it('Authenticating -> Authenticated with PLAIN and the right password (authzid empty or the user)', () => {
    for (const authzid of ['', 'alice']) {
      const a = new SaslAuthenticator(settings);
      a.handshake('PLAIN');
      expect(a.authenticate(plain(authzid, 'alice', 'alice-secret'))).to.deep.include({ errorCode: 0, errorMessage: null });
      expect(a.state).to.equal('Authenticated');
      expect(a.user).to.equal('alice');
    }
  });

  it('Authenticating -> Failed with PLAIN and a wrong password, an unknown user, another authzid or a malformed message', () => {
    const cases: [Buffer, string][] = [
      [plain('', 'alice', 'bob-secret'), 'Authentication failed: Invalid username or password'],
      [plain('', 'carol', 'x'), 'Authentication failed: Invalid username or password'],
      [plain('bob', 'alice', 'alice-secret'), 'Authentication failed: Client requested an authorization id that is different from username'],
      [Buffer.from('alice:alice-secret'), 'Authentication failed: invalid SASL/PLAIN message'],
    ];
    for (const [bytes, message] of cases) {
      const a = new SaslAuthenticator(settings);
      a.handshake('PLAIN');
      expect(a.authenticate(bytes)).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message });
      expect(a.state).to.equal('Failed');
      expect(a.user).to.equal(null);
    }
  });

  it('Authenticating stays after SCRAM\'s first step and fails on a wrong proof', () => {
    const a = new SaslAuthenticator(settings);
    a.handshake('SCRAM-SHA-256');
    const first = a.authenticate(Buffer.from('n,,n=bob,r=abc'));
    expect(first.errorCode).to.equal(0);
    expect(first.authBytes.toString()).to.match(/^r=abc.+,s=.+,i=4096$/);
    expect(a.state).to.equal('Authenticating');
    const nonce = /^r=([^,]+)/.exec(first.authBytes.toString())![1];
    expect(a.authenticate(Buffer.from(`c=biws,r=${nonce},p=${Buffer.alloc(32).toString('base64')}`))).to.deep.include({
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256',
    });
    expect(a.state).to.equal('Failed');
    expect(a.failure).to.equal('invalid credentials');
  });

  it('SaslAuthenticate before a handshake, a second handshake, and anything after a failure: ILLEGAL_SASL_STATE', () => {
    const early = new SaslAuthenticator(settings);
    expect(early.authenticate(plain('', 'alice', 'alice-secret')).errorCode).to.equal(ErrorCode.ILLEGAL_SASL_STATE);
    expect(early.state).to.equal('Failed');
    const twice = new SaslAuthenticator(settings);
    twice.handshake('PLAIN');
    expect(twice.handshake('PLAIN').errorCode).to.equal(ErrorCode.ILLEGAL_SASL_STATE);
    expect(twice.state).to.equal('Failed');
    const after = new SaslAuthenticator(settings);
    after.handshake('PLAIN');
    after.authenticate(plain('', 'alice', 'nope'));
    expect(after.authenticate(plain('', 'alice', 'alice-secret')).errorCode).to.equal(ErrorCode.ILLEGAL_SASL_STATE);
    const done = new SaslAuthenticator(settings);
    done.handshake('PLAIN');
    done.authenticate(plain('', 'alice', 'alice-secret'));
    expect(done.authenticate(plain('', 'alice', 'alice-secret')).errorCode, 'Authenticated takes no more tokens').to.equal(ErrorCode.ILLEGAL_SASL_STATE);
  });

  it('Authenticated -> Authenticating -> Authenticated: re-authentication with the same mechanism as the same user (KIP-368)', () => {
    const a = new SaslAuthenticator(settings);
    a.handshake('PLAIN');
    a.authenticate(plain('', 'alice', 'alice-secret'));
    expect(a.reauthenticating).to.equal(false);
    expect(a.handshake('PLAIN').errorCode).to.equal(0);
    expect([a.state, a.reauthenticating]).to.deep.equal(['Authenticating', true]);
    expect(a.authenticate(plain('', 'alice', 'alice-secret')).errorCode).to.equal(0);
    expect([a.state, a.user, a.reauthenticating]).to.deep.equal(['Authenticated', 'alice', false]);
  });

  it('re-authentication fails with another mechanism (ILLEGAL_SASL_STATE), another user, or a wrong password', () => {
    const auth = () => {
      const a = new SaslAuthenticator(settings);
      a.handshake('PLAIN');
      a.authenticate(plain('', 'alice', 'alice-secret'));
      return a;
    };
    const other = auth();
    expect(other.handshake('SCRAM-SHA-256').errorCode).to.equal(ErrorCode.ILLEGAL_SASL_STATE);
    expect(other.state).to.equal('Failed');
    const bob = auth();
    bob.handshake('PLAIN');
    expect(bob.authenticate(plain('', 'bob', 'bob-secret'))).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Cannot change principals during re-authentication' });
    expect(bob.state).to.equal('Failed');
    const wrong = auth();
    wrong.handshake('PLAIN');
    expect(wrong.authenticate(plain('', 'alice', 'nope')).errorCode).to.equal(ErrorCode.SASL_AUTHENTICATION_FAILED);
  });

  it('takes SCRAM credentials set at run time (KIP-554), over a configured user\'s, and forgets them when they are replaced', () => {
    const s = saslSettings(['SCRAM-SHA-256'], { bob: 'bob-secret' });
    const cred = scramCredential('SHA-256', 'new-secret', Buffer.from('salty'), 4096);
    const entry = (user: string) => ({ user, mechanism: 1, salt: cred.salt.toString('base64'), storedKey: cred.storedKey.toString('base64'), serverKey: cred.serverKey.toString('base64'), iterations: 4096 });
    setDynamicScram(s, [entry('carol'), entry('bob')]);
    expect(s.dynamicScram.get('carol')?.['SHA-256']?.iterations).to.equal(4096);
    const first = (user: string) => {
      const a = new SaslAuthenticator(s);
      a.handshake('SCRAM-SHA-256');
      return a.authenticate(Buffer.from(`n,,n=${user},r=abc`)).authBytes.toString();
    };
    // the salt in the server's first message is the credential's
    expect(first('carol')).to.include(`s=${cred.salt.toString('base64')}`);
    expect(first('bob')).to.include(`s=${cred.salt.toString('base64')}`);
    setDynamicScram(s, []);
    expect(first('carol')).to.not.include(`s=${cred.salt.toString('base64')}`);
    expect(first('bob')).to.not.include(`s=${cred.salt.toString('base64')}`);
  });

  it('Authenticating -> Authenticated as a delegation token\'s owner (tokenauth=true), token-authenticated; an expired or removed token -> Failed', () => {
    const s = saslSettings(['SCRAM-SHA-256'], { bob: 'bob-secret' });
    const password = Buffer.alloc(64, 3).toString('base64');
    const cred = scramCredential('SHA-256', password, Buffer.from('salty'), 4096);
    const tokens = [{ tokenId: 'tok', owner: 'User:alice', expiryTimestamp: 1_000, maxTimestamp: 2_000, credentials: [{ mechanism: 1, salt: cred.salt.toString('base64'), storedKey: cred.storedKey.toString('base64'), serverKey: cred.serverKey.toString('base64'), iterations: 4096 }] }];
    setDelegationTokens(s, tokens);
    const login = (now: number, user = 'tok', ext = ',tokenauth=true') => {
      const a = new SaslAuthenticator(s, () => now);
      a.handshake('SCRAM-SHA-256');
      const bare = `n=${user},r=abc${ext}`;
      const first = a.authenticate(Buffer.from(`n,,${bare}`));
      if (first.errorCode !== 0) return a;
      const serverFirst = first.authBytes.toString();
      const attrs = Object.fromEntries(serverFirst.split(',').map((x) => [x[0], x.slice(2)])) as Record<string, string>;
      const salted = saltedPassword('SHA-256', password, Buffer.from(attrs.s!, 'base64'), 4096);
      const clientKey = crypto.createHmac('sha256', salted).update('Client Key').digest();
      const storedKey = crypto.createHash('sha256').update(clientKey).digest();
      const withoutProof = `c=biws,r=${attrs.r}`;
      const sig = crypto.createHmac('sha256', storedKey).update(`${bare},${serverFirst},${withoutProof}`).digest();
      a.authenticate(Buffer.from(`${withoutProof},p=${Buffer.from(clientKey.map((b, i) => b ^ sig[i]!)).toString('base64')}`));
      return a;
    };
    const ok = login(1_000);
    expect(ok.state).to.equal('Authenticated');
    expect(ok.user).to.equal('alice');
    expect(ok.token).to.deep.equal({ tokenId: 'tok', owner: 'alice', expiryTimestamp: 1_000 });
    expect(login(1_001).state, 'past its expiry').to.equal('Failed');
    expect(login(500, 'tok', '').state, 'the token id is no user').to.equal('Failed');
    setDelegationTokens(s, []);
    expect(login(500).state, 'removed').to.equal('Failed');
    // a user's login is not token-authenticated
    const bob = new SaslAuthenticator(settings);
    bob.handshake('PLAIN');
    bob.authenticate(plain('', 'bob', 'bob-secret'));
    expect([bob.state, bob.token]).to.deep.equal(['Authenticated', null]);
  });
});

describe('kafka/sasl/authenticator: OAUTHBEARER', () => {
  const NOW = 1_800_000_000_000;
  const oauth = oauthBearerSettings({ unsecured: true }, () => '');
  const unsigned = (sub: string, exp = NOW / 1000 + 600) =>
    `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub, iat: NOW / 1000, exp })).toString('base64url')}.`;
  const message = (t: string) => Buffer.from(`n,,\u0001auth=Bearer ${t}\u0001\u0001`);
  const withOauth = saslSettings(['PLAIN', 'OAUTHBEARER'], { alice: 'alice-secret' }, oauth);

  it('is offered only with its settings', () => {
    expect(() => saslSettings(['OAUTHBEARER'], {})).to.throw(/OAUTHBEARER needs its token validation settings/);
    expect(new SaslAuthenticator(withOauth).handshake('OAUTHBEARER')).to.deep.equal({ errorCode: 0, mechanisms: ['PLAIN', 'OAUTHBEARER'] });
  });

  it('Authenticating -> Authenticated with a good token: its subject is the user, its expiry the credential\'s', () => {
    const a = new SaslAuthenticator(withOauth, () => NOW);
    a.handshake('OAUTHBEARER');
    expect(a.authenticate(message(unsigned('svc')))).to.deep.include({ errorCode: 0, errorMessage: null });
    expect(a).to.deep.include({ state: 'Authenticated', user: 'svc', credentialExpiresAt: NOW + 600_000, token: null });
  });

  it('Authenticating stays on a refused token (the JSON error), then -> Failed on the client\'s SOH', () => {
    const a = new SaslAuthenticator(withOauth, () => NOW);
    a.handshake('OAUTHBEARER');
    const first = a.authenticate(message(unsigned('svc', NOW / 1000 - 3600)));
    expect(first.errorCode).to.equal(0);
    expect(first.authBytes.toString()).to.equal('{"status":"invalid_token"}');
    expect(a.state).to.equal('Authenticating');
    expect(a.authenticate(Buffer.from([1]))).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: '{"status":"invalid_token"}' });
    expect(a.state).to.equal('Failed');
    expect(a.failure).to.match(/invalid token: the token expired/);
  });

  it('re-authentication (KIP-368) with a fresh token of the same subject keeps the session; another subject fails', () => {
    const a = new SaslAuthenticator(withOauth, () => NOW);
    a.handshake('OAUTHBEARER');
    a.authenticate(message(unsigned('svc')));
    a.handshake('OAUTHBEARER');
    expect(a.authenticate(message(unsigned('svc', NOW / 1000 + 1200))).errorCode).to.equal(0);
    expect(a.credentialExpiresAt).to.equal(NOW + 1_200_000);
    a.handshake('OAUTHBEARER');
    expect(a.authenticate(message(unsigned('mallory'))).errorCode).to.equal(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(a.state).to.equal('Failed');
  });
});
