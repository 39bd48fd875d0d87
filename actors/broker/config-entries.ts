/**
 * Config entries as Kafka's Admin.describeConfigs gives them (its ConfigEntry): each key with the
 * value in force, where that value comes from, whether it can change at run time, and its
 * synonyms (every layer that sets it, most specific first; the first is in force). Built from a
 * broker's topology config (STATIC_BROKER_CONFIG), the dynamic broker configs in the cluster
 * metadata (its own, DYNAMIC_BROKER_CONFIG, over the cluster-wide default,
 * DYNAMIC_DEFAULT_BROKER_CONFIG), Kafka's defaults (DEFAULT_CONFIG) and a topic's overrides
 * (DYNAMIC_TOPIC_CONFIG), and a group's own values (DYNAMIC_GROUP_CONFIG, Kafka's group configs:
 * consumer.* and share.*). Pure functions: a broker describes itself with brokerConfigEntries (only it knows its
 * topology config); a topic's entries are its overrides over one broker's entries, and so are a
 * group's (groupConfigEntries).
 */
import { TOPIC_CONFIG_KEYS } from '../controller/topic-validation.js';
import { logConfigToKafka, parseLogConfig } from '../../src/storage/log-config.js';
import { COMPRESSION_LEVELS } from '../../src/protocol/compression.js';
import { BROKER_KEY_FOR_TOPIC_KEY, DYNAMIC_BROKER_CONFIG_KEYS, describeBrokerConfig } from './broker-config.js';
import { GROUP_CONFIG_DEFS, GROUP_CONFIG_KEYS } from '../group-coordinator/group-configs.js';

/** Kafka's ConfigEntry.ConfigSource names (the broker-logger and client-metrics ones aside). */
export type ConfigSource = 'DYNAMIC_TOPIC_CONFIG' | 'DYNAMIC_BROKER_CONFIG' | 'DYNAMIC_DEFAULT_BROKER_CONFIG' | 'STATIC_BROKER_CONFIG' | 'DEFAULT_CONFIG' | 'DYNAMIC_GROUP_CONFIG';

export interface ConfigSynonym {
  name: string;
  value: string;
  source: ConfigSource;
}

export interface ConfigEntry {
  name: string;
  /** The value in force: the first synonym's. */
  value: string;
  source: ConfigSource;
  /** True when Kafka's default is in force (source DEFAULT_CONFIG). */
  isDefault: boolean;
  /** True for broker keys that cannot change while the broker runs (set them in the topology). */
  readOnly: boolean;
  /** Always false: no samsa config is a secret (Kafka hides passwords). */
  sensitive: boolean;
  /** The layers that set this key, most specific first (a topic key's go on with its broker key's). */
  synonyms: ConfigSynonym[];
}

function entry(name: string, synonyms: ConfigSynonym[], readOnly: boolean): ConfigEntry {
  const top = synonyms[0]!;
  return { name, value: top.value, source: top.source, isDefault: top.source === 'DEFAULT_CONFIG', readOnly, sensitive: false, synonyms };
}

const has = (o: Readonly<Record<string, unknown>>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

const KAFKA_BROKER_DEFAULTS: ReadonlyMap<string, string> = new Map(describeBrokerConfig({}).map((c) => [c.name, c.value]));

/**
 * Every broker key of a broker whose topology config is `staticInput`, with `own` its dynamic
 * configs and `defaults` the cluster-wide dynamic defaults (both as the metadata has them), in
 * key order. Keys outside DYNAMIC_BROKER_CONFIG_KEYS are read-only.
 */
export function brokerConfigEntries(staticInput: Readonly<Record<string, unknown>>, own: Readonly<Record<string, string>> = {}, defaults: Readonly<Record<string, string>> = {}): ConfigEntry[] {
  return describeBrokerConfig(staticInput).map((c) => {
    const chain: ConfigSynonym[] = [];
    if (has(own, c.name)) chain.push({ name: c.name, value: own[c.name]!, source: 'DYNAMIC_BROKER_CONFIG' });
    if (has(defaults, c.name)) chain.push({ name: c.name, value: defaults[c.name]!, source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    if (!c.isDefault) chain.push({ name: c.name, value: c.value, source: 'STATIC_BROKER_CONFIG' });
    chain.push({ name: c.name, value: KAFKA_BROKER_DEFAULTS.get(c.name) ?? c.value, source: 'DEFAULT_CONFIG' });
    return entry(c.name, chain, !DYNAMIC_BROKER_CONFIG_KEYS.includes(c.name));
  });
}

/** The cluster-wide dynamic defaults (Kafka's broker resource ''): only the keys set, as Kafka lists them. */
export function clusterDefaultConfigEntries(defaults: Readonly<Record<string, string>> = {}): ConfigEntry[] {
  return Object.keys(defaults)
    .sort()
    .map((name) => entry(name, [{ name, value: defaults[name]!, source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' }], false));
}

/** Kafka's defaults of the topic keys no broker key sets. */
const TOPIC_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  ...logConfigToKafka(parseLogConfig({})),
  'min.insync.replicas': '1',
  'compression.type': 'producer',
  'compression.gzip.level': String(COMPRESSION_LEVELS.gzip.default),
  'compression.lz4.level': String(COMPRESSION_LEVELS.lz4.default),
  'compression.zstd.level': String(COMPRESSION_LEVELS.zstd.default),
  'unclean.leader.election.enable': 'false',
});

/** Topic keys whose default is the broker key of the same name. */
const SAME_NAMED_BROKER_KEYS: ReadonlySet<string> = new Set(['min.insync.replicas', 'compression.type', 'compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level']);

/** The broker key that sets a topic key's default (retention.ms -> log.retention.ms), if any. */
export function brokerKeyForTopicKey(name: string): string | undefined {
  return BROKER_KEY_FOR_TOPIC_KEY[name] ?? (SAME_NAMED_BROKER_KEYS.has(name) ? name : undefined);
}

/**
 * Every topic key of a topic with overrides `topicConfig`, on the broker described by
 * `brokerEntries` (brokerConfigEntries): the override if any, then the broker key's synonyms
 * (log.retention.ms for retention.ms), or Kafka's default for a key no broker key sets. In key order.
 */
export function topicConfigEntries(topicConfig: Readonly<Record<string, string | number>>, brokerEntries: readonly ConfigEntry[]): ConfigEntry[] {
  return [...TOPIC_CONFIG_KEYS].sort().map((name) => {
    const chain: ConfigSynonym[] = [];
    if (has(topicConfig, name)) chain.push({ name, value: String(topicConfig[name]), source: 'DYNAMIC_TOPIC_CONFIG' });
    const brokerKey = brokerKeyForTopicKey(name);
    const broker = brokerKey === undefined ? undefined : brokerEntries.find((e) => e.name === brokerKey);
    if (broker) chain.push(...broker.synonyms.map((s) => ({ ...s })));
    else chain.push({ name: brokerKey ?? name, value: TOPIC_DEFAULTS[name] ?? '', source: 'DEFAULT_CONFIG' });
    return entry(name, chain, false);
  });
}

/**
 * Every group key (in key order) of a group with `overrides` (its group configs), the others
 * taking the value in force of their broker key in `brokerEntries` (group.consumer.*,
 * group.share.*), or Kafka's default for the keys with none (share.auto.offset.reset latest,
 * share.isolation.level read_uncommitted). Group keys can change at run time: none is read-only.
 */
export function groupConfigEntries(overrides: Readonly<Record<string, string>>, brokerEntries: readonly ConfigEntry[]): ConfigEntry[] {
  return [...GROUP_CONFIG_KEYS].sort().map((name) => {
    const def = GROUP_CONFIG_DEFS[name]!;
    const brokerValue = (def.brokerKey === null ? undefined : brokerEntries.find((e) => e.name === def.brokerKey)?.value) ?? def.default;
    const synonyms: ConfigSynonym[] = [];
    if (Object.prototype.hasOwnProperty.call(overrides, name)) synonyms.push({ name, value: overrides[name]!, source: 'DYNAMIC_GROUP_CONFIG' });
    synonyms.push({ name, value: brokerValue, source: 'DEFAULT_CONFIG' });
    const top = synonyms[0]!;
    return { name, value: top.value, source: top.source, isDefault: top.source === 'DEFAULT_CONFIG', readOnly: false, sensitive: false, synonyms };
  });
}
