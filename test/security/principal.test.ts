/**
 * The principal a Kafka connection gets, as Kafka's default principal builder names it: the SASL
 * user, else a verified client certificate's subject in RFC 2253 order, else ANONYMOUS.
 */
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { connectionPrincipal, subjectDn } from '../../src/security/principal.js';
import { SslPrincipalMapper } from '../../src/security/ssl-principal-mapper.js';

const TLS_DIR = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
const pem = (f: string) => fs.readFileSync(TLS_DIR + f);

/** A TLS server asking for client certificates; resolves with the principal of the first connection. */
async function principalOverTls(clientOptions: tls.ConnectionOptions, saslUser: string | null = null, mapper?: SslPrincipalMapper): Promise<string | null> {
  const server = tls.createServer({ key: pem('server.key'), cert: pem('server.pem'), ca: pem('ca.pem'), requestCert: true, rejectUnauthorized: false });
  const seen = new Promise<string | null>((resolve) => server.once('secureConnection', (s: tls.TLSSocket) => { resolve(connectionPrincipal(s, saslUser, mapper)); s.end(); }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  const client = tls.connect({ host: '127.0.0.1', port, ca: pem('ca.pem'), servername: 'localhost', ...clientOptions });
  client.on('error', () => undefined);
  try {
    return await seen;
  } finally {
    client.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

describe('connection principal', () => {
  it("a certificate's subject reads most specific first (RFC 2253), as Kafka names it", () => {
    expect(subjectDn(pem('dn-example.pem'))).to.equal('CN=alice,OU=Payments,O=Example Org,C=US');
    expect(subjectDn(pem('client.pem'))).to.equal('CN=samsa test client');
    expect(subjectDn(Buffer.from('not a certificate'))).to.equal(null);
  });

  it('a client certificate the CA signed names the principal', async () => {
    expect(await principalOverTls({ key: pem('client.key'), cert: pem('client.pem') })).to.equal('User:CN=samsa test client');
  });

  it('a TLS client without a certificate is ANONYMOUS; a SASL user wins over a certificate', async () => {
    expect(await principalOverTls({})).to.equal('User:ANONYMOUS');
    expect(await principalOverTls({ key: pem('client.key'), cert: pem('client.pem') }, 'alice')).to.equal('User:alice');
  });

  it('ssl.principal.mapping.rules map the certificate subject; a subject no rule applies to has no principal', async () => {
    const client = { key: pem('client.key'), cert: pem('client.pem') };
    expect(await principalOverTls(client, null, SslPrincipalMapper.fromRules('RULE:^CN=samsa (.*)$/$1/U'))).to.equal('User:TEST CLIENT');
    expect(await principalOverTls(client, null, SslPrincipalMapper.fromRules('RULE:^CN=other$/x/'))).to.equal(null);
    // a SASL user is not mapped
    expect(await principalOverTls(client, 'alice', SslPrincipalMapper.fromRules('RULE:^CN=other$/x/'))).to.equal('User:alice');
  });

  it('a plain socket is ANONYMOUS, or its SASL user', () => {
    const socket = new net.Socket();
    expect(connectionPrincipal(socket, null)).to.equal('User:ANONYMOUS');
    expect(connectionPrincipal(socket, 'bob')).to.equal('User:bob');
    socket.destroy();
  });
});
