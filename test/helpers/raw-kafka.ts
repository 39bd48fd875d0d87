/**
 * A bare Kafka-protocol socket for tests: send hand-made bytes or requests encoded with our codec,
 * read whole response frames, and see whether the broker closed the connection.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { decodeResponse, encodeRequest } from '../../src/kafka/protocol/index.js';
import { checkFor } from './check-for.js';

const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
const FIND_COORDINATOR = 10;
const INIT_PRODUCER_ID = 22;
const COORDINATOR_LOAD_IN_PROGRESS = 14;

export class RawKafkaSocket {
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(endpoint: string): Promise<RawKafkaSocket> {
    const i = endpoint.lastIndexOf(':');
    return new Promise((resolve, reject) => {
      const s = net.connect(Number(endpoint.slice(i + 1)), endpoint.slice(0, i), () => resolve(new RawKafkaSocket(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Encodes a request with our codec (header v1/v2 as its version needs) and sends it. */
  request(apiKey: number, apiVersion: number, correlationId: number, body: object, clientId: string | null = 'raw-test'): void {
    this.write(encodeRequest({ apiKey, apiVersion, correlationId, clientId } as never, body as never));
  }

  /** The next whole response frame (without its size), or null once the connection is closed. */
  async frame(timeoutMs = 10_000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buf.length >= 4) {
        const len = this.buf.readInt32BE(0);
        if (this.buf.length >= 4 + len) {
          const f = this.buf.subarray(4, 4 + len);
          this.buf = this.buf.subarray(4 + len);
          return f;
        }
      }
      if (this.closed) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no response frame in time');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async response(apiKey: number, apiVersion: number): Promise<{ correlationId: number; body: any }> {
    const f = await this.frame();
    if (!f) throw new Error('connection closed before a response');
    return decodeResponse(apiKey, apiVersion, f);
  }

  /** Resolves true once the broker closed the connection (false if still open after timeoutMs). */
  async waitClosed(timeoutMs = 5_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, deadline - Date.now());
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closed;
  }

  end(): void {
    this.socket.destroy();
  }
}

/** Request/response over one RawKafkaSocket with its own correlation ids. */
export class KafkaCaller {
  private nextId = 1;
  /** After scramLogin: the session lifetime the broker's last SaslAuthenticate answer gave (KIP-368; 0: none). */
  saslSessionLifetimeMs: number | null = null;

  private constructor(
    readonly socket: RawKafkaSocket,
    private readonly clientId: string | null,
  ) {}

  static async connect(endpoint: string, clientId: string | null = 'raw-test'): Promise<KafkaCaller> {
    return new KafkaCaller(await RawKafkaSocket.connect(endpoint), clientId);
  }

  /** A connection authenticated with SASL/PLAIN as `user` (SaslHandshake v1, SaslAuthenticate v2); throws when refused. */
  static async plainLogin(endpoint: string, user: string, password: string, clientId: string | null = 'raw-test'): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint, clientId);
    const hs = await k.call(SASL_HANDSHAKE, 1, { mechanism: 'PLAIN' });
    const auth = hs.errorCode === 0 ? await k.call(SASL_AUTHENTICATE, 2, { authBytes: Buffer.from(`\u0000${user}\u0000${password}`) }) : hs;
    if (auth.errorCode !== 0) {
      k.end();
      throw new Error(`SASL/PLAIN login as ${user} refused: error ${auth.errorCode}`);
    }
    return k;
  }

  /**
   * A connection authenticated with SCRAM (SaslHandshake v1, SaslAuthenticate v2) as `user`;
   * `extensions` go after the nonce of the client-first message (tokenauth=true: a delegation
   * token's id and base64 HMAC as user and password). Throws with the error code when refused.
   */
  static async scramLogin(endpoint: string, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', user: string, password: string, extensions: Record<string, string> = {}): Promise<KafkaCaller> {
    const k = await KafkaCaller.connect(endpoint);
    const fail = (step: string, code: number) => {
      k.end();
      return new Error(`SASL/${mechanism} login as ${user} refused at ${step}: error ${code}`);
    };
    const hs = await k.call(SASL_HANDSHAKE, 1, { mechanism });
    if (hs.errorCode !== 0) throw fail('handshake', hs.errorCode);
    const digest = mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
    const nonce = crypto.randomBytes(12).toString('base64');
    const ext = Object.entries(extensions).map(([key, v]) => `,${key}=${v}`).join('');
    const bare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${nonce}${ext}`;
    const first = await k.call(SASL_AUTHENTICATE, 2, { authBytes: Buffer.from(`n,,${bare}`) });
    if (first.errorCode !== 0) throw fail('client-first', first.errorCode);
    const serverFirst = Buffer.from(first.authBytes).toString('utf8');
    const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a[0], a.slice(2)])) as Record<string, string>;
    const salted = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(attrs.s!, 'base64'), Number(attrs.i), digest === 'sha256' ? 32 : 64, digest);
    const clientKey = crypto.createHmac(digest, salted).update('Client Key').digest();
    const storedKey = crypto.createHash(digest).update(clientKey).digest();
    const withoutProof = `c=biws,r=${attrs.r}`;
    const signature = crypto.createHmac(digest, storedKey).update(`${bare},${serverFirst},${withoutProof}`).digest();
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
    const final = await k.call(SASL_AUTHENTICATE, 2, { authBytes: Buffer.from(`${withoutProof},p=${proof.toString('base64')}`) });
    if (final.errorCode !== 0) throw fail('client-final', final.errorCode);
    k.saslSessionLifetimeMs = Number(final.sessionLifetimeMs);
    return k;
  }

  async call(apiKey: number, apiVersion: number, body: object): Promise<any> {
    const id = this.nextId++;
    this.socket.request(apiKey, apiVersion, id, body, this.clientId);
    const r = await this.socket.response(apiKey, apiVersion);
    if (r.correlationId !== id) throw new Error(`response ${r.correlationId} answers another request than ${id}`);
    return r.body;
  }

  /** Resolves true once the broker closed the connection (false after `timeoutMs`). */
  closed(timeoutMs = 5_000): Promise<boolean> {
    return this.socket.waitClosed(timeoutMs);
  }

  end(): void {
    this.socket.end();
  }
}

/** A consumer's fetch of one partition from `fetchOffset` (no epochs known; 1 MiB unless `partitionMaxBytes`). */
export function fetchPartition(partition: number, fetchOffset: number, partitionMaxBytes = 1 << 20): object {
  return { partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes };
}

/** A consumer's Fetch request body for one partition (no wait, 1 MiB limits, no session); `extra` overrides fields. */
export function consumerFetchBody(topic: string, partition: number, fetchOffset: number, extra: object = {}): object {
  return {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: [fetchPartition(partition, fetchOffset)] }],
    forgottenTopicsData: [],
    rackId: '',
    ...extra,
  };
}

/**
 * Finds the transaction coordinator of `transactionalId` through `via` (FindCoordinator v3), connects to it
 * and starts the id's producer (InitProducerId v4, waiting out COORDINATOR_LOAD_IN_PROGRESS); throws when
 * the coordinator refuses. The caller closes `k`.
 */
export async function startTransactionalProducer(via: KafkaCaller, transactionalId: string): Promise<{ k: KafkaCaller; producerId: number; producerEpoch: number }> {
  const found = await checkFor(async () => {
    const r = await via.call(FIND_COORDINATOR, 3, { key: transactionalId, keyType: 1 });
    return r.errorCode === 0 ? r : null;
  }, 15_000, 50);
  const k = await KafkaCaller.connect(`${found.host}:${found.port}`);
  const r = await checkFor(async () => {
    const x = await k.call(INIT_PRODUCER_ID, 4, { transactionalId, transactionTimeoutMs: 30_000, producerId: -1, producerEpoch: -1 });
    return x.errorCode === COORDINATOR_LOAD_IN_PROGRESS ? null : x;
  }, 15_000, 50);
  if (r.errorCode !== 0) {
    k.end();
    throw new Error(`InitProducerId for ${transactionalId} refused: error ${r.errorCode}`);
  }
  return { k, producerId: r.producerId, producerEpoch: r.producerEpoch };
}
