/**
 * SASL on the Kafka listeners (Kafka's SASL_PLAINTEXT and SASL_SSL): KafkaJS authenticates with
 * PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 and then produces and consumes; a wrong password and an
 * unknown user are refused and the connection closed; a mechanism not enabled is answered
 * UNSUPPORTED_SASL_MECHANISM; a request before authentication closes the connection; only a
 * SASL listener advertises SaslHandshake / SaslAuthenticate; kcat authenticates with SCRAM;
 * SASL over TLS works end to end; the topology's sasl keys are checked. SCRAM users created at run
 * time with AlterUserScramCredentials (KIP-554) authenticate on every broker (KafkaJS and kcat),
 * with their mechanisms only, and are refused once deleted. With connections.max.reauth.ms a
 * session ends unless the client re-authenticates on its connection (KIP-368), as itself only.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { saltedPassword } from '../../src/kafka/sasl/scram.js';
import { TopologyError, parseTopology } from '../../src/topology/config.js';
import { checkFor } from '../helpers/check-for.js';
import { hasCommand } from '../helpers/has-command.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { KafkaCaller, RawKafkaSocket } from '../helpers/raw-kafka.js';

const USERS = { alice: 'alice-secret', 'svc,x': 'p=w' };
const TLS_DIR = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));

function client(c: KafkaTestCluster, sasl: SASLOptions | undefined, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: 'sasl-test', brokers: c.bootstrap, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 200 }, ...(sasl ? { sasl } : {}), ...extra });
}

async function roundTrip(kafka: Kafka, topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: [{ value: 'one' }, { value: 'two' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-readers`, sessionTimeout: 6_000, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  const seen: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
  try {
    await checkFor(() => seen.length === 2, 20_000, 20);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

async function refused(kafka: Kafka): Promise<Error> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (err) {
    return err as Error;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  throw new Error('the client got in');
}

describe('Kafka listeners with SASL', function () {
  this.timeout(60_000);

  describe('SASL_PLAINTEXT, every mechanism', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 2, sasl: { users: USERS }, brokerConfig: { 'offsets.topic.replication.factor': 1 } });
    });
    after(async () => {
      await c?.stop();
    });

    for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
      it(`KafkaJS authenticates with ${mechanism.toUpperCase()}, then produces and consumes`, async () => {
        const seen = await roundTrip(client(c, { mechanism, username: 'alice', password: 'alice-secret' } as SASLOptions), `t-${mechanism}`);
        expect(seen).to.deep.equal(['one', 'two']);
      });
    }

    it('a user name with "," and "=" authenticates with SCRAM (escaped) and PLAIN', async () => {
      for (const mechanism of ['scram-sha-256', 'plain'] as const) {
        const admin = client(c, { mechanism, username: 'svc,x', password: 'p=w' } as SASLOptions).admin();
        await admin.connect();
        await admin.listTopics();
        await admin.disconnect();
      }
    });

    it('refuses a wrong password and an unknown user, with every mechanism', async () => {
      for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
        for (const [username, password] of [['alice', 'nope'], ['mallory', 'alice-secret']]) {
          const err = await refused(client(c, { mechanism, username, password } as SASLOptions));
          expect(err.message, `${mechanism} ${username}`).to.match(/SASL .*authentication failed|Authentication failed/i);
        }
      }
    });

    it('a client without SASL cannot get past ApiVersions: its first other request closes the connection', async () => {
      const err = await refused(client(c, undefined));
      expect(err).to.be.an('error');
      const raw = await RawKafkaSocket.connect(c.bootstrap[0]!);
      raw.request(ApiKeys.Metadata, 9, 1, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      expect(await raw.frame(), 'closed without an answer').to.equal(null);
    });

    it('advertises SaslHandshake v0-1 and SaslAuthenticate v0-2; answers a mechanism not enabled with the enabled ones', async () => {
      const k = await KafkaCaller.connect(c.bootstrap[0]!);
      try {
        const versions = await k.call(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
        const range = (key: number) => versions.apiKeys.find((a: { apiKey: number }) => a.apiKey === key);
        expect(range(17)).to.deep.include({ minVersion: 0, maxVersion: 1 });
        expect(range(36)).to.deep.include({ minVersion: 0, maxVersion: 2 });
        const hs = await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'GSSAPI' });
        expect(hs).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] });
        const ok = await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'PLAIN' });
        expect(ok.errorCode).to.equal(0);
        const auth = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: Buffer.from('\u0000alice\u0000alice-secret') });
        expect(auth).to.deep.include({ errorCode: 0, errorMessage: null });
        const md = await k.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        expect(md.brokers).to.have.length(2);
      } finally {
        k.end();
      }
    });

    it('after SaslHandshake v0 takes the tokens as bare frames: right ones get in, wrong ones are closed', async () => {
      const bare = (token: string) => {
        const b = Buffer.from(token);
        const out = Buffer.alloc(4 + b.length);
        out.writeInt32BE(b.length, 0);
        b.copy(out, 4);
        return out;
      };
      const ok = await KafkaCaller.connect(c.bootstrap[0]!);
      try {
        expect((await ok.call(ApiKeys.SaslHandshake, 0, { mechanism: 'PLAIN' })).errorCode).to.equal(0);
        ok.socket.write(bare('\u0000alice\u0000alice-secret'));
        expect(await ok.socket.frame(), 'an empty bare answer').to.deep.equal(Buffer.alloc(0));
        const md = await ok.call(ApiKeys.Metadata, 9, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        expect(md.brokers).to.have.length(2);
      } finally {
        ok.end();
      }
      const bad = await KafkaCaller.connect(c.bootstrap[0]!);
      expect((await bad.call(ApiKeys.SaslHandshake, 0, { mechanism: 'PLAIN' })).errorCode).to.equal(0);
      bad.socket.write(bare('\u0000alice\u0000wrong'));
      expect(await bad.socket.frame()).to.equal(null);
    });

    it('answers a failed SaslAuthenticate, then closes the connection', async () => {
      const k = await KafkaCaller.connect(c.bootstrap[0]!);
      await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'PLAIN' });
      const auth = await k.call(ApiKeys.SaslAuthenticate, 1, { authBytes: Buffer.from('\u0000alice\u0000wrong') });
      expect(auth).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Authentication failed: Invalid username or password' });
      expect(await k.socket.frame()).to.equal(null);
    });

    it('kcat authenticates with SCRAM-SHA-512 and lists the brokers', async function () {
      if (!hasCommand('kcat', ['-V'])) this.skip();
      // -m: how long kcat keeps trying for metadata (a refused one would retry until then)
      const run = (password: string, seconds: number) =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const p = spawn('kcat', ['-b', c.bootstrap[0]!, '-X', 'security.protocol=sasl_plaintext', '-X', 'sasl.mechanisms=SCRAM-SHA-512', '-X', 'sasl.username=alice', '-X', `sasl.password=${password}`, '-L', '-m', String(seconds)]);
          let o = '';
          let e = '';
          p.stdout.on('data', (d: Buffer) => (o += d.toString()));
          p.stderr.on('data', (d: Buffer) => (e += d.toString()));
          p.on('close', (code) => resolve({ code, out: o, err: e }));
        });
      const ok = await run('alice-secret', 10);
      expect(ok.code, ok.err).to.equal(0);
      expect(ok.out).to.match(/2 brokers:/);
      const bad = await run('wrong', 2);
      expect(bad.code).to.not.equal(0);
      expect(bad.err).to.match(/SASL authentication error|Authentication failed/);
    });
  });

  describe('SCRAM users created at run time (KIP-554)', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 2, sasl: { users: { admin: 'admin-secret' } }, brokerConfig: { 'offsets.topic.replication.factor': 1 } });
    });
    after(async () => {
      await c?.stop();
    });

    /** A raw Kafka connection authenticated as the configured admin (PLAIN). */
    async function adminCaller(endpoint: string): Promise<KafkaCaller> {
      const k = await KafkaCaller.connect(endpoint);
      await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'PLAIN' });
      const auth = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: Buffer.from('\u0000admin\u0000admin-secret') });
      expect(auth.errorCode).to.equal(0);
      return k;
    }
    const salt = Buffer.from('a salt of sixteen');
    const upsertion = (name: string, mechanism: 1 | 2, password: string, iterations = 4096) => ({
      name,
      mechanism,
      iterations,
      salt,
      saltedPassword: saltedPassword(mechanism === 1 ? 'SHA-256' : 'SHA-512', password, salt, iterations),
    });
    const canList = async (mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512', username: string, password: string): Promise<boolean> => {
      const admin = client(c, { mechanism, username, password } as SASLOptions).admin();
      try {
        await admin.connect();
        await admin.listTopics();
        return true;
      } catch {
        return false;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    };

    it('a user created with AlterUserScramCredentials authenticates on every broker, with its mechanisms only; deleted, it is refused', async () => {
      const k = await adminCaller(c.bootstrap[0]!);
      try {
        const alter = await k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [], upsertions: [upsertion('dyn', 2, 'dyn-secret', 8192), upsertion('dyn', 1, 'dyn-secret')] });
        expect(alter.results).to.deep.equal([{ user: 'dyn', errorCode: 0, errorMessage: null }]);
        const described = await k.call(ApiKeys.DescribeUserScramCredentials, 0, { users: [{ name: 'dyn' }, { name: 'nobody' }] });
        expect(described.results).to.deep.equal([
          { user: 'dyn', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 1, iterations: 4096 }, { mechanism: 2, iterations: 8192 }] },
          { user: 'nobody', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to describe a user credential that does not exist' },
        ].map((r) => ({ credentialInfos: [], ...r })));
        const bad = await k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [{ name: 'ghost', mechanism: 1 }], upsertions: [upsertion('weak', 1, 'x', 1000)] });
        expect(bad.results.map((r: { user: string; errorCode: number }) => [r.user, r.errorCode])).to.deep.equal([
          ['ghost', ErrorCode.RESOURCE_NOT_FOUND],
          ['weak', ErrorCode.UNACCEPTABLE_CREDENTIAL],
        ]);

        // every broker's listener takes the new user once its metadata says so
        for (const endpoint of c.bootstrap) {
          const one = (mechanism: 'scram-sha-256' | 'scram-sha-512') => {
            const admin = new Kafka({ clientId: 'dyn', brokers: [endpoint], logLevel: logLevel.NOTHING, connectionTimeout: 3_000, retry: { retries: 0 }, sasl: { mechanism, username: 'dyn', password: 'dyn-secret' } as SASLOptions }).admin();
            return admin
              .connect()
              .then(() => admin.describeCluster())
              .then(() => true, () => false)
              .finally(() => admin.disconnect().catch(() => undefined));
          };
          await checkFor(() => one('scram-sha-512'), 10_000, 50);
          expect(await one('scram-sha-256')).to.equal(true);
        }
        const seen = await roundTrip(client(c, { mechanism: 'scram-sha-512', username: 'dyn', password: 'dyn-secret' } as SASLOptions), 't-dyn');
        expect(seen).to.deep.equal(['one', 'two']);
        expect(await canList('scram-sha-512', 'dyn', 'wrong')).to.equal(false);
        expect(await canList('plain', 'dyn', 'dyn-secret'), 'PLAIN takes configured users only').to.equal(false);

        const del = await k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [{ name: 'dyn', mechanism: 2 }], upsertions: [] });
        expect(del.results[0].errorCode).to.equal(0);
        await checkFor(async () => !(await canList('scram-sha-512', 'dyn', 'dyn-secret')), 10_000, 50);
        expect(await canList('scram-sha-256', 'dyn', 'dyn-secret')).to.equal(true);
      } finally {
        k.end();
      }
    });

    it('kcat authenticates as a user created at run time (SCRAM-SHA-512)', async function () {
      if (!hasCommand('kcat', ['-V'])) this.skip();
      const k = await adminCaller(c.bootstrap[1]!);
      try {
        const alter = await k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [], upsertions: [upsertion('kc', 2, 'kc-secret')] });
        expect(alter.results[0].errorCode).to.equal(0);
      } finally {
        k.end();
      }
      await checkFor(() => canList('scram-sha-512', 'kc', 'kc-secret'), 10_000, 50);
      const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const p = spawn('kcat', ['-b', c.bootstrap.join(','), '-X', 'security.protocol=sasl_plaintext', '-X', 'sasl.mechanisms=SCRAM-SHA-512', '-X', 'sasl.username=kc', '-X', 'sasl.password=kc-secret', '-L', '-m', '10']);
        let o = '';
        let e = '';
        p.stdout.on('data', (d: Buffer) => (o += d.toString()));
        p.stderr.on('data', (d: Buffer) => (e += d.toString()));
        p.on('close', (code) => resolve({ code, out: o, err: e }));
      });
      expect(r.code, r.err).to.equal(0);
      expect(r.out).to.match(/2 brokers:/);
    });

    it('answers once per user named, with its first refusal', async () => {
      const k = await adminCaller(c.bootstrap[0]!);
      try {
        const r = await k.call(ApiKeys.AlterUserScramCredentials, 0, { deletions: [{ name: 'a', mechanism: 1 }, { name: 'a', mechanism: 1 }], upsertions: [] });
        expect(r.results).to.deep.equal([{ user: 'a', errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: 'Attempt to delete a user credential that does not exist' }]);
      } finally {
        k.end();
      }
    });
  });

  describe('re-authentication (KIP-368, connections.max.reauth.ms)', () => {
    const LIFETIME = 600;
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 1, sasl: { users: { alice: 'alice-secret', bob: 'bob-secret' } }, brokerConfig: { 'offsets.topic.replication.factor': 1, 'connections.max.reauth.ms': LIFETIME } });
    });
    after(async () => {
      await c?.stop();
    });

    const metadata = (k: KafkaCaller) => k.call(ApiKeys.Metadata, 9, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    async function login(user: 'alice' | 'bob', k?: KafkaCaller): Promise<{ k: KafkaCaller; auth: { errorCode: number; errorMessage: string | null; sessionLifetimeMs: number } }> {
      const caller = k ?? (await KafkaCaller.connect(c.bootstrap[0]!));
      expect((await caller.call(ApiKeys.SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).to.equal(0);
      const auth = await caller.call(ApiKeys.SaslAuthenticate, 2, { authBytes: Buffer.from(`\u0000${user}\u0000${user}-secret`) });
      return { k: caller, auth };
    }
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it('tells the session lifetime; a request after it closes the connection', async () => {
      const { k, auth } = await login('alice');
      expect(auth).to.deep.include({ errorCode: 0, sessionLifetimeMs: LIFETIME });
      expect((await metadata(k)).brokers).to.have.length(1);
      await sleep(LIFETIME + 100);
      k.socket.request(ApiKeys.Metadata, 9, 99, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      expect(await k.socket.frame(), 'closed without an answer').to.equal(null);
    });

    it('re-authenticating before the end starts a new session on the same connection', async () => {
      const { k } = await login('alice');
      await sleep(LIFETIME / 2);
      const again = await login('alice', k);
      expect(again.auth).to.deep.include({ errorCode: 0, sessionLifetimeMs: LIFETIME });
      await sleep(LIFETIME / 2 + 150); // past the first session's end, within the second's
      expect((await metadata(k)).brokers).to.have.length(1);
      k.end();
    });

    it('re-authenticating as another user is refused and closes the connection', async () => {
      const { k } = await login('alice');
      const other = await login('bob', k);
      expect(other.auth).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: 'Cannot change principals during re-authentication' });
      expect(await k.socket.frame()).to.equal(null);
    });

    it('a client that does not re-authenticate (KafkaJS) reconnects and carries on across sessions', async () => {
      const kafka = client(c, { mechanism: 'plain', username: 'alice', password: 'alice-secret' });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'reauth', numPartitions: 1 }], waitForLeaders: true });
      await admin.disconnect();
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic: 'reauth', acks: -1, messages: [{ value: 'before' }] });
      await sleep(LIFETIME + 200);
      await producer.send({ topic: 'reauth', acks: -1, messages: [{ value: 'after' }] });
      await producer.disconnect();
    });
  });

  describe('SASL_SSL', () => {
    let c: KafkaTestCluster;
    before(async () => {
      c = await startKafkaCluster({ brokers: 1, tls: { keyFile: path.join(TLS_DIR, 'server.key'), certFile: path.join(TLS_DIR, 'server.pem') }, sasl: { mechanisms: ['SCRAM-SHA-256'], users: USERS } });
    });
    after(async () => {
      await c?.stop();
    });

    it('KafkaJS with ssl and SCRAM-SHA-256 produces and consumes; PLAIN is not offered', async () => {
      const ssl = { ca: [fs.readFileSync(path.join(TLS_DIR, 'ca.pem'), 'utf8')] };
      const seen = await roundTrip(client(c, { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' }, { ssl }), 'sealed-and-signed');
      expect(seen).to.deep.equal(['one', 'two']);
      const err = await refused(client(c, { mechanism: 'plain', username: 'alice', password: 'alice-secret' }, { ssl }));
      expect(err.message).to.match(/not supported|UNSUPPORTED_SASL_MECHANISM|mechanism/i);
    });
  });

  describe('topology', () => {
    const problems = (sasl: unknown) => {
      try {
        parseTopology({
          clusterId: 'sasl-topology',
          nodes: [{ id: 'main', kind: 'inproc' }],
          controller: { node: 'main', metadataDir: 'controller' },
          brokers: [{ id: 1, node: 'main', logDir: 'broker-1', kafka: { host: '127.0.0.1', port: 0, sasl } }],
        });
        return [];
      } catch (err) {
        if (err instanceof TopologyError) return err.problems.map((p) => `${p.path}: ${p.message}`);
        throw err;
      }
    };

    it('checks mechanisms and users', () => {
      expect(problems({ users: { alice: 'x' } })).to.deep.equal([]);
      expect(problems({ mechanisms: ['SCRAM-SHA-512'], users: { alice: 'x' } })).to.deep.equal([]);
      expect(problems({})).to.deep.equal(['brokers[0].kafka.sasl.users: is required with PLAIN: { "<name>": "<password>" }']);
      // SCRAM users may all come from the cluster's credentials (KIP-554); PLAIN needs configured ones
      expect(problems({ users: {} })).to.deep.equal([]);
      expect(problems({ mechanisms: ['PLAIN'], users: {} })).to.deep.equal(['brokers[0].kafka.sasl.users: must name at least one user: { "<name>": "<password>" } (PLAIN takes only the users configured here)']);
      expect(problems({ users: { alice: '' } })).to.deep.equal(['brokers[0].kafka.sasl.users.alice: the password must be a non-empty string']);
      expect(problems({ mechanisms: ['GSSAPI'], users: { a: 'b' } })).to.deep.equal(['brokers[0].kafka.sasl.mechanisms[0]: "GSSAPI" is not one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER']);
      expect(problems({ mechanisms: [], users: { a: 'b' } })).to.deep.equal(['brokers[0].kafka.sasl.mechanisms: must name at least one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER']);
    });

    it('checks OAUTHBEARER settings: a key set or unsecured, typed claims options; no users needed for it alone', () => {
      expect(problems({ oauthbearer: { unsecured: true } })).to.deep.equal([]);
      expect(problems({ oauthbearer: { jwks: 'keys.json', expectedAudience: ['kafka'], expectedIssuer: 'https://idp', clockSkewSeconds: 5 } })).to.deep.equal([]);
      expect(problems({ mechanisms: ['OAUTHBEARER'] })).to.deep.equal(['brokers[0].kafka.sasl.oauthbearer: is required with OAUTHBEARER: { "jwks": <key set or its file> } (or "unsecured": true for unsigned development tokens)']);
      expect(problems({ oauthbearer: {} })).to.deep.equal(['brokers[0].kafka.sasl.oauthbearer: needs "jwks" (the keys tokens are signed with), or "unsecured": true for unsigned development tokens']);
      expect(problems({ oauthbearer: { jwks: { nope: 1 }, expectedAudience: 'kafka', subClaimName: '', clockSkewSeconds: -1, color: 'red' } })).to.deep.equal([
        'brokers[0].kafka.sasl.oauthbearer.color: unknown key (allowed: jwks, jwksRefreshMs, unsecured, expectedAudience, expectedIssuer, subClaimName, scopeClaimName, clockSkewSeconds)',
        'brokers[0].kafka.sasl.oauthbearer.jwks: must be a JSON Web Key Set ({ "keys": [...] }) or the path of one',
        'brokers[0].kafka.sasl.oauthbearer.expectedAudience: must be a list of strings',
        'brokers[0].kafka.sasl.oauthbearer.subClaimName: must be a non-empty string',
        'brokers[0].kafka.sasl.oauthbearer.clockSkewSeconds: must be a whole number of seconds, 0 or more',
      ]);
    });
  });
});
