/**
 * SASL/OAUTHBEARER over the Kafka protocol: a listener checking JWTs against its key set and
 * expected audience. KafkaJS logs in with a signed token and produces and consumes; the
 * session lasts until the token expires (SaslAuthenticate v1+); a refused token gets Kafka's JSON
 * error, then fails and closes the connection; an unsigned token is refused on such a listener.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import http from 'node:http';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaListenerName, type KafkaListenerDescription } from '../../actors/kafka-listener/listener.js';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { KafkaCaller } from '../helpers/raw-kafka.js';

const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' };

function token(claims: Record<string, unknown>, alg: 'ES256' | 'none' = 'ES256'): string {
  const h = Buffer.from(JSON.stringify({ alg, kid: 'k1' })).toString('base64url');
  const p = Buffer.from(JSON.stringify(claims)).toString('base64url');
  if (alg === 'none') return `${h}.${p}.`;
  return `${h}.${p}.${crypto.sign('sha256', Buffer.from(`${h}.${p}`), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}) => ({ sub: 'svc-orders', aud: 'kafka', iat: now(), exp: now() + 120, ...over });
const initial = (t: string) => Buffer.from(`n,,\u0001auth=Bearer ${t}\u0001\u0001`);

describe('Kafka listeners with SASL/OAUTHBEARER', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, sasl: { oauthbearer: { jwks: { keys: [jwk] }, expectedAudience: ['kafka'] } }, topics: [{ name: 'oauth', partitions: 1, replicationFactor: 1 }] });
  });
  after(async () => {
    await c?.stop();
  });

  it('offers OAUTHBEARER alone when only it is configured', async () => {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      const hs = await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'PLAIN' });
      expect(hs).to.deep.include({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: ['OAUTHBEARER'] });
    } finally {
      k.end();
    }
  });

  it('a signed token of the expected audience logs in; the session lasts until the token expires', async () => {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      expect((await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode).to.equal(ErrorCode.NONE);
      const auth = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: initial(token(claims({ exp: now() + 60 }))) });
      expect(auth.errorCode).to.equal(ErrorCode.NONE);
      expect(auth.sessionLifetimeMs).to.be.within(50_000, 60_000);
      const md = await k.call(ApiKeys.Metadata, 9, { topics: [{ name: 'oauth' }], allowAutoTopicCreation: false });
      expect(md.topics[0].errorCode).to.equal(ErrorCode.NONE);
    } finally {
      k.end();
    }
  });

  it("a refused token: Kafka's JSON error, then the client's 0x01 fails the login and the connection closes", async () => {
    for (const bad of [token(claims({ aud: 'web' })), token(claims(), 'none'), token(claims({ exp: now() - 3600 }))]) {
      const k = await KafkaCaller.connect(c.bootstrap[0]!);
      try {
        await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
        const first = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: initial(bad) });
        expect(first.errorCode).to.equal(ErrorCode.NONE);
        expect(Buffer.from(first.authBytes).toString()).to.equal('{"status":"invalid_token"}');
        const second = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: Buffer.from([1]) });
        expect(second).to.deep.include({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: '{"status":"invalid_token"}' });
        expect(await k.closed(5_000)).to.equal(true);
      } finally {
        k.end();
      }
    }
  });

  it('KafkaJS logs in with a token provider, produces and consumes', async () => {
    const kafka = new Kafka({
      clientId: 'oauth-test',
      brokers: c.bootstrap,
      logLevel: logLevel.NOTHING,
      sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: token(claims()) }) },
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'oauth', messages: [{ value: 'hello' }, { value: 'world' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'oauth-readers', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'oauth', fromBeginning: true });
    const got: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void got.push(String(message.value)) });
    await checkFor(() => got.length >= 2, 20_000, 50);
    await consumer.disconnect();
    expect(got).to.deep.equal(['hello', 'world']);
  });
});

describe('Kafka listeners with SASL/OAUTHBEARER keys from a URL', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let server: http.Server;
  let keySet: { keys: object[] };
  const rotated = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rotatedJwk = { ...rotated.publicKey.export({ format: 'jwk' }), kid: 'k2', use: 'sig' };

  function signWith(key: crypto.KeyObject, kid: string): string {
    const h = Buffer.from(JSON.stringify({ alg: 'ES256', kid })).toString('base64url');
    const p = Buffer.from(JSON.stringify(claims())).toString('base64url');
    return `${h}.${p}.${crypto.sign('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  }
  async function login(t: string): Promise<number> {
    const k = await KafkaCaller.connect(c.bootstrap[0]!);
    try {
      await k.call(ApiKeys.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
      const r = await k.call(ApiKeys.SaslAuthenticate, 2, { authBytes: initial(t) });
      return r.errorCode === ErrorCode.NONE && Buffer.from(r.authBytes).length === 0 ? ErrorCode.NONE : ErrorCode.SASL_AUTHENTICATION_FAILED;
    } finally {
      k.end();
    }
  }

  before(async () => {
    keySet = { keys: [jwk] };
    server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(keySet));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
    c = await startKafkaCluster({ brokers: 1, sasl: { oauthbearer: { jwks: url, jwksRefreshMs: 1_000 } } });
  });
  after(async () => {
    await c?.stop();
    server?.close();
  });

  it('fetches the key set at start, and again as it changes: a rotated key is taken, a removed one refused', async () => {
    await checkFor(async () => (await login(token(claims()))) === ErrorCode.NONE, 15_000, 50);
    expect(await login(signWith(rotated.privateKey, 'k2'))).to.equal(ErrorCode.SASL_AUTHENTICATION_FAILED);
    keySet = { keys: [rotatedJwk] };
    await checkFor(async () => (await login(signWith(rotated.privateKey, 'k2'))) === ErrorCode.NONE, 15_000, 100);
    expect(await login(token(claims()))).to.equal(ErrorCode.SASL_AUTHENTICATION_FAILED);
    const l = (await c.handle.mainSystem.ask({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as unknown as KafkaListenerDescription;
    expect(l.jwks!.keys).to.equal(1);
    expect(l.jwks!.fetched).to.be.at.least(2);
  });
});

