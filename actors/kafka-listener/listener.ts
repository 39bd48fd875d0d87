/**
 * A broker's Kafka-protocol listener: existing Kafka clients (KafkaJS, librdkafka/kcat, the Java
 * client) connect here and talk to the broker beside it.
 *
 * Owned state: the listening server (plain TCP, or TLS as Kafka's SSL listener; bound before the
 * broker registers, so the broker advertises the real port), the SASL settings it hands each
 * connection (Kafka's SASL_PLAINTEXT / SASL_SSL), the authorizer its connections check requests
 * with (when authorizer.class.name is set; src/security/authorizer.ts), the client quotas they
 * enforce (src/kafka/client-quota-manager.ts), the client metrics instances (KIP-714,
 * src/kafka/client-telemetry.ts; only with a telemetry receiver, client.telemetry.receiver, whose
 * actor its connections ask with each push), the share sessions of KIP-932's share consumers
 * (src/kafka/share-sessions.ts; one that ends, closed or with its connection, is told to the
 * broker's share partition manager, ShareMemberGone), the count of connections accepted and of TLS
 * handshakes that failed, and OAUTHBEARER's key set fetched from a URL (jwks-refresher.ts).
 * Handles: DescribeKafkaListener (introspection), AclsChanged, ClientQuotasChanged, ConnectionLimitsChanged, ShareVersionChanged,
 * ScramCredentialsChanged and DelegationTokensChanged (from its broker: the cluster's ACLs, client
 * quotas, SCRAM credentials and delegation tokens' SCRAM credentials, its dynamic connection limits);
 * RefreshJwks (its timers: fetch the key set again, periodically or soon after an unknown key);
 * AuthorizeTopics (its broker's group coordinator: which topics a member may DESCRIBE), answered
 * TopicsAuthorized.
 * Emits: TopicsAuthorized; ShareMemberGone (a share session ended); otherwise nothing itself; each accepted socket gets its own child actor (./connection.ts), which
 * translates requests into the broker's, its coordinator's, its replicas' and the controller's
 * messages.
 */
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { parseBrokerConfig, type BrokerConfig } from '../broker/broker-config.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { ControllerMsg } from '../controller/messages.js';
import { DEFAULT_SASL_MECHANISMS, saslSettings, setDelegationTokens, setDynamicScram, type SaslMechanism, type SaslSettings } from '../../src/kafka/sasl/authenticator.js';
import { AclAuthorizer } from '../../src/security/authorizer.js';
import { ClientQuotaManager } from '../../src/kafka/client-quota-manager.js';
import { clientTelemetryFor } from '../../src/kafka/client-telemetry.js';
import type { RequestClock } from '../../src/kafka/request-time.js';
import { ConnectionLimits } from '../../src/kafka/connection-limits.js';
import { normalizeIp } from '../../src/security/client-quotas.js';
import { TopicIdResolver } from '../../src/kafka/api/topic-id-resolver.js';
import { oauthBearerSettings, type OAuthBearerConfig } from '../../src/kafka/sasl/oauthbearer.js';
import { JwksRefresher } from '../../src/kafka/sasl/jwks-refresher.js';
import { SslPrincipalMapper } from '../../src/security/ssl-principal-mapper.js';
import { FetchSessionCache } from '../../src/kafka/fetch-sessions.js';
import { ShareSessionCache } from '../../src/kafka/share-sessions.js';
import { sharePartitionManagerPath, type ShareManagerMsg } from '../share-partition/messages.js';
import { kafkaConnection } from './connection.js';
import { kafkaListenerName, type KafkaListenerMsg, type TopicsAuthorized } from './messages.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ResourceType } from '../../src/security/acl.js';

export { kafkaListenerName, type KafkaListenerMsg };

export interface KafkaListenerDescription {
  type: 'KafkaListenerDescription';
  host: string;
  port: number;
  /** Kafka's SSL listener: clients connect with TLS. */
  tls: boolean;
  /** The SASL mechanisms clients authenticate with (empty: no SASL). */
  saslMechanisms: string[];
  accepted: number;
  open: number;
  /** TLS handshakes that failed (a plain client, an untrusted certificate). */
  handshakeFailures: number;
  /** The listener checks ACLs; `acls` is how many are in force (null: none arrived yet). */
  authorizer: { enabled: boolean; acls: number | null };
  /** How many client quota entities are in force. */
  clientQuotas: number;
  /** Requests that put their client over a quota (answered with a throttle time, then held back). */
  throttledRequests: number;
  /** Of those, the ones over a request_percentage quota (KIP-124). */
  requestTimeThrottledRequests: number;
  /** Handler time (ms) of requests exempt from request_percentage (Kafka's exempt-request-time). */
  exemptRequestTimeMs: number;
  /** Connections closed at once: max.connections, max.connections.per.ip, an IP's connection_creation_rate. */
  refusedConnections: number;
  /** OAUTHBEARER's key set from a URL: the keys in force, fetches that brought a set and that failed (null: no URL). */
  jwks: { keys: number; fetched: number; failed: number } | null;
  /** Connections made to wait for max.connection.creation.rate. */
  delayedConnections: number;
}

/**
 * TLS for a Kafka listener (Kafka's SSL security protocol), as PEM: the broker's private key and
 * certificate chain, and the CA(s) that client certificates must chain to when `clientAuth`
 * asks for them (Kafka's ssl.client.auth: none, requested, required).
 */
export interface KafkaListenerTls {
  key: string | Buffer;
  cert: string | Buffer;
  ca?: string | Buffer;
  clientAuth?: 'none' | 'requested' | 'required';
}

export interface KafkaListenerArgs {
  server: net.Server;
  /** SASL authentication (Kafka's SASL_PLAINTEXT, or SASL_SSL over a TLS server). */
  sasl?: SaslSettings | null;
  brokerId: number;
  /** Where controller requests go: the node's controller channel (or a controller itself). */
  controller: ActorRef<ControllerMsg>;
  config: BrokerConfig;
  /** The broker config as written (DescribeConfigs tells set keys from defaults). */
  configInput: Readonly<Record<string, unknown>>;
  /** What requests' handler time is measured with, for request_percentage (default: a monotonic clock). */
  requestClock?: RequestClock;
}

interface ListenerState {
  server: net.Server;
  /** The SASL settings every connection shares (their dynamic SCRAM credentials change in place). */
  sasl: SaslSettings | null;
  authorizer: AclAuthorizer | null;
  quotas: ClientQuotaManager;
  /** max.connections, per IP, the creation rate and IP connection quotas. */
  limits: ConnectionLimits;
  saslMechanisms: string[];
  accepted: number;
  open: number;
  handshakeFailures: number;
  /** The share sessions of every connection (KIP-932). */
  shareSessions: ShareSessionCache;
  /** OAUTHBEARER's key set fetched from a URL (null: none to fetch). */
  jwks: JwksRefresher | null;
}

const JWKS_REFRESH_TIMER = 'jwks-refresh';
const JWKS_SOON_TIMER = 'jwks-soon';

/**
 * Binds a server for a broker's Kafka listener, with TLS when `secure` is given; port 0 picks a
 * free port. Rejects when the address is taken or the TLS material is unusable.
 */
export function bindKafkaServer(host: string, port: number, secure?: KafkaListenerTls): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    let server: net.Server;
    try {
      server = secure ? tls.createServer(tlsServerOptions(secure)) : net.createServer({ noDelay: true, pauseOnConnect: false });
    } catch (err) {
      reject(err);
      return;
    }
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Node's TLS server options for a listener's TLS settings. */
export function tlsServerOptions(secure: KafkaListenerTls): tls.TlsOptions {
  const clientAuth = secure.clientAuth ?? 'none';
  return {
    key: secure.key,
    cert: secure.cert,
    ...(secure.ca !== undefined ? { ca: secure.ca } : {}),
    requestCert: clientAuth !== 'none',
    rejectUnauthorized: clientAuth === 'required',
    noDelay: true,
  };
}

/** 'host:port' a bound server listens on. */
export function serverEndpoint(server: net.Server): string {
  const a = server.address() as net.AddressInfo;
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

export interface StartKafkaListenerOptions {
  brokerId: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Advertised instead of the bind host (e.g. when binding 0.0.0.0). */
  advertisedHost?: string;
  /** Where controller requests go: the node's controller channel (or a controller itself). */
  controller: ActorRef<ControllerMsg>;
  /** The broker's config (Kafka names), for socket.request.max.bytes, auto.create.topics.enable, request.timeout.ms. */
  brokerConfig?: Record<string, unknown>;
  /** Serve Kafka's SSL protocol: clients connect with TLS. */
  tls?: KafkaListenerTls;
  /**
   * Authenticate clients with SASL: the mechanisms offered (default: PLAIN and SCRAM), users'
   * passwords, and OAUTHBEARER's token validation (src/kafka/sasl/oauthbearer.ts).
   */
  sasl?: { mechanisms?: readonly SaslMechanism[]; users?: Readonly<Record<string, string>>; oauthbearer?: OAuthBearerConfig };
}

/**
 * Binds broker `brokerId`'s Kafka listener on `system` (the broker's node) and spawns its actor.
 * Returns the 'host:port' to advertise: start the broker with it as `kafkaEndpoint`.
 */
export async function startKafkaListener(system: ActorSystem, o: StartKafkaListenerOptions): Promise<string> {
  const config = parseBrokerConfig(o.brokerConfig ?? {});
  const server = await bindKafkaServer(o.host, o.port, o.tls);
  const bound = serverEndpoint(server);
  const oauth = o.sasl?.oauthbearer ? oauthBearerSettings(o.sasl.oauthbearer, (file) => fs.readFileSync(file, 'utf8')) : null;
  // without a list: the user mechanisms when there are users, OAUTHBEARER when it is configured
  const mechanisms = o.sasl?.mechanisms ?? [...(o.sasl?.users !== undefined || !oauth ? DEFAULT_SASL_MECHANISMS : []), ...(oauth ? (['OAUTHBEARER'] as const) : [])];
  const sasl = o.sasl ? saslSettings(mechanisms, o.sasl.users ?? {}, oauth) : null;
  system.spawn(kafkaListener, { name: kafkaListenerName(o.brokerId), args: { server, sasl, brokerId: o.brokerId, controller: o.controller, config, configInput: o.brokerConfig ?? {} } });
  return o.advertisedHost ? `${o.advertisedHost}:${bound.slice(bound.lastIndexOf(':') + 1)}` : bound;
}

export const kafkaListener = defineActor<ListenerState, KafkaListenerMsg, KafkaListenerArgs>({
  kind: 'kafka-listener',
  clientMessages: { DescribeKafkaListener: true },
  supervision: 'resume',
  init(ctx, args) {
    const authorizer = args.config.authorizerClassName
      ? new AclAuthorizer({ superUsers: args.config.superUsers, allowEveryoneIfNoAclFound: args.config.allowEveryoneIfNoAclFound })
      : null;
    const quotas = new ClientQuotaManager(ctx.clock);
    const limits = new ConnectionLimits(
      {
        maxConnections: args.config.maxConnections,
        maxConnectionsPerIp: args.config.maxConnectionsPerIp,
        maxConnectionsPerIpOverrides: args.config.maxConnectionsPerIpOverrides,
        maxConnectionCreationRate: args.config.maxConnectionCreationRate,
      },
      ctx.clock,
    );
    const oauth = args.sasl?.oauth ?? null;
    const jwks =
      oauth?.jwksUrl != null
        ? new JwksRefresher(oauth, {
            fetchText: async (url) => {
              const r = await fetch(url, { signal: AbortSignal.timeout(args.config.requestTimeoutMs) });
              if (!r.ok) throw new Error(`HTTP ${r.status}`);
              return r.text();
            },
            now: () => ctx.clock.now(),
            log: ctx.log,
            schedule: (delayMs) => ctx.timers.startSingle(JWKS_SOON_TIMER, delayMs, { type: 'RefreshJwks' }),
          })
        : null;
    if (jwks && oauth) {
      void jwks.refresh();
      ctx.timers.startPeriodic(JWKS_REFRESH_TIMER, oauth.jwksRefreshMs, { type: 'RefreshJwks' });
    }
    // KIP-932: a share session that ends gives its member's acquired records back
    const shareSessions = new ShareSessionCache(args.config.groupShareMaxShareSessions, ctx.clock, (groupId, memberId) =>
      ctx.send<ShareManagerMsg>({ node: ctx.nodeId, path: sharePartitionManagerPath(args.brokerId) }, { type: 'ShareMemberGone', groupId, memberId }),
    );
    const s: ListenerState = { server: args.server, sasl: args.sasl ?? null, authorizer, quotas, limits, saslMechanisms: [...(args.sasl?.mechanisms ?? [])], accepted: 0, open: 0, handshakeFailures: 0, shareSessions, jwks };
    const secure = args.server instanceof tls.Server;
    const connArgs = {
      brokerId: args.brokerId,
      controller: args.controller,
      maxRequestBytes: args.config.socketRequestMaxBytes,
      config: args.config,
      configInput: args.configInput,
      sasl: args.sasl ?? null,
      authorizer,
      quotas,
      ...(args.requestClock ? { requestClock: args.requestClock } : {}),
      topicIds: new TopicIdResolver(),
      fetchSessions: new FetchSessionCache(args.config.maxIncrementalFetchSessionCacheSlots, ctx.clock),
      shareSessions,
      clientTelemetry: clientTelemetryFor({ receiverPath: args.config.clientTelemetryReceiver, brokerId: args.brokerId, nodeId: ctx.nodeId, maxBytes: args.config.telemetryMaxBytes, clock: ctx.clock }),
      principalMapper: SslPrincipalMapper.fromRules(args.config.sslPrincipalMappingRules),
    };
    // a TLS server hands over each socket once its handshake is done
    const event = secure ? 'secureConnection' : 'connection';
    args.server.removeAllListeners(event);
    if (secure) {
      args.server.removeAllListeners('tlsClientError');
      args.server.on('tlsClientError', (err: Error, socket: tls.TLSSocket) => {
        s.handshakeFailures++;
        ctx.log.warn('TLS handshake failed: connection closed', { remote: `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, reason: err.message });
      });
    }
    const serve = (socket: net.Socket, name: string) => {
      if (socket.destroyed) return;
      try {
        ctx.spawn(kafkaConnection, { name, args: { socket, ...connArgs } });
      } catch (err) {
        // the node is stopping: nobody is left to serve this client
        ctx.log.debug('refusing a Kafka connection', { reason: (err as Error).message });
        socket.destroy();
      }
    };
    args.server.on(event, (socket: net.Socket) => {
      s.accepted++;
      const ip = normalizeIp(socket.remoteAddress ?? '?');
      const admission = s.limits.admit(ip);
      if (admission.kind === 'refuse') {
        ctx.log.warn('Kafka connection refused', { remote: `${ip}:${socket.remotePort ?? '?'}`, reason: admission.reason, closeAfterMs: admission.ms });
        socket.pause();
        if (admission.ms > 0) ctx.clock.setTimeout(() => socket.destroy(), admission.ms);
        else socket.destroy();
        return;
      }
      s.open++;
      socket.once('close', () => {
        s.open--;
        s.limits.closed(ip);
      });
      const name = `conn-${s.accepted}`;
      if (admission.kind === 'delay') {
        // max.connection.creation.rate: as Kafka's acceptor pausing, the client waits to be served
        socket.pause();
        ctx.clock.setTimeout(() => serve(socket, name), admission.ms);
        return;
      }
      serve(socket, name);
    });
    args.server.on('error', (err) => ctx.log.error('Kafka listener error', { error: err.message }));
    ctx.log.info('Kafka listener up', { endpoint: serverEndpoint(args.server), brokerId: args.brokerId, tls: secure, sasl: s.saslMechanisms, authorizer: authorizer !== null });
    return s;
  },
  onStop(s) {
    return new Promise<void>((resolve) => s.server.close(() => resolve()));
  },
  handlers: {
    DescribeKafkaListener(s, _m, ctx) {
      const a = s.server.address() as net.AddressInfo;
      const authorizer = { enabled: s.authorizer !== null, acls: s.authorizer?.isReady ? s.authorizer.size : null };
      const jwks = s.jwks ? { keys: s.sasl?.oauth?.keys.length ?? 0, fetched: s.jwks.fetched, failed: s.jwks.failed } : null;
      ctx.reply({ type: 'KafkaListenerDescription', host: a.address, port: a.port, tls: s.server instanceof tls.Server, saslMechanisms: s.saslMechanisms, accepted: s.accepted, open: s.open, handshakeFailures: s.handshakeFailures, authorizer, clientQuotas: s.quotas.size, throttledRequests: s.quotas.throttled, requestTimeThrottledRequests: s.quotas.requestTimeThrottled, exemptRequestTimeMs: s.quotas.exemptRequestTimeMs, refusedConnections: s.limits.refused, delayedConnections: s.limits.delayed, jwks } satisfies KafkaListenerDescription);
    },
    AclsChanged(s, m, ctx) {
      if (!s.authorizer) return;
      s.authorizer.update(m.acls);
      ctx.log.info('ACLs in force', { acls: m.acls.length });
    },
    ShareVersionChanged(s, m, ctx) {
      const on = m.level >= 1;
      if (on === s.shareSessions.enabled) return;
      // share groups off: every share session ends (the share partition manager drops its states too)
      const ended = s.shareSessions.setEnabled(on);
      ctx.log.info(on ? 'share groups on (share.version 1)' : 'share groups off (share.version 0): share sessions ended', { sessions: ended });
    },
    ConnectionLimitsChanged(s, m, ctx) {
      const limits = { maxConnections: m.maxConnections, maxConnectionsPerIp: m.maxConnectionsPerIp, maxConnectionsPerIpOverrides: new Map(m.maxConnectionsPerIpOverrides), maxConnectionCreationRate: m.maxConnectionCreationRate };
      s.limits.update(limits);
      ctx.log.info('connection limits in force', { maxConnections: m.maxConnections, maxConnectionsPerIp: m.maxConnectionsPerIp, overrides: m.maxConnectionsPerIpOverrides.length, maxConnectionCreationRate: m.maxConnectionCreationRate });
    },

    ClientQuotasChanged(s, m, ctx) {
      s.quotas.update(m.quotas);
      s.limits.setQuotas(m.quotas);
      ctx.log.info('client quotas in force', { entities: m.quotas.length });
    },
    ScramCredentialsChanged(s, m, ctx) {
      if (!s.sasl) return;
      setDynamicScram(s.sasl, m.credentials);
      ctx.log.info('SCRAM credentials in force', { credentials: m.credentials.length, users: new Set(m.credentials.map((c) => c.user)).size });
    },
    DelegationTokensChanged(s, m, ctx) {
      if (!s.sasl) return;
      setDelegationTokens(s.sasl, m.tokens);
      ctx.log.info('delegation tokens in force', { tokens: m.tokens.length });
    },
    RefreshJwks(s) {
      if (s.jwks) void s.jwks.refresh();
    },
    AuthorizeTopics(s, m, ctx) {
      const authorizer = s.authorizer;
      const allowed = authorizer ? m.topics.filter((t) => authorizer.authorize(m.principal, m.host, m.operation, ResourceType.TOPIC, t)) : [...m.topics];
      ctx.reply({ type: 'TopicsAuthorized', errorCode: ErrorCode.NONE, allowed } satisfies TopicsAuthorized);
    },
  },
});
