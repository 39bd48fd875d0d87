/**
 * Messages a broker's Kafka listener accepts, and its actor name (a top-level actor on the
 * broker's node), apart from the listener itself so the broker can address it without importing
 * the Kafka protocol.
 */
import type { AclBinding } from '../../src/security/acl.js';
import type { ClientQuota } from '../../src/security/client-quotas.js';
import type { ScramCredentialEntry } from '../controller/scram-credentials.js';
import type { TokenAuthEntry } from '../controller/delegation-tokens.js';

export type KafkaListenerMsg =
  | { type: 'DescribeKafkaListener' }
  /** From the broker beside it: the cluster's ACLs changed (or arrived first); authorize with these. */
  | { type: 'AclsChanged'; acls: AclBinding[] }
  /** From the broker beside it: the cluster's client quotas changed; enforce these. */
  | { type: 'ClientQuotasChanged'; quotas: ClientQuota[] }
  /**
   * From the broker beside it: its connection limits in force changed (dynamic broker configs);
   * judge new connections by these. Overrides as [ip, count] pairs.
   */
  | { type: 'ConnectionLimitsChanged'; maxConnections: number; maxConnectionsPerIp: number; maxConnectionsPerIpOverrides: [string, number][]; maxConnectionCreationRate: number }
  /** From the broker beside it: the cluster's finalized share.version changed; at 0 its share sessions end (as Kafka's removeAllSessions). */
  | { type: 'ShareVersionChanged'; level: number }
  /** From the broker beside it: the cluster's SCRAM credentials (KIP-554) changed; authenticate with these. */
  | { type: 'ScramCredentialsChanged'; credentials: ScramCredentialEntry[] }
  /** From the broker beside it: the cluster's delegation tokens (KIP-48) changed; authenticate tokens with these SCRAM credentials. */
  | { type: 'DelegationTokensChanged'; tokens: TokenAuthEntry[] }
  /** Internal timer: fetch OAUTHBEARER's key set from its URL again. */
  | { type: 'RefreshJwks' }
  /**
   * Which of `topics` `principal`, connected from `host`, may perform `operation` (an AclOperation
   * code) on, by this listener's ACLs (all of them without an authorizer): answered
   * TopicsAuthorized. The group coordinator asks it for the topics a member's regular expression
   * matched.
   */
  | { type: 'AuthorizeTopics'; principal: string; host: string; operation: number; topics: string[] };

/** The answer to AuthorizeTopics: the topics allowed, in the order asked. */
export interface TopicsAuthorized {
  type: 'TopicsAuthorized';
  errorCode: number;
  allowed: string[];
}

/** The listener's actor name for broker `brokerId` (a top-level actor on the broker's node). */
export function kafkaListenerName(brokerId: number): string {
  return `kafka-listener-${brokerId}`;
}
