/**
 * The topology config: which nodes exist (in-process, worker thread, or a TCP process of their
 * own), what each hosts (the controller, brokers, user actors), where clients connect, and which
 * topics exist from the start. A broker has one log dir (`logDir`) or several (`logDirs`, JBOD). `validateTopology` checks a parsed JSON value and names the exact
 * key of every problem; nothing is started or written while any problem remains.
 */
import type { OAuthBearerConfig } from '../kafka/sasl/oauthbearer.js';
import { posix } from 'node:path';
import { parseBrokerConfig } from '../../actors/broker/broker-config.js';
import { parseControllerConfig } from '../../actors/controller/controller-config.js';
import { ConfigError } from '../storage/log-config.js';
import { LOGGER_LEVELS, parseLoggerLevel } from '../runtime/logger.js';
import { TOPIC_CONFIG_KEYS } from '../../actors/controller/topic-validation.js';
import { bootstrapFeatureLevels } from '../protocol/features.js';

export type NodeKind = 'inproc' | 'worker' | 'tcp';

export interface NodeConfig {
  id: string;
  kind: NodeKind;
  /** tcp nodes: where the node's process listens (for the other nodes and for clients). */
  host?: string;
  port?: number;
  /**
   * tcp nodes: TLS on every connection, to and from the other nodes and clients (PEM files): the
   * node's key and certificate, and the CA the others' certificates chain to. By default the node
   * asks every peer for such a certificate (`clientAuth: 'required'`, mutual TLS).
   */
  tls?: TransportTlsEntry;
}

/** TLS for samsa's own TCP connections (tcp nodes, client listeners). */
export interface TransportTlsEntry {
  keyFile: string;
  certFile: string;
  caFile: string;
  /** 'required': peers must present a certificate from caFile; 'none': only the server proves itself. */
  clientAuth?: 'none' | 'required';
}

/** One controller of a quorum: its id (unique among controllers), node and metadata dir. */
export interface ControllerVoterEntry {
  id: number;
  node: string;
  metadataDir: string;
}

/**
 * The controller: one (`node`, `metadataDir`), or a quorum of them (`quorum`: usually three or
 * five on different nodes) that replicate the metadata log with Raft, one of them active and the
 * others ready to take over when it fails. These are the initial voters: once the voter set
 * changes (KIP-853) the metadata log holds it. `observers`: more controllers, started outside
 * the voter set; each follows the quorum and becomes a voter once added (`samsa metadata-quorum
 * add-controller`). `releaseVersion` and `features`: the feature levels a new cluster starts
 * with, as Kafka's `kafka-storage format --release-version R --feature name=level` sets them
 * (a release's levels, then each feature given; src/protocol/features.ts bootstrapFeatureLevels);
 * a cluster whose metadata already has levels keeps its own.
 */
export interface ControllerConfig {
  node?: string;
  metadataDir?: string;
  quorum?: ControllerVoterEntry[];
  observers?: ControllerVoterEntry[];
  config?: Record<string, unknown>;
  releaseVersion?: string;
  features?: Record<string, number>;
}

/** The initial voters of a topology: its quorum, or its one controller as a quorum of one (id 1). */
export function controllerVoters(c: ControllerConfig): ControllerVoterEntry[] {
  return c.quorum ?? [{ id: 1, node: c.node!, metadataDir: c.metadataDir! }];
}

/** Every controller of a topology: the initial voters, then the observers. */
export function allControllers(c: ControllerConfig): ControllerVoterEntry[] {
  return [...controllerVoters(c), ...(c.observers ?? [])];
}

/** A broker's Kafka-protocol listener (for Kafka clients: KafkaJS, librdkafka, kcat, Java). */
export interface KafkaListenerEntry {
  host: string;
  /** 0 picks a free port (the real one is advertised in metadata). */
  port: number;
  /** The host advertised to clients when it differs from the bind host (e.g. binding 0.0.0.0). */
  advertisedHost?: string;
  /** Serve Kafka's SSL protocol (clients connect with TLS); PEM files, relative to the start dir. */
  tls?: KafkaListenerTlsEntry;
  /**
   * Authenticate clients with SASL (Kafka's SASL_PLAINTEXT, or SASL_SSL with `tls`): the
   * mechanisms offered (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER; default: the first
   * three with `users`, and OAUTHBEARER with `oauthbearer`), each user's password, as Kafka's JAAS
   * `user_<name>="<password>"`, and how OAUTHBEARER checks tokens (Kafka's
   * sasl.oauthbearer.* broker configs: the JSON Web Key Set or its file, the expected audience
   * and issuer, the subject and scope claim names, the clock skew; or `unsecured: true` for
   * unsigned development tokens, Kafka's default validator).
   */
  sasl?: {
    mechanisms?: ('PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER')[];
    users?: Record<string, string>;
    oauthbearer?: OAuthBearerConfig;
  };
}

/** A Kafka listener's TLS: Kafka's ssl.keystore as PEM files, and ssl.client.auth. */
export interface KafkaListenerTlsEntry {
  /** The broker's private key (PEM). */
  keyFile: string;
  /** The broker's certificate chain (PEM), the broker's own certificate first. */
  certFile: string;
  /** CA certificates client certificates must chain to (PEM); needed when clientAuth is not 'none'. */
  caFile?: string;
  /** Kafka's ssl.client.auth: 'none' (default), 'requested' or 'required' (mutual TLS). */
  clientAuth?: 'none' | 'requested' | 'required';
}

export interface BrokerConfigEntry {
  id: number;
  node: string;
  /** The broker's log dir (Kafka's log.dir): give this or logDirs, not both. */
  logDir?: string;
  /**
   * The broker's log dirs (Kafka's log.dirs, JBOD): one or more, each used by this broker only. A
   * partition's log stays in the dir it is in; a new one goes to the dir with the fewest partitions.
   */
  logDirs?: string[];
  rack?: string;
  kafka?: KafkaListenerEntry;
  config?: Record<string, unknown>;
}

export interface ListenerConfig {
  node: string;
  host: string;
  port: number;
  /** TLS for the clients connecting here (clientAuth defaults to 'none' for a listener). */
  tls?: TransportTlsEntry;
}

export interface TopicConfigEntry {
  name: string;
  partitions: number;
  replicationFactor: number;
  config?: Record<string, string | number>;
}

export interface ActorEntry {
  /** Path segment: the actor lives at `/<name>` on its node. */
  name: string;
  /** Module (relative to the topology file) whose default export is an actor definition. */
  module: string;
  node: string;
  /** Passed to the definition's init as its args. */
  config?: unknown;
}

/** Settings of the process that starts the topology (the V8 runtime all its nodes share). */
export interface RuntimeConfig {
  /**
   * V8's heap growing factor as 1 + percent / 100 (0: V8 picks it). `samsa start` uses 300 when
   * this is not given; an embedding application's process is left alone unless it is.
   */
  heapGrowingPercent?: number;
  /**
   * V8's allocation-site pretenuring (V8's default: true). `samsa start` turns it off when this
   * is not given; an embedding application's process is left alone unless it is
   * (src/runtime/pretenuring.ts says why and what it measured).
   */
  allocationSitePretenuring?: boolean;
}

export interface TopologyConfig {
  clusterId: string;
  logLevel?: 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /**
   * Levels of named loggers on every node from its start (as a log4j config names Kafka's):
   * logger name (samsa.partition-replica, samsa.broker.log-manager, root...) -> a Kafka level
   * (OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, any case). A broker's can change while it
   * runs (its BROKER_LOGGER configs).
   */
  loggers?: Record<string, string>;
  runtime?: RuntimeConfig;
  /**
   * A file (relative to the base dir) holding the cluster's node secret, for tcp topologies: each
   * node proves it when it connects to another, a node id the topology declares is refused
   * without the proof, and a node that proves it under an id this topology does not declare is
   * trusted as one of the cluster's nodes (a node added to the running cluster, whose own
   * topology declares it). Without it, the declared node ids alone decide who is a node.
   */
  nodeSecretFile?: string;
  nodes: NodeConfig[];
  controller: ControllerConfig;
  brokers: BrokerConfigEntry[];
  listeners?: ListenerConfig[];
  topics?: TopicConfigEntry[];
  actors?: ActorEntry[];
}

export interface TopologyProblem {
  /** JSON path of the offending key, e.g. `brokers[1].config.log.retention.ms`. */
  path: string;
  message: string;
}

export class TopologyError extends Error {
  override name = 'TopologyError';
  constructor(readonly problems: TopologyProblem[]) {
    super(`invalid topology:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
  }
}

const NAME = /^[a-zA-Z0-9._-]+$/;
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const LEVELS = ['error', 'warn', 'info', 'debug', 'silent'];
const LOGGER_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

type Obj = Record<string, unknown>;

class Checker {
  readonly problems: TopologyProblem[] = [];

  add(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  object(v: unknown, path: string): v is Obj {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return true;
    this.add(path, `must be an object, got ${describe(v)}`);
    return false;
  }

  keys(o: Obj, path: string, allowed: string[], required: string[]): void {
    for (const k of Object.keys(o)) if (!allowed.includes(k)) this.add(join(path, k), `unknown key (allowed: ${allowed.join(', ')})`);
    for (const k of required) if (o[k] === undefined) this.add(join(path, k), 'is required');
  }

  string(v: unknown, path: string, pattern?: RegExp): v is string {
    if (typeof v !== 'string' || v.length === 0) {
      this.add(path, `must be a non-empty string, got ${describe(v)}`);
      return false;
    }
    if (pattern && !pattern.test(v)) {
      this.add(path, `'${v}' has characters outside ${pattern.source}`);
      return false;
    }
    return true;
  }

  int(v: unknown, path: string, min: number, max = Number.MAX_SAFE_INTEGER): v is number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.add(path, `must be an integer in [${min}, ${max}], got ${describe(v)}`);
      return false;
    }
    return true;
  }

  bool(v: unknown, path: string): v is boolean {
    if (typeof v === 'boolean') return true;
    this.add(path, `must be true or false, got ${describe(v)}`);
    return false;
  }

  array(v: unknown, path: string): v is unknown[] {
    if (Array.isArray(v)) return true;
    this.add(path, `must be an array, got ${describe(v)}`);
    return false;
  }
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** Checks a parsed topology; returns every problem found (empty when valid). */
/** Checks a TransportTlsEntry's keys (the files are checked before a topology starts). */
function checkTransportTls(c: Checker, v: unknown, p: string): void {
  if (!c.object(v, p)) return;
  c.keys(v, p, ['keyFile', 'certFile', 'caFile', 'clientAuth'], ['keyFile', 'certFile', 'caFile']);
  for (const f of ['keyFile', 'certFile', 'caFile'] as const) if (v[f] !== undefined) c.string(v[f], join(p, f));
  if (v.clientAuth !== undefined && v.clientAuth !== 'none' && v.clientAuth !== 'required') c.add(join(p, 'clientAuth'), `must be 'none' or 'required', got ${JSON.stringify(v.clientAuth)}`);
}

export function validateTopology(value: unknown): TopologyProblem[] {
  const c = new Checker();
  if (!c.object(value, '(root)')) return c.problems;
  const t = value;
  c.keys(t, '', ['$schema', 'clusterId', 'logLevel', 'loggers', 'runtime', 'nodeSecretFile', 'nodes', 'controller', 'brokers', 'listeners', 'topics', 'actors'], ['clusterId', 'nodes', 'controller', 'brokers']);
  if (t.clusterId !== undefined) c.string(t.clusterId, 'clusterId', NAME);
  if (t.logLevel !== undefined && !LEVELS.includes(t.logLevel as string)) c.add('logLevel', `must be one of ${LEVELS.join(', ')}, got ${describe(t.logLevel)}`);
  if (t.loggers !== undefined && c.object(t.loggers, 'loggers')) {
    for (const [name, level] of Object.entries(t.loggers)) {
      if (!LOGGER_NAME.test(name)) c.add(`loggers.${name}`, 'a logger name is dot-separated names of letters, digits, \'_\' and \'-\' (samsa.partition-replica)');
      else if (typeof level !== 'string' || parseLoggerLevel(level) === null) c.add(`loggers.${name}`, `must be one of ${LOGGER_LEVELS.join(', ')}, got ${describe(level)}`);
    }
  }
  if (t.runtime !== undefined && c.object(t.runtime, 'runtime')) {
    c.keys(t.runtime, 'runtime', ['heapGrowingPercent', 'allocationSitePretenuring'], []);
    if (t.runtime.heapGrowingPercent !== undefined) c.int(t.runtime.heapGrowingPercent, 'runtime.heapGrowingPercent', 0, 1000);
    if (t.runtime.allocationSitePretenuring !== undefined) c.bool(t.runtime.allocationSitePretenuring, 'runtime.allocationSitePretenuring');
  }

  const nodes = new Map<string, NodeKind>();
  const tcpAddresses = new Set<string>();
  if (t.nodes !== undefined && c.array(t.nodes, 'nodes')) {
    if (t.nodes.length === 0) c.add('nodes', 'must declare at least one node');
    t.nodes.forEach((n, i) => {
      const p = join('nodes', i);
      if (!c.object(n, p)) return;
      c.keys(n, p, ['id', 'kind', 'host', 'port', 'tls'], ['id', 'kind']);
      if (n.tls !== undefined) {
        if (n.kind !== 'tcp') c.add(join(p, 'tls'), 'only tcp nodes take tls (in-process and worker nodes talk inside the process)');
        else checkTransportTls(c, n.tls, join(p, 'tls'));
      }
      const idOk = n.id !== undefined && c.string(n.id, join(p, 'id'), NAME);
      if (n.kind !== undefined && n.kind !== 'inproc' && n.kind !== 'worker' && n.kind !== 'tcp') c.add(join(p, 'kind'), `must be inproc, worker or tcp, got ${describe(n.kind)}`);
      if (n.kind === 'tcp') {
        if (n.host === undefined) c.add(join(p, 'host'), 'is required for a tcp node');
        else c.string(n.host, join(p, 'host'));
        if (n.port === undefined) c.add(join(p, 'port'), 'is required for a tcp node');
        else if (c.int(n.port, join(p, 'port'), 1, 65535)) {
          const addr = `${String(n.host)}:${n.port}`;
          if (tcpAddresses.has(addr)) c.add(join(p, 'port'), `${addr} is already used by another node`);
          tcpAddresses.add(addr);
        }
      } else {
        if (n.host !== undefined) c.add(join(p, 'host'), `only tcp nodes have a host (this one is ${String(n.kind)}); clients connect through listeners`);
        if (n.port !== undefined) c.add(join(p, 'port'), `only tcp nodes have a port (this one is ${String(n.kind)}); clients connect through listeners`);
      }
      if (idOk) {
        if (nodes.has(n.id as string)) c.add(join(p, 'id'), `duplicate node id '${String(n.id)}'`);
        nodes.set(n.id as string, n.kind as NodeKind);
      }
    });
    const kinds = new Set(nodes.values());
    if (kinds.has('tcp') && (kinds.has('inproc') || kinds.has('worker'))) {
      c.add('nodes', 'mixes tcp nodes with inproc/worker nodes: a topology runs either in one process (inproc and worker nodes) or as one process per node (tcp nodes)');
    }
    if (kinds.has('worker') && !kinds.has('inproc')) c.add('nodes', 'worker nodes need an inproc node: the main thread that starts them');
    if (t.nodeSecretFile !== undefined && c.string(t.nodeSecretFile, 'nodeSecretFile') && !kinds.has('tcp')) {
      c.add('nodeSecretFile', 'only tcp topologies take a node secret (in-process and worker nodes talk inside the process)');
    }
  }
  const nodeRef = (v: unknown, path: string) => {
    if (!c.string(v, path)) return;
    if (nodes.size > 0 && !nodes.has(v)) c.add(path, `node '${v}' is not declared in nodes`);
  };

  if (t.controller !== undefined && c.object(t.controller, 'controller')) {
    const q = t.controller.quorum;
    c.keys(t.controller, 'controller', ['node', 'metadataDir', 'quorum', 'observers', 'config', 'releaseVersion', 'features'], q === undefined ? ['node', 'metadataDir'] : ['quorum']);
    if (q !== undefined && (t.controller.node !== undefined || t.controller.metadataDir !== undefined)) {
      c.add('controller', 'has both quorum and node/metadataDir: a quorum names each controller\'s node and metadataDir');
    }
    if (t.controller.node !== undefined) nodeRef(t.controller.node, 'controller.node');
    if (t.controller.metadataDir !== undefined) c.string(t.controller.metadataDir, 'controller.metadataDir');
    // every controller (initial voters and observers) has its own id, node and metadata dir
    const ids = new Set<number>();
    const onNodes = new Set<string>();
    const dirs = new Set<string>();
    if (q === undefined) {
      ids.add(1);
      if (typeof t.controller.node === 'string') onNodes.add(t.controller.node);
      if (typeof t.controller.metadataDir === 'string') dirs.add(t.controller.metadataDir);
    }
    const controllerEntries = (list: unknown[], where: string) =>
      list.forEach((v, i) => {
        const p = join(where, i);
        if (!c.object(v, p)) return;
        c.keys(v, p, ['id', 'node', 'metadataDir'], ['id', 'node', 'metadataDir']);
        if (v.id !== undefined && c.int(v.id, join(p, 'id'), 1, 2 ** 31 - 1)) {
          if (ids.has(v.id as number)) c.add(join(p, 'id'), `duplicate controller id ${String(v.id)}`);
          ids.add(v.id as number);
        }
        if (v.node !== undefined) {
          nodeRef(v.node, join(p, 'node'));
          if (onNodes.has(v.node as string)) c.add(join(p, 'node'), `node '${String(v.node)}' already hosts a controller of the quorum`);
          onNodes.add(v.node as string);
        }
        if (v.metadataDir !== undefined && c.string(v.metadataDir, join(p, 'metadataDir'))) {
          if (dirs.has(v.metadataDir as string)) c.add(join(p, 'metadataDir'), `'${String(v.metadataDir)}' is already another controller's metadataDir`);
          dirs.add(v.metadataDir as string);
        }
      });
    if (q !== undefined && c.array(q, 'controller.quorum')) {
      if (q.length === 0) c.add('controller.quorum', 'must name at least one controller');
      controllerEntries(q, 'controller.quorum');
      if (q.length % 2 === 0) c.add('controller.quorum', `has ${q.length} controllers: an even quorum tolerates no more failures than one smaller; use an odd number`);
    }
    const o = t.controller.observers;
    if (o !== undefined && c.array(o, 'controller.observers')) controllerEntries(o, 'controller.observers');
    if (t.controller.config !== undefined && c.object(t.controller.config, 'controller.config')) {
      // the controller's own parser: its keys, and their values, as the controller will read them
      try {
        parseControllerConfig(t.controller.config);
      } catch (err) {
        if (err instanceof ConfigError) c.add(join('controller.config', err.key), err.message.slice(err.key.length + 2));
        else c.add('controller.config', (err as Error).message);
      }
    }
    // a new cluster's feature levels, checked as the controller will take them
    const rv = t.controller.releaseVersion;
    const fs = t.controller.features;
    const rvOk = rv === undefined || c.string(rv, 'controller.releaseVersion');
    const fsOk = fs === undefined || c.object(fs, 'controller.features');
    if (rvOk && fsOk && (rv !== undefined || fs !== undefined)) {
      const levels = bootstrapFeatureLevels({ releaseVersion: rv as string | undefined, features: fs as Record<string, number> | undefined });
      if (!levels.ok) c.add(join('controller', levels.where), levels.message);
    }
  }

  // host:port pairs taken so far (tcp nodes, Kafka listeners, client listeners)
  const usedAddresses = new Set<string>(tcpAddresses);
  let brokerCount = 0;
  if (t.brokers !== undefined && c.array(t.brokers, 'brokers')) {
    if (t.brokers.length === 0) c.add('brokers', 'must declare at least one broker');
    brokerCount = t.brokers.length;
    const ids = new Set<number>();
    /** normalized log dir -> the index of the broker using it */
    const dirs = new Map<string, number>();
    t.brokers.forEach((b, i) => {
      const p = join('brokers', i);
      if (!c.object(b, p)) return;
      c.keys(b, p, ['id', 'node', 'logDir', 'logDirs', 'rack', 'kafka', 'config'], ['id', 'node']);
      if (b.kafka !== undefined && c.object(b.kafka, join(p, 'kafka'))) {
        const k = b.kafka;
        const kp = join(p, 'kafka');
        c.keys(k, kp, ['host', 'port', 'advertisedHost', 'tls', 'sasl'], ['host', 'port']);
        if (k.sasl !== undefined && c.object(k.sasl, join(kp, 'sasl'))) {
          const sp = join(kp, 'sasl');
          const sa = k.sasl;
          c.keys(sa, sp, ['mechanisms', 'users', 'oauthbearer'], []);
          const offers = (m: string) => (Array.isArray(sa.mechanisms) ? (sa.mechanisms as string[]).includes(m) : m === 'OAUTHBEARER' ? sa.oauthbearer !== undefined : sa.users !== undefined || sa.oauthbearer === undefined);
          if (sa.users === undefined && offers('PLAIN')) c.add(join(sp, 'users'), 'is required with PLAIN: { "<name>": "<password>" }');
          if (offers('OAUTHBEARER') && sa.oauthbearer === undefined) c.add(join(sp, 'oauthbearer'), 'is required with OAUTHBEARER: { "jwks": <key set or its file> } (or "unsecured": true for unsigned development tokens)');
          if (sa.oauthbearer !== undefined && c.object(sa.oauthbearer, join(sp, 'oauthbearer'))) {
            const op = join(sp, 'oauthbearer');
            const o = sa.oauthbearer as Record<string, unknown>;
            c.keys(o, op, ['jwks', 'jwksRefreshMs', 'unsecured', 'expectedAudience', 'expectedIssuer', 'subClaimName', 'scopeClaimName', 'clockSkewSeconds'], []);
            if (o.jwksRefreshMs !== undefined && !(Number.isInteger(o.jwksRefreshMs) && (o.jwksRefreshMs as number) >= 1000)) c.add(join(op, 'jwksRefreshMs'), 'must be a whole number of milliseconds, 1000 or more');
            if (o.jwks !== undefined && typeof o.jwks !== 'string' && !(typeof o.jwks === 'object' && o.jwks !== null && Array.isArray((o.jwks as { keys?: unknown }).keys))) c.add(join(op, 'jwks'), 'must be a JSON Web Key Set ({ "keys": [...] }) or the path of one');
            if (o.unsecured !== undefined && typeof o.unsecured !== 'boolean') c.add(join(op, 'unsecured'), 'must be true or false');
            if (o.jwks === undefined && o.unsecured !== true) c.add(op, 'needs "jwks" (the keys tokens are signed with), or "unsecured": true for unsigned development tokens');
            if (o.expectedAudience !== undefined && !(Array.isArray(o.expectedAudience) && o.expectedAudience.every((x) => typeof x === 'string'))) c.add(join(op, 'expectedAudience'), 'must be a list of strings');
            for (const k of ['expectedIssuer', 'subClaimName', 'scopeClaimName'] as const) if (o[k] !== undefined && (typeof o[k] !== 'string' || o[k] === '')) c.add(join(op, k), 'must be a non-empty string');
            if (o.clockSkewSeconds !== undefined && !(Number.isInteger(o.clockSkewSeconds) && (o.clockSkewSeconds as number) >= 0)) c.add(join(op, 'clockSkewSeconds'), 'must be a whole number of seconds, 0 or more');
          }
          if (sa.mechanisms !== undefined && c.array(sa.mechanisms, join(sp, 'mechanisms'))) {
            const known = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'];
            if (sa.mechanisms.length === 0) c.add(join(sp, 'mechanisms'), `must name at least one of ${known.join(', ')}`);
            sa.mechanisms.forEach((m, j) => {
              if (!known.includes(m as string)) c.add(join(join(sp, 'mechanisms'), j), `${JSON.stringify(m)} is not one of ${known.join(', ')}`);
            });
          }
          if (sa.users !== undefined && c.object(sa.users, join(sp, 'users'))) {
            const users = Object.entries(sa.users);
            // SCRAM users can also come from the cluster (AlterUserScramCredentials); PLAIN's only from here
            const mechanisms = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'].filter(offers);
            if (users.length === 0 && !mechanisms.some((m) => m.startsWith('SCRAM-'))) c.add(join(sp, 'users'), 'must name at least one user: { "<name>": "<password>" } (PLAIN takes only the users configured here)');
            for (const [name, password] of users) {
              if (name === '') c.add(join(sp, 'users'), 'a user name must be non-empty');
              if (typeof password !== 'string' || password === '') c.add(join(join(sp, 'users'), name), 'the password must be a non-empty string');
            }
          }
        }
        if (k.host !== undefined) c.string(k.host, join(kp, 'host'));
        if (k.tls !== undefined && c.object(k.tls, join(kp, 'tls'))) {
          const tp = join(kp, 'tls');
          const tl = k.tls;
          c.keys(tl, tp, ['keyFile', 'certFile', 'caFile', 'clientAuth'], ['keyFile', 'certFile']);
          for (const f of ['keyFile', 'certFile', 'caFile'] as const) if (tl[f] !== undefined) c.string(tl[f], join(tp, f));
          if (tl.clientAuth !== undefined && !['none', 'requested', 'required'].includes(tl.clientAuth as string)) {
            c.add(join(tp, 'clientAuth'), `must be 'none', 'requested' or 'required', got ${JSON.stringify(tl.clientAuth)}`);
          } else if (tl.clientAuth !== undefined && tl.clientAuth !== 'none' && tl.caFile === undefined) {
            c.add(join(tp, 'caFile'), `clientAuth '${String(tl.clientAuth)}' checks client certificates against a CA: give caFile`);
          }
        }
        if (k.advertisedHost !== undefined) c.string(k.advertisedHost, join(kp, 'advertisedHost'));
        if (k.port !== undefined && c.int(k.port, join(kp, 'port'), 0, 65535) && k.port !== 0) {
          const addr = `${String(k.host)}:${k.port}`;
          if (usedAddresses.has(addr)) c.add(join(kp, 'port'), `${addr} is already used`);
          usedAddresses.add(addr);
        }
      }
      if (b.id !== undefined && c.int(b.id, join(p, 'id'), 0, 2 ** 31 - 1)) {
        if (ids.has(b.id)) c.add(join(p, 'id'), `duplicate broker id ${b.id}`);
        ids.add(b.id);
      }
      if (b.node !== undefined) nodeRef(b.node, join(p, 'node'));
      const useDir = (dir: string, at: string): void => {
        const key = posix.normalize(dir.replace(/\\/g, '/')).replace(/\/$/, '');
        const owner = dirs.get(key);
        if (owner === i) c.add(at, `log dir '${dir}' is listed twice`);
        else if (owner !== undefined) c.add(at, `log dir '${dir}' is used by another broker`);
        else dirs.set(key, i);
      };
      if (b.logDir !== undefined && b.logDirs !== undefined) c.add(join(p, 'logDirs'), 'give logDir (one dir) or logDirs (one or more), not both');
      else if (b.logDir === undefined && b.logDirs === undefined) c.add(join(p, 'logDir'), 'is required (or logDirs, for one or more dirs)');
      if (b.logDir !== undefined && c.string(b.logDir, join(p, 'logDir'))) useDir(b.logDir, join(p, 'logDir'));
      if (b.logDirs !== undefined && c.array(b.logDirs, join(p, 'logDirs'))) {
        if (b.logDirs.length === 0) c.add(join(p, 'logDirs'), 'must name at least one log dir');
        b.logDirs.forEach((d, j) => {
          if (c.string(d, join(join(p, 'logDirs'), j))) useDir(d, join(join(p, 'logDirs'), j));
        });
      }
      if (b.rack !== undefined) c.string(b.rack, join(p, 'rack'));
      if (b.config !== undefined && c.object(b.config, join(p, 'config'))) {
        try {
          parseBrokerConfig(b.config);
        } catch (err) {
          if (err instanceof ConfigError) c.add(join(join(p, 'config'), err.key), err.message.slice(err.key.length + 2));
          else c.add(join(p, 'config'), (err as Error).message);
        }
      }
    });
  }

  if (t.listeners !== undefined && c.array(t.listeners, 'listeners')) {
    const seen = usedAddresses;
    t.listeners.forEach((l, i) => {
      const p = join('listeners', i);
      if (!c.object(l, p)) return;
      c.keys(l, p, ['node', 'host', 'port', 'tls'], ['node', 'host', 'port']);
      if (l.tls !== undefined) checkTransportTls(c, l.tls, join(p, 'tls'));
      if (l.node !== undefined) {
        nodeRef(l.node, join(p, 'node'));
        if (nodes.get(l.node as string) === 'tcp') c.add(join(p, 'node'), 'tcp nodes already listen on their own host:port');
        if (nodes.get(l.node as string) === 'worker') c.add(join(p, 'node'), 'listeners belong on an inproc node (the main thread), not a worker');
      }
      if (l.host !== undefined) c.string(l.host, join(p, 'host'));
      if (l.port !== undefined && c.int(l.port, join(p, 'port'), 0, 65535)) {
        const addr = `${String(l.host)}:${l.port}`;
        if (l.port !== 0 && seen.has(addr)) c.add(join(p, 'port'), `${addr} is already used`);
        seen.add(addr);
      }
    });
  }

  if (t.topics !== undefined && c.array(t.topics, 'topics')) {
    const names = new Set<string>();
    t.topics.forEach((tp, i) => {
      const p = join('topics', i);
      if (!c.object(tp, p)) return;
      c.keys(tp, p, ['name', 'partitions', 'replicationFactor', 'config'], ['name', 'partitions', 'replicationFactor']);
      if (tp.name !== undefined && c.string(tp.name, join(p, 'name'), TOPIC)) {
        if (tp.name === '.' || tp.name === '..') c.add(join(p, 'name'), `'${tp.name}' is not a legal topic name`);
        if (names.has(tp.name)) c.add(join(p, 'name'), `duplicate topic '${tp.name}'`);
        names.add(tp.name);
      }
      if (tp.partitions !== undefined) c.int(tp.partitions, join(p, 'partitions'), 1, 100_000);
      if (tp.replicationFactor !== undefined && c.int(tp.replicationFactor, join(p, 'replicationFactor'), 1, 32_767) && brokerCount > 0 && tp.replicationFactor > brokerCount) {
        c.add(join(p, 'replicationFactor'), `${tp.replicationFactor} is larger than the ${brokerCount} broker(s) declared`);
      }
      if (tp.config !== undefined && c.object(tp.config, join(p, 'config'))) {
        for (const k of Object.keys(tp.config)) {
          if (!TOPIC_CONFIG_KEYS.includes(k)) c.add(join(join(p, 'config'), k), 'unknown topic config key');
        }
      }
    });
  }

  if (t.actors !== undefined && c.array(t.actors, 'actors')) {
    const names = new Set<string>();
    t.actors.forEach((a, i) => {
      const p = join('actors', i);
      if (!c.object(a, p)) return;
      c.keys(a, p, ['name', 'module', 'node', 'config'], ['name', 'module', 'node']);
      if (a.name !== undefined && c.string(a.name, join(p, 'name'), /^[a-zA-Z0-9._-]+$/)) {
        const key = `${String(a.node)}/${a.name}`;
        if (names.has(key)) c.add(join(p, 'name'), `duplicate actor '${a.name}' on node '${String(a.node)}'`);
        names.add(key);
        if (/^(broker-\d+|controller|metadata)$/.test(a.name)) c.add(join(p, 'name'), `'${a.name}' is reserved for samsa's own actors`);
      }
      if (a.module !== undefined) c.string(a.module, join(p, 'module'));
      if (a.node !== undefined) nodeRef(a.node, join(p, 'node'));
    });
  }
  return c.problems;
}

/** Validates and returns the typed config, or throws TopologyError listing every problem. */
export function parseTopology(value: unknown): TopologyConfig {
  const problems = validateTopology(value);
  if (problems.length) throw new TopologyError(problems);
  return value as TopologyConfig;
}
