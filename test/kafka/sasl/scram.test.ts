/**
 * The SCRAM server (src/kafka/sasl/scram.ts): RFC 7677's SCRAM-SHA-256 example exchange byte for
 * byte, SHA-512 against a client computed here, and every way a client-first or client-final
 * message can be refused.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { ScramServer, scramCredential, type ScramHash } from '../../../src/kafka/sasl/scram.js';

/** A SCRAM client (RFC 5802), for the tests. */
function clientFinal(hash: ScramHash, password: string, clientFirstBare: string, serverFirst: string, finalNonce?: string): { message: string; serverSignature: string } {
  const digest = hash === 'SHA-256' ? 'sha256' : 'sha512';
  const attrs = Object.fromEntries(serverFirst.split(',').map((p) => [p[0], p.slice(2)]));
  const salted = crypto.pbkdf2Sync(password, Buffer.from(attrs.s!, 'base64'), Number(attrs.i), hash === 'SHA-256' ? 32 : 64, digest);
  const clientKey = crypto.createHmac(digest, salted).update('Client Key').digest();
  const storedKey = crypto.createHash(digest).update(clientKey).digest();
  const withoutProof = `c=biws,r=${finalNonce ?? attrs.r}`;
  const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
  const signature = crypto.createHmac(digest, storedKey).update(authMessage).digest();
  const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
  const serverKey = crypto.createHmac(digest, salted).update('Server Key').digest();
  return { message: `${withoutProof},p=${proof.toString('base64')}`, serverSignature: crypto.createHmac(digest, serverKey).update(authMessage).digest('base64') };
}

describe('kafka/sasl/scram', () => {
  it("answers RFC 7677's SCRAM-SHA-256 example exactly", () => {
    const cred = scramCredential('SHA-256', 'pencil', Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'), 4096);
    const server = new ScramServer('SHA-256', (u) => (u === 'user' ? cred : null), () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    const first = server.step('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    expect(first).to.deep.equal({ ok: true, done: false, user: 'user', token: null, response: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096' });
    const final = server.step('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(final).to.deep.equal({ ok: true, done: true, user: 'user', token: null, response: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=' });
    expect(server.step('anything').ok, 'nothing after the last step').to.equal(false);
  });

  it('SCRAM-SHA-512 with a user name that needs escaping', () => {
    const cred = scramCredential('SHA-512', 's3cret');
    const server = new ScramServer('SHA-512', (u) => (u === 'a,b=c' ? cred : null));
    const bare = 'n=a=2Cb=3Dc,r=abc123';
    const first = server.step(`n,,${bare}`);
    expect(first.ok && first.user).to.equal('a,b=c');
    const c = clientFinal('SHA-512', 's3cret', bare, first.ok ? first.response : '');
    expect(server.step(c.message)).to.deep.equal({ ok: true, done: true, user: 'a,b=c', token: null, response: `v=${c.serverSignature}` });
  });

  it("takes a client-final nonce that ends with the server's, as Kafka does (librdkafka repeats its own in front)", () => {
    const cred = scramCredential('SHA-256', 'pw');
    const server = new ScramServer('SHA-256', () => cred, () => 'SERVER');
    const bare = 'n=u,r=cn';
    const first = server.step(`n,,${bare}`);
    expect(first.ok && first.response.startsWith('r=cnSERVER,')).to.equal(true);
    // what librdkafka computes: its nonce, then the whole server nonce
    const c = clientFinal('SHA-256', 'pw', bare, first.ok ? first.response : '', 'cncnSERVER');
    expect(server.step(c.message).ok).to.equal(true);
  });

  it('refuses a wrong password and an unknown user alike, at the proof', () => {
    const cred = scramCredential('SHA-256', 'right');
    for (const [user, password] of [['alice', 'wrong'], ['mallory', 'right']] as const) {
      const server = new ScramServer('SHA-256', (u) => (u === 'alice' ? cred : null));
      const bare = `n=${user},r=nonce1`;
      const first = server.step(`n,,${bare}`);
      expect(first.ok, 'the first step never tells').to.equal(true);
      const c = clientFinal('SHA-256', password, bare, first.ok ? first.response : '');
      expect(server.step(c.message)).to.deep.equal({ ok: false, reason: 'invalid credentials' });
    }
  });

  it('refuses malformed messages, channel binding, mandatory extensions, another authzid, a changed nonce', () => {
    const cred = scramCredential('SHA-256', 'pw');
    const fresh = () => new ScramServer('SHA-256', () => cred);
    const reason = (msgs: string[]) => {
      const s = fresh();
      let last;
      for (const m of msgs) last = s.step(m);
      return last && !last.ok ? last.reason : 'accepted';
    };
    expect(reason(['garbage'])).to.equal('malformed client-first message');
    expect(reason(['p=tls-unique,,n=u,r=x'])).to.equal('channel binding is not supported');
    expect(reason(['n,,m=ext,n=u,r=x'])).to.equal('mandatory extensions are not supported');
    expect(reason(['n,a=other,n=u,r=x'])).to.equal('an authorization id different from the user name is not allowed');
    expect(reason(['n,,n=bad=41,r=x'])).to.equal('malformed user name');
    expect(reason(['n,,n=u,r=x', 'c=biws,r=changed,p=AAAA'])).to.equal('nonce mismatch');
    expect(reason(['n,,n=u,r=x', 'c=eSws,r=x,p=AAAA'])).to.equal('channel binding data does not match');
    expect(reason(['n,,n=u,r=x', 'nonsense'])).to.equal('malformed client-final message');
  });

  it('ignores extensions it does not know, and refuses a malformed one', () => {
    const cred = scramCredential('SHA-256', 'pw');
    const server = new ScramServer('SHA-256', () => cred, () => 'S');
    const bare = 'n=u,r=cn,foo=bar,tokenauth=false';
    const first = server.step(`n,,${bare}`);
    expect(first.ok && first.user).to.equal('u');
    const c = clientFinal('SHA-256', 'pw', bare, first.ok ? first.response : '');
    expect(server.step(c.message)).to.deep.include({ ok: true, user: 'u', token: null });
    expect(new ScramServer('SHA-256', () => cred).step('n,,n=u,r=cn,not an extension')).to.deep.equal({ ok: false, reason: 'malformed client-first message' });
  });

  it("with tokenauth=true (Kafka's ScramExtensions), the user is a token id: the token's credential, its owner the authorization id; an unknown token fails at once", () => {
    const hmac = Buffer.alloc(64, 7).toString('base64');
    const cred = scramCredential('SHA-512', hmac);
    const token = { tokenId: 'tok', owner: 'alice', expiryTimestamp: 99 };
    const lookups: string[] = [];
    const server = new ScramServer('SHA-512', () => null, () => 'S', (id) => (lookups.push(id), id === 'tok' ? { credential: cred, token } : null));
    const bare = 'n=tok,r=cn,tokenauth=TRUE';
    const first = server.step(`n,,${bare}`);
    expect(first).to.deep.include({ ok: true, user: 'alice', token });
    const c = clientFinal('SHA-512', hmac, bare, first.ok ? first.response : '');
    expect(server.step(c.message)).to.deep.equal({ ok: true, done: true, user: 'alice', token, response: `v=${c.serverSignature}` });
    const other = new ScramServer('SHA-512', () => cred, () => 'S', () => null);
    expect(other.step('n,,n=ghost,r=cn,tokenauth=true')).to.deep.equal({ ok: false, reason: 'Token Authentication failed: Invalid tokenId : ghost' });
    // without the extension the token id is looked up as a user
    expect(lookups).to.deep.equal(['tok']);
  });
});
