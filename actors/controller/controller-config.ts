/**
 * The controller's own configuration, with Kafka's names and defaults:
 *   broker.session.timeout.ms        9000   a broker silent for this long is fenced
 *   num.partitions                   1      partitions of a topic created without a count
 *   default.replication.factor       1      replication factor of a topic created without one
 *   unclean.leader.election.enable   false  elect an out-of-sync replica rather than go offline
 *   min.insync.replicas              1      the min ISR of topics without their own (and no
 *                                           cluster-wide dynamic default), for eligible leader
 *                                           replicas (KIP-966); the cluster-wide default written
 *                                           when they are turned on without one (and for a new
 *                                           cluster)
 *   auto.leader.rebalance.enable     true   move leadership back to preferred replicas
 *   leader.imbalance.check.interval.seconds
 *                                    300    how long after an imbalance appears that happens
 *   controller.quorum.election.timeout.ms
 *                                    1000   a controller that hears no leader for this long
 *                                           (randomized up to twice it) stands for election;
 *                                           the leader's heartbeat goes out five times as often
 *   metadata.log.max.record.bytes.between.snapshots
 *                                    20971520  after this many bytes of records since the last
 *                                           snapshot, the controller snapshots its state and
 *                                           the metadata log drops what the snapshot holds
 *   delegation.token.secret.key      (none) the key delegation tokens' HMACs are made with;
 *                                           without it delegation tokens are disabled
 *   delegation.token.max.lifetime.ms 604800000  a token can never be renewed beyond this
 *   delegation.token.expiry.time.ms  86400000   a token's life before it must be renewed
 *   delegation.token.expiry.check.interval.ms
 *                                    3600000    how often expired tokens are removed
 *   group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms (45000, 5000) and
 *   group.consumer.min/max.session.timeout.ms, group.consumer.min/max.heartbeat.interval.ms
 *   (45000-60000, 5000-15000): what a group config (consumer.session.timeout.ms,
 *   consumer.heartbeat.interval.ms) is checked against, as Kafka's controller checks them
 *   against its own GroupCoordinatorConfig
 *   group.share.session.timeout.ms, group.share.heartbeat.interval.ms (45000, 5000) with their
 *   group.share.min/max.* (45000-60000, 5000-15000), group.share.record.lock.duration.ms (30000)
 *   with group.share.min/max.record.lock.duration.ms (15000-60000),
 *   group.share.delivery.count.limit (5) and group.share.partition.max.record.locks (2000): what a
 *   share group's share.* group configs are checked against (Kafka's GroupCoordinatorConfig and
 *   ShareGroupConfig), with the brokers' checks on the values themselves
 * `parseControllerConfig` throws a `ConfigError` naming the key for an unknown key or a bad value.
 */
import { ConfigError } from '../../src/storage/log-config.js';
import {
  DEFAULT_CONSUMER_GROUP_TIMEOUTS,
  DEFAULT_SHARE_GROUP_BOUNDS,
  SHARE_BOUND_KEYS,
  SHARE_BOUND_RANGES,
  TIMEOUT_KEYS,
  consumerGroupTimeoutsProblem,
  shareGroupBoundsProblem,
  type ConsumerGroupTimeouts,
  type ShareGroupBounds,
} from '../group-coordinator/group-configs.js';

export interface ControllerConfig {
  readonly brokerSessionTimeoutMs: number;
  readonly numPartitions: number;
  readonly defaultReplicationFactor: number;
  readonly uncleanLeaderElectionEnable: boolean;
  readonly minInsyncReplicas: number;
  readonly autoLeaderRebalanceEnable: boolean;
  readonly leaderImbalanceCheckIntervalSeconds: number;
  readonly quorumElectionTimeoutMs: number;
  readonly metadataLogMaxRecordBytesBetweenSnapshots: number;
  readonly delegationTokenSecretKey: string | null;
  readonly delegationTokenMaxLifetimeMs: number;
  readonly delegationTokenExpiryTimeMs: number;
  readonly delegationTokenExpiryCheckIntervalMs: number;
  /** The consumer group settings group configs are checked against. */
  readonly consumerGroupTimeouts: ConsumerGroupTimeouts;
  /** The share group settings (group.share.*) a share group's share.* group configs are checked against. */
  readonly shareGroupBounds: ShareGroupBounds;
}

/** Raw input (a topology file, test args): values are checked, not trusted. */
export type ControllerConfigInput = Readonly<Record<string, unknown>>;

export const DEFAULT_CONTROLLER_CONFIG: ControllerConfig = Object.freeze({
  brokerSessionTimeoutMs: 9000,
  numPartitions: 1,
  defaultReplicationFactor: 1,
  uncleanLeaderElectionEnable: false,
  minInsyncReplicas: 1,
  autoLeaderRebalanceEnable: true,
  leaderImbalanceCheckIntervalSeconds: 300,
  quorumElectionTimeoutMs: 1000,
  metadataLogMaxRecordBytesBetweenSnapshots: 20 * 1024 * 1024,
  delegationTokenSecretKey: null,
  delegationTokenMaxLifetimeMs: 7 * 24 * 60 * 60 * 1000,
  delegationTokenExpiryTimeMs: 24 * 60 * 60 * 1000,
  delegationTokenExpiryCheckIntervalMs: 60 * 60 * 1000,
  consumerGroupTimeouts: DEFAULT_CONSUMER_GROUP_TIMEOUTS,
  shareGroupBounds: DEFAULT_SHARE_GROUP_BOUNDS,
});

type Spec = { prop: keyof ControllerConfig; kind: 'int'; min: number; max: number } | { prop: keyof ControllerConfig; kind: 'bool' } | { prop: keyof ControllerConfig; kind: 'secret' };

const SPECS: Readonly<Record<string, Spec>> = {
  'broker.session.timeout.ms': { prop: 'brokerSessionTimeoutMs', kind: 'int', min: 1, max: 2 ** 31 - 1 },
  'num.partitions': { prop: 'numPartitions', kind: 'int', min: 1, max: 2 ** 31 - 1 },
  'default.replication.factor': { prop: 'defaultReplicationFactor', kind: 'int', min: 1, max: 32767 },
  'unclean.leader.election.enable': { prop: 'uncleanLeaderElectionEnable', kind: 'bool' },
  'min.insync.replicas': { prop: 'minInsyncReplicas', kind: 'int', min: 1, max: 2 ** 31 - 1 },
  'auto.leader.rebalance.enable': { prop: 'autoLeaderRebalanceEnable', kind: 'bool' },
  // at most ~24 days: the delay of one timer
  'leader.imbalance.check.interval.seconds': { prop: 'leaderImbalanceCheckIntervalSeconds', kind: 'int', min: 1, max: 2_000_000 },
  'controller.quorum.election.timeout.ms': { prop: 'quorumElectionTimeoutMs', kind: 'int', min: 10, max: 600_000 },
  'metadata.log.max.record.bytes.between.snapshots': { prop: 'metadataLogMaxRecordBytesBetweenSnapshots', kind: 'int', min: 1, max: Number.MAX_SAFE_INTEGER },
  'delegation.token.secret.key': { prop: 'delegationTokenSecretKey', kind: 'secret' },
  'delegation.token.max.lifetime.ms': { prop: 'delegationTokenMaxLifetimeMs', kind: 'int', min: 1, max: Number.MAX_SAFE_INTEGER },
  'delegation.token.expiry.time.ms': { prop: 'delegationTokenExpiryTimeMs', kind: 'int', min: 1, max: Number.MAX_SAFE_INTEGER },
  // at most ~24 days: the delay of one timer
  'delegation.token.expiry.check.interval.ms': { prop: 'delegationTokenExpiryCheckIntervalMs', kind: 'int', min: 1, max: 2 ** 31 - 1 },
};

/** The consumer group keys, by their field of ConsumerGroupTimeouts. */
const GROUP_TIMEOUT_KEYS = new Map(Object.entries(TIMEOUT_KEYS).map(([field, key]) => [key, field as keyof ConsumerGroupTimeouts]));
/** The share group keys, by their field of ShareGroupBounds. */
const SHARE_GROUP_KEYS = new Map(Object.entries(SHARE_BOUND_KEYS).map(([field, key]) => [key, field as keyof ShareGroupBounds]));

export const CONTROLLER_CONFIG_KEYS: readonly string[] = Object.freeze([...Object.keys(SPECS), ...GROUP_TIMEOUT_KEYS.keys(), ...SHARE_GROUP_KEYS.keys()]);

export function parseControllerConfig(input: ControllerConfigInput = {}): ControllerConfig {
  const out: Record<string, unknown> = { ...DEFAULT_CONTROLLER_CONFIG };
  const groups: ConsumerGroupTimeouts = { ...DEFAULT_CONSUMER_GROUP_TIMEOUTS };
  const share: ShareGroupBounds = { ...DEFAULT_SHARE_GROUP_BOUNDS };
  for (const [key, raw] of Object.entries(input)) {
    const groupField = GROUP_TIMEOUT_KEYS.get(key);
    const shareField = SHARE_GROUP_KEYS.get(key);
    const spec: Spec | undefined = groupField
      ? { prop: 'consumerGroupTimeouts', kind: 'int', min: 1, max: 2 ** 31 - 1 }
      : shareField
        ? { prop: 'shareGroupBounds', kind: 'int', min: SHARE_BOUND_RANGES[shareField][0], max: SHARE_BOUND_RANGES[shareField][1] }
        : SPECS[key];
    if (!spec) throw new ConfigError(key, `unknown controller config key (known: ${CONTROLLER_CONFIG_KEYS.join(', ')})`);
    if (raw === undefined || raw === null) throw new ConfigError(key, 'missing value');
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw new ConfigError(key, `expected a string, number or boolean, got ${typeof raw}`);
    }
    if (spec.kind === 'secret') {
      // never echoed in a message: it is a secret
      if (typeof raw !== 'string' || raw === '') throw new ConfigError(key, 'must be a non-empty string');
      out[spec.prop] = raw;
      continue;
    }
    if (spec.kind === 'bool') {
      const s = String(raw).trim().toLowerCase();
      if (s !== 'true' && s !== 'false') throw new ConfigError(key, `${JSON.stringify(raw)} is not valid: must be true or false`);
      out[spec.prop] = s === 'true';
      continue;
    }
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < spec.min || n > spec.max) {
      throw new ConfigError(key, `${JSON.stringify(raw)} is not valid: must be an integer in [${spec.min}, ${spec.max}]`);
    }
    if (groupField) groups[groupField] = n;
    else if (shareField) share[shareField] = n;
    else out[spec.prop] = n;
  }
  const groupProblem = consumerGroupTimeoutsProblem(groups) ?? shareGroupBoundsProblem(share);
  if (groupProblem) throw new ConfigError(groupProblem.key, groupProblem.reason);
  out.consumerGroupTimeouts = Object.freeze(groups);
  out.shareGroupBounds = Object.freeze(share);
  return Object.freeze(out) as unknown as ControllerConfig;
}

/** How often the controller looks for expired sessions: a fraction of the timeout, at most 1 s. */
export function sessionCheckIntervalMs(config: ControllerConfig): number {
  return Math.max(1, Math.min(1000, Math.floor(config.brokerSessionTimeoutMs / 3)));
}
