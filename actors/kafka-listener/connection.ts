/**
 * One Kafka client connection (a child of the broker's Kafka listener).
 *
 * Owned state: the socket, its frame decoder, the requests in flight and the responses waiting
 * for their turn (Kafka answers a connection's requests in the order they came), the client's
 * principal (what the listener's authorizer checks requests against), the client software its
 * ApiVersions v3+ named (client metrics match on it, KIP-714), and on a SASL
 * listener where its authentication stands (src/kafka/sasl: only ApiVersions, SaslHandshake and
 * SaslAuthenticate before it succeeds; a failure is answered, then the connection closed) and
 * whether it authenticated with a delegation token (then its session ends with the token).
 * Handles: KafkaFrame (a whole request read from the socket), Answered (a request's response is
 * ready), SocketDrained, SocketClosed, Throttle / Unmute (a client over its quota is not read from
 * for its throttle time), CloseWhenAnswered (a handler ends the connection: an acks=0 produce
 * that failed, as Kafka, so that the client looks for the partition's leader again). With a request_percentage quota in force, each request's handler time
 * is measured (src/kafka/request-time.ts) and recorded against its client's quota.
 * Emits: what each API handler sends (src/kafka/api): Produce, Fetch, Metadata and
 * FindCoordinator to the broker; group and offset requests to the broker's group coordinator;
 * InitProducerId (with a transactional id), AddPartitionsToTxn, AddOffsetsToTxn and EndTxn to its
 * transaction coordinator;
 * ListOffsets and OffsetsForLeaderEpoch to partition replicas; CreateTopics, DeleteTopics to the
 * controller; DescribeLoggers / AlterLoggers to the broker (its BROKER_LOGGER configs);
 * ClientTelemetryPush to the broker's telemetry receiver (PushTelemetry, KIP-714);
 * ShareFetch and ShareAcknowledge to the broker's share partition manager (KIP-932), whose share
 * sessions opened on this connection end when it closes.
 *
 * Requests are decoded and handed to their handler as they arrive (so a slow JoinGroup or a
 * long-poll Fetch does not hold up the connection's other requests), and responses are written in
 * request order. Bad input closes only this connection, with a log line saying why: a frame above
 * socket.request.max.bytes, an unknown API key or unsupported version (except ApiVersions, which
 * gets Kafka's v0 UNSUPPORTED_VERSION answer with our ApiVersions range so the client can retry), a
 * truncated or malformed request.
 */
import type net from 'node:net';
import { FrameDecoder, FrameTooLargeError } from '../../src/transport/frame-decoder.js';
import { API_HANDLERS } from '../../src/kafka/api/dispatch.js';
import type { ApiContext } from '../../src/kafka/api/context.js';
import { API_VERSIONS_KEY, SASL_AUTHENTICATE_KEY, SASL_HANDSHAKE_KEY, isSaslSupported, isSupported, isTelemetrySupported, unsupportedApiVersionsBody } from '../../src/kafka/api/versions.js';
import type { ClientTelemetry } from '../../src/kafka/client-telemetry.js';
import { SaslAuthenticator, type SaslSettings } from '../../src/kafka/sasl/authenticator.js';
import { KafkaCodecError, decodeRequest, encodeResponse, peekRequestHeader } from '../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { brokerPath, replicaPath } from '../../src/protocol/cluster.js';
import { defineActor, type BaseContext } from '../../src/runtime/actor-definition.js';
import { ChurnTable } from '../../src/runtime/churn-table.js';
import { ANONYMOUS, operationName, resourceTypeName } from '../../src/security/acl.js';
import type { AclAuthorizer } from '../../src/security/authorizer.js';
import type { ClientQuotaManager } from '../../src/kafka/client-quota-manager.js';
import { RequestTime, monotonicClock, type RequestClock } from '../../src/kafka/request-time.js';
import { connectionPrincipal } from '../../src/security/principal.js';
import { principalName } from '../controller/delegation-tokens.js';
import type { SslPrincipalMapper } from '../../src/security/ssl-principal-mapper.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { BrokerMsg } from '../broker/messages.js';
import type { ControllerMsg } from '../controller/messages.js';
import { coordinatorPath, type CoordinatorMsg } from '../group-coordinator/messages.js';
import { txnCoordinatorPath, type TxnCoordinatorMsg } from '../txn-coordinator/messages.js';
import { sharePartitionManagerPath, type ShareManagerMsg } from '../share-partition/messages.js';
import { kafkaListenerName } from './messages.js';
import type { TopicIdResolver } from '../../src/kafka/api/topic-id-resolver.js';
import type { FetchSessionCache } from '../../src/kafka/fetch-sessions.js';
import type { ShareSessionCache } from '../../src/kafka/share-sessions.js';

export type KafkaConnectionMsg =
  | { type: 'KafkaFrame'; frame: Uint8Array }
  /** A request put the client over a client quota: read nothing more from it for `ms`. */
  | { type: 'Throttle'; ms: number }
  | { type: 'Unmute' }
  | { type: 'Answered'; seq: number; frame: Uint8Array | null }
  | { type: 'SocketDrained' }
  | { type: 'SocketClosed'; reason: string }
  /** A handler asked for the connection to end once what is in flight is answered (an acks=0 produce that failed). */
  | { type: 'CloseWhenAnswered'; reason: string };

export interface KafkaConnectionArgs {
  socket: net.Socket;
  brokerId: number;
  controller: ActorRef<ControllerMsg>;
  maxRequestBytes: number;
  config: ApiContext['config'];
  configInput: ApiContext['configInput'];
  /** The listener's SASL: clients authenticate before any other request (ApiVersions aside). */
  sasl?: SaslSettings | null;
  /** The listener's authorizer (shared by its connections); null: every client may do everything. */
  authorizer?: AclAuthorizer | null;
  /** The listener's client quotas (shared by its connections). */
  quotas?: ClientQuotaManager | null;
  /** What requests' handler time is measured with, for request_percentage (default: monotonicClock). */
  requestClock?: RequestClock;
  /** The listener's topic ids (shared by its connections). */
  topicIds: TopicIdResolver;
  /** The listener's incremental fetch sessions (shared by its connections). */
  fetchSessions: FetchSessionCache;
  /** The listener's share sessions (KIP-932; shared by its connections): those this connection opened end with it. */
  shareSessions: ShareSessionCache;
  /** The broker's client metrics (KIP-714; shared by its connections); null: no telemetry receiver, the APIs are not offered. */
  clientTelemetry?: ClientTelemetry | null;
  /** ssl.principal.mapping.rules: a TLS client certificate's subject to its principal name. */
  principalMapper?: SslPrincipalMapper;
}

const PRODUCE_KEY = 0;
const FETCH_KEY = 1;
const WRITE_TXN_MARKERS_KEY = 27;
const UNMUTE_TIMER = 'unmute';

/** Requests handled at once on one connection before reading pauses. */
const MAX_IN_FLIGHT = 64;
/** Bytes queued on the socket before reading pauses until it drains. */
const WRITE_HIGH_WATER = 16 * 1024 * 1024;

interface ConnState {
  args: KafkaConnectionArgs;
  socket: net.Socket;
  remote: string;
  nextSeq: number;
  nextToWrite: number;
  /** Answers waiting for the ones before them, by sequence number (a ChurnTable: see churn-table.ts). */
  ready: ChurnTable<number, Uint8Array | null>;
  inFlight: number;
  closed: boolean;
  /** SASL on this listener: where this connection's authentication stands. */
  auth: SaslAuthenticator | null;
  /** When the SASL session ends (connections.max.reauth.ms after authenticating; null: never). */
  sessionExpiresAt: number | null;
  /** Close once the answers queued so far are written (after a failed authentication, as Kafka does). */
  closeWhenWritten: boolean;
  /** After a SaslHandshake v0: the next frames are bare SASL tokens, answered with bare frames. */
  rawSaslTokens: boolean;
  /** Who the client is (its SASL user once authenticated, its certificate's subject, or ANONYMOUS). */
  principal: string;
  /** The client software its ApiVersions v3+ named (KIP-511), as Kafka keeps it per connection. */
  clientSoftware: { name: string | null; version: string | null };
  /** Held back by a client quota: nothing is read from the client until the Unmute timer. */
  muted: boolean;
  /** How long the running hold-back is. */
  mutedMs: number;
  refs: { broker: ActorRef<BrokerMsg>; controller: ActorRef<ControllerMsg>; coordinator: ActorRef<CoordinatorMsg>; txnCoordinator: ActorRef<TxnCoordinatorMsg>; shareManager: ActorRef<ShareManagerMsg> };
  base: BaseContext<KafkaConnectionMsg>;
}

function close(s: ConnState, ctx: BaseContext<KafkaConnectionMsg>, why: string, fields: Record<string, unknown> = {}): void {
  if (s.closed) return;
  s.closed = true;
  ctx.log.warn(`closing the Kafka connection: ${why}`, { remote: s.remote, ...fields });
  s.socket.destroy();
  ctx.stop();
}

/**
 * Ends the connection once what was written goes out (Kafka closes it too); the actor stops
 * (destroying the socket) only once the last answer has been handed over.
 */
function endWhenWritten(s: ConnState, ctx: BaseContext<KafkaConnectionMsg>): void {
  s.closed = true;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    ctx.stop();
  };
  s.socket.once('close', stop);
  s.socket.end(stop);
}

function updateFlow(s: ConnState): void {
  const congested = s.muted || s.closeWhenWritten || s.inFlight >= MAX_IN_FLIGHT || s.socket.writableLength >= WRITE_HIGH_WATER;
  if (congested && !s.socket.isPaused()) s.socket.pause();
  else if (!congested && s.socket.isPaused() && !s.closed) s.socket.resume();
}

function apiContext(s: ConnState, clientId: string | null, time: RequestTime | null): ApiContext {
  const { base } = s;
  const brokerId = s.args.brokerId;
  const node = base.nodeId;
  const clientHost = s.socket.remoteAddress ?? '';
  const authorizer = s.args.authorizer ?? null;
  const principal = s.principal;
  // ACL hosts are written as Kafka prints addresses: an IPv4 client on a dual-stack socket is its IPv4 address
  const aclHost = clientHost.startsWith('::ffff:') ? clientHost.slice(7) : clientHost;
  return {
    brokerId,
    clientId,
    clientHost,
    aclHost,
    sasl: s.auth !== null,
    principal,
    tokenAuthenticated: s.auth?.state === 'Authenticated' && s.auth.token !== null,
    authorizerEnabled: authorizer !== null,
    authorize: (op, type, name, logIfDenied = true) => {
      if (!authorizer || authorizer.authorize(principal, aclHost, op, type, name)) return true;
      if (logIfDenied) base.log.info('request denied', { principal, host: aclHost, operation: operationName(op), resource: `${resourceTypeName(type)}:${name}` });
      return false;
    },
    authorizeAny: (op, type) => !authorizer || authorizer.authorizeAny(principal, aclHost, op, type),
    mutationQuota: (strict) => {
      const q = s.args.quotas?.mutationQuota(principalName(principal), clientId ?? '');
      return q ? { ...q, strict } : undefined;
    },
    config: s.args.config,
    configInput: s.args.configInput,
    broker: s.refs.broker,
    controller: s.refs.controller,
    coordinator: s.refs.coordinator,
    txnCoordinator: s.refs.txnCoordinator,
    shareManager: s.refs.shareManager,
    listener: { node, path: `/${kafkaListenerName(brokerId)}` },
    replica: (topic, partition) => ({ node, path: replicaPath(brokerId, topic, partition) }),
    topicIds: s.args.topicIds,
    fetchSessions: s.args.fetchSessions,
    shareSessions: s.args.shareSessions,
    connectionId: base.self.path,
    clientTelemetry: s.args.clientTelemetry ?? null,
    clientPort: s.socket.remotePort ?? null,
    clientSoftware: s.clientSoftware,
    // the time until another actor answers is not the listener's own; what this broker's actors
    // work on it meanwhile is the request's (request_percentage)
    ask: (to, msg, timeoutMs) => (time ? time.waitFor(base.ask(to, msg, { timeoutMs, workAccount: time.account })) : base.ask(to, msg, { timeoutMs })) as never,
    send: (to, msg) => base.send(to, msg),
    closeConnection: (why) => base.send(base.self, { type: 'CloseWhenAnswered', reason: why }),
    log: base.log,
  };
}

/** CreateTopics, DeleteTopics, CreatePartitions: their controller_mutation_rate throttle time mutes the connection too. */
const MUTATION_KEYS: ReadonlySet<number> = new Set([19, 20, 37]);

/** A fetch from a follower (it names its replica id; v15+ in its replica state), not a consumer. */
function isFollowerFetch(request: Record<string, unknown>): boolean {
  return Math.max((request.replicaId as number | undefined) ?? -1, (request.replicaState as { replicaId?: number } | undefined)?.replicaId ?? -1) >= 0;
}

/**
 * Client quotas on Produce (request bytes, producer_byte_rate) and consumer Fetch (fetched bytes,
 * consumer_byte_rate), and on every request's handler time (request_percentage, KIP-124), as
 * Kafka's brokers (KIP-219): a client over a quota is answered at once with the throttle time in
 * the response (the longest of its quotas'), and nothing more is read from it for that long. The
 * same hold-back follows a CreateTopics, DeleteTopics or CreatePartitions the controller
 * throttled (controller_mutation_rate, KIP-599).
 */
function applyQuota(s: ConnState, apiKey: number, clientId: string | null, requestBytes: number, request: Record<string, unknown>, body: Record<string, unknown> | null, time: RequestTime | null): void {
  const quotas = s.args.quotas;
  if (!quotas?.active) return;
  const user = principalName(s.principal);
  let ms = 0;
  if (MUTATION_KEYS.has(apiKey)) {
    // controller mutations: the controller kept the quota and named the throttle time (KIP-599)
    ms = (body?.throttleTimeMs as number | undefined) ?? 0;
  } else if (apiKey === PRODUCE_KEY) {
    ms = quotas.record(user, clientId ?? '', 'producer_byte_rate', requestBytes);
  } else if (apiKey === FETCH_KEY && !isFollowerFetch(request)) {
    let bytes = 0;
    for (const t of (body?.responses ?? []) as { partitions: { records: Uint8Array | null }[] }[]) for (const p of t.partitions) bytes += p.records?.length ?? 0;
    ms = quotas.record(user, clientId ?? '', 'consumer_byte_rate', bytes);
  }
  if (time) {
    const worked = time.take();
    if (isExemptFromRequestQuota(s, apiKey, request, body)) quotas.recordExempt(worked);
    else ms = Math.max(ms, quotas.recordRequestTime(user, clientId ?? '', worked));
  }
  if (ms <= 0) return;
  if (body) body.throttleTimeMs = Math.max((body.throttleTimeMs as number | undefined) ?? 0, ms);
  s.base.send(s.base.self, { type: 'Throttle', ms });
}

/**
 * Requests Kafka does not hold to request_percentage: a follower's fetch and WriteTxnMarkers
 * (cluster actions, between brokers), a Produce with acks 0 (no response to carry a throttle
 * time), and ApiVersions before SASL authentication (Kafka's authenticator answers it, as samsa's
 * connection answers SaslHandshake and SaslAuthenticate, which are not timed at all).
 */
function isExemptFromRequestQuota(s: ConnState, apiKey: number, request: Record<string, unknown>, body: Record<string, unknown> | null): boolean {
  if (apiKey === WRITE_TXN_MARKERS_KEY) return true;
  if (apiKey === FETCH_KEY) return isFollowerFetch(request);
  if (apiKey === PRODUCE_KEY) return body === null;
  if (apiKey === API_VERSIONS_KEY) return s.auth !== null && s.auth.state !== 'Authenticated';
  return false;
}

/**
 * After the throttle decision, the time spent encoding the response counts too, without
 * throttling this response (as Kafka records its network thread's time once a response is sent).
 */
function recordAfterResponse(s: ConnState, apiKey: number, clientId: string | null, request: Record<string, unknown>, body: Record<string, unknown> | null, time: RequestTime): void {
  const quotas = s.args.quotas;
  if (!quotas?.active) return;
  const worked = time.take();
  if (isExemptFromRequestQuota(s, apiKey, request, body)) quotas.recordExempt(worked);
  else quotas.recordRequestTime(principalName(s.principal), clientId ?? '', worked, false);
}

/**
 * SaslHandshake and SaslAuthenticate, answered here (they change this connection's state, not
 * the broker's). A failed authentication is answered, then the connection is closed.
 */
function saslRequest(s: ConnState, ctx: BaseContext<KafkaConnectionMsg>, frame: Buffer, seq: number, header: { apiKey: number; apiVersion: number }): void {
  const auth = s.auth!;
  if (!isSaslSupported(header.apiKey, header.apiVersion)) return close(s, ctx, 'unsupported API version', { apiKey: header.apiKey, apiVersion: header.apiVersion });
  let decoded: ReturnType<typeof decodeRequest>;
  try {
    decoded = decodeRequest(frame);
  } catch (err) {
    return close(s, ctx, `malformed request: ${err instanceof KafkaCodecError ? err.message : String(err)}`, { apiKey: header.apiKey });
  }
  const { apiKey, apiVersion, correlationId } = decoded.header;
  let body: Record<string, unknown>;
  if (apiKey === SASL_HANDSHAKE_KEY) {
    body = auth.handshake((decoded.body as { mechanism: string }).mechanism);
    // v0: the tokens that follow are bare frames, not SaslAuthenticate requests
    if (apiVersion === 0 && body.errorCode === ErrorCode.NONE) s.rawSaslTokens = true;
  } else {
    const reauth = auth.reauthenticating;
    const a = auth.authenticate((decoded.body as { authBytes: Uint8Array }).authBytes);
    // KIP-368: the session's lifetime goes with the last step (v1+ carry it)
    const lifetime = auth.state === 'Authenticated' ? sessionLifetimeMs(s, ctx, auth) : 0;
    body = { errorCode: a.errorCode, errorMessage: a.errorMessage, authBytes: a.authBytes, sessionLifetimeMs: lifetime };
    if (auth.state === 'Authenticated') {
      s.sessionExpiresAt = lifetime > 0 ? ctx.clock.now() + lifetime : null;
      if (reauth) ctx.log.debug('SASL re-authenticated', { remote: s.remote, user: auth.user });
    }
  }
  if (auth.state === 'Failed') {
    ctx.log.warn('SASL authentication failed', { remote: s.remote, reason: auth.failure });
    s.closeWhenWritten = true;
  } else if (auth.state === 'Authenticated' && apiKey === SASL_AUTHENTICATE_KEY) {
    s.principal = connectionPrincipal(s.socket, auth.user) ?? ANONYMOUS;
    ctx.log.debug('SASL authenticated', { remote: s.remote, user: auth.user });
  }
  s.inFlight++;
  ctx.send(ctx.self, { type: 'Answered', seq, frame: encodeResponse(apiKey, apiVersion, correlationId, body as never) });
}

/**
 * How long an authenticated session lasts (0: no end), as Kafka's SaslServerAuthenticator: a
 * session proved by a credential that expires (a delegation token, an OAuth token) ends then
 * (sooner with connections.max.reauth.ms).
 */
function sessionLifetimeMs(s: ConnState, ctx: BaseContext<KafkaConnectionMsg>, auth: SaslAuthenticator): number {
  const reauth = s.args.config.connectionsMaxReauthMs;
  if (auth.credentialExpiresAt === null) return reauth;
  const left = Math.max(1, auth.credentialExpiresAt - ctx.clock.now());
  return reauth > 0 ? Math.min(reauth, left) : left;
}

/**
 * A bare SASL token (after SaslHandshake v0), answered with a bare size-prefixed frame; a failure
 * can only close the connection (the bare exchange has no error field).
 */
function rawSaslToken(s: ConnState, ctx: BaseContext<KafkaConnectionMsg>, token: Buffer): void {
  const auth = s.auth!;
  const a = auth.authenticate(token);
  if (auth.state === 'Failed') return close(s, ctx, `SASL authentication failed: ${auth.failure ?? a.errorMessage ?? ''}`);
  if (auth.state === 'Authenticated') {
    s.rawSaslTokens = false;
    const lifetime = sessionLifetimeMs(s, ctx, auth);
    s.sessionExpiresAt = lifetime > 0 ? ctx.clock.now() + lifetime : null;
    s.principal = connectionPrincipal(s.socket, auth.user) ?? ANONYMOUS;
    ctx.log.debug('SASL authenticated', { remote: s.remote, user: auth.user });
  }
  const out = Buffer.allocUnsafe(4 + a.authBytes.length);
  out.writeInt32BE(a.authBytes.length, 0);
  a.authBytes.copy(out, 4);
  const seq = s.nextSeq++;
  s.inFlight++;
  ctx.send(ctx.self, { type: 'Answered', seq, frame: out });
}

export const kafkaConnection = defineActor<ConnState, KafkaConnectionMsg, KafkaConnectionArgs>({
  kind: 'kafka-connection',
  // its socket's, its own and its request handlers' only
  clientMessages: {},
  supervision: 'stop',
  init(ctx, args) {
    const socket = args.socket;
    const node = ctx.nodeId;
    const s: ConnState = {
      args,
      socket,
      remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`,
      nextSeq: 0,
      nextToWrite: 0,
      ready: new ChurnTable(),
      inFlight: 0,
      closed: false,
      auth: args.sasl ? new SaslAuthenticator(args.sasl, () => ctx.clock.now()) : null,
      sessionExpiresAt: null,
      closeWhenWritten: false,
      rawSaslTokens: false,
      principal: ANONYMOUS,
      clientSoftware: { name: null, version: null },
      muted: false,
      mutedMs: 0,
      refs: {
        broker: { node, path: brokerPath(args.brokerId) },
        controller: args.controller,
        coordinator: { node, path: coordinatorPath(args.brokerId) },
        txnCoordinator: { node, path: txnCoordinatorPath(args.brokerId) },
        shareManager: { node, path: sharePartitionManagerPath(args.brokerId) },
      },
      base: ctx,
    };
    const frames = new FrameDecoder(args.maxRequestBytes);
    socket.setNoDelay(true);
    let unframeable = false;
    socket.on('data', (chunk: Buffer) => {
      if (unframeable) return;
      try {
        frames.push(chunk, (frame) => ctx.send(ctx.self, { type: 'KafkaFrame', frame }));
      } catch (err) {
        if (!(err instanceof FrameTooLargeError)) throw err;
        // nothing after this point can be framed: stop reading and close
        unframeable = true;
        socket.pause();
        ctx.send(ctx.self, { type: 'SocketClosed', reason: `${err.message} (socket.request.max.bytes)` });
      }
    });
    socket.on('drain', () => ctx.send(ctx.self, { type: 'SocketDrained' }));
    socket.on('error', (err) => ctx.send(ctx.self, { type: 'SocketClosed', reason: err.message }));
    socket.on('close', () => ctx.send(ctx.self, { type: 'SocketClosed', reason: 'closed by the client' }));
    // a TLS client's certificate names its principal (ssl.principal.mapping.rules); one no rule
    // applies to has none, and Kafka refuses the connection
    const principal = connectionPrincipal(socket, null, args.principalMapper);
    if (principal === null) {
      // destroyed before any data is read: its close event stops this actor
      ctx.log.warn('closing the Kafka connection: no ssl.principal.mapping.rules rule applies to the client certificate', { remote: s.remote });
      socket.destroy();
      return s;
    }
    s.principal = principal;
    ctx.log.debug('Kafka client connected', { remote: s.remote });
    return s;
  },
  onStop(s, ctx) {
    s.closed = true;
    s.socket.destroy();
    // KIP-932: the share sessions opened here end with the connection (their members' records go back)
    s.args.shareSessions.connectionClosed(ctx.self.path);
  },
  handlers: {
    KafkaFrame(s, m, ctx) {
      if (s.closed) return;
      const frame = Buffer.isBuffer(m.frame) ? m.frame : Buffer.from(m.frame.buffer, m.frame.byteOffset, m.frame.byteLength);
      if (s.rawSaslTokens) return rawSaslToken(s, ctx, frame);
      let header: ReturnType<typeof peekRequestHeader>;
      try {
        header = peekRequestHeader(frame);
      } catch {
        return close(s, ctx, 'request too short for a header', { bytes: frame.length });
      }
      const seq = s.nextSeq++;
      if (s.auth && (header.apiKey === SASL_HANDSHAKE_KEY || header.apiKey === SASL_AUTHENTICATE_KEY)) return saslRequest(s, ctx, frame, seq, header);
      if (s.auth && s.auth.state !== 'Authenticated' && header.apiKey !== API_VERSIONS_KEY) {
        return close(s, ctx, 'a request before SASL authentication', { apiKey: header.apiKey, saslState: s.auth.state });
      }
      if (s.sessionExpiresAt !== null && ctx.clock.now() >= s.sessionExpiresAt) {
        // KIP-368: the client did not re-authenticate in time
        return close(s, ctx, 'SASL session expired (connections.max.reauth.ms) without re-authentication', { apiKey: header.apiKey, user: s.auth?.user ?? null });
      }
      if (!isSupported(header.apiKey, header.apiVersion) && !(s.args.clientTelemetry && isTelemetrySupported(header.apiKey, header.apiVersion))) {
        if (header.apiKey === API_VERSIONS_KEY) {
          // Kafka's rule: answer in v0 with UNSUPPORTED_VERSION and our ApiVersions range, so the client retries
          s.inFlight++;
          ctx.send(ctx.self, { type: 'Answered', seq, frame: encodeResponse(API_VERSIONS_KEY, 0, header.correlationId, unsupportedApiVersionsBody()) });
          return;
        }
        return close(s, ctx, API_HANDLERS.has(header.apiKey) ? 'unsupported API version' : 'unknown API key', { apiKey: header.apiKey, apiVersion: header.apiVersion });
      }
      // request_percentage: the request's handler time counts from here (decoding it)
      const time = s.args.quotas?.requestQuotasActive ? new RequestTime(s.args.requestClock ?? monotonicClock) : null;
      let decoded: ReturnType<typeof decodeRequest>;
      try {
        decoded = decodeRequest(frame);
      } catch (err) {
        const reason = err instanceof KafkaCodecError ? err.message : String(err);
        return close(s, ctx, `malformed request: ${reason}`, { apiKey: header.apiKey, apiVersion: header.apiVersion });
      }
      const { apiKey, apiVersion, correlationId, clientId } = decoded.header;
      if (apiKey === API_VERSIONS_KEY && apiVersion >= 3) {
        const named = decoded.body as { clientSoftwareName?: string; clientSoftwareVersion?: string };
        if (named.clientSoftwareName && named.clientSoftwareVersion) s.clientSoftware = { name: named.clientSoftwareName, version: named.clientSoftwareVersion };
      }
      const handler = API_HANDLERS.get(apiKey)!;
      s.inFlight++;
      updateFlow(s);
      // with an authorizer, requests wait for the cluster's ACLs to arrive (denied if they never do)
      const authorizer = s.args.authorizer;
      const ready = authorizer && !authorizer.isReady && apiKey !== API_VERSIONS_KEY ? authorizer.whenReady(s.args.config.requestTimeoutMs) : null;
      const requestBytes = frame.length;
      const request = decoded.body as Record<string, unknown>;
      (ready ? (time ? time.waitFor(ready) : ready).then(() => handler(apiContext(s, clientId, time), apiVersion, decoded.body)) : handler(apiContext(s, clientId, time), apiVersion, decoded.body))
        // encoding inside the chain: a body that cannot be encoded is a failed request, not an unhandled rejection
        .then((body) => {
          const response = body as Record<string, unknown> | null;
          applyQuota(s, apiKey, clientId, requestBytes, request, response, time);
          const out = body === null ? null : encodeResponse(apiKey, apiVersion, correlationId, body);
          if (time) recordAfterResponse(s, apiKey, clientId, request, response, time);
          return out;
        })
        .then(
          (out) => s.base.send(s.base.self, { type: 'Answered', seq, frame: out }),
          (err: unknown) => {
            s.base.log.error('Kafka request handler failed', { apiKey, apiVersion, error: err instanceof Error ? err.stack : String(err) });
            s.base.send(s.base.self, { type: 'SocketClosed', reason: 'internal error handling a request' });
          },
        );
    },

    Answered(s, m, ctx) {
      if (s.closed) return;
      s.inFlight--;
      s.ready.set(m.seq, m.frame);
      let corked = false;
      while (s.ready.has(s.nextToWrite)) {
        const out = s.ready.get(s.nextToWrite)!;
        s.ready.delete(s.nextToWrite);
        s.nextToWrite++;
        if (out === null) continue;
        if (!corked) {
          s.socket.cork();
          corked = true;
        }
        s.socket.write(out);
      }
      if (corked) s.socket.uncork();
      if (s.closeWhenWritten && s.inFlight === 0) return endWhenWritten(s, ctx);
      updateFlow(s);
    },

    CloseWhenAnswered(s, m, ctx) {
      if (s.closed) return;
      ctx.log.info(`closing the Kafka connection: ${m.reason}`, { remote: s.remote });
      // read nothing more (updateFlow); what is in flight is answered first
      s.closeWhenWritten = true;
      updateFlow(s);
      if (s.inFlight === 0) endWhenWritten(s, ctx);
    },

    SocketDrained(s) {
      updateFlow(s);
    },

    Throttle(s, m, ctx) {
      if (s.closed) return;
      s.muted = true;
      updateFlow(s);
      // a longer hold-back wins over one already running
      if (!ctx.timers.isActive(UNMUTE_TIMER) || m.ms > s.mutedMs) {
        s.mutedMs = m.ms;
        ctx.timers.startSingle(UNMUTE_TIMER, m.ms, { type: 'Unmute' });
      }
    },

    Unmute(s) {
      s.muted = false;
      s.mutedMs = 0;
      updateFlow(s);
    },

    SocketClosed(s, m, ctx) {
      if (s.closed) return;
      if (m.reason === 'closed by the client') {
        s.closed = true;
        ctx.log.debug('Kafka client disconnected', { remote: s.remote });
        ctx.stop();
        return;
      }
      close(s, ctx, m.reason);
    },
  },
});
