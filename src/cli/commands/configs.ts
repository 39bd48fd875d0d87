/**
 * `samsa configs`: describes and alters topic configs, dynamic broker configs, brokers' log
 * levels, consumer and share group configs, client quotas, IP connection rate quotas, users' SCRAM
 * credentials and client metrics subscriptions like Kafka's kafka-configs tool. The entity is --entity-type
 * topics|brokers|broker-loggers|groups|users|clients|ips|client-metrics with --entity-name or
 * (brokers, users, clients, ips) --entity-default, or kafka-configs' shorthands --topic, --broker,
 * --broker-defaults, --broker-logger, --group, --user, --user-defaults, --client,
 * --client-defaults, --ip, --ip-defaults, --client-metrics. Client metrics subscriptions
 * (KIP-714: metrics, interval.ms, match) go through admin.alterClientMetrics and
 * admin.describeClientMetrics: `Dynamic configs for client-metric name are:`. A broker's loggers (admin.describeBrokerLoggers,
 * admin.alterBrokerLoggers) are named by its id, always: `Dynamic configs for broker-logger 1
 * are:` then `  samsa.broker=INFO sensitive=false synonyms={}` per logger; --alter checks first
 * that every logger named exists, as kafka-configs.
 * users and clients go together (a user's clients): --entity-type users --entity-name alice
 * --entity-type clients --entity-name app, names and defaults paired with the types by position.
 * ips go alone (KIP-612): an IP address (samsa takes IP literals only, where kafka-configs also
 * resolves host names; an IPv6 address is kept in the compressed form the listeners see
 * connections from) or the default IP, whose only key is connection_creation_rate (connections
 * per second the brokers' Kafka listeners accept from that address).
 * --alter takes --add-config in Kafka's syntax (k1=v1,k2=[a,b]: brackets for values with
 * commas), --add-config-file (a properties file) and --delete-config k1,k2; topics go through
 * admin.alterTopicConfigs, brokers through admin.alterBrokerConfigs, groups (Kafka 4.0's group
 * configs: consumer.session.timeout.ms, consumer.heartbeat.interval.ms) through
 * admin.alterGroupConfigs, quotas through
 * admin.alterClientQuotas (ips too: kafka-configs' "Only connection quota configs can be added
 * for 'ips'" for any other key). A user also has SCRAM credentials (KIP-554): --add-config
 * 'SCRAM-SHA-256=[iterations=8192,password=secret]' (iterations optional, 4096) goes through
 * admin.alterUserScramCredentials, which salts the password in the client; --delete-config
 * SCRAM-SHA-512 removes one. SCRAM and quota keys may be mixed (kafka-configs refuses that):
 * the quotas are sent first, then the credentials. SCRAM keys need a named user alone (not a
 * default, not with clients).
 *
 * --describe prints kafka-configs' lines: a header per entity, then `  key=value sensitive=false
 * synonyms={SOURCE:key=value, ...}` per config, in key order; only the dynamic ones (a topic's
 * overrides, a broker's own dynamic configs, the cluster-wide defaults, a group's own values)
 * unless --all, which gives every key with its value in force (admin.describeConfigs: a broker
 * asked for its own, a topic's defaults as the leader of its first partition has them, a group's
 * as its coordinator has them). A broker that cannot be asked (not
 * running) gets its dynamic configs from the cluster metadata, with a note on stderr. Quotas are
 * listed as kafka-configs lists them: `Quota configs for user-principal 'alice', client-id 'app'
 * are consumer_byte_rate=2048.0, producer_byte_rate=1024.0` (values as Java prints a double),
 * then, for users (not a default, not with clients), each user's credentials as kafka-configs
 * lists them: `SCRAM credential configs for user-principal 'alice' are
 * SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096`. An ip: `Quota configs for ip
 * '1.2.3.4' are connection_creation_rate=10.0`, `Quota configs for the default ip are ...`.
 */
import fs from 'node:fs';
import type { Admin, BrokerLogger, ClientQuotaEntity, ClientQuotaEntry, ConfigEntry, ScramMechanismName, UserScramCredentialAlteration, UserScramCredentialsDescription } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';
import { canonicalIp } from '../../security/client-quotas.js';

export { canonicalIp };

const MODES = ['describe', 'alter'] as const;
type Mode = (typeof MODES)[number];

const ENTITY_TYPES = ['topics', 'brokers', 'broker-loggers', 'groups', 'users', 'clients', 'ips', 'client-metrics'] as const;
type EntityType = (typeof ENTITY_TYPES)[number];

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'describe', kind: 'flag', help: 'list the configs of the entity (of every entity of the type without a name)' },
  { name: 'alter', kind: 'flag', help: 'set (--add-config, --add-config-file) and remove (--delete-config) configs of the entity' },
  { name: 'entity-type', kind: 'list', value: 'type', help: 'topics, brokers, broker-loggers, groups, users, clients, ips or client-metrics; users and clients may be given together (a user\'s clients), each with its --entity-name or --entity-default, in the same order; the others go alone' },
  { name: 'entity-name', kind: 'list', value: 'name', help: 'a topic name, a broker id, a group id, a user principal, a client id or an IP address (an address only: host names are not resolved)' },
  { name: 'entity-default', kind: 'flag', repeatable: true, help: 'in place of --entity-name: with brokers the cluster-wide default that every broker takes for the keys it has no value of its own for; with users, clients or ips the default user, client id or IP (the quota of those without their own)' },
  { name: 'topic', kind: 'string', value: 't', help: 'shorthand for --entity-type topics --entity-name t' },
  { name: 'broker', kind: 'string', value: 'id', help: 'shorthand for --entity-type brokers --entity-name id' },
  { name: 'broker-defaults', kind: 'flag', help: 'shorthand for --entity-type brokers --entity-default' },
  { name: 'broker-logger', kind: 'string', value: 'id', help: "shorthand for --entity-type broker-loggers --entity-name id (a broker's loggers and their log levels)" },
  { name: 'client-metrics', kind: 'string', value: 'name', help: 'shorthand for --entity-type client-metrics --entity-name name (a client metrics subscription, KIP-714: metrics, interval.ms, match)' },
  { name: 'group', kind: 'string', value: 'id', help: 'shorthand for --entity-type groups --entity-name id (a consumer group: consumer.session.timeout.ms, consumer.heartbeat.interval.ms; a share group: share.*)' },
  { name: 'user', kind: 'string', value: 'principal', help: 'shorthand for --entity-type users --entity-name principal (with --client or --client-defaults: that user\'s clients)' },
  { name: 'user-defaults', kind: 'flag', help: 'shorthand for --entity-type users --entity-default' },
  { name: 'client', kind: 'string', value: 'id', help: 'shorthand for --entity-type clients --entity-name id' },
  { name: 'client-defaults', kind: 'flag', help: 'shorthand for --entity-type clients --entity-default' },
  { name: 'ip', kind: 'string', value: 'address', help: 'shorthand for --entity-type ips --entity-name address (an IP address: its connection_creation_rate)' },
  { name: 'ip-defaults', kind: 'flag', help: 'shorthand for --entity-type ips --entity-default (the connection_creation_rate of every IP without its own)' },
  {
    name: 'add-config',
    kind: 'list',
    value: 'k1=v1,k2=[v1,v2]',
    help: "configs to set, separated by commas; square brackets around a value that has commas (cleanup.policy=[compact,delete]); a user's SCRAM credential: 'SCRAM-SHA-256=[iterations=8192,password=p]'; an ip's connection_creation_rate=n (repeatable)",
    modes: ['alter'],
  },
  { name: 'add-config-file', kind: 'string', value: 'file', help: 'configs to set, from a properties file (key=value lines; # comments)', modes: ['alter'] },
  { name: 'delete-config', kind: 'list', value: 'k1,k2', help: "configs to remove, separated by commas (repeatable): a topic goes back to the broker default, a broker to the cluster-wide default or its topology config, a group to the brokers' group.consumer.* and group.share.* values; SCRAM-SHA-256 or SCRAM-SHA-512: a user's credential; connection_creation_rate: an ip's quota", modes: ['alter'] },
  { name: 'all', kind: 'flag', help: 'with --describe: every config with the value in force, not only the dynamic ones', modes: ['describe'] },
  HELP_OPTION,
];

/**
 * A part of a quota entity the command line names: `match` a name, null for the default, or
 * (describe only) left out: any (kafka-configs' --entity-type without a name).
 */
export interface QuotaComponent {
  entityType: 'user' | 'client-id' | 'ip';
  match?: string | null;
}

/**
 * What the command line names: a topic (name null: every topic), a broker (id, 'default', or
 * null: every broker and the default), a consumer group (name null: every group), or a client
 * quota entity: its user and/or client id, in kafka-configs' order (the first names the entity
 * in --alter's message), or an ip alone; or a broker's loggers (its id).
 */
export type ConfigEntity =
  | { type: 'topics'; name: string | null }
  | { type: 'brokers'; name: number | 'default' | null }
  | { type: 'broker-loggers'; name: number }
  | { type: 'client-metrics'; name: string | null }
  | { type: 'groups'; name: string | null }
  | { type: 'quotas'; components: QuotaComponent[] };

const QUOTA_SHORTHANDS = ['user', 'client', 'user-defaults', 'client-defaults'] as const;

const KEY = /^[a-zA-Z0-9._-]+$/;

function checkKey(key: string, option: string): void {
  if (key === '') throw new UsageError(`--${option}: a config key is empty`);
  if (!KEY.test(key)) throw new UsageError(`--${option}: invalid character in config key '${key}' (keys are letters, digits, '.', '_' and '-')`);
}

/**
 * --add-config as kafka-configs reads it: pairs separated by commas outside square brackets, each
 * key=value (the value may be empty), the brackets removed from values (cleanup.policy=[compact,delete]
 * is compact,delete), keys and values trimmed. Several options are merged; a key twice is refused.
 */
export function parseAddConfig(raws: readonly string[]): Record<string, string> {
  const outside = '(?=[^\\]]*(?:\\[|$))';
  const config: Record<string, string> = {};
  for (const raw of raws) {
    for (const pair of raw.split(new RegExp(`,${outside}`))) {
      const kv = pair.split(new RegExp(`\\s*=\\s*${outside}`));
      if (kv.length !== 2) throw new UsageError(`--add-config takes key=value pairs separated by commas (square brackets around a value with commas: k=[a,b]); got '${pair}'`);
      const key = kv[0]!.trim();
      checkKey(key, 'add-config');
      if (Object.prototype.hasOwnProperty.call(config, key)) throw new UsageError(`--add-config sets ${key} more than once`);
      config[key] = kv[1]!.replace(/[[\]]/g, '').trim();
    }
  }
  return config;
}

/** A properties file's key=value (or key: value) lines; blank lines and # or ! comments skipped. */
export function parseConfigFile(text: string, file: string): Record<string, string> {
  const config: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    const l = line.trim();
    if (l === '' || l.startsWith('#') || l.startsWith('!')) return;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(l);
    if (!m) throw new UsageError(`--add-config-file ${file}, line ${i + 1}: expected key=value, got '${l}'`);
    const key = m[1]!;
    checkKey(key, 'add-config-file');
    if (Object.prototype.hasOwnProperty.call(config, key)) throw new UsageError(`--add-config-file ${file} sets ${key} more than once`);
    config[key] = m[2]!;
  });
  return config;
}

/** --delete-config: keys separated by commas, trimmed, each once. */
export function parseDeleteConfig(raws: readonly string[]): string[] {
  const keys = raws.flatMap((r) => r.split(',')).map((k) => k.trim());
  if (keys.length > 0 && keys.every((k) => k === '')) throw new UsageError('--delete-config needs config keys, such as retention.ms,segment.bytes');
  const wanted = keys.filter((k) => k !== '');
  for (const k of wanted) checkKey(k, 'delete-config');
  return [...new Set(wanted)];
}

function brokerId(raw: string, option: string, type: 'brokers' | 'broker-loggers' = 'brokers'): number {
  if (!/^\d{1,9}$/.test(raw.trim())) throw new UsageError(`${option} for ${type} must be a broker id (an integer), got '${raw}'${raw.trim() === '' && type === 'brokers' ? ' — --entity-default (or --broker-defaults) is the cluster-wide default' : ''}`);
  return Number(raw.trim());
}

function entityType(raw: string): EntityType {
  const t = raw.trim().toLowerCase();
  if ((ENTITY_TYPES as readonly string[]).includes(t)) return t as EntityType;
  throw new UsageError(`unknown --entity-type '${raw}': give topics, brokers, broker-loggers, groups, users, clients, ips or client-metrics`);
}

const IP_SHORTHANDS = ['ip', 'ip-defaults'] as const;


function ipName(raw: string, option: string): string {
  if (raw.trim() === '') throw new UsageError(`${option} needs an IP address (${option === '--ip' ? '--ip-defaults' : '--entity-default'} for the default ip)`);
  const ip = canonicalIp(raw);
  if (ip === null) throw new UsageError(`The entity name for ips must be a valid IP address, but it is: ${raw} (samsa takes IP addresses only: kafka-configs also resolves host names, samsa does not)`);
  return ip;
}

/**
 * An ip entity, as kafka-configs reads it: --ip / --ip-defaults, or --entity-type ips with one
 * --entity-name or --entity-default (or neither: every ip, to describe). ips go alone.
 */
function resolveIpEntity(args: Args, mode: Mode, types: EntityType[]): ConfigEntity {
  const shorthand = IP_SHORTHANDS.find((o) => args.has(o));
  const ipOption = shorthand ? `--${shorthand}` : '--entity-type ips';
  const other = (['topic', 'broker', 'broker-defaults', 'broker-logger', 'client-metrics', 'group', ...QUOTA_SHORTHANDS] as const).find((o) => args.has(o));
  if (other) throw new UsageError(`--${other} does not go with ${ipOption}: ips go alone (only users and clients go together)`);
  const bad = types.find((t) => t !== 'ips');
  if (bad) throw new UsageError(`--entity-type ${bad} does not go with ${ipOption}: ips go alone (only users and clients go together)`);
  if (shorthand) {
    const long = (['entity-type', 'entity-name', 'entity-default'] as const).find((o) => args.has(o));
    if (long) throw new UsageError(`--${shorthand} names the entity: it does not go with --${long} (as in kafka-configs, give --entity-type/--entity-name/--entity-default or the shorthands)`);
    if (args.has('ip') && args.has('ip-defaults')) throw new UsageError('give only one of --ip and --ip-defaults');
    return { type: 'quotas', components: [{ entityType: 'ip', match: shorthand === 'ip' ? ipName(args.string('ip')!, '--ip') : null }] };
  }
  if (types.length > 1) throw new UsageError('--entity-type ips is given more than once');
  if (args.list('entity-name').length > 1) throw new UsageError('--entity-name is given more than once');
  if (args.list('entity-default').length > 1) throw new UsageError('--entity-default is given more than once');
  const name = args.string('entity-name');
  if (name !== undefined && args.has('entity-default')) throw new UsageError('give only one of --entity-name and --entity-default');
  if (args.has('entity-default')) return { type: 'quotas', components: [{ entityType: 'ip', match: null }] };
  if (name === undefined) {
    if (mode === 'alter') throw new UsageError('--alter needs the ip: --entity-name address, or --entity-default for the default ip (or --ip address, --ip-defaults)');
    return { type: 'quotas', components: [{ entityType: 'ip' }] };
  }
  return { type: 'quotas', components: [{ entityType: 'ip', match: ipName(name, '--entity-name') }] };
}

const QUOTA_TYPE = { users: 'user', clients: 'client-id' } as const;

/**
 * A client quota entity (users and/or clients), as kafka-configs reads it: the shorthands, or
 * --entity-type with --entity-name / --entity-default paired by position.
 */
function resolveQuotaEntity(args: Args, mode: Mode, types: EntityType[]): ConfigEntity {
  const other = (['topic', 'broker', 'broker-defaults', 'broker-logger', 'client-metrics', 'group'] as const).find((o) => args.has(o));
  const quotaOption = QUOTA_SHORTHANDS.find((o) => args.has(o)) ?? `entity-type ${types.find((t) => t === 'users' || t === 'clients')}`;
  if (other) throw new UsageError(`--${other} does not go with --${quotaOption}: give one entity (only users and clients go together)`);
  const shorthands = QUOTA_SHORTHANDS.filter((o) => args.has(o));
  let components: QuotaComponent[];
  if (shorthands.length > 0) {
    const long = (['entity-type', 'entity-name', 'entity-default'] as const).find((o) => args.has(o));
    if (long) throw new UsageError(`--${shorthands[0]} names the entity: it does not go with --${long} (as in kafka-configs, give --entity-type/--entity-name/--entity-default or the shorthands)`);
    if (args.has('user') && args.has('user-defaults')) throw new UsageError('give only one of --user and --user-defaults');
    if (args.has('client') && args.has('client-defaults')) throw new UsageError('give only one of --client and --client-defaults');
    const named = (option: 'user' | 'client', entityType: QuotaComponent['entityType']): QuotaComponent => {
      const name = args.string(option)!;
      if (name === '') throw new UsageError(`--${option} needs a ${option === 'user' ? 'user principal' : 'client id'} (--${option}-defaults for the default)`);
      return { entityType, match: name };
    };
    // kafka-configs' order: the named entities (client before user), then the defaults
    components = [];
    if (args.has('client')) components.push(named('client', 'client-id'));
    if (args.has('user')) components.push(named('user', 'user'));
    if (args.has('client-defaults')) components.push({ entityType: 'client-id', match: null });
    if (args.has('user-defaults')) components.push({ entityType: 'user', match: null });
  } else {
    const bad = types.find((t) => t !== 'users' && t !== 'clients');
    if (bad) throw new UsageError(`only users and clients go together: --entity-type ${bad} does not go with --entity-type ${types.find((t) => t === 'users' || t === 'clients')}`);
    const twice = types.filter((t, i) => types.indexOf(t) !== i);
    if (twice.length > 0) throw new UsageError(`--entity-type ${twice[0]} is given more than once`);
    const names = args.sequence(['entity-name', 'entity-default']).map((o) => (o.name === 'entity-default' ? null : o.value));
    if (names.length > types.length) throw new UsageError(`more entity names than entity types: each --entity-name or --entity-default goes with an --entity-type, in the same order (got ${types.length} type(s), ${names.length} name(s))`);
    if (mode === 'alter' && names.length < types.length) {
      throw new UsageError('--alter needs a name for each --entity-type: --entity-name (a user principal, a client id) or --entity-default, in the same order');
    }
    components = types.map((t, i) => {
      const name = names[i];
      if (name === '') throw new UsageError(`--entity-name needs a ${t === 'users' ? 'user principal' : 'client id'} (--entity-default for the default)`);
      return name === undefined ? { entityType: QUOTA_TYPE[t as 'users' | 'clients'] } : { entityType: QUOTA_TYPE[t as 'users' | 'clients'], match: name };
    });
  }
  return { type: 'quotas', components };
}

/** The entity of the command line, every check that needs no cluster made. */
export function resolveEntity(args: Args, mode: Mode): ConfigEntity {
  const types = args.list('entity-type').map(entityType);
  if (types.includes('ips') || IP_SHORTHANDS.some((o) => args.has(o))) return resolveIpEntity(args, mode, types);
  if (types.some((t) => t === 'users' || t === 'clients') || QUOTA_SHORTHANDS.some((o) => args.has(o))) return resolveQuotaEntity(args, mode, types);
  if (types.length > 1 && new Set(types).size === 1) throw new UsageError(`--entity-type ${types[0]} is given more than once`);
  if (types.length > 1) throw new UsageError(`--entity-type ${types[0]} goes alone: only users and clients go together (got ${types.join(', ')})`);
  const rawType = args.string('entity-type');
  const type = types[0] as 'topics' | 'brokers' | 'broker-loggers' | 'groups' | 'client-metrics' | undefined;
  if (args.list('entity-name').length > 1) throw new UsageError('--entity-name is given more than once');
  if (args.list('entity-default').length > 1) throw new UsageError('--entity-default is given more than once');
  const shorthands = (['topic', 'broker', 'broker-defaults', 'broker-logger', 'group', 'client-metrics'] as const).filter((o) => args.has(o));
  if (shorthands.length > 1) throw new UsageError(`give only one of --topic, --broker, --broker-defaults, --broker-logger, --group and --client-metrics (got ${shorthands.map((o) => `--${o}`).join(' and ')})`);
  const shorthand = shorthands[0];
  if (shorthand !== undefined) {
    const implied = ({ topic: 'topics', group: 'groups', 'broker-logger': 'broker-loggers', 'client-metrics': 'client-metrics', broker: 'brokers', 'broker-defaults': 'brokers' } as const)[shorthand];
    const what = { topics: 'a topic', groups: 'a group', brokers: 'brokers', 'broker-loggers': "a broker's loggers", 'client-metrics': 'a client metrics subscription' }[implied];
    if (type !== undefined && type !== implied) throw new UsageError(`--${shorthand} names ${what}: it does not go with --entity-type ${rawType}`);
    for (const o of ['entity-name', 'entity-default']) if (args.has(o)) throw new UsageError(`--${shorthand} names the entity: it does not go with --${o}`);
    if (shorthand === 'topic' || shorthand === 'group' || shorthand === 'client-metrics') {
      const name = args.string(shorthand)!;
      if (name.trim() === '') throw new UsageError(`--${shorthand} needs a ${{ topic: 'topic name', group: 'group id', 'client-metrics': 'subscription name' }[shorthand]}`);
      return { type: implied as 'topics' | 'groups' | 'client-metrics', name };
    }
    if (shorthand === 'broker') return { type: 'brokers', name: brokerId(args.string('broker')!, '--broker') };
    if (shorthand === 'broker-logger') return { type: 'broker-loggers', name: brokerId(args.string('broker-logger')!, '--broker-logger', 'broker-loggers') };
    return { type: 'brokers', name: 'default' };
  }
  if (type === undefined) {
    if (args.has('entity-name') || args.has('entity-default')) throw new UsageError(`--${args.has('entity-name') ? 'entity-name' : 'entity-default'} goes with --entity-type topics|brokers|broker-loggers|groups|users|clients|ips|client-metrics`);
    throw new UsageError('give the entity: --entity-type topics|brokers|broker-loggers|groups|users|clients|ips|client-metrics (with --entity-name or --entity-default), or --topic t, --broker id, --broker-defaults, --broker-logger id, --group g, --user u, --user-defaults, --client c, --client-defaults, --ip address, --ip-defaults, --client-metrics name');
  }
  const name = args.string('entity-name');
  if (name !== undefined && args.has('entity-default')) throw new UsageError('give only one of --entity-name and --entity-default');
  if (type === 'topics') {
    if (args.has('entity-default')) throw new UsageError('--entity-default goes with --entity-type brokers: topics have no default entity (the defaults of topic configs are broker configs: log.retention.ms for retention.ms)');
    if (name !== undefined && name.trim() === '') throw new UsageError('--entity-name needs a topic name');
    if (name === undefined && mode === 'alter') throw new UsageError('--alter needs the topic: --entity-name t (or --topic t)');
    return { type, name: name ?? null };
  }
  if (type === 'broker-loggers') {
    // as kafka-configs: a broker's loggers are named by its id, always (no default, no "every broker")
    if (args.has('entity-default')) throw new UsageError(`--entity-default must not be specified with --${mode} of broker-loggers: a broker's loggers are its own (--entity-name id)`);
    if (name === undefined) throw new UsageError(`An entity name must be specified with --${mode} of broker-loggers: the broker's id (--entity-name id, or --broker-logger id)`);
    return { type, name: brokerId(name, '--entity-name', 'broker-loggers') };
  }
  if (type === 'client-metrics') {
    if (args.has('entity-default')) throw new UsageError('--entity-default goes with --entity-type brokers: client metrics subscriptions have no default entity');
    if (name !== undefined && name.trim() === '') throw new UsageError('--entity-name needs a subscription name');
    if (name === undefined && mode === 'alter') throw new UsageError('--alter needs the subscription: --entity-name name (or --client-metrics name)');
    return { type, name: name ?? null };
  }
  if (type === 'groups') {
    if (args.has('entity-default')) throw new UsageError("--entity-default goes with --entity-type brokers: groups have no default entity (a group's defaults are the brokers' group.consumer.* and group.share.* values)");
    if (name !== undefined && name.trim() === '') throw new UsageError('--entity-name needs a group id');
    if (name === undefined && mode === 'alter') throw new UsageError('--alter needs the group: --entity-name g (or --group g)');
    return { type, name: name ?? null };
  }
  if (args.has('entity-default')) return { type, name: 'default' };
  if (name === undefined && mode === 'alter') throw new UsageError('--alter needs the broker: --entity-name id, or --entity-default for the cluster-wide default (or --broker id, --broker-defaults)');
  return { type, name: name === undefined ? null : brokerId(name, '--entity-name') };
}

/** What --alter sets and deletes, checked: something to do, no key both set and deleted. */
export function planAlter(args: Args): { set: Record<string, string>; delete: string[] } {
  if (args.has('add-config') && args.has('add-config-file')) throw new UsageError('give only one of --add-config and --add-config-file');
  let set: Record<string, string> = {};
  if (args.has('add-config')) set = parseAddConfig(args.list('add-config'));
  const file = args.string('add-config-file');
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`--add-config-file ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    set = parseConfigFile(text, file);
  }
  const deletes = parseDeleteConfig(args.list('delete-config'));
  if (Object.keys(set).length === 0 && deletes.length === 0) throw new UsageError('--alter needs --add-config k=v, --add-config-file file or --delete-config k');
  const both = deletes.filter((k) => Object.prototype.hasOwnProperty.call(set, k));
  if (both.length > 0) throw new UsageError(`${both.join(', ')} ${both.length === 1 ? 'is' : 'are'} both added and deleted: give ${both.length === 1 ? 'it' : 'each'} to --add-config or to --delete-config, not both`);
  return { set, delete: deletes };
}

/** A quota value as kafka-configs reads it (a Java double), or a usage error naming the key. */
export function parseQuotaValue(key: string, raw: string): number {
  const v = raw.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) throw new UsageError(`Cannot parse quota configuration value for ${key}: ${raw}`);
  return Number(v);
}

/** --alter's change to a quota entity's quotas: the values parsed (the controller names unknown keys). */
export function planQuotaAlter(change: { set: Record<string, string>; delete: string[] }): { set: Record<string, number>; delete: string[] } {
  return { set: Object.fromEntries(Object.entries(change.set).map(([k, v]) => [k, parseQuotaValue(k, v)])), delete: change.delete };
}

const SCRAM_KEY = /^SCRAM-SHA-(256|512)$/i;
const SCRAM_SYNTAX = 'SCRAM-SHA-256=[iterations=n,password=p] (iterations optional, before the password; default 4096)';

/** A SCRAM mechanism key of --add-config or --delete-config (any case), by Kafka's name; else null. */
export function scramMechanismOf(key: string): ScramMechanismName | null {
  return SCRAM_KEY.test(key) ? (key.toUpperCase() as ScramMechanismName) : null;
}

/**
 * A SCRAM key's value as kafka-configs reads it: `[iterations=n,]password=p` (--add-config's
 * brackets are gone by now; a properties file's are dropped here), the password the rest of the
 * value. The value is not repeated in an error: it holds the password.
 */
export function parseScramCredential(mechanism: string, raw: string): { iterations?: number; password: string } {
  const t = raw.trim();
  const v = t.startsWith('[') && t.endsWith(']') ? t.slice(1, -1).trim() : t;
  if (!/(^|,)\s*password=/.test(v)) throw new UsageError(`${mechanism} needs a password: ${SCRAM_SYNTAX}`);
  const m = /^(?:iterations=(-?\d+)\s*,\s*)?password=(.*)$/s.exec(v);
  if (!m) throw new UsageError(`Invalid credential property ${mechanism}: expected ${SCRAM_SYNTAX}`);
  const password = m[2]!;
  if (password === '') throw new UsageError(`${mechanism} needs a password: password= is empty`);
  if (/,\s*iterations=/.test(password)) throw new UsageError(`Invalid credential property ${mechanism}: iterations goes before the password (password= takes the rest of the value): ${SCRAM_SYNTAX}`);
  if (m[1] === undefined || m[1] === '-1') return { password };
  const iterations = Number(m[1]);
  if (!Number.isSafeInteger(iterations)) throw new UsageError(`Invalid credential property ${mechanism}: iterations must be an integer`);
  return { iterations, password };
}

/** KIP-612: the only quota key of an ip entity. */
export const CONNECTION_CREATION_RATE = 'connection_creation_rate';

/**
 * --alter's change to an ip: kafka-configs' check that every key (added or deleted) is
 * connection_creation_rate, then the values parsed (the controller wants a positive whole number).
 */
export function planIpAlter(change: { set: Record<string, string>; delete: string[] }): { set: Record<string, number>; delete: string[] } {
  const unexpected = [...new Set([...Object.keys(change.set), ...change.delete].filter((k) => k !== CONNECTION_CREATION_RATE))];
  if (unexpected.length > 0) throw new UsageError(`Only connection quota configs can be added for 'ips'. Unexpected config names: ${unexpected.join(',')} (an ip takes ${CONNECTION_CREATION_RATE} only)`);
  return planQuotaAlter(change);
}

/** --alter's change to users or clients: their quotas (values parsed), and a user's SCRAM credentials. */
export interface UserAlterPlan {
  quotas: { set: Record<string, number>; delete: string[] };
  scram: { user: string; upsertions: { mechanism: ScramMechanismName; iterations?: number; password: string }[]; deletions: ScramMechanismName[] } | null;
}

/**
 * Splits --alter's keys for a quota entity: SCRAM mechanisms (a credential of the named user) and
 * quota keys. As kafka-configs: SCRAM keys go only with a named user, neither with clients nor
 * with the default user. An ip takes connection_creation_rate alone (planIpAlter).
 */
export function planUserAlter(components: readonly QuotaComponent[], change: { set: Record<string, string>; delete: string[] }): UserAlterPlan {
  if (components.some((c) => c.entityType === 'ip')) return { quotas: planIpAlter(change), scram: null };
  const quotaSet: Record<string, string> = {};
  const upsertions: NonNullable<UserAlterPlan['scram']>['upsertions'] = [];
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(change.set)) {
    const mechanism = scramMechanismOf(key);
    if (!mechanism) {
      quotaSet[key] = value;
      continue;
    }
    if (seen.has(mechanism)) throw new UsageError(`--add-config sets ${mechanism} more than once`);
    seen.add(mechanism);
    upsertions.push({ mechanism, ...parseScramCredential(mechanism, value) });
  }
  const deletions = [...new Set(change.delete.map(scramMechanismOf).filter((m): m is ScramMechanismName => m !== null))];
  const both = deletions.filter((m) => seen.has(m));
  if (both.length > 0) throw new UsageError(`${both.join(', ')} ${both.length === 1 ? 'is' : 'are'} both added and deleted: give ${both.length === 1 ? 'it' : 'each'} to --add-config or to --delete-config, not both`);
  const quotaDeletes = change.delete.filter((k) => scramMechanismOf(k) === null);
  const quotas = planQuotaAlter({ set: quotaSet, delete: quotaDeletes });
  if (upsertions.length === 0 && deletions.length === 0) return { quotas, scram: null };
  // kafka-configs' rule: one kind of config per command, so a refusal never leaves half a change
  if (Object.keys(quotaSet).length > 0 || quotaDeletes.length > 0) throw new UsageError('Cannot alter both quota and SCRAM credential configs simultaneously');
  const named = [...upsertions.map((u) => u.mechanism), ...deletions].join(', ');
  if (components.some((c) => c.entityType === 'client-id')) {
    throw new UsageError(`${named}: SCRAM credentials belong to a user alone: clients (and a user's clients) take quota configs only (producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate)`);
  }
  const user = components[0]!.match;
  if (typeof user !== 'string') throw new UsageError(`${named}: --entity-default and --user-defaults do not go with SCRAM credentials: a credential belongs to a named user (--entity-name, --user)`);
  return { quotas, scram: { user, upsertions, deletions } };
}

/** kafka-configs' line for a user's SCRAM credentials: `SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192`. */
export function scramLine(d: UserScramCredentialsDescription): string {
  return `SCRAM credential configs for user-principal '${d.user}' are ${d.credentials.map((c) => `${c.mechanism}=iterations=${c.iterations}`).join(', ')}`;
}

/** A number as Java prints a double (kafka-configs' quota values): 1024.0, 100.5, 1.048576E7, 1.0E-4. */
export function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(v);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = v.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** kafka-configs' words for a quota entity: "user-principal 'alice', client-id 'app'", "the default client-id", "ip '1.2.3.4'". */
export function quotaEntityWords(e: ClientQuotaEntity): string {
  const part = (type: string, v: string | null | undefined) => (v === undefined ? [] : [v === null ? `the default ${type}` : `${type} '${v}'`]);
  return [...part('user-principal', e.user), ...part('client-id', e.clientId), ...part('ip', e.ip)].join(', ');
}

/** kafka-configs' line for a quota entity: `Quota configs for user-principal 'alice' are producer_byte_rate=1024.0` (keys in order). */
export function quotaLine(q: ClientQuotaEntry): string {
  const values = Object.keys(q.quotas)
    .sort()
    .map((k) => `${k}=${javaDouble(q.quotas[k]!)}`);
  return `Quota configs for ${quotaEntityWords(q.entity)} are ${values.join(', ')}`;
}

/** The entity a quota entity's components name (each with a name or the default). */
function quotaEntity(components: readonly QuotaComponent[]): ClientQuotaEntity {
  const e: ClientQuotaEntity = {};
  for (const c of components) {
    if (c.entityType === 'user') e.user = c.match ?? null;
    else if (c.entityType === 'ip') e.ip = c.match ?? null;
    else e.clientId = c.match ?? null;
  }
  return e;
}

/** kafka-configs' line for a config: `  key=value sensitive=false synonyms={SOURCE:key=value, ...}`. */
export function configLine(e: ConfigEntry): string {
  const synonyms = e.synonyms.map((s) => `${s.source}:${s.name}=${e.sensitive ? 'null' : s.value}`).join(', ');
  return `  ${e.name}=${e.sensitive ? 'null' : e.value} sensitive=${e.sensitive} synonyms={${synonyms}}`;
}

function samsaErrorName(e: unknown): string | undefined {
  return e instanceof Error && typeof (e as SamsaError).errorName === 'string' ? (e as SamsaError).errorName : undefined;
}

/** A broker's dynamic configs as entries, from the metadata (when the broker cannot be asked). */
function dynamicEntries(own: Record<string, string>, defaults: Record<string, string>): ConfigEntry[] {
  return Object.keys(own)
    .sort()
    .map((name) => ({
      name,
      value: own[name]!,
      source: 'DYNAMIC_BROKER_CONFIG' as const,
      isDefault: false,
      readOnly: false,
      sensitive: false,
      synonyms: [
        { name, value: own[name]!, source: 'DYNAMIC_BROKER_CONFIG' as const },
        ...(Object.prototype.hasOwnProperty.call(defaults, name) ? [{ name, value: defaults[name]!, source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' as const }] : []),
      ],
    }));
}

const byName = (a: ConfigEntry, b: ConfigEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Prints one broker's configs; false when it could not be asked and --all was wanted. */
async function describeBroker(admin: Admin, id: number, all: boolean): Promise<boolean> {
  let entries: ConfigEntry[];
  let complete = true;
  try {
    const { configs } = await admin.describeConfigs({ broker: id });
    entries = all ? configs : configs.filter((c) => c.source === 'DYNAMIC_BROKER_CONFIG');
  } catch (e) {
    if (samsaErrorName(e) !== 'BROKER_NOT_AVAILABLE') throw e;
    const [[own], [defaults]] = await Promise.all([admin.describeBrokerConfigs({ broker: id }), admin.describeBrokerConfigs({ broker: null })]);
    entries = dynamicEntries(own!.configs, defaults!.configs);
    err(`${(e as Error).message} — showing its dynamic configs, from the cluster metadata`);
    complete = !all;
  }
  out(`${all ? 'All' : 'Dynamic'} configs for broker ${id} are:`);
  for (const e of [...entries].sort(byName)) out(configLine(e));
  return complete;
}

async function describeBrokerDefaults(admin: Admin): Promise<void> {
  const { configs } = await admin.describeConfigs({ broker: null });
  out('Default configs for brokers in the cluster are:');
  for (const e of [...configs].sort(byName)) out(configLine(e));
}

/** A group's configs: its own values, or (--all) every group key with the broker defaults of the others. */
async function describeGroup(admin: Admin, group: string, all: boolean): Promise<void> {
  const { configs } = await admin.describeConfigs({ group });
  out(`${all ? 'All' : 'Dynamic'} configs for group ${group} are:`);
  for (const e of [...configs].sort(byName)) if (all || e.source === 'DYNAMIC_GROUP_CONFIG') out(configLine(e));
}

async function describeTopic(admin: Admin, topic: string, all: boolean): Promise<void> {
  let configs: ConfigEntry[];
  try {
    configs = (await admin.describeConfigs({ topic })).configs;
  } catch (e) {
    if (samsaErrorName(e) === 'UNKNOWN_TOPIC_OR_PARTITION') throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
    throw e;
  }
  out(`${all ? 'All' : 'Dynamic'} configs for topic ${topic} are:`);
  for (const e of [...configs].sort(byName)) if (all || e.source === 'DYNAMIC_TOPIC_CONFIG') out(configLine(e));
}

/**
 * A refusal of the change itself (a key that cannot change at run time, an unknown key, a bad
 * value: the controller's message names it) is the command line's fault; an unknown topic is said so.
 */
function refusedChange(e: unknown, topic?: string): never {
  const name = samsaErrorName(e);
  if (name === 'INVALID_CONFIG' || name === 'INVALID_REQUEST') throw new UsageError((e as Error).message);
  if (name === 'UNKNOWN_TOPIC_OR_PARTITION' && topic !== undefined) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
  throw e;
}

/** kafka-configs' check: a key to delete must be set. */
function checkDeletes(deletes: readonly string[], current: Record<string, string | number>, what: string): void {
  const missing = deletes.filter((k) => !Object.prototype.hasOwnProperty.call(current, k));
  if (missing.length > 0) {
    const set = Object.keys(current).sort();
    throw new UsageError(`Invalid config(s): ${missing.join(',')} — not set for ${what}, nothing to delete (${set.length > 0 ? `set: ${set.join(', ')}` : 'it has no dynamic configs'})`);
  }
}

async function alterQuotas(admin: Admin, components: readonly QuotaComponent[], change: { set: Record<string, number>; delete: string[] }): Promise<void> {
  const entity = quotaEntity(components);
  if (Object.keys(change.set).length === 0 && change.delete.length === 0) return;
  if (change.delete.length > 0) {
    const [current] = await admin.describeClientQuotas({ components: components.map((c) => ({ entityType: c.entityType, match: c.match ?? null })), strict: true });
    checkDeletes(change.delete, current?.quotas ?? {}, quotaEntityWords(entity));
  }
  const ops = [...Object.entries(change.set).map(([key, value]) => ({ key, value })), ...change.delete.map((key) => ({ key, remove: true }))];
  try {
    await admin.alterClientQuotas([{ entity, ops }]);
  } catch (e) {
    refusedChange(e);
  }
}

/**
 * A user's SCRAM credentials set and deleted in one request (the salted passwords computed by
 * the admin client). The controller's refusal (iterations out of range, a credential to delete
 * that does not exist) ends the command with its reason (exit 1).
 */
async function alterScram(admin: Admin, scram: NonNullable<UserAlterPlan['scram']>): Promise<void> {
  const { user } = scram;
  const alterations: UserScramCredentialAlteration[] = [
    ...scram.deletions.map((mechanism) => ({ user, mechanism })),
    ...scram.upsertions.map((u) => ({ user, mechanism: u.mechanism, password: u.password, ...(u.iterations !== undefined ? { iterations: u.iterations } : {}) })),
  ];
  try {
    await admin.alterUserScramCredentials(alterations);
  } catch (e) {
    const name = samsaErrorName(e);
    if (name === undefined) throw e;
    const hint =
      name === 'RESOURCE_NOT_FOUND'
        ? ` — ${scram.deletions.length === 1 ? scram.deletions[0] : `one of ${scram.deletions.join(', ')}`} is not set for user-principal '${user}' (\`samsa configs --describe --user ${user}\` lists the credentials)`
        : '';
    throw new CliError(`${(e as Error).message}${hint}`);
  }
}

/** The quotas or the SCRAM credentials (one kind a command); kafka-configs' line naming the first entity type of the command line. */
async function alterUsers(admin: Admin, components: readonly QuotaComponent[], plan: UserAlterPlan): Promise<void> {
  if (plan.scram) await alterScram(admin, plan.scram);
  else await alterQuotas(admin, components, plan.quotas);
  const head = components[0]!;
  const type = head.entityType === 'user' ? 'user' : head.entityType === 'ip' ? 'ip' : 'client';
  out(head.match ? `Completed updating config for ${type} ${head.match}.` : `Completed updating default config for ${type}s in the cluster.`);
}

/**
 * kafka-configs' lines for the quota entities that match the components exactly (containsOnly),
 * then, as kafka-configs, the SCRAM credentials of the user (every user without a name) when
 * the entity names users alone and not the default.
 */
async function describeQuotas(admin: Admin, components: readonly QuotaComponent[]): Promise<void> {
  const entries = await admin.describeClientQuotas({ components: components.map((c) => ({ ...c })), strict: true });
  for (const q of entries) out(quotaLine(q));
  const [only, ...others] = components;
  if (others.length > 0 || only?.entityType !== 'user' || only.match === null) return;
  const users = await admin.describeUserScramCredentials(only.match === undefined ? null : [only.match]);
  for (const d of users) if (d.credentials.length > 0) out(scramLine(d));
}

/** A group's configs: the controller's refusal (an unknown key, a value out of bounds) is the command line's fault (exit 2). */
async function alterGroup(admin: Admin, group: string, change: { set: Record<string, string>; delete: string[] }): Promise<void> {
  if (change.delete.length > 0) {
    const [current] = await admin.describeGroupConfigs({ group });
    checkDeletes(change.delete, current!.configs, `group ${group}`);
  }
  const [result] = await admin.alterGroupConfigs([{ group, set: change.set, delete: change.delete }]);
  if (result && result.errorCode !== ErrorCode.NONE) refusedChange(new SamsaError(result.errorCode, `group ${group}: ${result.errorMessage ?? ''}`));
  out(`Completed updating config for group ${group}.`);
}

/** kafka-configs' line for a logger: `  name=LEVEL sensitive=false synonyms={}`. */
const loggerLine = (l: BrokerLogger): string => `  ${l.name}=${l.level} sensitive=false synonyms={}`;

/** A broker's loggers and their levels, by name as kafka-configs sorts them (every one is dynamic: --all lists the same). */
async function describeBrokerLoggers(admin: Admin, broker: number, all: boolean): Promise<void> {
  const loggers = await admin.describeBrokerLoggers(broker);
  out(`${all ? 'All' : 'Dynamic'} configs for broker-logger ${broker} are:`);
  for (const l of [...loggers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) out(loggerLine(l));
}

/** kafka-configs' check first (every logger named must exist on the broker), then the change; the broker's refusal (a bad level) is a usage error. */
async function alterBrokerLoggers(admin: Admin, broker: number, change: { set: Record<string, string>; delete: string[] }): Promise<void> {
  const known = new Set((await admin.describeBrokerLoggers(broker)).map((l) => l.name));
  const invalid = [...change.delete, ...Object.keys(change.set)].filter((n) => !known.has(n));
  if (invalid.length > 0) throw new UsageError(`Invalid broker logger(s): ${invalid.join(',')} — broker ${broker} has no such logger (\`samsa configs --describe --broker-logger ${broker}\` lists them)`);
  try {
    await admin.alterBrokerLoggers({ broker, set: change.set, delete: change.delete });
  } catch (e) {
    refusedChange(e);
  }
  out(`Completed updating config for broker-logger ${broker}.`);
}

/** Client metrics subscriptions' keys, in kafka-configs' lines (every key is the subscription's own: --all lists the same). */
async function describeClientMetrics(admin: Admin, name: string | null, all: boolean): Promise<void> {
  const subscriptions = await admin.describeClientMetrics(name === null ? {} : { name });
  for (const sub of subscriptions) {
    out(`${all ? 'All' : 'Dynamic'} configs for client-metric ${sub.name} are:`);
    for (const [key, value] of Object.entries(sub.configs)) out(`  ${key}=${value} sensitive=false synonyms={}`);
  }
}

/** A subscription's keys set and deleted; the controller's refusal (an unknown key, a bad interval or pattern) is the command line's fault (exit 2). */
async function alterClientMetrics(admin: Admin, name: string, change: { set: Record<string, string>; delete: string[] }): Promise<void> {
  if (change.delete.length > 0) {
    const [current] = await admin.describeClientMetrics({ name });
    checkDeletes(change.delete, current!.configs, `client-metric ${name}`);
  }
  const [result] = await admin.alterClientMetrics([{ name, set: change.set, delete: change.delete }]);
  if (result && result.errorCode !== ErrorCode.NONE) refusedChange(new SamsaError(result.errorCode, `client-metric ${name}: ${result.errorMessage ?? ''}`));
  out(`Completed updating config for client-metric ${name}.`);
}

async function alter(admin: Admin, entity: ConfigEntity, change: { set: Record<string, string>; delete: string[] }): Promise<void> {
  if (entity.type === 'quotas') return alterUsers(admin, entity.components, planUserAlter(entity.components, change));
  if (entity.type === 'client-metrics') return alterClientMetrics(admin, entity.name!, change);
  if (entity.type === 'broker-loggers') return alterBrokerLoggers(admin, entity.name, change);
  if (entity.type === 'groups') return alterGroup(admin, entity.name!, change);
  if (entity.type === 'topics') {
    const topic = entity.name!;
    if (change.delete.length > 0) {
      let config: Record<string, string | number>;
      try {
        config = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.config;
      } catch (e) {
        return refusedChange(e, topic);
      }
      checkDeletes(change.delete, config, `topic ${topic}`);
    }
    try {
      await admin.alterTopicConfigs({ topics: [{ topic, set: change.set, delete: change.delete }] });
    } catch (e) {
      refusedChange(e, topic);
    }
    out(`Completed updating config for topic ${topic}.`);
    return;
  }
  const broker = entity.name === 'default' ? null : (entity.name as number);
  if (change.delete.length > 0) {
    const [current] = await admin.describeBrokerConfigs({ broker });
    checkDeletes(change.delete, current!.configs, broker === null ? 'the cluster-wide default' : `broker ${broker}`);
  }
  try {
    await admin.alterBrokerConfigs({ brokers: [{ broker, set: change.set, delete: change.delete }] });
  } catch (e) {
    refusedChange(e);
  }
  out(broker === null ? 'Completed updating default config for brokers in the cluster.' : `Completed updating config for broker ${broker}.`);
}

async function describe(admin: Admin, entity: ConfigEntity, all: boolean, liveBrokers: () => Promise<number[]>): Promise<boolean> {
  if (entity.type === 'quotas') {
    await describeQuotas(admin, entity.components);
    return true;
  }
  if (entity.type === 'broker-loggers') {
    await describeBrokerLoggers(admin, entity.name, all);
    return true;
  }
  if (entity.type === 'client-metrics') {
    await describeClientMetrics(admin, entity.name, all);
    return true;
  }
  if (entity.type === 'topics') {
    const topics = entity.name !== null ? [entity.name] : await admin.listTopics();
    for (const t of topics) await describeTopic(admin, t, all);
    return true;
  }
  if (entity.type === 'groups') {
    // without a name: the groups the coordinators know, and those with configs of their own
    const groups =
      entity.name !== null
        ? [entity.name]
        : [...new Set([...(await admin.listGroups()).groups.map((g) => g.groupId), ...(await admin.describeGroupConfigs()).map((g) => g.group)])].sort();
    for (const g of groups) await describeGroup(admin, g, all);
    return true;
  }
  if (entity.name === 'default') {
    await describeBrokerDefaults(admin);
    return true;
  }
  // without a name, kafka-configs lists the live brokers and then the default; here the brokers
  // that have dynamic configs too, running or not
  const ids =
    entity.name !== null
      ? [entity.name]
      : [...new Set([...(await liveBrokers()), ...(await admin.describeBrokerConfigs()).flatMap((r) => (r.broker === null ? [] : [r.broker]))])].sort((a, b) => a - b);
  let complete = true;
  for (const id of ids) complete = (await describeBroker(admin, id, all)) && complete;
  if (entity.name === null) await describeBrokerDefaults(admin);
  return complete;
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES) as Mode;
  const entity = resolveEntity(args, mode);
  const change = mode === 'alter' ? planAlter(args) : null;
  if (entity.type === 'quotas') {
    if (args.has('all')) throw new UsageError('--all goes with topics, brokers and groups: a quota entity has only the quotas set for it');
    if (change) planUserAlter(entity.components, change);
  }
  let complete = true;
  await withCluster(args, 'samsa-configs', (conn) =>
    withAdmin(conn, async (admin) => {
      if (change) return alter(admin, entity, change);
      const live = async () => (await conn.metadata()).brokers.filter((b) => !b.fenced).map((b) => b.brokerId);
      complete = await describe(admin, entity, args.has('all'), live);
    }),
  );
  if (!complete) throw new CliError('not every config could be described: a broker did not answer (is it running?)', EXIT_FAILURE);
  return EXIT_OK;
}

export const configsCommand: Command = {
  name: 'configs',
  summary: 'describe and alter topic configs, dynamic broker configs (per broker or cluster-wide), brokers\' log levels, group configs, client quotas, IP connection rates, SCRAM credentials and client metrics subscriptions',
  usage: [
    '[--bootstrap-server host:port] --describe (--topic t | --entity-type topics [--entity-name t]) [--all]',
    '[--bootstrap-server host:port] --describe (--broker id | --broker-defaults | --entity-type brokers [--entity-name id | --entity-default]) [--all]',
    '[--bootstrap-server host:port] --alter (--topic t | --entity-type topics --entity-name t) [--add-config k1=v1,k2=[a,b] | --add-config-file file] [--delete-config k1,k2]',
    '[--bootstrap-server host:port] --alter (--broker id | --broker-defaults | --entity-type brokers (--entity-name id | --entity-default)) [--add-config ...] [--delete-config ...]',
    '[--bootstrap-server host:port] --describe (--broker-logger id | --entity-type broker-loggers --entity-name id)',
    '[--bootstrap-server host:port] --alter (--broker-logger id | --entity-type broker-loggers --entity-name id) [--add-config logger=LEVEL,...] [--delete-config logger,...]',
    '[--bootstrap-server host:port] --describe (--client-metrics name | --entity-type client-metrics [--entity-name name])',
    "[--bootstrap-server host:port] --alter (--client-metrics name | --entity-type client-metrics --entity-name name) [--add-config 'metrics=[p1,p2],interval.ms=n,match=[client_software_name=re,...]'] [--delete-config k1,k2]",
    '[--bootstrap-server host:port] --describe (--group g | --entity-type groups [--entity-name g]) [--all]',
    '[--bootstrap-server host:port] --alter (--group g | --entity-type groups --entity-name g) [--add-config consumer.session.timeout.ms=n,consumer.heartbeat.interval.ms=n | share.auto.offset.reset=earliest,share.record.lock.duration.ms=n,...] [--delete-config k1,k2]',
    '[--bootstrap-server host:port] --describe ([--user u | --user-defaults] [--client c | --client-defaults] | --entity-type users|clients [--entity-name n | --entity-default] ...)',
    '[--bootstrap-server host:port] --alter ([--user u | --user-defaults] [--client c | --client-defaults] | --entity-type users|clients (--entity-name n | --entity-default) ...) [--add-config producer_byte_rate=n,consumer_byte_rate=n,request_percentage=p,controller_mutation_rate=n] [--delete-config k1,k2]',
    "[--bootstrap-server host:port] --alter (--user u | --entity-type users --entity-name u) [--add-config 'SCRAM-SHA-256=[iterations=n,password=p],SCRAM-SHA-512=[password=p]'] [--delete-config SCRAM-SHA-256,SCRAM-SHA-512]",
    '[--bootstrap-server host:port] --describe (--ip address | --ip-defaults | --entity-type ips [--entity-name address | --entity-default])',
    '[--bootstrap-server host:port] --alter (--ip address | --ip-defaults | --entity-type ips (--entity-name address | --entity-default)) [--add-config connection_creation_rate=n] [--delete-config connection_creation_rate]',
  ],
  description: [
    "Describes and changes configs like Kafka's kafka-configs. Topics have their config overrides (retention.ms, cleanup.policy, ...). Brokers have dynamic configs (Kafka's KIP-226): of one broker (--broker id), or the cluster-wide default (--broker-defaults) that every broker takes for a key it has no value of its own for; a broker runs with its own over the default over its topology config, and takes a change at once. Only the keys that can change while brokers run may be set: the defaults of topic configs (log.retention.ms, log.segment.bytes, log.cleanup.policy, message.max.bytes, min.insync.replicas, compression.type, ...); the others are refused, named by the controller.",
    '--describe prints a header per entity and a line per config: key=value, sensitive (always false: samsa has no secret configs) and its synonyms, the layers that set it, most specific first (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG: the topology, DEFAULT_CONFIG). Without --all only the dynamic configs are listed: a topic\'s overrides, a broker\'s own dynamic configs, the cluster-wide defaults. With --all every key with its value in force: a broker reports its own (it alone knows its topology config); a topic\'s keys without an override show the broker defaults as the leader of its first partition has them (brokers with their own dynamic or topology configs may differ). A broker that cannot be asked (not running) is described from the cluster metadata, its dynamic configs only, with a note on stderr (and exit code 1 with --all). Without a name, every topic, or every broker (live, or with dynamic configs) and then the cluster-wide default.',
    "A broker's loggers (Kafka's broker-loggers, KIP-412) are the named loggers of its node: root, samsa.runtime, an actor's samsa.<kind> (samsa.broker, samsa.partition-replica, samsa.controller, samsa.kafka-connection, ...) and a component's below its owner's (samsa.broker.log-manager, samsa.broker.log-manager.log). --describe lists each with the level it runs at; --alter --add-config samsa.partition-replica=DEBUG gives a logger a level (Kafka's OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL), which the loggers below it without their own follow, and --delete-config takes a logger's own level away (not root's). A logger the broker does not have is a usage error (exit 2), as is a level Kafka does not name. The levels last until the broker stops; brokers sharing a node share its loggers.",
    "Client metrics subscriptions (Kafka's client-metrics, KIP-714) tell clients which of their metrics to push to the brokers and how often: metrics, the metric name prefixes (in square brackets when there are several; * every metric), interval.ms (100 to 3600000, 300000 by default) and match, selector=regex pairs the client must all match (client_instance_id, client_id, client_software_name, client_software_version, client_source_address, client_source_port; none: every client). A subscription is made by its first key and gone with its last. The controller checks them as Kafka does: an unknown key, an interval out of range or a bad pattern is refused with its reason (exit 2). Brokers with a telemetry receiver (client.telemetry.receiver, an actor) hand what the clients push to it. --describe without a name lists every subscription.",
    "Consumer groups have group configs (Kafka 4.0's, KIP-848): consumer.session.timeout.ms and consumer.heartbeat.interval.ms, a group's own session timeout and heartbeat interval in place of the brokers' group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms. The controller checks them: integers within group.consumer.min/max.session.timeout.ms (45000 to 60000 by default) and group.consumer.min/max.heartbeat.interval.ms (5000 to 15000), the heartbeat interval below the session timeout; an unknown key or a value out of bounds is refused with its reason (exit 2). The group need not exist. The coordinator times the group's KIP-848 members' sessions with them and tells the members the heartbeat interval. --describe lists a group's own values (DYNAMIC_GROUP_CONFIG); --all every group key, a key without a value of the group's taking the broker's value on the group's coordinator (DEFAULT_CONFIG). --delete-config takes a key back to the brokers' value. Without a name, every group the coordinators know and every group with configs.",
    "Share groups (KIP-932) have theirs: share.session.timeout.ms and share.heartbeat.interval.ms (within group.share.min/max.session.timeout.ms and group.share.min/max.heartbeat.interval.ms, the heartbeat below the session timeout), share.record.lock.duration.ms (within group.share.min/max.record.lock.duration.ms, 15000 to 60000 by default), share.delivery.count.limit (2 to 10) and share.partition.max.record.locks (100 to 10000), each in place of the brokers' group.share.* value; share.auto.offset.reset, where the group starts reading a partition it has no state of: latest (the default), earliest, or by_duration:<ISO-8601 duration> (PnDTnHnMn.nS, not negative: Kafka's first record written at most that long ago; samsa's brokers take it and start such a group at the latest for now); share.isolation.level, read_uncommitted (the default) or read_committed. The controller checks them as Kafka does and refuses a bad value with Kafka's reason (exit 2). --describe --all lists every key, consumer and share.",
    "--alter sets and removes configs; the others stay. --add-config takes Kafka's syntax: pairs separated by commas, square brackets around a value that has commas. A key to delete must be set. A key both added and deleted, a key that cannot change at run time and a bad value are usage errors (exit 2).",
    "Users and clients have client quotas (Kafka's KIP-13/55): producer_byte_rate and consumer_byte_rate, bytes per second per broker; request_percentage (KIP-124), the percentage of one request handler thread's time per broker (the broker thread's time on the client's requests over the quota window, its listener's and the replicas' appends and reads included; over 100 is more than one thread's worth); controller_mutation_rate (KIP-599), partitions created or deleted per second. They are set on a user (the SASL user or certificate principal), a client id, or a user's clients of an id (--entity-type users --entity-name alice --entity-type clients --entity-name app, or --user alice --client app); --entity-default (--user-defaults, --client-defaults) is the default, the quota of every user or client id without one of its own. The most specific quota that exists applies, key by key. A value that is not a number is a usage error; one not above 0, or an unknown key, is refused with the controller's reason (exit 2). --describe lists each quota entity of exactly those types, as kafka-configs: `Quota configs for user-principal 'alice', client-id 'app' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0`; a type without a name lists every entity of it (the default included).",
    "Users have SCRAM credentials too (Kafka's KIP-554), one per mechanism: --add-config 'SCRAM-SHA-256=[iterations=8192,password=secret]' sets the user's SCRAM-SHA-256 credential (iterations optional, before the password: 4096 by default, the controller takes 4096 to 16384), --delete-config SCRAM-SHA-256 removes it. The password never leaves this command: a random salt and the salted password are sent, and the brokers' SASL listeners accept the user from then on. SCRAM keys need a named user alone: not --entity-default or --user-defaults, not with clients. SCRAM and quota keys may be given together (kafka-configs refuses that): the quotas are changed first, then the credentials. A malformed SCRAM value or a missing password is a usage error (exit 2); the controller's refusal (iterations out of range, a credential to delete that does not exist) ends with its reason (exit 1). --describe of users (a name, or every user; not the default, not with clients) adds kafka-configs' line per user with credentials: `SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096` (mechanisms and iterations only).",
    "IPs have a connection rate quota (Kafka's KIP-612): connection_creation_rate, the new connections per second (a positive whole number) each broker's Kafka listeners accept from one IP address; connections beyond it are closed after the throttle time. --ip 1.2.3.4 (--entity-type ips --entity-name 1.2.3.4) names an address, --ip-defaults (--entity-default) the default, the rate of every IP without one of its own. ips go alone: not with users or clients. The name must be an IP address: kafka-configs also resolves host names, samsa does not (an IPv6 address is kept in its compressed form, as the listeners see connections; an IPv4-mapped one as its IPv4 address). Any other key for an ip is refused, as kafka-configs: `Only connection quota configs can be added for 'ips'` (exit 2); connection_creation_rate on a user or client is refused with the controller's reason (exit 2). --describe lists them as kafka-configs: `Quota configs for ip '1.2.3.4' are connection_creation_rate=10.0`, `Quota configs for the default ip are connection_creation_rate=5.0`; --entity-type ips without a name lists every ip (the default included).",
  ].join('\n\n'),
  options,
  examples: [
    'samsa configs --describe --entity-type brokers --entity-default',
    'samsa configs --alter --entity-type brokers --entity-default --add-config log.retention.ms=86400000,min.insync.replicas=2',
    'samsa configs --alter --broker 1 --add-config log.segment.bytes=268435456 --delete-config compression.type',
    'samsa configs --describe --broker 1 --all',
    'samsa configs --alter --broker-logger 1 --add-config samsa.partition-replica=DEBUG,samsa.kafka-connection=INFO',
    'samsa configs --describe --entity-type broker-loggers --entity-name 1',
    'samsa configs --alter --topic orders --add-config cleanup.policy=[compact,delete],retention.ms=604800000',
    'samsa configs --describe --entity-type topics --entity-name orders',
    'samsa configs --alter --entity-type groups --entity-name orders-app --add-config consumer.session.timeout.ms=50000,consumer.heartbeat.interval.ms=6000',
    'samsa configs --describe --group orders-app --all',
    'samsa configs --alter --group orders-workers --add-config share.auto.offset.reset=earliest,share.record.lock.duration.ms=45000',
    "samsa configs --alter --client-metrics java-producers --add-config 'metrics=[org.apache.kafka.producer.],interval.ms=60000,match=[client_software_name=apache-kafka-java]'",
    'samsa configs --alter --group orders-app --delete-config consumer.heartbeat.interval.ms',
    'samsa configs --alter --entity-type users --entity-name alice --entity-type clients --entity-name app --add-config producer_byte_rate=1048576,consumer_byte_rate=2097152',
    'samsa configs --alter --client-defaults --add-config consumer_byte_rate=10485760',
    'samsa configs --alter --user alice --add-config request_percentage=50',
    'samsa configs --describe --entity-type users',
    "samsa configs --alter --entity-type users --entity-name alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]'",
    'samsa configs --alter --user alice --delete-config SCRAM-SHA-512',
    'samsa configs --alter --ip 203.0.113.7 --add-config connection_creation_rate=10',
    'samsa configs --alter --ip-defaults --add-config connection_creation_rate=50',
    'samsa configs --describe --entity-type ips',
  ],
  run,
};
