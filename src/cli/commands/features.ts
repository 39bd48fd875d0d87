/**
 * `samsa features`: Kafka's kafka-features tool (KIP-584), through the admin client. `describe`
 * prints each feature with the levels samsa implements and the cluster's finalized level;
 * `upgrade`, `downgrade` and `disable` change finalized levels, all or none, as the controller
 * checks them (Kafka's messages: "group.version was upgraded to 1.", "Could not downgrade ...").
 * --dry-run asks the controller to check without changing anything.
 */
import { SamsaError } from '../../client/errors.js';
import type { FeatureMetadata, FeatureUpgradeType } from '../../client/admin.js';
import { featureLevelName, METADATA_VERSION, metadataVersionLevel } from '../../protocol/features.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'feature', alias: 'f', kind: 'list', value: 'name=level', help: 'with upgrade and downgrade: a feature and its new level (repeatable); with disable: a feature to disable (repeatable)' },
  { name: 'metadata', kind: 'string', value: 'version', help: "with upgrade and downgrade: the new metadata.version, by release name (e.g. 4.0-IV0)" },
  { name: 'unsafe', kind: 'flag', help: 'with downgrade and disable: an unsafe (lossy) downgrade instead of a safe one' },
  { name: 'dry-run', kind: 'flag', help: 'with upgrade, downgrade and disable: check the change without making it' },
  HELP_OPTION,
];

const SUBCOMMANDS = ['describe', 'upgrade', 'downgrade', 'disable'] as const;
type Sub = (typeof SUBCOMMANDS)[number];

const positional: PositionalSpec = { name: 'describe|upgrade|downgrade|disable', help: 'the subcommand', max: 1 };

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

/** `name=level` as kafka-features parses it. */
function parseFeature(spec: string): [string, number] {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? '' : spec.slice(0, eq).trim();
  const level = eq < 0 ? '' : spec.slice(eq + 1).trim();
  if (name === '' || !/^\d+$/.test(level) || Number(level) > 0x7fff) throw new UsageError(`Can't parse feature=level string ${spec}: give a name and a level from 0 to 32767`);
  return [name, Number(level)];
}

/** The updates a command line asks for, by feature name. */
export function requestedUpdates(args: Args, sub: Exclude<Sub, 'describe'>): Map<string, number> {
  const updates = new Map<string, number>();
  const add = (name: string, level: number) => {
    if (updates.has(name)) throw new UsageError(`Feature ${name} was specified more than once.`);
    updates.set(name, level);
  };
  if (sub === 'disable') {
    if (args.has('metadata')) throw new UsageError('--metadata does not go with disable');
    for (const name of args.list('feature')) add(name, 0);
  } else {
    const metadata = args.string('metadata');
    if (metadata !== undefined) {
      const level = metadataVersionLevel(metadata);
      if (level === undefined) throw new UsageError(`Unknown metadata.version ${metadata}. Give a release name such as 4.0-IV0`);
      add(METADATA_VERSION, level);
    }
    for (const spec of args.list('feature')) add(...parseFeature(spec));
  }
  if (updates.size === 0) throw new UsageError(`You must specify at least one feature to ${sub}`);
  return updates;
}

async function change(args: Args, sub: Exclude<Sub, 'describe'>): Promise<void> {
  if (sub === 'upgrade' && args.has('unsafe')) throw new UsageError('--unsafe goes with downgrade and disable');
  const updates = requestedUpdates(args, sub);
  const dryRun = args.has('dry-run');
  const upgradeType: FeatureUpgradeType = sub === 'upgrade' ? 'upgrade' : args.has('unsafe') ? 'unsafe-downgrade' : 'safe-downgrade';
  await withCluster(args, 'samsa-features', async (conn) => {
    await withAdmin(conn, async (admin) => {
      let failure: SamsaError | null = null;
      try {
        await admin.updateFeatures(Object.fromEntries([...updates].map(([name, level]) => [name, { maxVersionLevel: level, upgradeType }])), { validateOnly: dryRun });
      } catch (err) {
        if (!(err instanceof SamsaError)) throw err;
        failure = err;
      }
      // all or none: one answer for every feature, as Kafka's tool prints it
      for (const [name, level] of [...updates].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const what = sub === 'disable' ? `disable ${name}` : `${sub} ${name} to ${level}`;
        if (failure) out(`${dryRun ? 'Can not' : 'Could not'} ${what}. ${failure.message}`);
        else out(`${name}${dryRun ? ' can be' : ' was'} ${sub === 'disable' ? 'disabled.' : `${sub}d to ${level}.`}`);
      }
      if (failure) throw new CliError(`${updates.size} out of ${updates.size} operation(s) failed.`);
    });
  });
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError('give the subcommand: describe, upgrade, downgrade or disable');
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': give describe, upgrade, downgrade or disable`);
  if (sub !== 'describe') {
    await change(args, sub as Exclude<Sub, 'describe'>);
    return EXIT_OK;
  }
  for (const name of ['feature', 'metadata', 'unsafe', 'dry-run']) if (args.has(name)) throw new UsageError(`--${name} does not go with describe`);
  await withCluster(args, 'samsa-features', async (conn) => {
    await withAdmin(conn, async (admin) => {
      for (const l of describeLines(await admin.describeFeatures())) out(l);
    });
  });
  return EXIT_OK;
}

export const featuresCommand: Command = {
  name: 'features',
  summary: 'describe the cluster\'s feature levels (metadata.version, group.version, ...); upgrade, downgrade or disable them',
  usage: [
    '[--bootstrap-server host:port] describe',
    '[--bootstrap-server host:port] upgrade (--feature name=level)... [--metadata version] [--dry-run]',
    '[--bootstrap-server host:port] downgrade (--feature name=level)... [--metadata version] [--unsafe] [--dry-run]',
    '[--bootstrap-server host:port] disable (--feature name)... [--unsafe] [--dry-run]',
  ],
  description:
    "Describes and changes the cluster's feature levels like Kafka's kafka-features (KIP-584). Each feature has the range of levels samsa implements and one finalized level for the whole cluster, kept by the controller in the metadata log; clients read them in ApiVersions. describe prints, for each feature, its supported minimum and maximum and its finalized level (0: not finalized), and the epoch of the finalized levels.\n\ngroup.version 1 enables KIP-848 consumer groups (ConsumerGroupHeartbeat and ConsumerGroupDescribe); `downgrade --feature group.version=0` (or `disable --feature group.version`) turns them off, and their members' heartbeats then fail with UNSUPPORTED_VERSION; `upgrade --feature group.version=1` turns them back on. transaction.version 2 enables KIP-890 part 2 for the clients that speak it (the brokers add a producer's partitions to its transaction, and every commit or abort bumps its epoch); it starts at 0 and may be raised and lowered. metadata.version (samsa writes 4.0-IV0) and kraft.version (1: the quorum of controllers is dynamic) are fixed: changing them is refused with the reason.\n\nAn update is made whole or not at all: a level outside what samsa implements, a lower level without downgrade, a higher one with downgrade, or a level whose dependencies are not met is refused (INVALID_UPDATE_VERSION) and nothing changes.",
  options,
  positional,
  examples: ['samsa features describe', 'samsa features downgrade --feature group.version=0', 'samsa features upgrade --feature group.version=1 --dry-run', 'samsa features disable --feature group.version'],
  run,
};
