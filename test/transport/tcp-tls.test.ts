/**
 * The TCP transport with TLS (src/transport/tcp.ts, `tls`): nodes with certificates from the
 * cluster's CA talk (the whole conformance suite also runs over mutual TLS); a node without a
 * certificate, one that does not trust the listener's CA, and a plain-TCP node are each refused,
 * while the listener keeps serving the good peer; a TLS listener without a key refuses to start.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { TcpTransport, type TcpTls } from '../../src/transport/tcp.js';
import { nodeTls } from './harnesses.js';

const read = (f: string) => fs.readFileSync(fileURLToPath(new URL(`../fixtures/tls/${f}`, import.meta.url)));
const OPTS = { clusterId: 'tls-test', reconnectInitialMs: 20, reconnectMaxMs: 100, handshakeTimeoutMs: 2_000 };

describe('transport/tcp: TLS', function () {
  this.timeout(20_000);
  const systems: ActorSystem[] = [];
  afterEach(async () => {
    for (const s of systems.splice(0)) await s.stop();
  });

  function node(id: string, tls: TcpTls | null): TcpTransport {
    const sys = new ActorSystem({ nodeId: id });
    systems.push(sys);
    return new TcpTransport(sys, { ...OPTS, tls });
  }

  it('nodes with certificates from the CA connect; others are refused and the listener carries on', async () => {
    const listener = node('server', nodeTls());
    const { port } = await listener.listen(0);
    expect(await node('good', nodeTls()).connect(port)).to.equal('server');

    const refused = async (t: TcpTransport) => {
      try {
        await t.connect(port);
      } catch (err) {
        return (err as Error).message;
      }
      return 'connected';
    };
    // no certificate of its own: the listener asks for one and refuses
    expect(await refused(node('anonymous', { ca: read('ca.pem') }))).to.match(/cannot connect to 127\.0\.0\.1:\d+/);
    // trusts another CA: refuses the listener's certificate
    expect(await refused(node('suspicious', { ...nodeTls(), ca: read('other-ca.pem') }))).to.match(/cannot connect to 127\.0\.0\.1:\d+: .*(certificate|self.signed|issuer)/i);
    // plain TCP against TLS: no handshake
    expect(await refused(node('plain', null))).to.match(/cannot connect/);
    expect(await node('good-again', nodeTls()).connect(port)).to.equal('server');
  });

  it('a TLS listener without its key and certificate refuses to start', () => {
    expect(() => node('keyless', { ca: read('ca.pem') }).listen(0)).to.throw(/a TLS listener needs tls.key and tls.cert/);
  });
});
