/**
 * `samsa features` (src/cli/commands/features.ts), Kafka's kafka-features: the describe lines,
 * the command lines that cannot work (exit 2), and against a cluster: describe, a dry run, a
 * downgrade of group.version and the upgrade back, and a refusal (exit 1 with Kafka's lines).
 */
import { expect } from 'chai';
import { describeLines } from '../../src/cli/commands/features.js';
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
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /give the subcommand: describe, upgrade, downgrade or disable/ },
      { argv: ['list'], says: /unknown subcommand 'list'/ },
      { argv: ['upgrade'], says: /You must specify at least one feature to upgrade/ },
      { argv: ['upgrade', '--feature', 'group.version'], says: /Can't parse feature=level string group.version/ },
      { argv: ['upgrade', '--feature', 'group.version=x'], says: /Can't parse feature=level string/ },
      { argv: ['upgrade', '--feature', 'group.version=1', '--feature', 'group.version=0'], says: /Feature group.version was specified more than once/ },
      { argv: ['upgrade', '--metadata', '9.9'], says: /Unknown metadata.version 9.9/ },
      { argv: ['upgrade', '--feature', 'group.version=1', '--unsafe'], says: /--unsafe goes with downgrade and disable/ },
      { argv: ['disable', '--metadata', '4.0-IV0'], says: /--metadata does not go with disable/ },
      { argv: ['describe', '--dry-run'], says: /--dry-run does not go with describe/ },
    ];
    for (const c of cases) {
      const r = await runCli(['features', '--bootstrap-server', '127.0.0.1:1', ...c.argv]);
      expect(r.code, `${c.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(c.says);
    }
  });

  it('shows up in `samsa --help` and has its own help', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['features', '--help'])]);
    expect(top.stdout).to.match(/^ {2}features +describe the cluster's feature levels/m);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/usage: samsa features \[--bootstrap-server host:port\] describe/);
    expect(own.stdout).to.include('--unsafe');
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
      'Feature: group.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: metadata.version\tSupportedMinVersion: 4.0-IV0\tSupportedMaxVersion: 4.0-IV0\tFinalizedVersionLevel: 4.0-IV0',
      'Feature: share.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1',
      'Feature: transaction.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 2\tFinalizedVersionLevel: 0',
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

  it('upgrade and downgrade transaction.version (KIP-890 part 2)', async () => {
    const level = async () => /^Feature: transaction.version\t.*\tFinalizedVersionLevel: (\d+)\t/m.exec((await c.run('features', ['describe'])).stdout)![1]!;
    const up = await c.run('features', ['upgrade', '--feature', 'transaction.version=2']);
    expect([up.code, up.stdout.trim()], up.stderr).to.deep.equal([0, 'transaction.version was upgraded to 2.']);
    expect(await level()).to.equal('2');
    const down = await c.run('features', ['downgrade', '--feature', 'transaction.version=0']);
    expect([down.code, down.stdout.trim()], down.stderr).to.deep.equal([0, 'transaction.version was downgraded to 0.']);
    expect(await level()).to.equal('0');
  });

  it("a refused update exits 1 with Kafka's lines for each feature, nothing changed", async () => {
    const r = await c.run('features', ['upgrade', '--feature', 'group.version=2', '--metadata', '4.0-IV0']);
    expect(r.code).to.equal(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^Could not upgrade group.version to 2\. INVALID_UPDATE_VERSION: Invalid update version 2 for feature group.version\. Local controller only supports versions 0-1\.$/);
    expect(lines[1]).to.match(/^Could not upgrade metadata.version to 22\. /);
    expect(r.stderr).to.match(/2 out of 2 operation\(s\) failed\./);
    expect(await finalizedGroupVersion()).to.equal('1');
  });
});
