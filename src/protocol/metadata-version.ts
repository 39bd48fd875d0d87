/**
 * Kafka's metadata.version levels (server-common's MetadataVersion, as Kafka 4.2 has them): each
 * level's release and name ('4.0-IV0'), whether it changed the metadata (what a safe downgrade
 * below it would lose), and the parsing of a release as kafka-features takes one ('4.0-IV0',
 * '3.9', '3.9.1').
 *
 * samsa takes the levels from 4.0-IV0 (22) to 4.1-IV1 (27), the last one it implements whole:
 * 4.0-IV1 adds the ELR fields of the partition records and ClearElrRecord (KIP-966), 4.0-IV2
 * bootstraps transaction.version 1 and 2 (which samsa has), 4.0-IV3 makes ListOffsets v10 the
 * brokers' own version (samsa's listener answers it, its brokers do not list offsets of each
 * other), 4.1-IV0 bootstraps eligible.leader.replicas.version 1, 4.1-IV1 has followers fetch
 * with Fetch v18 and send their high watermark (KIP-1166: samsa's replica fetchers send it from
 * this level on, and leaders answer a follower's fetch once their high watermark is above it).
 * 4.1-IV1 is samsa's latest production level, as it is Kafka 4.2's LATEST_PRODUCTION. The later
 * levels are Kafka's (their names parse, and the release mapping of kafka-features knows them),
 * but no samsa controller accepts them. A bare release ('4.0') means the latest production level
 * of that release, as in Kafka: '4.0' is 4.0-IV3, '4.1' is 4.1-IV1; '4.2' has no production
 * level, as in Kafka 4.2.
 */

export interface MetadataVersionInfo {
  readonly level: number;
  /** The release, '3.9'. */
  readonly release: string;
  /** The level's name, '3.9-IV0'. */
  readonly name: string;
  /** Whether this level changed the metadata (Kafka's didMetadataChange). */
  readonly didMetadataChange: boolean;
}

const mv = (level: number, release: string, iv: string, didMetadataChange: boolean): MetadataVersionInfo => ({ level, release, name: `${release}-${iv}`, didMetadataChange });

/** Kafka 4.2's MetadataVersion values, lowest first (levels before 3.3-IV3 are gone from Kafka 4.x). */
export const METADATA_VERSIONS: readonly MetadataVersionInfo[] = [
  mv(7, '3.3', 'IV3', true),
  mv(8, '3.4', 'IV0', true),
  mv(9, '3.5', 'IV0', false),
  mv(10, '3.5', 'IV1', false),
  mv(11, '3.5', 'IV2', true),
  mv(12, '3.6', 'IV0', false),
  mv(13, '3.6', 'IV1', true),
  mv(14, '3.6', 'IV2', true),
  mv(15, '3.7', 'IV0', true),
  mv(16, '3.7', 'IV1', false),
  mv(17, '3.7', 'IV2', true),
  mv(18, '3.7', 'IV3', false),
  mv(19, '3.7', 'IV4', false),
  mv(20, '3.8', 'IV0', false),
  mv(21, '3.9', 'IV0', false),
  mv(22, '4.0', 'IV0', false),
  mv(23, '4.0', 'IV1', true),
  mv(24, '4.0', 'IV2', false),
  mv(25, '4.0', 'IV3', false),
  mv(26, '4.1', 'IV0', false),
  mv(27, '4.1', 'IV1', false),
  mv(28, '4.2', 'IV0', false),
  mv(29, '4.2', 'IV1', false),
];

/** 3.3-IV3: the lowest level Kafka 4.x knows, and the least every other feature above 0 needs. */
export const MINIMUM_METADATA_VERSION = 7;

/** 4.0-IV0: the lowest level samsa takes (its metadata before ELR). */
export const MINIMUM_SAMSA_METADATA_VERSION = 22;

/** 4.0-IV1: the partition records carry ELR and LastKnownElr, and ClearElrRecord exists (Kafka's isElrSupported). */
export const ELR_METADATA_VERSION = 23;

/**
 * 4.1-IV1: followers fetch with Fetch v18 and send the high watermark they know (KIP-1166); the
 * leader answers a parked follower fetch once its own is above it (Kafka's fetchRequestVersion 18).
 */
export const FETCH_HIGH_WATERMARK_METADATA_VERSION = 27;

/** 4.1-IV1: samsa's latest production level, the one a new cluster starts at (Kafka 4.2's LATEST_PRODUCTION). */
export const LATEST_PRODUCTION_METADATA_VERSION = FETCH_HIGH_WATERMARK_METADATA_VERSION;

const BY_LEVEL = new Map(METADATA_VERSIONS.map((v) => [v.level, v]));

/** Names and production releases to levels, as Kafka's IBP_VERSIONS map. */
const BY_NAME: ReadonlyMap<string, number> = (() => {
  const names = new Map<string, number>();
  const releases = new Map<string, number>();
  for (const v of METADATA_VERSIONS) {
    names.set(v.name, v.level);
    if (v.level <= LATEST_PRODUCTION_METADATA_VERSION) releases.set(v.release, v.level);
  }
  for (const [release, level] of releases) names.set(release, level);
  return names;
})();

/** A level's name ('4.0-IV0'), or undefined for a level Kafka 4.2 does not know. */
export function metadataVersionName(level: number): string | undefined {
  return BY_LEVEL.get(level)?.name;
}

/**
 * The level a release names, as Kafka's MetadataVersion.fromVersionString with unstable levels
 * allowed (as kafka-features calls it): '3.9-IV0', '3.9' (its latest production level), '3.9.x'
 * and '3.9.1' (only the first two parts count). Undefined when there is none.
 */
export function metadataVersionLevel(text: string): number | undefined {
  // Java's String.split drops trailing empty strings
  const parts = text.split('.');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const key = parts.length <= 2 ? text : parts.slice(0, 2).join('.');
  return BY_NAME.get(key);
}

/** Kafka's message for a release it cannot map to a level. */
export function unknownMetadataVersionMessage(text: string): string {
  return `Unknown metadata.version '${text}'. Supported metadata.version are: ${METADATA_VERSIONS.map((v) => v.name).join(', ')}`;
}

/**
 * Whether moving between two known levels crosses one that changed the metadata (Kafka's
 * MetadataVersion.checkIfMetadataChanged): a downgrade across it may lose metadata.
 */
export function metadataChangedBetween(a: number, b: number): boolean {
  const [low, high] = a < b ? [a, b] : [b, a];
  return METADATA_VERSIONS.some((v) => v.level > low && v.level <= high && v.didMetadataChange);
}
