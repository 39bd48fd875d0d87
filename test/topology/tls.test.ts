/**
 * TLS on samsa's own TCP connections from a topology: a client listener with `tls` serves
 * SamsaClient.connect({ tls }) and the CLI (SAMSA_TLS_* environment), refuses clients that do not
 * trust its CA or speak plain TCP, and with `clientAuth: 'required'` only clients with a
 * certificate from the CA; tcp nodes and listeners have their tls keys checked.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tlsFromEnv } from '../../src/cli/cluster.js';
import { CliError } from '../../src/cli/errors.js';
import { SamsaClient } from '../../src/client/samsa.js';
import { TopologyError, parseTopology, type TopologyConfig, type TransportTlsEntry } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { runCli } from '../cli/cli-harness.js';

const file = (f: string) => fileURLToPath(new URL(`../fixtures/tls/${f}`, import.meta.url));
const pem = (f: string) => fs.readFileSync(file(f));
const SERVER: TransportTlsEntry = { keyFile: file('server.key'), certFile: file('server.pem'), caFile: file('ca.pem') };

function topology(tls: TransportTlsEntry): TopologyConfig {
  return parseTopology({
    clusterId: 'tls-listeners',
    logLevel: 'silent',
    nodes: [
      { id: 'main', kind: 'inproc' },
      { id: 'b1', kind: 'inproc' },
    ],
    controller: { node: 'main', metadataDir: 'controller' },
    brokers: [{ id: 1, node: 'b1', logDir: 'broker-1', config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.replication.factor': 1 } }],
    listeners: [{ node: 'main', host: '127.0.0.1', port: 0, tls }],
    topics: [{ name: 'sealed', partitions: 1, replicationFactor: 1 }],
  });
}

async function refused(connect: () => Promise<SamsaClient>): Promise<string> {
  try {
    const c = await connect();
    await c.close();
  } catch (err) {
    return (err as Error).message;
  }
  return 'connected';
}

describe('topology: TLS for samsa clients and nodes', function () {
  this.timeout(60_000);
  let dir: string;
  let h: ClusterHandle | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-tls-topology-'));
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a client listener with tls serves clients that trust its CA (SamsaClient and the CLI), and refuses the others', async () => {
    h = await startCluster(topology(SERVER), { baseDir: dir });
    const addr = h.addresses()[0]!;
    const client = await SamsaClient.connect({ brokers: [addr], clientId: 'tls-client', tls: { ca: pem('ca.pem') } });
    try {
      const producer = client.producer();
      await producer.connect();
      await producer.send({ topic: 'sealed', messages: [{ value: 'over tls' }] });
      await producer.disconnect();
      const admin = client.admin();
      await admin.connect();
      expect((await admin.fetchTopicOffsets('sealed'))[0]!.high).to.equal(1);
      await admin.disconnect();
    } finally {
      await client.close();
    }
    expect(await refused(() => SamsaClient.connect({ brokers: [addr], clientId: 'plain', connectTimeoutMs: 2_000 }))).to.not.equal('connected');
    expect(await refused(() => SamsaClient.connect({ brokers: [addr], clientId: 'doubtful', tls: { ca: pem('other-ca.pem') }, connectTimeoutMs: 2_000 }))).to.not.equal('connected');

    const cli = await runCli(['topics', '--list', '--bootstrap-server', addr], { env: { SAMSA_TLS_CA_FILE: file('ca.pem') } });
    expect(cli.code, cli.stderr).to.equal(0);
    expect(cli.stdout).to.match(/^sealed$/m);
  });

  it("with clientAuth 'required' only clients with a certificate from the CA get in", async () => {
    h = await startCluster(topology({ ...SERVER, clientAuth: 'required' }), { baseDir: dir });
    const addr = h.addresses()[0]!;
    expect(await refused(() => SamsaClient.connect({ brokers: [addr], clientId: 'anonymous', tls: { ca: pem('ca.pem') }, connectTimeoutMs: 2_000 }))).to.not.equal('connected');
    const client = await SamsaClient.connect({ brokers: [addr], clientId: 'known', tls: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client.key') } });
    const admin = client.admin();
    await admin.connect();
    expect(await admin.listTopics()).to.include('sealed');
    await admin.disconnect();
    await client.close();
  });

  it('checks tls keys on tcp nodes and listeners, and refuses to start on a missing file', async () => {
    const problems = (t: unknown) => {
      try {
        parseTopology(t);
        return [];
      } catch (err) {
        if (err instanceof TopologyError) return err.problems.map((p) => `${p.path}: ${p.message}`);
        throw err;
      }
    };
    const tcp = (tls: unknown) => ({
      clusterId: 'x',
      nodes: [{ id: 'n1', kind: 'tcp', host: '127.0.0.1', port: 7001, tls }],
      controller: { node: 'n1', metadataDir: 'c' },
      brokers: [{ id: 1, node: 'n1', logDir: 'b1' }],
    });
    expect(problems(tcp(SERVER))).to.deep.equal([]);
    expect(problems(tcp({ keyFile: 'k', certFile: 'c' }))).to.deep.equal(['nodes[0].tls.caFile: is required']);
    expect(problems(tcp({ ...SERVER, clientAuth: 'requested' }))).to.deep.equal([`nodes[0].tls.clientAuth: must be 'none' or 'required', got "requested"`]);
    const inproc = { clusterId: 'x', nodes: [{ id: 'main', kind: 'inproc', tls: SERVER }], controller: { node: 'main', metadataDir: 'c' }, brokers: [{ id: 1, node: 'main', logDir: 'b1' }] };
    expect(problems(inproc)).to.deep.equal(['nodes[0].tls: only tcp nodes take tls (in-process and worker nodes talk inside the process)']);
    try {
      h = await startCluster(topology({ ...SERVER, caFile: file('missing-ca.pem') }), { baseDir: dir });
      expect.fail('started');
    } catch (err) {
      expect(err).to.be.instanceOf(TopologyError);
      expect((err as TopologyError).problems.map((p) => p.path)).to.deep.equal(['listeners[0].tls.caFile']);
    }
    expect(fs.readdirSync(dir), 'nothing started').to.deep.equal([]);
  });

  it('the CLI takes its TLS files from SAMSA_TLS_CA_FILE, SAMSA_TLS_CERT_FILE and SAMSA_TLS_KEY_FILE', () => {
    expect(tlsFromEnv({})).to.equal(null);
    expect(tlsFromEnv({ SAMSA_TLS_CA_FILE: file('ca.pem') })).to.deep.equal({ ca: pem('ca.pem') });
    expect(tlsFromEnv({ SAMSA_TLS_CA_FILE: file('ca.pem'), SAMSA_TLS_CERT_FILE: file('client.pem'), SAMSA_TLS_KEY_FILE: file('client.key') })).to.deep.equal({ ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client.key') });
    expect(() => tlsFromEnv({ SAMSA_TLS_CA_FILE: '/nope/ca.pem' })).to.throw(CliError, /SAMSA_TLS_CA_FILE=\/nope\/ca.pem cannot be read: ENOENT/);
    expect(() => tlsFromEnv({ SAMSA_TLS_CERT_FILE: file('client.pem'), SAMSA_TLS_KEY_FILE: file('client.key') })).to.throw(CliError, /need SAMSA_TLS_CA_FILE/);
    expect(() => tlsFromEnv({ SAMSA_TLS_CA_FILE: file('ca.pem'), SAMSA_TLS_CERT_FILE: file('client.pem') })).to.throw(CliError, /both SAMSA_TLS_CERT_FILE and SAMSA_TLS_KEY_FILE/);
  });
});
