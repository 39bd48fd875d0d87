/**
 * Cluster feature levels (Kafka's KIP-584, as KRaft keeps them): each feature has the range of
 * levels samsa implements and one finalized level for the whole cluster, kept by the controller
 * in the metadata log (FeatureLevel records) and told to every broker with the metadata.
 *
 * The features, and what their levels change in samsa:
 * - `metadata.version`: the version of the metadata samsa writes, from 4.0-IV0 (22) to 4.1-IV1
 *   (27); a new cluster starts at 4.1-IV1 (as Kafka 4.2 bootstraps LATEST_PRODUCTION), a cluster
 *   made at 4.0-IV0 stays there until raised. From 4.1-IV1 on followers send their high
 *   watermark with each fetch (KIP-1166, actors/partition-replica/follower-high-watermark.ts).
 *   It may be raised; lowered only where no level between changed the metadata (never below
 *   4.0-IV1 once there: the ELR fields would be lost). Its levels are in ./metadata-version.ts.
 * - `eligible.leader.replicas.version`: 1 enables eligible leader replicas (KIP-966 part 1,
 *   actors/controller/eligible-leaders.ts): replicas that leave an ISR below min.insync.replicas
 *   stay eligible to lead, and leaders advance the high watermark only while the ISR is at
 *   min.insync.replicas or above. Needs metadata.version 4.0-IV1; a new cluster starts at 1, as
 *   Kafka bootstraps it at 4.1-IV0. Lowering it to 0 clears every ELR.
 * - `group.version`: 1 enables the consumer group protocol (KIP-848: ConsumerGroupHeartbeat and
 *   ConsumerGroupDescribe); at 0 they answer UNSUPPORTED_VERSION and only classic groups run.
 *   It may be raised and lowered (a safe downgrade, as Kafka: nothing written is lost; members
 *   of consumer groups then fail their heartbeats).
 * - `kraft.version`: 1, the dynamic controller quorum (KIP-853), which every samsa quorum is; as
 *   in Kafka it cannot be lowered.
 * - `transaction.version`: 2 enables KIP-890 part 2 for the clients that speak it (EndTxn v5,
 *   Produce v12, TxnOffsetCommit v5): the brokers add a producer's partitions to its transaction
 *   as its batches and offsets reach them, and every commit or abort bumps its epoch. 1 is
 *   Kafka's new record format of __transaction_state, which changes nothing in samsa's (its
 *   records carry every field at every level). A new cluster starts at 2, as Kafka bootstraps it
 *   from 4.0-IV2 on (a cluster made by an earlier samsa keeps the 0 it had); it may be raised
 *   and lowered (the coordinator ends a transaction as the EndTxn version its client sends asks,
 *   so a client that does not speak part 2 runs its transactions as before).
 * - `share.version`: 1 enables share groups (KIP-932: ShareGroupHeartbeat, ShareGroupDescribe,
 *   ShareFetch, ShareAcknowledge and the share group offsets APIs); at 0 they answer
 *   UNSUPPORTED_VERSION, the brokers drop the share partition states they hold (their share
 *   coordinators keep them) and nothing of the groups is lost. A new cluster starts at 1, as a
 *   Kafka 4.2 cluster does; it may be lowered and raised again.
 *
 * A new cluster starts at each feature's default level; a cluster whose metadata has no levels
 * yet (made before samsa kept them) is given the defaults the first time a controller leads it.
 * Updates are checked as Kafka's FeatureControlManager does (`checkFeatureUpdates`).
 *
 * Releases: each level of a feature has the metadata.version that bootstraps it (Kafka's
 * FeatureVersion.bootstrapMetadataVersion, as Kafka 4.2 sets them); a release gives a feature its
 * highest level bootstrapped at or below the release's metadata.version (Kafka's
 * Feature.defaultLevel), what kafka-features' `--release-version` and `version-mapping` use
 * (`releaseFeatureLevels`). Kafka's feature that samsa lacks (streams.version) is not among them.
 */
import { ErrorCode } from './errors.js';
import {
  ELR_METADATA_VERSION,
  LATEST_PRODUCTION_METADATA_VERSION,
  MINIMUM_SAMSA_METADATA_VERSION,
  METADATA_VERSIONS,
  metadataChangedBetween,
  metadataVersionLevel,
  metadataVersionName,
  MINIMUM_METADATA_VERSION,
  unknownMetadataVersionMessage,
} from './metadata-version.js';

export interface FeatureDefinition {
  readonly name: string;
  /** The levels samsa implements. */
  readonly min: number;
  readonly max: number;
  /** The level a new cluster starts at. */
  readonly defaultLevel: number;
  /**
   * The metadata.version level that bootstraps each level of the feature, by level from 0
   * (Kafka's bootstrapMetadataVersion): what a release gives the feature. metadata.version has none.
   */
  readonly bootstrapMetadataVersions?: readonly number[];
  /** The features (and their least levels) a level of this one needs, by level (Kafka's FeatureVersion.dependencies). */
  readonly dependencies?: Readonly<Record<number, Readonly<Record<string, number>>>>;
}

export const METADATA_VERSION = 'metadata.version';
export const GROUP_VERSION = 'group.version';
export const KRAFT_VERSION = 'kraft.version';
export const TRANSACTION_VERSION = 'transaction.version';
export const SHARE_VERSION = 'share.version';
export const ELIGIBLE_LEADER_REPLICAS_VERSION = 'eligible.leader.replicas.version';

/** What share group APIs answer (with UNSUPPORTED_VERSION) while share.version is 0. */
export const SHARE_GROUPS_OFF = "Share groups are not enabled: the cluster's share.version is 0 (samsa features upgrade --feature share.version=1)";

/** metadata.version 4.1-IV1: the level a new samsa cluster's metadata is. */
export const SAMSA_METADATA_VERSION = LATEST_PRODUCTION_METADATA_VERSION;

export const FEATURES: readonly FeatureDefinition[] = [
  // Kafka's EligibleLeaderReplicasVersion: 1 bootstrapped by 4.1-IV0, needs 4.0-IV1
  {
    name: ELIGIBLE_LEADER_REPLICAS_VERSION,
    min: 0,
    max: 1,
    defaultLevel: 1,
    bootstrapMetadataVersions: [MINIMUM_METADATA_VERSION, 26],
    dependencies: { 1: { [METADATA_VERSION]: ELR_METADATA_VERSION } },
  },
  // Kafka's GroupVersion: 1 bootstrapped by 4.0-IV0, with no dependencies
  { name: GROUP_VERSION, min: 0, max: 1, defaultLevel: 1, bootstrapMetadataVersions: [MINIMUM_METADATA_VERSION, 22] },
  // Kafka's KRaftVersion: 1 bootstrapped by 3.9-IV0
  { name: KRAFT_VERSION, min: 0, max: 1, defaultLevel: 1, bootstrapMetadataVersions: [MINIMUM_METADATA_VERSION, 21] },
  { name: METADATA_VERSION, min: MINIMUM_SAMSA_METADATA_VERSION, max: SAMSA_METADATA_VERSION, defaultLevel: SAMSA_METADATA_VERSION },
  // Kafka's ShareVersion: 1 bootstrapped by 4.2-IV0 (a preview in 4.1)
  { name: SHARE_VERSION, min: 0, max: 1, defaultLevel: 1, bootstrapMetadataVersions: [MINIMUM_METADATA_VERSION, 28] },
  // Kafka's TransactionVersion: 1 and 2 bootstrapped by 4.0-IV2
  { name: TRANSACTION_VERSION, min: 0, max: 2, defaultLevel: 2, bootstrapMetadataVersions: [MINIMUM_METADATA_VERSION, 24, 24] },
];

/** The features a release sets besides metadata.version, in the order of Kafka's Feature enum (as its tools list them). */
export const RELEASE_FEATURES: readonly string[] = [KRAFT_VERSION, TRANSACTION_VERSION, GROUP_VERSION, ELIGIBLE_LEADER_REPLICAS_VERSION, SHARE_VERSION];

const BY_NAME = new Map(FEATURES.map((f) => [f.name, f]));

/** A feature samsa implements, by name. */
export function featureDefinition(name: string): FeatureDefinition | undefined {
  return BY_NAME.get(name);
}

/** A level as Kafka's tools print it (their levelToString): metadata.version by name ('UNKNOWN 3' for one Kafka does not know), others as numbers. */
export function featureLevelName(feature: string, level: number): string {
  if (feature !== METADATA_VERSION) return String(level);
  return metadataVersionName(level) ?? `UNKNOWN ${level}`;
}

/** The level a release (by its metadata.version level) gives a feature (Kafka's Feature.defaultLevel); 0 for a feature without releases. */
export function releaseFeatureLevel(def: FeatureDefinition, metadataVersion: number): number {
  const bootstraps = def.bootstrapMetadataVersions ?? [];
  let level = 0;
  for (let l = 0; l < bootstraps.length; l++) {
    if (bootstraps[l]! > metadataVersion) break;
    level = l;
  }
  return level;
}

/** What a release (by its metadata.version level) sets each feature to besides metadata.version, in Kafka's order. */
export function releaseFeatureLevels(metadataVersion: number): { name: string; level: number }[] {
  return RELEASE_FEATURES.map((name) => ({ name, level: releaseFeatureLevel(BY_NAME.get(name)!, metadataVersion) }));
}

/** The levels a new cluster starts with (every feature's default above 0). */
export function defaultFeatureLevels(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of FEATURES) if (f.defaultLevel > 0) out[f.name] = f.defaultLevel;
  return out;
}

/** How a topology sets a new cluster's levels (Kafka's `kafka-storage format --release-version R --feature name=level`). */
export interface BootstrapFeatures {
  /** A release ('4.0', '4.0-IV2'): metadata.version at its level and every other feature at the level it gives it. */
  readonly releaseVersion?: string;
  /** Levels by feature, over the release's (or samsa's defaults). */
  readonly features?: Readonly<Record<string, number>>;
}

/**
 * The levels a new cluster starts with, as a topology asks for them: the release's (or samsa's
 * defaults, `defaultFeatureLevels`), then each feature given. Each level must be one samsa
 * implements (metadata.version 4.0-IV0..4.1-IV1; kraft.version 1, since every samsa quorum is
 * dynamic) and have its dependencies met (eligible.leader.replicas.version 1 needs metadata.version
 * 4.0-IV1). A problem names the key it is in (`where`: 'releaseVersion' or 'features.<name>');
 * levels at 0 are left out, as unfinalized.
 */
export function bootstrapFeatureLevels(spec: BootstrapFeatures = {}): { ok: true; levels: Record<string, number> } | { ok: false; where: string; message: string } {
  const given = spec.features ?? {};
  let levels: Record<string, number>;
  if (spec.releaseVersion !== undefined) {
    const mv = metadataVersionLevel(spec.releaseVersion);
    if (mv === undefined) return { ok: false, where: 'releaseVersion', message: unknownMetadataVersionMessage(spec.releaseVersion) };
    levels = { [METADATA_VERSION]: mv };
    for (const f of releaseFeatureLevels(mv)) levels[f.name] = f.level;
  } else levels = defaultFeatureLevels();
  for (const [name, level] of Object.entries(given)) {
    if (!BY_NAME.has(name)) return { ok: false, where: `features.${name}`, message: `samsa has no feature ${name}; its features: ${FEATURES.map((f) => f.name).join(', ')}` };
    if (!Number.isInteger(level)) return { ok: false, where: `features.${name}`, message: `must be an integer level, got ${JSON.stringify(level)}` };
    levels[name] = level;
  }
  // where a level came from: the feature's own key, else the release, else samsa's default
  const origin = (name: string) => (Object.hasOwn(given, name) ? `features.${name}` : spec.releaseVersion !== undefined ? 'releaseVersion' : `features.${name}`);
  const from = (name: string) => (Object.hasOwn(given, name) ? '' : spec.releaseVersion !== undefined ? ` from release ${spec.releaseVersion}` : " (samsa's default)");
  const shown = (name: string, level: number) => (name === METADATA_VERSION ? `${metadataVersionName(level) ?? `UNKNOWN ${level}`} (${level})` : String(level));
  for (const [name, level] of Object.entries(levels)) {
    const def = BY_NAME.get(name)!;
    const min = name === KRAFT_VERSION ? 1 : def.min;
    if (level < min || level > def.max) {
      const range = `${shown(name, min)}${def.max === min ? '' : ` to ${shown(name, def.max)}`}`;
      const why = name === KRAFT_VERSION ? ' (a samsa quorum is always dynamic, KIP-853)' : '';
      return { ok: false, where: origin(name), message: `${name} ${shown(name, level)}${from(name)} is not one samsa implements: ${range}${why}` };
    }
  }
  for (const [name, level] of Object.entries(levels)) {
    for (const [dep, least] of Object.entries(BY_NAME.get(name)!.dependencies?.[level] ?? {})) {
      if ((levels[dep] ?? 0) >= least) continue;
      const at = Object.hasOwn(given, name) || !Object.hasOwn(given, dep) ? origin(name) : origin(dep);
      return { ok: false, where: at, message: `${name} ${level}${from(name)} needs ${dep} ${shown(dep, least)} or later; ${dep} is ${shown(dep, levels[dep] ?? 0)}${from(dep)}` };
    }
  }
  const out: Record<string, number> = {};
  for (const [name, level] of Object.entries(levels)) if (level > 0) out[name] = level;
  return { ok: true, levels: out };
}

/** The cluster's finalized levels as brokers learn them; `epoch` rises with every change (Kafka's FinalizedFeaturesEpoch). */
export interface FinalizedFeatures {
  readonly levels: Readonly<Record<string, number>>;
  readonly epoch: number;
}

/** Whether eligible leader replicas are on: eligible.leader.replicas.version at 1 or above (Kafka's isElrFeatureEnabled). */
export function isElrEnabled(levels: Readonly<Record<string, number>>): boolean {
  return (levels[ELIGIBLE_LEADER_REPLICAS_VERSION] ?? 0) >= 1;
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
 * with INVALID_UPDATE_VERSION and Kafka's messages: an unknown upgrade type, a level below 0, a
 * level outside what samsa implements ("Local controller <id> only supports versions 0-1"), a
 * lower level as an upgrade or a higher one as a downgrade, a downgrade of kraft.version, a
 * metadata.version downgrade across a level that changed the metadata (safe or unsafe), and a
 * level whose dependencies the updated levels do not meet (every level above 0 needs
 * metadata.version 3.3-IV3). A feature samsa does not know implements only 0, and disabling it
 * changes nothing (Kafka refuses one it does not know; samsa takes Kafka's features it lacks as
 * disabled, so Kafka's own `--release-version` downgrades, which name them, work). Returns the
 * finalized levels after the updates (level 0: the feature is dropped).
 */
export function checkFeatureUpdates(current: Readonly<Record<string, number>>, updates: readonly FeatureUpdate[], controllerId?: number): FeatureUpdateCheck {
  const refuse = (errorMessage: string): FeatureUpdateCheck => ({ ok: false, errorCode: ErrorCode.INVALID_UPDATE_VERSION, errorMessage });
  const invalid = (u: FeatureUpdate, why: string): FeatureUpdateCheck => refuse(`Invalid update version ${u.level} for feature ${u.feature}. ${why}`);
  const local = controllerId === undefined ? 'Local controller' : `Local controller ${controllerId}`;
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
    if (u.level < min || u.level > max) {
      // Kafka's QuorumFeatures.reasonNotSupported, its VersionRange printed as "22" or "0-1"
      return invalid(u, max === 0 ? `${local} does not support this feature.` : `${local} only supports versions ${min === max ? min : `${min}-${max}`}`);
    }
    if (u.level < now && u.upgradeType === UpgradeType.Upgrade) {
      return invalid(u, "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.");
    }
    if (u.level > now && u.upgradeType !== UpgradeType.Upgrade) return invalid(u, "Can't downgrade to a newer version.");
    if (u.feature === METADATA_VERSION) {
      if (metadataVersionName(u.level) === undefined) {
        return refuse(`Invalid metadata.version ${u.level}. Valid versions are from ${MINIMUM_METADATA_VERSION} to ${METADATA_VERSIONS[METADATA_VERSIONS.length - 1]!.level}.`);
      }
      if (u.level < now && metadataChangedBetween(now, u.level)) {
        const why = u.upgradeType === UpgradeType.UnsafeDowngrade ? 'Unsafe metadata downgrade is not supported in this version.' : 'Refusing to perform the requested downgrade because it might delete metadata information.';
        return refuse(`Unsupported metadata.version downgrade from ${now} to ${u.level}. ${why}`);
      }
      continue;
    }
    if (u.feature === KRAFT_VERSION) {
      if (u.upgradeType !== UpgradeType.Upgrade && u.level !== now) return invalid(u, "Can't downgrade the version of this feature.");
      continue;
    }
    // Kafka's Feature.validateVersion
    const metadataVersion = proposed[METADATA_VERSION];
    if (u.level >= 1 && (metadataVersion === undefined || metadataVersion < MINIMUM_METADATA_VERSION)) {
      return invalid(u, `${u.feature} could not be set to ${u.level} because it depends on metadata.version=${MINIMUM_METADATA_VERSION} (${metadataVersionName(MINIMUM_METADATA_VERSION)})`);
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
