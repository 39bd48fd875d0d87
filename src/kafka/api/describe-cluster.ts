/**
 * DescribeCluster (api key 60, v0-v2; KIP-700, the Java admin's describeCluster and
 * `kafka-cluster.sh cluster-id`), as Kafka's broker answers it (KafkaApis.handleDescribeCluster,
 * AuthHelper.computeDescribeClusterResponse): the cluster id, the live brokers with their Kafka
 * listener host, port and rack (as Metadata gives them, from the metadata the controller last
 * pushed to this broker), and as controller id a random one of those brokers, as a KRaft broker
 * names one (its clients send controller requests to any broker, which forwards them; samsa's
 * brokers reach the controller the same way).
 *
 * v2 (KIP-1073): each broker carries IsFenced, and IncludeFencedBrokers asks for the registered
 * brokers that are fenced as well. A broker is fenced when the controller holds it registered but
 * not live: its session expired (it stopped heartbeating) or it completed a controlled shutdown,
 * until it registers again (Kafka fences a broker in both cases too; samsa has no fenced state for
 * a broker still catching up, which registers unfenced). A broker in controlled shutdown is still
 * unfenced, as in Kafka. The controller id is always a live broker.
 *
 * Asked for them, the cluster authorized operations: every operation the client may perform on
 * the cluster (KIP-430), or none without DESCRIBE on it; anyone may describe the cluster itself.
 * v1's endpoint type: 1 (brokers) is answered; 2 (controllers) is MISMATCHED_ENDPOINT_TYPE, as a
 * broker refuses it (only a controller's listener answers it); any other UNSUPPORTED_ENDPOINT_TYPE
 * (INVALID_REQUEST at v0, which cannot ask for one).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { clusterAuthorizedOperations, OPERATIONS_NOT_REQUESTED } from './authorized-operations.js';
import type { ApiHandler } from './context.js';
import { fetchClusterMetadata, kafkaBrokers } from './metadata.js';

/** KIP-919's endpoint types. */
export const EndpointType = { BROKER: 1, CONTROLLER: 2 } as const;

const ENDPOINT_NAMES: Readonly<Record<number, string>> = { [EndpointType.BROKER]: 'BROKER', [EndpointType.CONTROLLER]: 'CONTROLLER' };

export const describeCluster: ApiHandler<typeof ApiKeys.DescribeCluster> = async (ctx, version, body) => {
  const failed = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, clusterId: '', controllerId: -1, brokers: [] });
  const asked = version >= 1 ? body.endpointType : EndpointType.BROKER;
  if (ENDPOINT_NAMES[asked] === undefined) return failed(version === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, `Unsupported endpoint type ${asked}`);
  if (asked !== EndpointType.BROKER) {
    return failed(version === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.MISMATCHED_ENDPOINT_TYPE, `The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type ${ENDPOINT_NAMES[asked]}`);
  }
  let clusterOps = OPERATIONS_NOT_REQUESTED;
  if (body.includeClusterAuthorizedOperations) clusterOps = ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, CLUSTER_NAME) ? clusterAuthorizedOperations(ctx) : 0;
  const md = await fetchClusterMetadata(ctx, []);
  if (!md) return failed(ErrorCode.BROKER_NOT_AVAILABLE, `broker ${ctx.brokerId} did not give its metadata`);
  const withFenced = version >= 2 && body.includeFencedBrokers;
  // the live brokers a Kafka client can reach, as Metadata lists them, and asked for, the fenced ones too
  const brokers = kafkaBrokers(md, withFenced)
    .sort((a, b) => a.brokerId - b.brokerId)
    .map((b) => ({ brokerId: b.brokerId, host: b.host, port: b.port, rack: b.rack, isFenced: b.fenced }));
  const live = brokers.filter((b) => !b.isFenced);
  const controllerId = live.length === 0 ? -1 : live[Math.floor(Math.random() * live.length)]!.brokerId;
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, endpointType: EndpointType.BROKER, clusterId: md.clusterId, controllerId, brokers, clusterAuthorizedOperations: clusterOps };
};
