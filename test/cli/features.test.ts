/**
 * `samsa features` (src/cli/commands/features.ts), Kafka's kafka-features: the describe lines,
 * version-mapping and feature-dependencies (no cluster needed), the command lines that cannot
 * work (exit 2, nothing sent), and against a cluster: describe, a dry run, a downgrade of
 * group.version and the upgrade back, upgrades and downgrades by release (--release-version),
 * and refusals (exit 1 with Kafka's lines, nothing changed).
 */
import { expect } from 'chai';
import { describeLines, featureDependencyLines } from '../../src/cli/commands/features.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli/commands/features', () => {
  it("describe prints one line per feature in name order, metadata.version by release name, as Kafka's tool", () => {
    const lines = describeLines({
      supportedFeatures: { 'metadata.version': { minVersion: 22, maxVersion: 22 }, 'group.version': { minVersion: 0, maxVersion: 1 } },
      finalizedFeatures: { 'metadata.version': { minVersionLevel: 22, maxVersionLevel: 22 } },
      finalizedFeaturesEpoch: 7,
    });
    expect(lines).to.deep.equal([
      'Feature: group.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 0\tEpoch: 7',
      'Feature: metadata.version\tSupportedMinVersion: 4.0-IV0\tSupportedMaxVersion: 4.0-IV0\tFinalizedVersionLevel: 4.0-IV0\tEpoch: 7',
    ]);
    expect(describeLines({ supportedFeatures: { 'group.version': { minVersion: 0, maxVersion: 1 } }, finalizedFeatures: {}, finalizedFeaturesEpoch: null })[0]).to.match(/\tEpoch: -$/);
    // a metadata.version level Kafka does not know, as its levelToString prints it
    expect(describeLines({ supportedFeatures: { 'metadata.version': { minVersion: 3, maxVersion: 22 } }, finalizedFeatures: {}, finalizedFeaturesEpoch: 1 })).to.deep.equal([
      'Feature: metadata.version\tSupportedMinVersion: UNKNOWN 3\tSupportedMaxVersion: 4.0-IV0\tFinalizedVersionLevel: UNKNOWN 0\tEpoch: 1',
    ]);
  });

  // 127.0.0.1:1 answers nobody: these print without a cluster
  const offline = (...argv: string[]) => runCli(['features', '--bootstrap-server', '127.0.0.1:1', ...argv]);

  it("version-mapping: metadata.version's level (with the release as given) and each feature's, in Kafka's order; default samsa's latest, 4.1-IV1 (Kafka 4.2's too)", async () => {
    const levels = (mv: string, kraft: number, txn: number, group: number, elr: number, share: number) => [
      `metadata.version=${mv}`,
      `kraft.version=${kraft}`,
      `transaction.version=${txn}`,
      `group.version=${group}`,
      `eligible.leader.replicas.version=${elr}`,
      `share.version=${share}`,
    ];
    const cases: [string[], string[]][] = [
      [[], levels('27 (4.1-IV1)', 1, 2, 1, 1, 0)],
      [['--release-version', '3.9'], levels('21 (3.9)', 1, 0, 0, 0, 0)],
      [['--release-version', '3.8-IV0'], levels('20 (3.8-IV0)', 0, 0, 0, 0, 0)],
      [['--release-version', '3.3-IV3'], levels('7 (3.3-IV3)', 0, 0, 0, 0, 0)],
      // a release is its latest level, as Kafka 4.2 maps it (4.0.1 is 4.0-IV3)
      [['--release-version', '4.0.1'], levels('25 (4.0.1)', 1, 2, 1, 0, 0)],
      [['--release-version', '4.0-IV0'], levels('22 (4.0-IV0)', 1, 0, 1, 0, 0)],
      [['--release-version', '4.0-IV2'], levels('24 (4.0-IV2)', 1, 2, 1, 0, 0)],
      [['--release-version', '4.1'], levels('27 (4.1)', 1, 2, 1, 1, 0)],
      [['--release-version', '4.1-IV0'], levels('26 (4.1-IV0)', 1, 2, 1, 1, 0)],
      [['--release-version', '4.1-IV1'], levels('27 (4.1-IV1)', 1, 2, 1, 1, 0)],
      [['--release-version', '4.2-IV0'], levels('28 (4.2-IV0)', 1, 2, 1, 1, 1)],
    ];
    for (const [argv, lines] of cases) {
      const r = await offline('version-mapping', ...argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).to.equal(0);
      expect(r.stdout.trimEnd().split('\n'), argv.join(' ')).to.deep.equal(lines);
    }
  });

  it("feature-dependencies: Kafka's lines for each feature level, in the order given", async () => {
    const r = await offline('feature-dependencies', '--feature', 'metadata.version=22', '--feature', 'group.version=1', '--feature', 'transaction.version=2', '--feature', 'kraft.version=0', '--feature', 'share.version=1', '--feature', 'eligible.leader.replicas.version=1', '--feature', 'eligible.leader.replicas.version=0');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.trimEnd().split('\n')).to.deep.equal([
      'metadata.version=22 (4.0-IV0) has no dependencies.',
      'group.version=1 has no dependencies.',
      'transaction.version=2 has no dependencies.',
      'kraft.version=0 has no dependencies.',
      'share.version=1 has no dependencies.',
      // KIP-966: the ELR records came with 4.0-IV1
      'eligible.leader.replicas.version=1 requires:',
      '    metadata.version=23 (4.0-IV1)',
      'eligible.leader.replicas.version=0 has no dependencies.',
    ]);
    // a bad one stops there, the lines before it printed, as Kafka's
    const bad = await offline('feature-dependencies', '--feature', 'group.version=1', '--feature', 'streams.version=1', '--feature', 'share.version=1');
    expect(bad.code).to.equal(2);
    expect(bad.stdout).to.equal('group.version=1 has no dependencies.\n');
    expect(bad.stderr).to.match(/Unknown feature: streams\.version/);
  });

  it("feature-dependencies prints a level's dependencies as Kafka's does: metadata.version with its name", () => {
    const defs = [{ name: 'test.feature.version', min: 0, max: 2, defaultLevel: 0, dependencies: { 2: { 'metadata.version': 24, 'group.version': 1 } } }];
    expect(featureDependencyLines('test.feature.version=2', defs)).to.deep.equal(['test.feature.version=2 requires:', '    metadata.version=24 (4.0-IV2)', '    group.version=1']);
    expect(featureDependencyLines('test.feature.version=1', defs)).to.deep.equal(['test.feature.version=1 has no dependencies.']);
    expect(featureDependencyLines(' test.feature.version = 01 ', defs)).to.deep.equal(['test.feature.version=1 has no dependencies.']);
  });

  it('exits 2 for command lines that cannot work', async () => {
    const unknown = (v: string) => new RegExp(`Unknown metadata\\.version '${v.replace(/\./g, '\\.')}'\\. Supported metadata\\.version are: 3\\.3-IV3, 3\\.4-IV0, .*, 4\\.2-IV1\n`);
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /give the subcommand: describe, upgrade, downgrade, disable, version-mapping or feature-dependencies/ },
      { argv: ['list'], says: /unknown subcommand 'list'/ },
      { argv: ['upgrade'], says: /You must specify at least one feature to upgrade\n/ },
      { argv: ['downgrade', '--dry-run'], says: /You must specify at least one feature to downgrade\n/ },
      { argv: ['disable'], says: /You must specify at least one feature to disable\n/ },
      { argv: ['upgrade', '--feature', 'group.version'], says: /Can't parse feature=level string group\.version: equals sign not found\.\n/ },
      { argv: ['upgrade', '--feature', 'group.version=x'], says: /Can't parse feature=level string group\.version=x: unable to parse x as a short\.\n/ },
      { argv: ['upgrade', '--feature', 'group.version=40000'], says: /unable to parse 40000 as a short\./ },
      { argv: ['upgrade', '--feature', 'group.version=1', '--feature', 'group.version=1'], says: /Feature group\.version was specified more than once\.\n/ },
      { argv: ['disable', '--feature', 'group.version', '--feature', 'group.version'], says: /Feature group\.version was specified more than once\.\n/ },
      { argv: ['upgrade', '--feature', 'group.version=0'], says: /The upgradeType flag should be set to SAFE_DOWNGRADE or UNSAFE_DOWNGRADE when the provided maxVersionLevel:0 is < 1\.\n/ },
      { argv: ['downgrade', '--feature', 'group.version=-1'], says: /Cannot specify a negative version level\.\n/ },
      { argv: ['upgrade', '--feature', ' =1'], says: /Provided feature can not be empty\.\n/ },
      { argv: ['upgrade', '--metadata', '9.9'], says: unknown('9.9') },
      { argv: ['upgrade', '--release-version', '9.9'], says: unknown('9.9') },
      { argv: ['downgrade', '--release-version', '3.3-IV0'], says: unknown('3.3-IV0') },
      { argv: ['upgrade', '--release-version', '4.2'], says: unknown('4.2') },
      { argv: ['version-mapping', '--release-version', '2.9-IV2'], says: unknown('2.9-IV2') },
      { argv: ['upgrade', '--release-version', '4.0-IV0', '--feature', 'group.version=1'], says: /Can not specify `release-version` with other feature flags\.\n/ },
      { argv: ['downgrade', '--release-version', '4.0-IV0', '--metadata', '4.0-IV0'], says: /Can not specify `release-version` with other feature flags\.\n/ },
      { argv: ['upgrade', '--feature', 'group.version=1', '--unsafe'], says: /--unsafe goes with downgrade and disable, not with upgrade/ },
      { argv: ['upgrade', '--release-version', '4.0-IV0', '--unsafe'], says: /--unsafe goes with downgrade and disable, not with upgrade/ },
      { argv: ['disable', '--metadata', '4.0-IV0'], says: /--metadata goes with upgrade and downgrade, not with disable/ },
      { argv: ['disable', '--release-version', '4.0-IV0'], says: /--release-version goes with upgrade, downgrade and version-mapping, not with disable/ },
      { argv: ['describe', '--dry-run'], says: /--dry-run goes with upgrade, downgrade and disable, not with describe/ },
      { argv: ['version-mapping', '--feature', 'group.version=1'], says: /--feature goes with upgrade, downgrade, disable and feature-dependencies, not with version-mapping/ },
      { argv: ['feature-dependencies', '--release-version', '4.0'], says: /--release-version goes with upgrade, downgrade and version-mapping, not with feature-dependencies/ },
      { argv: ['feature-dependencies'], says: /--feature is required with feature-dependencies/ },
      { argv: ['feature-dependencies', '--feature', 'metadata.version'], says: /Can't parse feature=level string metadata\.version: equals sign not found\./ },
      { argv: ['feature-dependencies', '--feature', 'metadata.version=5'], says: /Unknown metadata\.version 5\n/ },
      { argv: ['feature-dependencies', '--feature', 'group.version=2'], says: /No feature:group\.version with feature level 2\n/ },
      { argv: ['feature-dependencies', '--feature', 'eligible.leader.replicas.version=2'], says: /No feature:eligible\.leader\.replicas\.version with feature level 2\n/ },
    ];
    for (const c of cases) {
      const r = await runCli(['features', '--bootstrap-server', '127.0.0.1:1', ...c.argv]);
      expect(r.code, `${c.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(c.says);
      expect(r.stdout, c.argv.join(' ')).to.equal(c.argv[0] !== 'disable' && c.argv.includes('--metadata') && !c.argv.includes('--release-version') ? ' `metadata` flag is deprecated and may be removed in a future release.\n' : '');
    }
  });

  it('shows up in `samsa --help` and has its own help', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['features', '--help'])]);
    expect(top.stdout).to.match(/^ {2}features +describe the cluster's feature levels/m);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/usage: samsa features \[--bootstrap-server host:port\] describe/);
    expect(own.stdout).to.include('--unsafe');
    expect(own.stdout).to.include('--release-version version');
    expect(own.stdout).to.match(/^ {7}samsa features version-mapping \[--release-version version\]$/m);
    expect(own.stdout).to.match(/^ {7}samsa features feature-dependencies \(--feature name=level\)\.\.\.$/m);
  });
});

describe('cli/commands/features: against a cluster', function () {
  this.timeout(60_000);
  let c: CliCluster;

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  const finalizedGroupVersion = async (): Promise<string> => {
    const r = await c.run('features', ['describe']);
    expect(r.code, r.stderr).to.equal(0);
    return /^Feature: group.version\t.*\tFinalizedVersionLevel: (\d+)\t/m.exec(r.stdout)![1]!;
  };

  it('describe: every feature samsa implements with the levels a new cluster finalized', async () => {
    const r = await c.run('features', ['describe']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t').slice(0, 4).join('\t'))).to.deep.equal([
      'Feature: eligible.leader.replicas.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: group.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: metadata.version\tSupportedMinVersion: 4.0-IV0\tSupportedMaxVersion: 4.1-IV1\tFinalizedVersionLevel: 4.1-IV1',
      'Feature: share.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: transaction.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 2\tFinalizedVersionLevel: 2',
    ]);
    for (const l of lines) expect(l).to.match(/\tEpoch: \d+$/);
  });

  it('downgrade --dry-run changes nothing; downgrade and upgrade change group.version', async () => {
    const dry = await c.run('features', ['downgrade', '--feature', 'group.version=0', '--dry-run']);
    expect([dry.code, dry.stdout.trim()], dry.stderr).to.deep.equal([0, 'group.version can be downgraded to 0.']);
    expect(await finalizedGroupVersion()).to.equal('1');
    const down = await c.run('features', ['downgrade', '--feature', 'group.version=0']);
    expect([down.code, down.stdout.trim()], down.stderr).to.deep.equal([0, 'group.version was downgraded to 0.']);
    expect(await finalizedGroupVersion()).to.equal('0');
    const up = await c.run('features', ['upgrade', '--feature', 'group.version=1']);
    expect([up.code, up.stdout.trim()], up.stderr).to.deep.equal([0, 'group.version was upgraded to 1.']);
    expect(await finalizedGroupVersion()).to.equal('1');
    const disabled = await c.run('features', ['disable', '--feature', 'group.version']);
    expect([disabled.code, disabled.stdout.trim()], disabled.stderr).to.deep.equal([0, 'group.version was disabled.']);
    expect(await finalizedGroupVersion()).to.equal('0');
    expect((await c.run('features', ['upgrade', '--feature', 'group.version=1'])).code).to.equal(0);
  });

  it('downgrade and upgrade transaction.version (KIP-890 part 2; a new cluster has it at 2)', async () => {
    const level = async () => /^Feature: transaction.version\t.*\tFinalizedVersionLevel: (\d+)\t/m.exec((await c.run('features', ['describe'])).stdout)![1]!;
    expect(await level()).to.equal('2');
    const down = await c.run('features', ['downgrade', '--feature', 'transaction.version=0']);
    expect([down.code, down.stdout.trim()], down.stderr).to.deep.equal([0, 'transaction.version was downgraded to 0.']);
    expect(await level()).to.equal('0');
    const up = await c.run('features', ['upgrade', '--feature', 'transaction.version=2']);
    expect([up.code, up.stdout.trim()], up.stderr).to.deep.equal([0, 'transaction.version was upgraded to 2.']);
    expect(await level()).to.equal('2');
  });

  const FAILED = 'The update failed for all features since the following feature had an error: ';

  /** The finalized levels describe prints, by feature. */
  const finalized = async (): Promise<Record<string, string>> => {
    const r = await c.run('features', ['describe']);
    expect(r.code, r.stderr).to.equal(0);
    return Object.fromEntries([...r.stdout.matchAll(/^Feature: (\S+)\t.*\tFinalizedVersionLevel: (\S+)\t/gm)].map((m) => [m[1]!, m[2]!]));
  };
  const NEW_CLUSTER = { 'eligible.leader.replicas.version': '1', 'group.version': '1', 'kraft.version': '1', 'metadata.version': '4.1-IV1', 'share.version': '1', 'transaction.version': '2' };

  it("a refused update exits 1 with Kafka's lines for each feature (the deprecated --metadata noted first), nothing changed", async () => {
    const r = await c.run('features', ['upgrade', '--feature', 'group.version=2', '--metadata', '4.1-IV1']);
    expect(r.code).to.equal(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).to.have.length(3);
    // Kafka's line, its leading space included
    expect(lines[0]).to.equal(' `metadata` flag is deprecated and may be removed in a future release.');
    const why = `${FAILED}Invalid update version 2 for feature group.version. Local controller 1 only supports versions 0-1`;
    expect(lines.slice(1)).to.deep.equal([`Could not upgrade group.version to 2. ${why}`, `Could not upgrade metadata.version to 27. ${why}`]);
    expect(r.stderr).to.match(/2 out of 2 operation\(s\) failed\./);
    expect(await finalizedGroupVersion()).to.equal('1');
  });

  it("kraft.version cannot be lowered, as in Kafka; a dry run that would fail says 'Can not'", async () => {
    const r = await c.run('features', ['disable', '--feature', 'kraft.version']);
    expect([r.code, r.stdout.trim()]).to.deep.equal([1, `Could not disable kraft.version. ${FAILED}Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.`]);
    const dry = await c.run('features', ['upgrade', '--feature', 'transaction.version=3', '--dry-run']);
    expect([dry.code, dry.stdout.trim()]).to.deep.equal([1, `Can not upgrade transaction.version to 3. ${FAILED}Invalid update version 3 for feature transaction.version. Local controller 1 only supports versions 0-2`]);
    expect(dry.stderr).to.match(/1 out of 1 operation\(s\) failed\./);
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);
  });

  it('--release-version: upgrade and downgrade every feature to what a release gives it, --dry-run changing nothing', async () => {
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);

    // an upgrade to samsa's latest release leaves out the features it has at 0 (share.version)
    const upLines = (verb: string) => [
      `eligible.leader.replicas.version ${verb} upgraded to 1.`,
      `group.version ${verb} upgraded to 1.`,
      `kraft.version ${verb} upgraded to 1.`,
      `metadata.version ${verb} upgraded to 27.`,
      `transaction.version ${verb} upgraded to 2.`,
    ];
    const upDry = await c.run('features', ['upgrade', '--release-version', '4.1-IV1', '--dry-run']);
    expect([upDry.code, upDry.stdout.trimEnd().split('\n')], upDry.stderr).to.deep.equal([0, upLines('can be')]);
    const up = await c.run('features', ['upgrade', '--release-version', '4.1']);
    expect([up.code, up.stdout.trimEnd().split('\n')], up.stderr).to.deep.equal([0, upLines('was')]);
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);

    // a downgrade names every feature, those at 0 too: 4.0-IV2 has ELR off and metadata.version 24
    const downLines = (verb: string) => [
      `eligible.leader.replicas.version ${verb} downgraded to 0.`,
      `group.version ${verb} downgraded to 1.`,
      `kraft.version ${verb} downgraded to 1.`,
      `metadata.version ${verb} downgraded to 24.`,
      `share.version ${verb} downgraded to 0.`,
      `transaction.version ${verb} downgraded to 2.`,
    ];
    const downDry = await c.run('features', ['downgrade', '--release-version', '4.0-IV2', '--dry-run']);
    expect([downDry.code, downDry.stdout.trimEnd().split('\n')], downDry.stderr).to.deep.equal([0, downLines('can be')]);
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);
    const unsafeDry = await c.run('features', ['downgrade', '--release-version', '4.0-IV2', '--unsafe', '--dry-run']);
    expect([unsafeDry.code, unsafeDry.stdout.trimEnd().split('\n')], unsafeDry.stderr).to.deep.equal([0, downLines('can be')]);
    const down = await c.run('features', ['downgrade', '--release-version', '4.0-IV2']);
    expect([down.code, down.stdout.trimEnd().split('\n')], down.stderr).to.deep.equal([0, downLines('was')]);
    const at402 = { ...NEW_CLUSTER, 'eligible.leader.replicas.version': '0', 'metadata.version': '4.0-IV2', 'share.version': '0' };
    expect(await finalized()).to.deep.equal(at402);

    // below 4.0-IV1 the ELR records would be lost: refused, as Kafka refuses a downgrade past a level that changed the metadata
    const lossy = await c.run('features', ['downgrade', '--metadata', '4.0-IV0']);
    expect(lossy.code).to.equal(1);
    expect(lossy.stdout).to.include(
      `Could not downgrade metadata.version to 22. ${FAILED}Unsupported metadata.version downgrade from 24 to 22. Refusing to perform the requested downgrade because it might delete metadata information.\n`,
    );
    expect(await finalized()).to.deep.equal(at402);

    // the release upgrade does not bring share.version back: 4.1-IV1 has it at 0
    const again = await c.run('features', ['upgrade', '--release-version', '4.1-IV1']);
    expect([again.code, again.stdout.trimEnd().split('\n')], again.stderr).to.deep.equal([0, upLines('was')]);
    expect(await finalized()).to.deep.equal({ ...NEW_CLUSTER, 'share.version': '0' });
    expect((await c.run('features', ['upgrade', '--feature', 'share.version=1'])).code).to.equal(0);
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);
  });

  it('--release-version refused: an older release as an upgrade, a newer one as a downgrade, a feature the release has higher as a downgrade; nothing changed', async () => {
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);
    // 3.9-IV0 gives kraft.version 1 and metadata.version 21, which samsa's controller does not take
    const older = await c.run('features', ['upgrade', '--release-version', '3.9-IV0']);
    expect(older.code).to.equal(1);
    const olderWhy = `${FAILED}Invalid update version 21 for feature metadata.version. Local controller 1 only supports versions 22-27`;
    expect(older.stdout.trimEnd().split('\n')).to.deep.equal([`Could not upgrade kraft.version to 1. ${olderWhy}`, `Could not upgrade metadata.version to 21. ${olderWhy}`]);
    expect(older.stderr).to.match(/2 out of 2 operation\(s\) failed\./);

    const newer = await c.run('features', ['downgrade', '--release-version', '4.2-IV0']);
    expect(newer.code).to.equal(1);
    const newerWhy = `${FAILED}Invalid update version 28 for feature metadata.version. Local controller 1 only supports versions 22-27`;
    expect(newer.stdout.trimEnd().split('\n')).to.deep.equal([
      `Could not downgrade eligible.leader.replicas.version to 1. ${newerWhy}`,
      `Could not downgrade group.version to 1. ${newerWhy}`,
      `Could not downgrade kraft.version to 1. ${newerWhy}`,
      `Could not downgrade metadata.version to 28. ${newerWhy}`,
      `Could not downgrade share.version to 1. ${newerWhy}`,
      `Could not downgrade transaction.version to 2. ${newerWhy}`,
    ]);
    expect(newer.stderr).to.match(/6 out of 6 operation\(s\) failed\./);
    expect(await finalized()).to.deep.equal(NEW_CLUSTER);

    // the release has transaction.version at 2 where the cluster has 0: the downgrade is refused whole (share.version stays 1)
    expect((await c.run('features', ['downgrade', '--feature', 'transaction.version=0'])).code).to.equal(0);
    const raise = await c.run('features', ['downgrade', '--release-version', '4.1-IV0']);
    expect(raise.code).to.equal(1);
    expect(raise.stdout).to.include(`Could not downgrade share.version to 0. ${FAILED}Invalid update version 2 for feature transaction.version. Can't downgrade to a newer version.\n`);
    expect(await finalized()).to.deep.equal({ ...NEW_CLUSTER, 'transaction.version': '0' });
    expect((await c.run('features', ['upgrade', '--feature', 'transaction.version=2'])).code).to.equal(0);
  });
});
