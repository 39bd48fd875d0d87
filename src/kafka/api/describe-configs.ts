/**
 * DescribeConfigs (api key 32, v0-v4) for topics (resource type 2) and this broker (4): every
 * config key with the value in force and where it comes from — the topic's own override
 * (DYNAMIC_TOPIC_CONFIG), this broker's dynamic config (DYNAMIC_BROKER_CONFIG), the cluster-wide
 * dynamic default (DYNAMIC_DEFAULT_BROKER_CONFIG), the broker's config file
 * (STATIC_BROKER_CONFIG) or Kafka's default (DEFAULT_CONFIG) — with synonyms (v1+,
 * includeSynonyms) and config types (v3+). The broker resource '' is the cluster-wide default:
 * its dynamic configs only, as Kafka lists them. Configs are not
 * secret here (no passwords exist), so nothing is marked sensitive. With an authorizer, as Kafka:
 * a topic's configs need DESCRIBE_CONFIGS on the topic (else TOPIC_AUTHORIZATION_FAILED), a
 * broker's DESCRIBE_CONFIGS on the cluster (else CLUSTER_AUTHORIZATION_FAILED).
 */
import { BROKER_KEY_FOR_TOPIC_KEY, DYNAMIC_BROKER_CONFIG_KEYS, describeBrokerConfig } from '../../../actors/broker/broker-config.js';
import type { ClusterMetadata, TopicMetadata } from '../../protocol/cluster.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { logConfigToKafka, parseLogConfig } from '../../storage/log-config.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiContext, ApiHandler } from './context.js';
import { fetchClusterMetadata } from './metadata.js';

const TOPIC = 2;
const BROKER = 4;

/** Kafka's DescribeConfigsResponse.ConfigSource. */
const Source = { DYNAMIC_TOPIC_CONFIG: 1, DYNAMIC_BROKER_CONFIG: 2, DYNAMIC_DEFAULT_BROKER_CONFIG: 3, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;
/** Kafka's DescribeConfigsResponse.ConfigType. */
const Type = { BOOLEAN: 1, STRING: 2, INT: 3, LONG: 5, DOUBLE: 6, LIST: 7 } as const;

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
  'unclean.leader.election.enable': Type.BOOLEAN,
  'leader.replication.throttled.replicas': Type.LIST,
  'follower.replication.throttled.replicas': Type.LIST,
};

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

function entry(name: string, chain: Synonym[], readOnly: boolean, configType: number): ConfigEntry {
  const top = chain[0]!;
  return { name, value: top.value, readOnly, isDefault: top.source === Source.DEFAULT_CONFIG, configSource: top.source, isSensitive: false, synonyms: chain, configType, documentation: null };
}

/** Kafka's defaults of the topic config keys (a broker config file left aside). */
const TOPIC_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  ...logConfigToKafka(parseLogConfig({})),
  'min.insync.replicas': '1',
  'compression.type': 'producer',
  'unclean.leader.election.enable': 'false',
  'leader.replication.throttled.replicas': '',
  'follower.replication.throttled.replicas': '',
});

/** The dynamic broker configs that apply to this broker: its own, and the cluster-wide defaults. */
function dynamicLayers(ctx: ApiContext, md: ClusterMetadata | null): { mine: Record<string, string>; defaults: Record<string, string> } {
  return { mine: md?.brokerConfigs?.[String(ctx.brokerId)] ?? {}, defaults: md?.brokerConfigs?.[''] ?? {} };
}

/**
 * A topic's configs. Each key's synonyms, most specific first: the topic's override, the broker
 * key (log.retention.ms for retention.ms) as this broker's dynamic config, the cluster-wide
 * dynamic default and the broker's file set it, Kafka's default; the first one is in force.
 */
function topicConfigs(ctx: ApiContext, t: TopicMetadata, md: ClusterMetadata | null): ConfigEntry[] {
  const brokerValues: Record<string, string> = { ...logConfigToKafka(ctx.config.log), 'min.insync.replicas': String(ctx.config.minInsyncReplicas), 'compression.type': ctx.config.compressionType };
  const { mine, defaults } = dynamicLayers(ctx, md);
  return Object.keys(TOPIC_TYPES).map((name) => {
    const chain: Synonym[] = [];
    if (name in t.config) chain.push({ name, value: String(t.config[name]), source: Source.DYNAMIC_TOPIC_CONFIG });
    const brokerKey = BROKER_KEY_FOR_TOPIC_KEY[name] ?? (name === 'min.insync.replicas' || name === 'compression.type' ? name : undefined);
    if (brokerKey !== undefined) {
      if (brokerKey in mine) chain.push({ name: brokerKey, value: mine[brokerKey]!, source: Source.DYNAMIC_BROKER_CONFIG });
      if (brokerKey in defaults) chain.push({ name: brokerKey, value: defaults[brokerKey]!, source: Source.DYNAMIC_DEFAULT_BROKER_CONFIG });
      if (brokerKey in ctx.configInput) chain.push({ name: brokerKey, value: brokerValues[name]!, source: Source.STATIC_BROKER_CONFIG });
    }
    chain.push({ name: brokerKey ?? name, value: TOPIC_DEFAULTS[name]!, source: Source.DEFAULT_CONFIG });
    return entry(name, chain, false, TOPIC_TYPES[name]!);
  });
}

function brokerConfigType(value: string): number {
  if (/^(true|false)$/.test(value)) return Type.BOOLEAN;
  if (/^-?\d+$/.test(value)) return Type.LONG;
  if (/^-?\d*\.\d+$/.test(value)) return Type.DOUBLE;
  return Type.STRING;
}

const KAFKA_BROKER_DEFAULTS: ReadonlyMap<string, string> = new Map(describeBrokerConfig({}).map((c) => [c.name, c.value]));

/**
 * This broker's configs: each key's synonyms its dynamic config, the cluster-wide dynamic default,
 * its config file, Kafka's default; the keys that cannot change at run time are read-only.
 */
function brokerConfigs(ctx: ApiContext, md: ClusterMetadata | null): ConfigEntry[] {
  const { mine, defaults } = dynamicLayers(ctx, md);
  return describeBrokerConfig(ctx.configInput).map((c) => {
    const chain: Synonym[] = [];
    if (c.name in mine) chain.push({ name: c.name, value: mine[c.name]!, source: Source.DYNAMIC_BROKER_CONFIG });
    if (c.name in defaults) chain.push({ name: c.name, value: defaults[c.name]!, source: Source.DYNAMIC_DEFAULT_BROKER_CONFIG });
    if (!c.isDefault) chain.push({ name: c.name, value: c.value, source: Source.STATIC_BROKER_CONFIG });
    chain.push({ name: c.name, value: KAFKA_BROKER_DEFAULTS.get(c.name) ?? c.value, source: Source.DEFAULT_CONFIG });
    return entry(c.name, chain, !DYNAMIC_BROKER_CONFIG_KEYS.includes(c.name), brokerConfigType(chain[0]!.value ?? ''));
  });
}

/** The cluster-wide dynamic defaults (the broker resource ''), as Kafka lists them. */
function clusterDefaultConfigs(md: ClusterMetadata | null): ConfigEntry[] {
  const defaults = md?.brokerConfigs?.[''] ?? {};
  return Object.keys(defaults)
    .sort()
    .map((name) => entry(name, [{ name, value: defaults[name]!, source: Source.DYNAMIC_DEFAULT_BROKER_CONFIG }], false, brokerConfigType(defaults[name]!)));
}

/** The error for a resource the client may not describe, or null when it may. */
function refusal(ctx: ApiContext, r: { resourceType: number; resourceName: string }): number | null {
  if (r.resourceType === TOPIC) return ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, r.resourceName) ? null : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (r.resourceType === BROKER) return ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME) ? null : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  return null;
}

export const describeConfigs: ApiHandler<typeof ApiKeys.DescribeConfigs> = async (ctx, version, body) => {
  const refused = body.resources.map((r) => refusal(ctx, r));
  const topicNames = body.resources.filter((r, i) => r.resourceType === TOPIC && refused[i] === null).map((r) => r.resourceName);
  const anyOpen = body.resources.some((r, i) => (r.resourceType === TOPIC || r.resourceType === BROKER) && refused[i] === null);
  const md = anyOpen ? await fetchClusterMetadata(ctx, topicNames) : null;
  const results = body.resources.map((r, i) => {
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
      return out(ErrorCode.NONE, null, topicConfigs(ctx, t, md));
    }
    if (r.resourceType === BROKER) {
      if (r.resourceName === '') return out(ErrorCode.NONE, null, clusterDefaultConfigs(md));
      if (r.resourceName !== String(ctx.brokerId)) {
        return out(ErrorCode.INVALID_REQUEST, `this is broker ${ctx.brokerId}: ask broker ${r.resourceName} for its configs`, []);
      }
      return out(ErrorCode.NONE, null, brokerConfigs(ctx, md));
    }
    return out(ErrorCode.INVALID_REQUEST, `resource type ${r.resourceType} is not supported (topics: 2, brokers: 4)`, []);
  });
  return { throttleTimeMs: 0, results };
};
