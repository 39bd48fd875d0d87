/**
 * `samsa features`: Kafka's kafka-features tool (KIP-584, FeatureCommand), through the admin
 * client. `describe` prints each feature with the levels samsa implements and the cluster's
 * finalized level; `upgrade`, `downgrade` and `disable` change finalized levels, all or none, as
 * the controller checks them (Kafka's lines: "group.version was upgraded to 1.", "Could not
 * downgrade ..."), by feature or by release (`--release-version`: metadata.version and every
 * other feature at the level the release gives it); --dry-run asks the controller to check
 * without changing anything. `version-mapping` and `feature-dependencies` answer from what samsa
 * knows, without a cluster.
 */
import { SamsaError } from '../../client/errors.js';
import type { FeatureMetadata, FeatureUpgradeType } from '../../client/admin.js';
import { featureDefinition, featureLevelName, METADATA_VERSION, RELEASE_FEATURES, releaseFeatureLevels, type FeatureDefinition } from '../../protocol/features.js';
import { LATEST_PRODUCTION_METADATA_VERSION, metadataVersionLevel, metadataVersionName, unknownMetadataVersionMessage } from '../../protocol/metadata-version.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const LATEST_RELEASE = metadataVersionName(LATEST_PRODUCTION_METADATA_VERSION)!;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  {
    name: 'feature',
    alias: 'f',
    kind: 'list',
    value: 'name=level',
    help: 'with upgrade and downgrade: a feature and its new level (repeatable); with disable: a feature to disable (repeatable); with feature-dependencies: a feature level to look up (repeatable, required)',
  },
  {
    name: 'release-version',
    kind: 'string',
    value: 'version',
    help: `with upgrade and downgrade: the release to set every feature to, e.g. ${LATEST_RELEASE}: metadata.version to its level and each other feature to the level the release gives it (see version-mapping); with version-mapping: the release to look up (default ${LATEST_RELEASE}, samsa's latest)`,
  },
  { name: 'metadata', kind: 'string', value: 'version', help: `DEPRECATED (as in Kafka): with upgrade and downgrade, the new metadata.version by release name (e.g. ${LATEST_RELEASE})` },
  { name: 'unsafe', kind: 'flag', help: 'with downgrade and disable: an unsafe downgrade (one that may lose metadata) instead of a safe one' },
  { name: 'dry-run', kind: 'flag', help: 'with upgrade, downgrade and disable: check the change without making it' },
  HELP_OPTION,
];

const SUBCOMMANDS = ['describe', 'upgrade', 'downgrade', 'disable', 'version-mapping', 'feature-dependencies'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
type ChangeSub = 'upgrade' | 'downgrade' | 'disable';

/** The options each subcommand takes besides --bootstrap-server (Kafka's subparsers). */
const TAKES: Readonly<Record<Sub, readonly string[]>> = {
  describe: [],
  upgrade: ['metadata', 'release-version', 'feature', 'dry-run'],
  downgrade: ['metadata', 'release-version', 'feature', 'unsafe', 'dry-run'],
  disable: ['feature', 'unsafe', 'dry-run'],
  'version-mapping': ['release-version'],
  'feature-dependencies': ['feature'],
};

const SUBCOMMAND_LIST = `${SUBCOMMANDS.slice(0, -1).join(', ')} or ${SUBCOMMANDS[SUBCOMMANDS.length - 1]}`;

const positional: PositionalSpec = { name: 'subcommand', help: SUBCOMMAND_LIST, max: 1 };

const andList = (xs: readonly string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** Refuses the options the subcommand does not take. */
function checkOptions(args: Args, sub: Sub): void {
  for (const name of ['feature', 'release-version', 'metadata', 'unsafe', 'dry-run']) {
    if (!args.has(name) || TAKES[sub].includes(name)) continue;
    throw new UsageError(`--${name} goes with ${andList(SUBCOMMANDS.filter((s) => TAKES[s].includes(name)))}, not with ${sub}`);
  }
}

/** Kafka's describe lines: one per feature samsa implements, in name order, tab separated. */
export function describeLines(md: FeatureMetadata): string[] {
  return Object.keys(md.supportedFeatures)
    .sort()
    .map((name) => {
      const range = md.supportedFeatures[name]!;
      const finalized = md.finalizedFeatures[name]?.maxVersionLevel ?? 0;
      const epoch = md.finalizedFeaturesEpoch === null ? '-' : String(md.finalizedFeaturesEpoch);
      return `Feature: ${name}\tSupportedMinVersion: ${featureLevelName(name, range.minVersion)}\tSupportedMaxVersion: ${featureLevelName(name, range.maxVersion)}\tFinalizedVersionLevel: ${featureLevelName(name, finalized)}\tEpoch: ${epoch}`;
    });
}

/** `name=level` as kafka-features parses it (its parseNameAndLevel: the level a Java short). */
export function parseFeature(spec: string): [string, number] {
  const eq = spec.indexOf('=');
  if (eq < 0) throw new UsageError(`Can't parse feature=level string ${spec}: equals sign not found.`);
  const name = spec.slice(0, eq).trim();
  const text = spec.slice(eq + 1).trim();
  const level = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!(level >= -0x8000 && level <= 0x7fff)) throw new UsageError(`Can't parse feature=level string ${spec}: unable to parse ${text} as a short.`);
  return [name, level];
}

/** What Kafka's FeatureUpdate refuses to be built with, before anything is sent. */
function checkUpdate(level: number, upgradeType: FeatureUpgradeType): void {
  if (level === 0 && upgradeType === 'upgrade') {
    throw new UsageError(`The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the provided maxVersionLevel:${level} is < 1.`);
  }
  if (level < 0) throw new UsageError('Cannot specify a negative version level.');
}

/** A release's metadata.version level, or Kafka's error. */
function releaseLevel(release: string): number {
  const level = metadataVersionLevel(release);
  if (level === undefined) throw new UsageError(unknownMetadataVersionMessage(release));
  return level;
}

/**
 * The updates a command line asks for, by feature name, in the order they are sent (Kafka's
 * handleUpgradeOrDowngrade and handleDisable). With --release-version: metadata.version at the
 * release's level and every other feature at the level the release gives it (an upgrade leaves
 * out the features the release has at 0, as Kafka's does).
 */
export function requestedUpdates(args: Args, sub: ChangeSub): Map<string, number> {
  const upgradeType = upgradeTypeOf(args, sub);
  const updates = new Map<string, number>();
  const add = (name: string, level: number) => {
    checkUpdate(level, upgradeType);
    if (updates.has(name)) throw new UsageError(`Feature ${name} was specified more than once.`);
    updates.set(name, level);
  };
  const release = args.string('release-version');
  if (sub === 'disable') {
    for (const name of args.list('feature')) add(name, 0);
  } else if (release !== undefined) {
    if (args.has('metadata') || args.has('feature')) throw new UsageError('Can not specify `release-version` with other feature flags.');
    const level = releaseLevel(release);
    add(METADATA_VERSION, level);
    for (const f of releaseFeatureLevels(level)) if (sub !== 'upgrade' || f.level > 0) updates.set(f.name, f.level);
  } else {
    const metadata = args.string('metadata');
    if (metadata !== undefined) add(METADATA_VERSION, releaseLevel(metadata));
    for (const spec of args.list('feature')) add(...parseFeature(spec));
  }
  if (updates.size === 0) throw new UsageError(`You must specify at least one feature to ${sub}`);
  // Kafka's admin client refuses a blank name before it sends anything
  if ([...updates.keys()].some((name) => name.trim() === '')) throw new UsageError('Provided feature can not be empty.');
  return updates;
}

function upgradeTypeOf(args: Args, sub: ChangeSub): FeatureUpgradeType {
  if (sub === 'upgrade') return 'upgrade';
  return args.has('unsafe') ? 'unsafe-downgrade' : 'safe-downgrade';
}

/** A refusal's message as Kafka's exception carries it, without the error name samsa puts first. */
function reasonOf(e: SamsaError): string {
  const prefix = `${e.errorName}: `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

/** Kafka's lines for the result of an update: one per feature, in name order. */
export function updateLines(sub: ChangeSub, updates: ReadonlyMap<string, number>, dryRun: boolean, failure: string | null): string[] {
  return [...updates]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, level]) => {
      if (failure !== null) return `${dryRun ? 'Can not' : 'Could not'} ${sub === 'disable' ? `disable ${name}` : `${sub} ${name} to ${level}`}. ${failure}`;
      return `${name}${dryRun ? ' can be' : ' was'} ${sub === 'disable' ? 'disabled.' : `${sub}d to ${level}.`}`;
    });
}

async function change(args: Args, sub: ChangeSub): Promise<void> {
  if (sub !== 'disable' && args.has('metadata') && !args.has('release-version')) {
    // Kafka's line, its leading space included
    out(' `metadata` flag is deprecated and may be removed in a future release.');
  }
  const updates = requestedUpdates(args, sub);
  const dryRun = args.has('dry-run');
  const upgradeType = upgradeTypeOf(args, sub);
  await withCluster(args, 'samsa-features', async (conn) => {
    await withAdmin(conn, async (admin) => {
      let failure: string | null = null;
      try {
        await admin.updateFeatures(Object.fromEntries([...updates].map(([name, level]) => [name, { maxVersionLevel: level, upgradeType }])), { validateOnly: dryRun });
      } catch (err) {
        if (!(err instanceof SamsaError)) throw err;
        failure = reasonOf(err);
      }
      // all or none: one answer for every feature, as Kafka's tool prints it
      for (const line of updateLines(sub, updates, dryRun, failure)) out(line);
      if (failure !== null) throw new CliError(`${updates.size} out of ${updates.size} operation(s) failed.`);
    });
  });
}

/** Kafka's version-mapping lines: metadata.version's level (with the release as given), then each feature's. */
export function versionMappingLines(release: string = LATEST_RELEASE): string[] {
  const level = releaseLevel(release);
  return [`${METADATA_VERSION}=${level} (${release})`, ...releaseFeatureLevels(level).map((f) => `${f.name}=${f.level}`)];
}

/** The features feature-dependencies knows besides metadata.version (Kafka's production features that samsa has). */
const RELEASE_FEATURE_DEFINITIONS: readonly FeatureDefinition[] = RELEASE_FEATURES.map((name) => featureDefinition(name)!);

/** Kafka's feature-dependencies lines for one `name=level`, among `features` (by default samsa's). */
export function featureDependencyLines(spec: string, features: readonly FeatureDefinition[] = RELEASE_FEATURE_DEFINITIONS): string[] {
  const [name, level] = parseFeature(spec);
  if (name === METADATA_VERSION) {
    const release = metadataVersionName(level);
    if (release === undefined) throw new UsageError(`Unknown metadata.version ${level}`);
    return [`${name}=${level} (${release}) has no dependencies.`];
  }
  const def = features.find((f) => f.name === name);
  if (!def) throw new UsageError(`Unknown feature: ${name}`);
  if (level < def.min || level > def.max) throw new UsageError(`No feature:${name} with feature level ${level}`);
  const deps = Object.entries(def.dependencies?.[level] ?? {});
  if (deps.length === 0) return [`${name}=${level} has no dependencies.`];
  return [`${name}=${level} requires:`, ...deps.map(([dep, l]) => (dep === METADATA_VERSION ? `    ${dep}=${l} (${featureLevelName(dep, l)})` : `    ${dep}=${l}`))];
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError(`give the subcommand: ${SUBCOMMAND_LIST}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': give ${SUBCOMMAND_LIST}`);
  checkOptions(args, sub as Sub);
  switch (sub as Sub) {
    case 'describe':
      await withCluster(args, 'samsa-features', async (conn) => {
        await withAdmin(conn, async (admin) => {
          for (const l of describeLines(await admin.describeFeatures())) out(l);
        });
      });
      break;
    case 'upgrade':
    case 'downgrade':
    case 'disable':
      await change(args, sub as ChangeSub);
      break;
    case 'version-mapping':
      for (const l of versionMappingLines(args.string('release-version'))) out(l);
      break;
    case 'feature-dependencies': {
      const specs = args.list('feature');
      if (specs.length === 0) throw new UsageError('--feature is required with feature-dependencies');
      // each as Kafka's prints it: the lines before a bad one stay printed
      for (const spec of specs) for (const l of featureDependencyLines(spec)) out(l);
      break;
    }
  }
  return EXIT_OK;
}

export const featuresCommand: Command = {
  name: 'features',
  summary: "describe the cluster's feature levels (metadata.version, group.version, ...); upgrade, downgrade or disable them, by feature or by release",
  usage: [
    '[--bootstrap-server host:port] describe',
    '[--bootstrap-server host:port] upgrade ((--feature name=level)... | --release-version version) [--dry-run]',
    '[--bootstrap-server host:port] downgrade ((--feature name=level)... | --release-version version) [--unsafe] [--dry-run]',
    '[--bootstrap-server host:port] disable (--feature name)... [--unsafe] [--dry-run]',
    'version-mapping [--release-version version]',
    'feature-dependencies (--feature name=level)...',
  ],
  description:
    "Describes and changes the cluster's feature levels like Kafka's kafka-features (KIP-584). Each feature has the range of levels samsa implements and one finalized level for the whole cluster, kept by the controller in the metadata log; clients read them in ApiVersions. describe prints, for each feature, its supported minimum and maximum and its finalized level (0: not finalized), and the epoch of the finalized levels.\n\n" +
    "group.version 1 enables KIP-848 consumer groups (ConsumerGroupHeartbeat and ConsumerGroupDescribe); `downgrade --feature group.version=0` (or `disable --feature group.version`) turns them off, and their members' heartbeats then fail with UNSUPPORTED_VERSION; `upgrade --feature group.version=1` turns them back on. share.version 1 enables share groups (KIP-932). transaction.version 2 enables KIP-890 part 2 for the clients that speak it (the brokers add a producer's partitions to its transaction, and every commit or abort bumps its epoch); it starts at 0 and may be raised and lowered. metadata.version (samsa writes 4.0-IV0, level 22) cannot be changed, and kraft.version (1: the quorum of controllers is dynamic) cannot be lowered.\n\n" +
    `--release-version sets metadata.version to a release's level and every other feature to the level that release gives it, as Kafka 4.2 maps them (an upgrade leaves out the features at 0); version-mapping prints that mapping (default: ${LATEST_RELEASE}, samsa's latest), and feature-dependencies the features a feature level needs. A release is named as in Kafka: 3.9-IV0, or 3.9 for its latest level. Kafka's later releases (4.0-IV1 to 4.2-IV1) are known, but the controller refuses their metadata.version.\n\n` +
    'An update is made whole or not at all: a level outside what samsa implements, a lower level without downgrade, a higher one with downgrade, or a level whose dependencies are not met is refused (INVALID_UPDATE_VERSION) and nothing changes.',
  options,
  positional,
  examples: [
    'samsa features describe',
    'samsa features downgrade --feature group.version=0',
    'samsa features upgrade --feature group.version=1 --dry-run',
    'samsa features disable --feature group.version',
    `samsa features upgrade --release-version ${LATEST_RELEASE} --dry-run`,
    'samsa features version-mapping --release-version 3.9',
    'samsa features feature-dependencies --feature transaction.version=2',
  ],
  run,
};
