/**
 * Cluster feature levels (Kafka's KIP-584, as KRaft keeps them): each feature has the range of
 * levels samsa implements and one finalized level for the whole cluster, kept by the controller
 * in the metadata log (FeatureLevel records) and told to every broker with the metadata.
 *
 * The features, and what their levels change in samsa:
 * - `metadata.version`: the version of the metadata samsa writes. samsa writes one, Kafka 4.0's
 *   4.0-IV0 (level 22, the level that bootstraps group.version 1), so it can be neither raised
 *   nor lowered.
 * - `group.version`: 1 enables the consumer group protocol (KIP-848: ConsumerGroupHeartbeat and
 *   ConsumerGroupDescribe); at 0 they answer UNSUPPORTED_VERSION and only classic groups run.
 *   It may be raised and lowered (a safe downgrade, as Kafka: nothing written is lost; members
 *   of consumer groups then fail their heartbeats).
 * - `kraft.version`: 1, the dynamic controller quorum (KIP-853), which every samsa quorum is.
 * - `transaction.version`: 2 enables KIP-890 part 2 for the clients that speak it (EndTxn v5,
 *   Produce v12, TxnOffsetCommit v5): the brokers add a producer's partitions to its transaction
 *   as its batches and offsets reach them, and every commit or abort bumps its epoch. 1 is
 *   Kafka's new record format of __transaction_state, which changes nothing in samsa's (its
 *   records carry every field at every level). A new cluster starts at 0, as Kafka's bootstraps
 *   it at metadata.version 4.0-IV0; it may be raised and lowered (the coordinator ends a
 *   transaction as the EndTxn version its client sends asks).
 * - `share.version`: 1 enables share groups (KIP-932: ShareGroupHeartbeat, ShareGroupDescribe,
 *   ShareFetch, ShareAcknowledge and the share group offsets APIs); at 0 they answer
 *   UNSUPPORTED_VERSION, the brokers drop the share partition states they hold (their share
 *   coordinators keep them) and nothing of the groups is lost. A new cluster starts at 1, as a
 *   Kafka 4.2 cluster does; it may be lowered and raised again.
 *
 * A new cluster starts at each feature's default level; a cluster whose metadata has no levels
 * yet (made before samsa kept them) is given the defaults the first time a controller leads it.
 * Updates are checked as Kafka's FeatureControlManager does (`checkFeatureUpdates`).
 */
import { ErrorCode } from './errors.js';

export interface FeatureDefinition {
  readonly name: string;
  /** The levels samsa implements. */
  readonly min: number;
  readonly max: number;
  /** The level a new cluster starts at. */
  readonly defaultLevel: number;
  /** The features (and their least levels) a level of this one needs, by level. */
  readonly dependencies?: Readonly<Record<number, Readonly<Record<string, number>>>>;
  /** How Kafka names a level (metadata.version's release names), else the number. */
  readonly levelName?: (level: number) => string;
  /** Why the level cannot be changed at all (the feature is fixed in samsa), if so. */
  readonly fixed?: string;
}

export const METADATA_VERSION = 'metadata.version';
export const GROUP_VERSION = 'group.version';
export const KRAFT_VERSION = 'kraft.version';
export const TRANSACTION_VERSION = 'transaction.version';
export const SHARE_VERSION = 'share.version';

/** What share group APIs answer (with UNSUPPORTED_VERSION) while share.version is 0. */
export const SHARE_GROUPS_OFF = "Share groups are not enabled: the cluster's share.version is 0 (samsa features upgrade --feature share.version=1)";

/** Kafka's MetadataVersion names, by level (those from 3.3-IV0, the first kept in the metadata log). */
const METADATA_VERSION_NAMES: Readonly<Record<number, string>> = {
  4: '3.3-IV0',
  5: '3.3-IV1',
  6: '3.3-IV2',
  7: '3.3-IV3',
  8: '3.4-IV0',
  9: '3.5-IV0',
  10: '3.5-IV1',
  11: '3.5-IV2',
  12: '3.6-IV0',
  13: '3.6-IV1',
  14: '3.6-IV2',
  15: '3.7-IV0',
  16: '3.7-IV1',
  17: '3.7-IV2',
  18: '3.7-IV3',
  19: '3.7-IV4',
  20: '3.8-IV0',
  21: '3.9-IV0',
  22: '4.0-IV0',
};

/** metadata.version 4.0-IV0: the level samsa's metadata is. */
export const SAMSA_METADATA_VERSION = 22;

export const FEATURES: readonly FeatureDefinition[] = [
  {
    name: GROUP_VERSION,
    min: 0,
    max: 1,
    defaultLevel: 1,
    // Kafka's GroupVersion 1 is bootstrapped by metadata.version 4.0-IV0
    dependencies: { 1: { [METADATA_VERSION]: SAMSA_METADATA_VERSION } },
  },
  { name: KRAFT_VERSION, min: 0, max: 1, defaultLevel: 1, fixed: 'every samsa controller quorum is dynamic (KIP-853): kraft.version is 1 for good' },
  {
    name: METADATA_VERSION,
    min: SAMSA_METADATA_VERSION,
    max: SAMSA_METADATA_VERSION,
    defaultLevel: SAMSA_METADATA_VERSION,
    levelName: (level) => METADATA_VERSION_NAMES[level] ?? String(level),
  },
  { name: SHARE_VERSION, min: 0, max: 1, defaultLevel: 1 },
  { name: TRANSACTION_VERSION, min: 0, max: 2, defaultLevel: 0 },
];

const BY_NAME = new Map(FEATURES.map((f) => [f.name, f]));

/** A level as Kafka's tools print it: metadata.version by release name, others as numbers. */
export function featureLevelName(feature: string, level: number): string {
  return BY_NAME.get(feature)?.levelName?.(level) ?? String(level);
}

/** The level for a metadata.version release name ('4.0-IV0', or '4.0' for its last), else undefined. */
export function metadataVersionLevel(name: string): number | undefined {
  let found: number | undefined;
  for (const [level, n] of Object.entries(METADATA_VERSION_NAMES)) {
    if (n === name || n.startsWith(`${name}-`)) found = Number(level);
  }
  return found;
}

/** The levels a new cluster starts with (every feature's default above 0). */
export function defaultFeatureLevels(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of FEATURES) if (f.defaultLevel > 0) out[f.name] = f.defaultLevel;
  return out;
}

/** The cluster's finalized levels as brokers learn them; `epoch` rises with every change (Kafka's FinalizedFeaturesEpoch). */
export interface FinalizedFeatures {
  readonly levels: Readonly<Record<string, number>>;
  readonly epoch: number;
}

/** A finalized level (0 when the feature is not finalized). */
export function finalizedLevel(features: FinalizedFeatures | undefined, name: string): number {
  return features?.levels[name] ?? 0;
}

/** Kafka's FeatureUpdate.UpgradeType: the wire's 1, 2 and 3. */
export const UpgradeType = Object.freeze({
  Upgrade: 1,
  SafeDowngrade: 2,
  UnsafeDowngrade: 3,
} as const);
export type UpgradeType = (typeof UpgradeType)[keyof typeof UpgradeType];

export interface FeatureUpdate {
  readonly feature: string;
  /** The new level; 0 (or below, as Kafka's deletion) disables the feature. */
  readonly level: number;
  readonly upgradeType: number;
}

export type FeatureUpdateCheck = { ok: true; levels: Record<string, number> } | { ok: false; errorCode: number; errorMessage: string };

/**
 * Kafka's FeatureControlManager.updateFeatures: every update must pass or none is made. Refused
 * with INVALID_UPDATE_VERSION: an unknown upgrade type, a level below 0, a level outside what
 * samsa implements (an unknown feature implements only 0), a lower level as an upgrade or a
 * higher one as a downgrade, a level whose dependencies the updated levels do not meet, and an
 * unsafe downgrade of metadata.version (Kafka: not supported in KRaft). A feature samsa keeps
 * fixed is refused with its reason. Returns the finalized levels after the updates (level 0:
 * the feature is dropped).
 */
export function checkFeatureUpdates(current: Readonly<Record<string, number>>, updates: readonly FeatureUpdate[]): FeatureUpdateCheck {
  const invalid = (u: FeatureUpdate, why: string): FeatureUpdateCheck => ({
    ok: false,
    errorCode: ErrorCode.INVALID_UPDATE_VERSION,
    errorMessage: `Invalid update version ${u.level} for feature ${u.feature}. ${why}`,
  });
  const names = new Set<string>();
  for (const u of updates) {
    if (names.has(u.feature)) return { ok: false, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Feature ${u.feature} appears more than once in the request` };
    names.add(u.feature);
  }
  const proposed: Record<string, number> = { ...current };
  for (const u of updates) proposed[u.feature] = Math.max(0, u.level);
  for (const u of updates) {
    if (u.upgradeType !== UpgradeType.Upgrade && u.upgradeType !== UpgradeType.SafeDowngrade && u.upgradeType !== UpgradeType.UnsafeDowngrade) {
      return invalid(u, 'The controller does not support the given upgrade type.');
    }
    const now = current[u.feature] ?? 0;
    if (u.level < 0) return invalid(u, 'A feature version cannot be less than 0.');
    const def = BY_NAME.get(u.feature);
    const min = def ? def.min : 0;
    const max = def ? def.max : 0;
    // level 0 disables: allowed for a feature whose range starts at 0 (or one samsa does not know)
    if ((u.level < min || u.level > max) && !(u.level === 0 && min === 0)) {
      return invalid(u, `Local controller only supports versions ${min}-${max}.`);
    }
    if (u.level < now && u.upgradeType === UpgradeType.Upgrade) {
      return invalid(u, "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.");
    }
    if (u.level > now && u.upgradeType !== UpgradeType.Upgrade) return invalid(u, "Can't downgrade to a newer version.");
    if (def?.fixed && u.level !== now) return invalid(u, `samsa cannot change it: ${def.fixed}.`);
    if (u.feature === METADATA_VERSION && u.level < now && u.upgradeType === UpgradeType.UnsafeDowngrade) {
      return invalid(u, 'Unsafe metadata downgrade is not supported in this version.');
    }
    for (const [dep, least] of Object.entries(def?.dependencies?.[u.level] ?? {})) {
      if ((proposed[dep] ?? 0) < least) {
        return invalid(u, `${u.feature} could not be set to ${u.level} because it depends on ${dep} level ${least}`);
      }
    }
  }
  // lowering a feature others depend on at their proposed levels
  for (const f of FEATURES) {
    for (const [dep, least] of Object.entries(f.dependencies?.[proposed[f.name] ?? 0] ?? {})) {
      const u = updates.find((x) => x.feature === dep);
      if (u && (proposed[dep] ?? 0) < least) return invalid(u, `${f.name} level ${proposed[f.name]} depends on ${dep} level ${least}`);
    }
  }
  const levels: Record<string, number> = {};
  for (const [name, level] of Object.entries(proposed)) if (level > 0) levels[name] = level;
  return { ok: true, levels };
}
