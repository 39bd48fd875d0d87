/**
 * Reaching a running cluster from a command: parses --bootstrap-server, connects over TCP with
 * SamsaClient.connect, and asks the node it reached for cluster metadata once, so that a wrong
 * address or a cluster that is not up fails at once with advice instead of a long timeout.
 */
import fs from 'node:fs';
import type { ControllerReply } from '../../actors/controller/messages.js';
import { METADATA_PROXY_PATH } from '../../actors/cluster-node/metadata-proxy.js';
import type { Admin } from '../client/admin.js';
import { SamsaClient } from '../client/samsa.js';
import type { ClusterMetadata } from '../protocol/cluster.js';
import { isFailure } from '../runtime/types.js';
import type { Args } from './args.js';
import { DEFAULT_BOOTSTRAP } from './command.js';
import { CliError, UsageError } from './errors.js';

const PROBE_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 5_000;

export interface Connection {
  client: SamsaClient;
  servers: string[];
  /** Cluster metadata (brokers, topics, controller) fresh from the node the client reached. */
  metadata(): Promise<ClusterMetadata>;
  close(): Promise<void>;
}

/** The --bootstrap-server list, checked for host:port form. */
export function bootstrapServers(args: Args): string[] {
  return parseBootstrapServers(args.string('bootstrap-server') ?? DEFAULT_BOOTSTRAP);
}

/** A comma-separated host:port list, checked (UsageError naming the bad entry). */
export function parseBootstrapServers(raw: string): string[] {
  const servers = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) throw new UsageError('--bootstrap-server needs at least one host:port');
  for (const s of servers) {
    const m = /^(.+):(\d+)$/.exec(s);
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535) throw new UsageError(`--bootstrap-server: '${s}' is not host:port (for example ${DEFAULT_BOOTSTRAP})`);
  }
  return servers;
}

/** A socket-level failure in words a user can act on. */
function reasonInWords(raw: string): string {
  if (/ECONNREFUSED/.test(raw)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(raw)) return 'unknown host';
  if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/.test(raw)) return 'host unreachable';
  if (/handshake not completed/.test(raw)) return 'no samsa handshake came back (is that port a samsa client listener?)';
  const refused = /rejected the handshake: (.*)$/.exec(raw);
  if (refused) return `the node refused the handshake: ${refused[1]}`;
  // a Kafka listener closes a connection whose first bytes are not a Kafka request: the usual cause
  if (/ECONNRESET|socket closed/.test(raw)) return `the connection was closed during the handshake (is that port a Kafka listener? the samsa commands reach a samsa client listener, ${DEFAULT_BOOTSTRAP} in the embedded topology)`;
  return raw;
}

function unreachable(servers: string[], err: unknown): CliError {
  const message = (err as Error)?.message ?? String(err);
  const detail = message.replace(/^cannot reach the cluster:\s*/, '');
  const perServer = servers.map((s) => {
    const part = detail.split('; ').find((p) => p.startsWith(`${s}: `));
    return { s, reason: reasonInWords(part ? part.slice(s.length + 2) : detail) };
  });
  const same = perServer.every((p) => p.reason === perServer[0]!.reason);
  const reasons = same ? perServer[0]!.reason : perServer.map((p) => `${p.s}: ${p.reason}`).join('; ');
  return new CliError(
    `cannot reach the cluster at ${servers.join(',')}: ${reasons} — is it running? start it with \`npm start\`, or point --bootstrap-server at a running node`,
  );
}

type MetadataAnswer = Extract<ControllerReply, { type: 'MetadataResponse' }> & { errorMessage?: string };

/**
 * TLS for the CLI's connection, from the environment: SAMSA_TLS_CA_FILE (the CA the cluster's
 * certificates chain to) and, for a cluster that asks clients for one, SAMSA_TLS_CERT_FILE and
 * SAMSA_TLS_KEY_FILE (PEM files). Null when SAMSA_TLS_CA_FILE is not set.
 */
export function tlsFromEnv(env: NodeJS.ProcessEnv = process.env): { ca: Buffer; cert?: Buffer; key?: Buffer } | null {
  const read = (name: string): Buffer | undefined => {
    const file = env[name];
    if (!file) return undefined;
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new CliError(`${name}=${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const ca = read('SAMSA_TLS_CA_FILE');
  const cert = read('SAMSA_TLS_CERT_FILE');
  const key = read('SAMSA_TLS_KEY_FILE');
  if (!ca) {
    if (cert || key) throw new CliError('SAMSA_TLS_CERT_FILE and SAMSA_TLS_KEY_FILE need SAMSA_TLS_CA_FILE (the CA the cluster\'s certificates chain to)');
    return null;
  }
  if (Boolean(cert) !== Boolean(key)) throw new CliError('give both SAMSA_TLS_CERT_FILE and SAMSA_TLS_KEY_FILE, or neither');
  return { ca, ...(cert && key ? { cert, key } : {}) };
}

export async function connectCluster(servers: string[], clientId: string): Promise<Connection> {
  let client: SamsaClient;
  const tls = tlsFromEnv();
  try {
    client = await SamsaClient.connect({ brokers: servers, clientId, ...(tls ? { tls } : {}) });
  } catch (err) {
    throw unreachable(servers, err);
  }
  const node = client.brokers[0]!.node;
  const close = async () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([client.close(), new Promise<void>((r) => (timer = setTimeout(r, CLOSE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  };
  const metadata = async (): Promise<ClusterMetadata> => {
    const r = await client.system.ask<MetadataAnswer>({ node, path: METADATA_PROXY_PATH }, { type: 'Metadata' }, { timeoutMs: PROBE_TIMEOUT_MS });
    if (isFailure(r)) {
      throw new CliError(`reached node '${node}' at ${servers.join(',')}, but it did not answer a metadata request (${r.message}) — is the cluster fully started?`);
    }
    if (r.errorCode !== 0 || !r.metadata) {
      throw new CliError(`reached node '${node}', but the cluster's controller did not answer (${r.errorMessage ?? `error ${r.errorCode}`}) — is the controller's node running?`);
    }
    return r.metadata;
  };
  try {
    await metadata();
  } catch (err) {
    await close();
    throw err;
  }
  return { client, servers, metadata, close };
}

/** Connects, runs `fn`, and always closes the connection. */
export async function withCluster<T>(args: Args, clientId: string, fn: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await connectCluster(bootstrapServers(args), clientId);
  try {
    return await fn(conn);
  } finally {
    await conn.close();
  }
}

/** The connection's admin client, connected for `fn` and disconnected after it. */
export async function withAdmin<T>(conn: Connection, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = conn.client.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

/** The metadata of `topic`, or a CliError that says how to create it. */
export function requireTopic(md: ClusterMetadata, topic: string, servers: string[]): ClusterMetadata['topics'][number] {
  const t = md.topics.find((x) => x.name === topic);
  if (t) return t;
  const flag = servers.join(',') === DEFAULT_BOOTSTRAP ? '' : ` --bootstrap-server ${servers.join(',')}`;
  throw new CliError(`topic '${topic}' does not exist — create it with \`samsa topics${flag} --create --topic ${topic}\`, or list the topics with \`samsa topics${flag} --list\``);
}
