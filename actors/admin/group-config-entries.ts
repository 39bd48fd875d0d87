/**
 * A group's config entries as Kafka's Admin.describeConfigs gives them for a GROUP resource
 * (Kafka 4.0's group configs): consumer.session.timeout.ms and consumer.heartbeat.interval.ms,
 * each the group's own value (DYNAMIC_GROUP_CONFIG) or else the broker's
 * group.consumer.session.timeout.ms / group.consumer.heartbeat.interval.ms (DEFAULT_CONFIG, as
 * Kafka's ConfigHelper names a group key's default). A pure function over the group's overrides
 * and one broker's entries (brokerConfigEntries): the broker alone knows its topology config.
 */
import type { ConfigEntry as BrokerConfigEntry, ConfigSource as BrokerConfigSource } from '../broker/config-entries.js';
import { CONSUMER_HEARTBEAT_INTERVAL_MS, CONSUMER_SESSION_TIMEOUT_MS, DEFAULT_CONSUMER_GROUP_TIMEOUTS, GROUP_CONFIG_KEYS, TIMEOUT_KEYS } from '../group-coordinator/group-configs.js';

/** Kafka's ConfigEntry.ConfigSource names samsa gives: the broker and topic ones, and a group's own value. */
export type ConfigSource = BrokerConfigSource | 'DYNAMIC_GROUP_CONFIG';

export interface ConfigSynonym {
  name: string;
  value: string;
  source: ConfigSource;
}

/** A config entry of any resource (config-entries.ts' ConfigEntry, with a group's source too). */
export interface ConfigEntry extends Omit<BrokerConfigEntry, 'source' | 'synonyms'> {
  source: ConfigSource;
  synonyms: ConfigSynonym[];
}

/** The broker key whose value a group key takes when the group has none, and that key's Kafka default. */
const BROKER_DEFAULT_OF: Readonly<Record<string, { key: string; value: number }>> = Object.freeze({
  [CONSUMER_SESSION_TIMEOUT_MS]: { key: TIMEOUT_KEYS.sessionTimeoutMs, value: DEFAULT_CONSUMER_GROUP_TIMEOUTS.sessionTimeoutMs },
  [CONSUMER_HEARTBEAT_INTERVAL_MS]: { key: TIMEOUT_KEYS.heartbeatIntervalMs, value: DEFAULT_CONSUMER_GROUP_TIMEOUTS.heartbeatIntervalMs },
});

/**
 * Every group key (in key order) of a group with `overrides` (its group configs), the others
 * taking the value in force of their broker key in `brokerEntries`. Group keys can change at run
 * time: none is read-only.
 */
export function groupConfigEntries(overrides: Readonly<Record<string, string>>, brokerEntries: readonly BrokerConfigEntry[]): ConfigEntry[] {
  return [...GROUP_CONFIG_KEYS].sort().map((name) => {
    const fallback = BROKER_DEFAULT_OF[name]!;
    const brokerValue = brokerEntries.find((e) => e.name === fallback.key)?.value ?? String(fallback.value);
    const synonyms: ConfigSynonym[] = [];
    if (Object.prototype.hasOwnProperty.call(overrides, name)) synonyms.push({ name, value: overrides[name]!, source: 'DYNAMIC_GROUP_CONFIG' });
    synonyms.push({ name, value: brokerValue, source: 'DEFAULT_CONFIG' });
    const top = synonyms[0]!;
    return { name, value: top.value, source: top.source, isDefault: top.source === 'DEFAULT_CONFIG', readOnly: false, sensitive: false, synonyms };
  });
}
