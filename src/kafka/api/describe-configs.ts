/**
 * DescribeConfigs (api key 32, v0-v4) for topics (resource type 2) and this broker (4): every
 * config key with the value in force and where it comes from — the topic's own override
 * (DYNAMIC_TOPIC_CONFIG), this broker's dynamic config (DYNAMIC_BROKER_CONFIG), the cluster-wide
 * dynamic default (DYNAMIC_DEFAULT_BROKER_CONFIG), the broker's config file
 * (STATIC_BROKER_CONFIG) or Kafka's default (DEFAULT_CONFIG) — with synonyms (v1+,
 * includeSynonyms) and config types (v3+). The broker resource '' is the cluster-wide default:
 * its dynamic configs only, as Kafka lists them. The entries come from
 * actors/broker/config-entries.ts (as samsa's admin describes them); this adds Kafka's codes and
 * config types. Configs are not secret here (no passwords exist), so nothing is marked sensitive. With an authorizer, as Kafka:
 * a topic's configs need DESCRIBE_CONFIGS on the topic (else TOPIC_AUTHORIZATION_FAILED), a
 * broker's DESCRIBE_CONFIGS on the cluster (else CLUSTER_AUTHORIZATION_FAILED).
 *
 * Groups (resource type 32, Kafka's group configs): every group key (consumer.session.timeout.ms,
 * consumer.heartbeat.interval.ms and the share group's share.*), the group's own value
 * (GROUP_CONFIG) or this broker's group.consumer.* / group.share.* value or Kafka's default
 * (DEFAULT_CONFIG), INT or STRING, as Kafka's ConfigHelper; a group need not exist. With an
 * authorizer: DESCRIBE_CONFIGS on the group, else GROUP_AUTHORIZATION_FAILED.
 *
 * Client metrics subscriptions (resource type 16, KIP-714): the keys the subscription has
 * (metrics, interval.ms, match), CLIENT_METRICS_CONFIG, none for a name that has none; an empty
 * name is INVALID_REQUEST. With an authorizer: DESCRIBE_CONFIGS on the cluster.
 *
 * Broker loggers (resource type 8, KIP-412), named by this broker's id: root and every named
 * logger of the broker's node with the level it runs at (DYNAMIC_BROKER_LOGGER_CONFIG, no
 * synonyms, as Kafka lists its log4j loggers); another broker's id, an empty name or one that is
 * not a number is INVALID_REQUEST. With an authorizer: DESCRIBE_CONFIGS on the cluster.
 */
import { brokerConfigEntries, clusterDefaultConfigEntries, groupConfigEntries, topicConfigEntries, type ConfigEntry as ConfigEntryOf } from '../../../actors/broker/config-entries.js';
import { GROUP_CONFIG_DEFS } from '../../../actors/group-coordinator/group-configs.js';
import type { ClusterMetadata } from '../../protocol/cluster.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import type { BrokerLoggersDescription, BrokerMsg } from '../../../actors/broker/messages.js';
import { isFailure } from '../../runtime/types.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiContext, type ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const CLIENT_METRICS = 16;
const GROUP = 32;

/** Kafka's DescribeConfigsResponse.ConfigSource. */
const Source = { DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5, DYNAMIC_BROKER_LOGGER_CONFIG: 6, CLIENT_METRICS_CONFIG: 7, DYNAMIC_GROUP_CONFIG: 8 } as const;
/** Kafka's DescribeConfigsResponse.ConfigType. */
const Type = { UNKNOWN: 0, BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, DOUBLE: 6, LIST: 7 } as const;

const TOPIC_TYPES: Record<string, number> = {
  'segment.bytes': Type.INT,
  'segment.ms': Type.LONG,
  'segment.index.bytes': Type.INT,
  'index.interval.bytes': Type.INT,
  'retention.ms': Type.LONG,
  'retention.bytes': Type.LONG,
  'flush.messages': Type.LONG,
  'flush.ms': Type.LONG,
  'message.timestamp.type': Type.STRING,
  'max.message.bytes': Type.INT,
  'min.insync.replicas': Type.INT,
  'cleanup.policy': Type.LIST,
  'delete.retention.ms': Type.LONG,
  'min.cleanable.dirty.ratio': Type.DOUBLE,
  'min.compaction.lag.ms': Type.LONG,
  'max.compaction.lag.ms': Type.LONG,
  'compression.type': Type.STRING,
  'compression.gzip.level': Type.INT,
  'compression.lz4.level': Type.INT,
  'compression.zstd.level': Type.INT,
  'unclean.leader.election.enable': Type.BOOLEAN,
  'leader.replication.throttled.replicas': Type.LIST,
  'follower.replication.throttled.replicas': Type.LIST,
};

const TOPIC_ORDER = Object.keys(TOPIC_TYPES);

interface Synonym {
  name: string;
  value: string | null;
  source: number;
}

interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  isDefault: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: Synonym[];
  configType: number;
  documentation: string | null;
}

/** The dynamic broker configs that apply to this broker: its own, and the cluster-wide defaults. */
function dynamicLayers(ctx: ApiContext, md: ClusterMetadata | null): { mine: Record<string, string>; defaults: Record<string, string> } {
  return { mine: md?.brokerConfigs?.[String(ctx.brokerId)] ?? {}, defaults: md?.brokerConfigs?.[''] ?? {} };
}

function brokerConfigType(value: string): number {
  if (/^(true|false)$/.test(value)) return Type.BOOLEAN;
  if (/^-?\d+$/.test(value)) return Type.LONG;
  if (/^-?\d*\.\d+$/.test(value)) return Type.DOUBLE;
  return Type.STRING;
}

/** An entry of actors/broker/config-entries.ts on the wire (sources as Kafka's codes). */
function toWire(e: ConfigEntryOf, configType: number): ConfigEntry {
  return {
    name: e.name,
    value: e.value,
    readOnly: e.readOnly,
    isDefault: e.isDefault,
    configSource: Source[e.source],
    isSensitive: e.sensitive,
    synonyms: e.synonyms.map((x) => ({ name: x.name, value: x.value, source: Source[x.source] })),
    configType,
    documentation: null,
  };
}

/** This broker's configs (its dynamic configs over the cluster-wide defaults over its file). */
function brokerEntries(ctx: ApiContext, md: ClusterMetadata | null): ConfigEntryOf[] {
  const { mine, defaults } = dynamicLayers(ctx, md);
  return brokerConfigEntries(ctx.configInput, mine, defaults);
}

/** The error for a resource the client may not describe, or null when it may. */
function refusal(ctx: ApiContext, r: { resourceType: number; resourceName: string }): number | null {
  if (r.resourceType === TOPIC) return ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, r.resourceName) ? null : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (r.resourceType === BROKER || r.resourceType === BROKER_LOGGER || r.resourceType === CLIENT_METRICS) return ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME) ? null : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  if (r.resourceType === GROUP) return ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.GROUP, r.resourceName) ? null : ErrorCode.GROUP_AUTHORIZATION_FAILED;
  return null;
}

/**
 * A group's configs: its own values over this broker's group.consumer.* / group.share.* (Kafka's
 * DEFAULT_CONFIG for those); one synonym each, the one in force, as Kafka's ConfigHelper lists a
 * group key's.
 */
function groupEntries(ctx: ApiContext, md: ClusterMetadata, groupId: string): ConfigEntry[] {
  return groupConfigEntries(md.groupConfigs?.[groupId] ?? {}, brokerEntries(ctx, md)).map((e) => {
    const wire = toWire(e, GROUP_CONFIG_DEFS[e.name]?.type === 'STRING' ? Type.STRING : Type.INT);
    return { ...wire, synonyms: wire.synonyms.slice(0, 1) };
  });
}

/**
 * A topic's configs in force (each of samsa's topic keys, Kafka's order by name), as CreateTopics
 * v5+ answers them: the topic's own overrides over this broker's configs over Kafka's defaults.
 */
export function effectiveTopicConfigs(ctx: ApiContext, md: ClusterMetadata | null, topicConfig: Readonly<Record<string, string | number>>): { name: string; value: string; readOnly: boolean; configSource: number; isSensitive: boolean }[] {
  return topicConfigEntries(topicConfig, brokerEntries(ctx, md)).map((e) => ({ name: e.name, value: e.value, readOnly: false, configSource: Source[e.source], isSensitive: e.sensitive }));
}

/** Why a BROKER_LOGGER resource name is not this broker's (Kafka's messages), or null when it is. */
export function brokerLoggerProblem(ctx: ApiContext, name: string): string | null {
  if (name === '') return 'Broker id must not be empty';
  if (!/^-?[0-9]+$/.test(name)) return `Node id must be an integer, but it is: ${name}`;
  if (Number(name) !== ctx.brokerId) return `Unexpected broker id, expected ${ctx.brokerId} but received ${name}`;
  return null;
}

/** A logger as Kafka describes it: its level, DYNAMIC_BROKER_LOGGER_CONFIG, no synonyms nor type. */
function loggerEntry(name: string, level: string): ConfigEntry {
  return { name, value: level, readOnly: false, isDefault: false, configSource: Source.DYNAMIC_BROKER_LOGGER_CONFIG, isSensitive: false, synonyms: [], configType: Type.UNKNOWN, documentation: null };
}

/** A client metrics subscription's key as Kafka describes it: CLIENT_METRICS_CONFIG, no synonyms nor type. */
function clientMetricsEntry(name: string, value: string): ConfigEntry {
  return { name, value, readOnly: false, isDefault: false, configSource: Source.CLIENT_METRICS_CONFIG, isSensitive: false, synonyms: [], configType: Type.UNKNOWN, documentation: null };
}

export const describeConfigs: ApiHandler<typeof ApiKeys.DescribeConfigs> = async (ctx, version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r));
  const topicNames = body.resources.filter((r, i) => r.resourceType === TOPIC && refused[i] === null).map((r) => r.resourceName);
  const anyOpen = body.resources.some((r, i) => (r.resourceType === TOPIC || r.resourceType === BROKER || r.resourceType === GROUP || r.resourceType === CLIENT_METRICS) && refused[i] === null);
  const md = anyOpen ? await fetchClusterMetadata(ctx, topicNames) : null;
  const results = await Promise.all(body.resources.map(async (r, i) => {
    const out = (errorCode: number, errorMessage: string | null, configs: ConfigEntry[]) => {
      const wanted = r.configurationKeys;
      const picked = wanted === null ? configs : configs.filter((c) => wanted.includes(c.name));
      const withSynonyms = picked.map((c) => ({ ...c, synonyms: version >= 1 && body.includeSynonyms ? c.synonyms : [] }));
      return { errorCode, errorMessage, resourceType: r.resourceType, resourceName: r.resourceName, configs: withSynonyms };
    };
    const denied = refused[i];
    if (denied !== null && denied !== undefined) return out(denied, errorInfo(denied).message, []);
    if (r.resourceType === TOPIC) {
      if (!md) return out(ErrorCode.BROKER_NOT_AVAILABLE, 'no metadata yet', []);
      const t = md.topics.find((x) => x.name === r.resourceName);
      if (!t) return out(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic '${r.resourceName}' does not exist`, []);
      // in Kafka's order of the topic configs (TOPIC_TYPES), as before
      const entries = new Map(topicConfigEntries(t.config, brokerEntries(ctx, md)).map((e) => [e.name, e]));
      return out(ErrorCode.NONE, null, TOPIC_ORDER.filter((n) => entries.has(n)).map((n) => toWire(entries.get(n)!, TOPIC_TYPES[n]!)));
    }
    if (r.resourceType === BROKER) {
      if (r.resourceName === '') return out(ErrorCode.NONE, null, clusterDefaultConfigEntries(md?.brokerConfigs?.[''] ?? {}).map((e) => toWire(e, brokerConfigType(e.value))));
      if (r.resourceName !== String(ctx.brokerId)) {
        return out(ErrorCode.INVALID_REQUEST, `this is broker ${ctx.brokerId}: ask broker ${r.resourceName} for its configs`, []);
      }
      return out(ErrorCode.NONE, null, brokerEntries(ctx, md).map((e) => toWire(e, brokerConfigType(e.value))));
    }
    if (r.resourceType === GROUP) {
      if (r.resourceName === '') return out(ErrorCode.INVALID_REQUEST, 'Group name must not be empty', []);
      if (!md) return out(ErrorCode.BROKER_NOT_AVAILABLE, 'no metadata yet', []);
      return out(ErrorCode.NONE, null, groupEntries(ctx, md, r.resourceName));
    }
    if (r.resourceType === BROKER_LOGGER) {
      const named = brokerLoggerProblem(ctx, r.resourceName);
      if (named) return out(ErrorCode.INVALID_REQUEST, named, []);
      const answer = await ctx.ask<BrokerMsg, BrokerLoggersDescription>(ctx.broker, { type: 'DescribeLoggers' }, ctx.config.requestTimeoutMs);
      if (isFailure(answer)) {
        const { errorCode, errorMessage } = unansweredError(answer);
        return out(errorCode, errorMessage, []);
      }
      return out(ErrorCode.NONE, null, answer.loggers.map((l) => loggerEntry(l.name, l.level)));
    }
    if (r.resourceType === CLIENT_METRICS) {
      if (r.resourceName === '') return out(ErrorCode.INVALID_REQUEST, 'Client metrics subscription name must not be empty', []);
      if (!md) return out(ErrorCode.BROKER_NOT_AVAILABLE, 'no metadata yet', []);
      // a subscription's own keys only, as Kafka lists them (none for a name that has none)
      const config = md.clientMetrics?.[r.resourceName] ?? {};
      return out(ErrorCode.NONE, null, Object.keys(config).sort().map((name) => clientMetricsEntry(name, config[name]!)));
    }
    return out(ErrorCode.INVALID_REQUEST, `resource type ${r.resourceType} is not supported (topics: 2, brokers: 4, broker loggers: 8, client metrics: 16, groups: 32)`, []);
  }));
  return { throttleTimeMs: 0, results };
};
