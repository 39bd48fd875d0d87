/**
 * ListConfigResources (api key 74; v0 was KIP-714's ListClientMetricsResources, v1 KIP-1142's
 * ListConfigResources: the Java admin's listConfigResources and listClientMetricsResources, and
 * `kafka-configs.sh --describe` without an entity name), as Kafka's broker answers it: the config
 * resources a DescribeConfigs or an AlterConfigs could name, from the metadata the controller last
 * pushed to this broker, in Kafka's order: groups that have configs of their own (Kafka 4.0's
 * group configs, whether the group exists or not), client metrics subscriptions, brokers, the
 * brokers' loggers (a broker's id names its BROKER_LOGGER resource), then topics (internal ones
 * too), each type sorted by name (brokers by id).
 *
 * v0 lists client metrics resources only. v1 lists the types asked for, or every type samsa has
 * configs for when none is asked: groups, client metrics, brokers, broker loggers and topics.
 * Client metrics subscriptions are KIP-714's (CLIENT_METRICS configs), whether or not a broker has a telemetry receiver.
 * A request asking for a type Kafka does not define is answered UNSUPPORTED_VERSION with no
 * resources, as Kafka answers a type it does not support. The caller needs DESCRIBE_CONFIGS on
 * the cluster (CLUSTER_AUTHORIZATION_FAILED otherwise), as in Kafka.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import type { ApiHandler } from './context.js';
import { fetchClusterMetadata, kafkaBrokers } from './metadata.js';

/** Kafka's ConfigResource.Type ids. */
export const ConfigResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

/** The types samsa lists, in the order Kafka's broker lists them. */
const LISTED_TYPES: readonly number[] = [ConfigResourceType.GROUP, ConfigResourceType.CLIENT_METRICS, ConfigResourceType.BROKER, ConfigResourceType.BROKER_LOGGER, ConfigResourceType.TOPIC];

export const listConfigResources: ApiHandler<typeof ApiKeys.ListClientMetricsResources> = async (ctx, version, body) => {
  const answer = (errorCode: number, resources: { name: string; resourceType: number }[] = []) => ({ throttleTimeMs: 0, errorCode, clientMetricsResources: resources });
  if (!ctx.authorize(AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, CLUSTER_NAME)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const asked = version === 0 ? [ConfigResourceType.CLIENT_METRICS] : body.resourceTypes.length === 0 ? LISTED_TYPES : body.resourceTypes;
  if (asked.some((t) => !LISTED_TYPES.includes(t))) return answer(ErrorCode.UNSUPPORTED_VERSION);
  // the topics' metadata only when they are to be listed
  const md = await fetchClusterMetadata(ctx, asked.includes(ConfigResourceType.TOPIC) ? null : []);
  if (!md) return answer(ErrorCode.BROKER_NOT_AVAILABLE);
  const wanted = new Set(asked);
  const resources: { name: string; resourceType: number }[] = [];
  const add = (type: number, names: string[]) => {
    for (const name of names) resources.push({ name, resourceType: type });
  };
  const byName = (names: string[]) => names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (wanted.has(ConfigResourceType.GROUP)) add(ConfigResourceType.GROUP, byName(Object.keys(md.groupConfigs ?? {})));
  if (wanted.has(ConfigResourceType.CLIENT_METRICS)) add(ConfigResourceType.CLIENT_METRICS, byName(Object.keys(md.clientMetrics ?? {})));
  const brokerIds = kafkaBrokers(md, false).map((b) => b.brokerId).sort((a, b) => a - b).map(String);
  if (wanted.has(ConfigResourceType.BROKER)) add(ConfigResourceType.BROKER, brokerIds);
  if (wanted.has(ConfigResourceType.BROKER_LOGGER)) add(ConfigResourceType.BROKER_LOGGER, brokerIds);
  if (wanted.has(ConfigResourceType.TOPIC)) add(ConfigResourceType.TOPIC, byName(md.topics.map((t) => t.name)));
  return answer(ErrorCode.NONE, resources);
};
