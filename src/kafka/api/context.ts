/**
 * What a Kafka API handler can reach: the actors of the broker it runs beside (broker, its
 * replicas, its group and transaction coordinators, its share partition manager, the controller), the connection's client, and an `ask` that
 * always settles. Handlers translate one decoded Kafka request body into samsa actor messages and
 * build the Kafka response body from the replies; they never throw for an actor's error (errors
 * are data: each becomes an error code in the response).
 */
import type { BrokerConfig } from '../../../actors/broker/broker-config.js';
import type { BrokerMsg } from '../../../actors/broker/messages.js';
import type { ControllerMsg } from '../../../actors/controller/messages.js';
import type { CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import type { KafkaListenerMsg } from '../../../actors/kafka-listener/messages.js';
import type { ReplicaMsg } from '../../../actors/partition-replica/messages.js';
import type { TxnCoordinatorMsg } from '../../../actors/txn-coordinator/messages.js';
import type { ShareManagerMsg } from '../../../actors/share-partition/messages.js';
import type { Logger } from '../../runtime/logger.js';
import type { MutationQuotaRequest } from '../../security/controller-mutation-quota.js';
import type { ApiKey, RequestOf, ResponseInput } from '../protocol/index.js';
import type { TopicIdResolver } from './topic-id-resolver.js';
import type { FetchSessionCache } from '../fetch-sessions.js';
import type { ShareSessionCache } from '../share-sessions.js';
import { isFailure, type ActorRef, type Failure, type Message } from '../../runtime/types.js';
import type { ClientTelemetry } from '../client-telemetry.js';
import { ErrorCode } from '../../protocol/errors.js';

export interface ApiContext {
  readonly brokerId: number;
  /** The Kafka request's client id (null when the client sent none). */
  readonly clientId: string | null;
  /** The client's address as seen by this listener (host part). */
  readonly clientHost: string;
  /** That address as ACLs name hosts (an IPv4 client on a dual-stack socket: its IPv4 address). */
  readonly aclHost: string;
  /** The listener authenticates with SASL (ApiVersions then lists the SASL APIs). */
  readonly sasl?: boolean;
  /** The client's principal: 'User:<SASL user>', 'User:<certificate DN>', or 'User:ANONYMOUS'. */
  readonly principal: string;
  /** The connection authenticated with a delegation token (KIP-48); it may not ask for tokens. */
  readonly tokenAuthenticated?: boolean;
  /** The broker checks ACLs (authorizer.class.name is set); without one every client may do everything. */
  readonly authorizerEnabled: boolean;
  /**
   * Whether the client may perform `operation` on the resource (Kafka's AclOperation and
   * ResourceType codes); always true without an authorizer. A denial is logged unless
   * `logIfDenied` is false (listings that leave out what the client may not see).
   */
  authorize(operation: number, resourceType: number, resourceName: string, logIfDenied?: boolean): boolean;
  /** Whether it may perform `operation` on some resource of the type (Kafka's authorizeByResourceType). */
  authorizeAny(operation: number, resourceType: number): boolean;
  /**
   * The client's controller_mutation_rate quota (KIP-599) for the controller to keep, strict for
   * the versions whose clients know THROTTLING_QUOTA_EXCEEDED; undefined when none applies.
   */
  mutationQuota(strict: boolean): MutationQuotaRequest | undefined;
  /** The broker's config in force, and the keys its config file set (for DescribeConfigs). */
  readonly config: BrokerConfig;
  readonly configInput: Readonly<Record<string, unknown>>;
  readonly broker: ActorRef<BrokerMsg>;
  readonly controller: ActorRef<ControllerMsg>;
  readonly coordinator: ActorRef<CoordinatorMsg>;
  readonly txnCoordinator: ActorRef<TxnCoordinatorMsg>;
  /** The broker's share partition manager (KIP-932: ShareFetch, ShareAcknowledge). */
  readonly shareManager: ActorRef<ShareManagerMsg>;
  /** The Kafka listener this request came through (it authorizes for actors that ask it, AuthorizeTopics). */
  readonly listener: ActorRef<KafkaListenerMsg>;
  replica(topic: string, partition: number): ActorRef<ReplicaMsg>;
  /** The listener's topic ids (shared by its connections), for requests naming topics by id. */
  readonly topicIds: TopicIdResolver;
  /** The broker's incremental fetch sessions (shared by its listener's connections). */
  readonly fetchSessions: FetchSessionCache;
  /** The broker's share sessions (KIP-932; shared by its listener's connections). */
  readonly shareSessions: ShareSessionCache;
  /** This connection, as the share sessions it opens know it (they end when it closes). */
  readonly connectionId: string;
  /** The broker's client metrics (KIP-714; shared by its listener's connections); null without a telemetry receiver. */
  readonly clientTelemetry?: ClientTelemetry | null;
  /** The client's port as seen by this listener (null when unknown). */
  readonly clientPort?: number | null;
  /** The client software the connection's ApiVersions v3+ named (KIP-511), else nulls. */
  readonly clientSoftware?: { name: string | null; version: string | null };
  /**
   * Request/response with a timeout; settles with the reply or a Failure carrying an errorCode.
   * `T` is the target's message union (the message is checked against it), `R` the reply.
   */
  ask<T extends Message, R extends Message = Message>(to: ActorRef<T>, msg: T, timeoutMs: number): Promise<R | Failure>;
  send<T extends Message>(to: ActorRef<T>, msg: T): void;
  /**
   * Ends this connection once the answers of the requests before and in flight are written (as
   * Kafka closes a connection whose acks=0 produce failed, so that its client refreshes its
   * metadata); `why` is logged.
   */
  closeConnection(why: string): void;
  readonly log: Logger;
}

/**
 * One Kafka API: turns a request body of `version` into a response body, or null when Kafka
 * sends no response (Produce with acks 0). Bodies are typed from Kafka's message schemas (fields
 * a version lacks hold their defaults when decoded and are left out when encoded).
 */
/**
 * The error a response carries when an actor did not give the reply expected: the Failure's code
 * and message, or UNKNOWN_SERVER_ERROR for a reply of another type.
 */
export function unansweredError(r: Message | Failure): { errorCode: number; errorMessage: string } {
  return isFailure(r) ? { errorCode: r.errorCode, errorMessage: r.message } : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: `unexpected reply ${r.type}` };
}

export type ApiHandler<K extends ApiKey = ApiKey> = (ctx: ApiContext, version: number, body: RequestOf<K>) => Promise<ResponseInput<K> | null>;
