/**
 * Kafka listeners over TLS (Kafka's SSL security protocol), with the test certificates of
 * test/fixtures/tls: KafkaJS with `ssl` creates a topic, produces and consumes through every
 * broker; kcat with security.protocol=ssl lists the brokers; a plain-TCP client and a client that
 * does not trust the broker's CA fail their handshake (counted, logged) while the others carry on;
 * with clientAuth 'required' only a client with a certificate from the CA gets in. A topology whose
 * TLS files are missing or do not match is refused before anything starts, naming the key.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { kafkaListenerName, type KafkaListenerDescription } from '../../actors/kafka-listener/listener.js';
import { TopologyError, parseTopology, type TopologyConfig } from '../../src/topology/config.js';
import { startCluster } from '../../src/topology/start-cluster.js';
import { checkFor } from '../helpers/check-for.js';
import { STANDARD_AUTHORIZER } from '../../actors/broker/broker-config.js';
import { hasCommand } from '../helpers/has-command.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';

const DIR = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
const pem = (f: string) => fs.readFileSync(path.join(DIR, f), 'utf8');
const file = (f: string) => path.join(DIR, f);
const SERVER = { keyFile: file('server.key'), certFile: file('server.pem') };

function client(c: KafkaTestCluster, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: 'tls-test', brokers: c.bootstrap, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 200 }, ...extra });
}

async function listener(c: KafkaTestCluster, brokerId: number): Promise<KafkaListenerDescription> {
  const r = await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(brokerId)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 });
  return r as KafkaListenerDescription;
}

describe('Kafka listeners over TLS', function () {
  this.timeout(60_000);

  describe('server TLS (clientAuth none)', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 2, tls: SERVER });
    });
    after(async () => {
      await c?.stop();
    });

    it('KafkaJS with ssl creates a topic, produces and consumes through both brokers', async () => {
      const kafka = client(c, { ssl: { ca: [pem('ca.pem')] } });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'sealed', numPartitions: 2, replicationFactor: 2 }], waitForLeaders: true });
      await admin.disconnect();
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic: 'sealed', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: 'sealed-readers', sessionTimeout: 6_000, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
      const seen: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic: 'sealed', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
      try {
        await checkFor(() => seen.length === 10, 20_000, 20);
      } finally {
        await consumer.disconnect();
      }
      expect(seen.sort()).to.deep.equal(Array.from({ length: 10 }, (_, i) => `v${i}`).sort());
      for (const id of [1, 2]) expect(await listener(c, id)).to.include({ tls: true });
    });

    it('a plain-TCP client and a client that does not trust the CA fail their handshake; the listener carries on', async () => {
      const before = (await listener(c, 1)).handshakeFailures;
      for (const extra of [{}, { ssl: { ca: [pem('other-ca.pem')] } }] as Partial<KafkaConfig>[]) {
        const admin = client(c, extra).admin();
        let failed: Error | null = null;
        try {
          await admin.connect();
          await admin.listTopics();
        } catch (err) {
          failed = err as Error;
        } finally {
          await admin.disconnect().catch(() => undefined);
        }
        expect(failed, JSON.stringify(Object.keys(extra))).to.not.equal(null);
      }
      await checkFor(async () => (await listener(c, 1)).handshakeFailures >= before + 2, 10_000, 20);
      const admin = client(c, { ssl: { ca: [pem('ca.pem')] } }).admin();
      await admin.connect();
      expect(await admin.listTopics()).to.include('sealed');
      await admin.disconnect();
    });

    it('kcat with security.protocol=ssl lists the brokers', async function () {
      if (!hasCommand('kcat', ['-V'])) this.skip();
      const out = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const p = spawn('kcat', ['-b', c.bootstrap[0]!, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${file('ca.pem')}`, '-L', '-m', '10']);
        let o = '';
        let e = '';
        p.stdout.on('data', (d: Buffer) => (o += d.toString()));
        p.stderr.on('data', (d: Buffer) => (e += d.toString()));
        p.on('close', (code) => resolve({ code, out: o, err: e }));
      });
      expect(out.code, out.err).to.equal(0);
      expect(out.out).to.match(/2 brokers:/);
    });
  });

  describe('mutual TLS (clientAuth required)', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 1, tls: { ...SERVER, caFile: file('ca.pem'), clientAuth: 'required' } });
    });
    after(async () => {
      await c?.stop();
    });

    it('lets in only a client with a certificate from the CA', async () => {
      const anonymous = client(c, { ssl: { ca: [pem('ca.pem')] } }).admin();
      let failed = false;
      try {
        await anonymous.connect();
        await anonymous.listTopics();
      } catch {
        failed = true;
      } finally {
        await anonymous.disconnect().catch(() => undefined);
      }
      expect(failed, 'a client without a certificate is refused').to.equal(true);
      const known = client(c, { ssl: { ca: [pem('ca.pem')], cert: pem('client.pem'), key: pem('client.key') } }).admin();
      await known.connect();
      await known.createTopics({ topics: [{ topic: 'mutual' }] });
      expect(await known.listTopics()).to.include('mutual');
      await known.disconnect();
    });
  });

  describe('mutual TLS with ssl.principal.mapping.rules (KIP-371)', () => {
    let c: KafkaTestCluster;
    before(async () => {
      // the mapped name is the super user: the authorizer lets it do anything only if the mapping applied
      c = await startKafkaCluster({
        brokers: 1,
        tls: { ...SERVER, caFile: file('ca.pem'), clientAuth: 'required' },
        brokerConfig: { 'ssl.principal.mapping.rules': 'RULE:^CN=samsa (.*)$/$1/U', 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:TEST CLIENT' },
      });
    });
    after(async () => {
      await c?.stop();
    });

    it('the client certificate subject is mapped to the principal the ACLs see', async () => {
      const admin = client(c, { ssl: { ca: [pem('ca.pem')], cert: pem('client.pem'), key: pem('client.key') } }).admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'mapped' }] });
      expect(await admin.listTopics()).to.include('mapped');
      await admin.disconnect();
    });

    it('refuses a broker config whose rules cannot be read, naming the key', async () => {
      let error: unknown = null;
      try {
        const bad = await startKafkaCluster({ brokers: 1, tls: { ...SERVER, caFile: file('ca.pem'), clientAuth: 'required' }, brokerConfig: { 'ssl.principal.mapping.rules': 'RULE:nonsense' } });
        await bad.stop();
      } catch (e) {
        error = e;
      }
      expect(String(error)).to.contain('ssl.principal.mapping.rules');
    });
  });

  describe('mutual TLS with rules that do not apply to the client', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 1, tls: { ...SERVER, caFile: file('ca.pem'), clientAuth: 'required' }, brokerConfig: { 'ssl.principal.mapping.rules': 'RULE:^CN=someone else$/x/' } });
    });
    after(async () => {
      await c?.stop();
    });

    it('closes the connection of a client whose certificate no rule maps, as Kafka', async () => {
      const admin = client(c, { ssl: { ca: [pem('ca.pem')], cert: pem('client.pem'), key: pem('client.key') } }).admin();
      let failed = false;
      try {
        await admin.connect();
        await admin.listTopics();
      } catch {
        failed = true;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
      expect(failed).to.equal(true);
    });
  });

  describe('topology', () => {
    const base = (tls: unknown): Record<string, unknown> => ({
      clusterId: 'tls-topology',
      logLevel: 'silent',
      nodes: [{ id: 'main', kind: 'inproc' }],
      controller: { node: 'main', metadataDir: 'controller' },
      brokers: [{ id: 1, node: 'main', logDir: 'broker-1', kafka: { host: '127.0.0.1', port: 0, tls } }],
    });
    const problems = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        if (err instanceof TopologyError) return err.problems.map((p) => `${p.path}: ${p.message}`);
        throw err;
      }
      return [];
    };

    it('checks the tls keys: files named, clientAuth one of three, a CA when client certificates are asked for', () => {
      expect(problems(() => parseTopology(base({ keyFile: 'k' })))).to.deep.include.members(['brokers[0].kafka.tls.certFile: is required']);
      expect(problems(() => parseTopology(base({ ...SERVER, clientAuth: 'maybe' })))).to.deep.equal([`brokers[0].kafka.tls.clientAuth: must be 'none', 'requested' or 'required', got "maybe"`]);
      expect(problems(() => parseTopology(base({ ...SERVER, clientAuth: 'required' })))).to.deep.equal([`brokers[0].kafka.tls.caFile: clientAuth 'required' checks client certificates against a CA: give caFile`]);
      expect(problems(() => parseTopology(base({ ...SERVER, clientAuth: 'requested', caFile: file('ca.pem') })))).to.deep.equal([]);
    });

    it('refuses to start, naming the key, when a file is missing or the key does not match the certificate', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-tls-'));
      try {
        const start = async (tls: unknown) => {
          try {
            const h = await startCluster(parseTopology(base(tls)) as TopologyConfig, { baseDir: dir });
            await h.stop();
            return [];
          } catch (err) {
            if (err instanceof TopologyError) return err.problems.map((p) => `${p.path}: ${p.message}`);
            throw err;
          }
        };
        expect(await start({ keyFile: file('nope.key'), certFile: file('server.pem') })).to.deep.equal([`brokers[0].kafka.tls.keyFile: cannot read ${file('nope.key')}: ENOENT`]);
        const mismatch = await start({ keyFile: file('client.key'), certFile: file('server.pem') });
        expect(mismatch).to.have.length(1);
        expect(mismatch[0]).to.match(/^brokers\[0\]\.kafka\.tls: the key, certificate or CA files are not usable PEM, or the key does not match the certificate: /);
        expect(fs.readdirSync(dir), 'nothing started').to.deep.equal([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
