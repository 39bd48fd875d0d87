/**
 * Feature levels (src/protocol/features.ts): the definitions samsa advertises, level names as
 * Kafka's tools print them, what each release gives each feature (Kafka 4.2's
 * Feature.defaultLevel), and every rule of checkFeatureUpdates (Kafka's
 * FeatureControlManager.updateFeatures): all or none, upgrade vs downgrade, ranges, kraft.version,
 * dependencies, metadata.version downgrades.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../src/protocol/errors.js';
import {
  bootstrapFeatureLevels,
  checkFeatureUpdates,
  defaultFeatureLevels,
  featureDefinition,
  featureLevelName,
  FEATURES,
  finalizedLevel,
  RELEASE_FEATURES,
  releaseFeatureLevel,
  releaseFeatureLevels,
  UpgradeType,
  isElrEnabled,
  type FeatureUpdate,
} from '../../src/protocol/features.js';

const CURRENT = { 'metadata.version': 22, 'group.version': 1, 'kraft.version': 1, 'share.version': 1 };
/** A new cluster's levels. */
const NEW_CLUSTER = { 'eligible.leader.replicas.version': 1, 'metadata.version': 27, 'group.version': 1, 'kraft.version': 1, 'share.version': 1, 'transaction.version': 2 };
const up = (feature: string, level: number): FeatureUpdate => ({ feature, level, upgradeType: UpgradeType.Upgrade });
const safe = (feature: string, level: number): FeatureUpdate => ({ feature, level, upgradeType: UpgradeType.SafeDowngrade });
const unsafe = (feature: string, level: number): FeatureUpdate => ({ feature, level, upgradeType: UpgradeType.UnsafeDowngrade });

function refused(updates: FeatureUpdate[], why: RegExp, current: Record<string, number> = CURRENT): void {
  const r = checkFeatureUpdates(current, updates);
  expect(r.ok, JSON.stringify(updates)).to.equal(false);
  if (r.ok) return;
  expect(r.errorCode).to.equal(ErrorCode.INVALID_UPDATE_VERSION);
  expect(r.errorMessage).to.match(why);
}

describe('protocol/features', () => {
  it("a new cluster's levels: metadata.version 4.1-IV1 (Kafka 4.2's LATEST_PRODUCTION), eligible.leader.replicas.version 1, group.version 1, kraft.version 1, share.version 1, transaction.version 2 (as Kafka 4.2 bootstraps 4.1-IV1)", () => {
    expect(defaultFeatureLevels()).to.deep.equal(NEW_CLUSTER);
    expect(isElrEnabled(NEW_CLUSTER)).to.equal(true);
    expect(isElrEnabled(CURRENT)).to.equal(false);
    expect(finalizedLevel({ levels: CURRENT, epoch: 3 }, 'group.version')).to.equal(1);
    expect(finalizedLevel({ levels: CURRENT, epoch: 3 }, 'transaction.version')).to.equal(0);
    expect(finalizedLevel(undefined, 'group.version')).to.equal(0);
  });

  describe("a new cluster's levels from a topology (kafka-storage format's --release-version and --feature)", () => {
    it("nothing given: samsa's defaults", () => {
      expect(bootstrapFeatureLevels()).to.deep.equal({ ok: true, levels: NEW_CLUSTER });
      expect(bootstrapFeatureLevels({})).to.deep.equal({ ok: true, levels: NEW_CLUSTER });
    });

    it("a release: metadata.version at its level (by name, or the release's latest production level), every other feature at the level the release gives it, those at 0 left out", () => {
      expect(bootstrapFeatureLevels({ releaseVersion: '4.0-IV0' })).to.deep.equal({ ok: true, levels: { 'metadata.version': 22, 'kraft.version': 1, 'group.version': 1 } });
      expect(bootstrapFeatureLevels({ releaseVersion: '4.0' })).to.deep.equal({ ok: true, levels: { 'metadata.version': 25, 'kraft.version': 1, 'group.version': 1, 'transaction.version': 2 } });
      // Kafka 4.1's latest gives share.version 0 (samsa's own default is 1)
      expect(bootstrapFeatureLevels({ releaseVersion: '4.1' })).to.deep.equal({
        ok: true,
        levels: { 'metadata.version': 27, 'kraft.version': 1, 'group.version': 1, 'transaction.version': 2, 'eligible.leader.replicas.version': 1 },
      });
    });

    it('features given go over the release or the defaults; at 0 a feature is left out', () => {
      expect(bootstrapFeatureLevels({ releaseVersion: '4.1', features: { 'share.version': 1, 'transaction.version': 0 } })).to.deep.equal({
        ok: true,
        levels: { 'metadata.version': 27, 'kraft.version': 1, 'group.version': 1, 'eligible.leader.replicas.version': 1, 'share.version': 1 },
      });
      const noElr = bootstrapFeatureLevels({ features: { 'metadata.version': 22, 'eligible.leader.replicas.version': 0 } });
      expect(noElr).to.deep.equal({ ok: true, levels: { 'metadata.version': 22, 'group.version': 1, 'kraft.version': 1, 'share.version': 1, 'transaction.version': 2 } });
    });

    it('refused, naming the key: an unknown release, a metadata.version samsa does not take, a feature it does not have, a level outside its range or not an integer, kraft.version 0', () => {
      const refused = (spec: Parameters<typeof bootstrapFeatureLevels>[0], where: string, message: RegExp) => {
        const r = bootstrapFeatureLevels(spec);
        expect(r.ok, JSON.stringify(spec)).to.equal(false);
        if (r.ok) return;
        expect(r.where).to.equal(where);
        expect(r.message).to.match(message);
      };
      refused({ releaseVersion: '5.0' }, 'releaseVersion', /^Unknown metadata\.version '5\.0'\. Supported metadata\.version are: 3\.3-IV3, .*, 4\.2-IV1$/);
      refused({ releaseVersion: '3.9' }, 'releaseVersion', /^metadata\.version 3\.9-IV0 \(21\) from release 3\.9 is not one samsa implements: 4\.0-IV0 \(22\) to 4\.1-IV1 \(27\)$/);
      refused({ releaseVersion: '4.2-IV0' }, 'releaseVersion', /^metadata\.version 4\.2-IV0 \(28\) from release 4\.2-IV0 is not one samsa implements/);
      refused({ features: { 'metadata.version': 28 } }, 'features.metadata.version', /^metadata\.version 4\.2-IV0 \(28\) is not one samsa implements/);
      refused({ features: { 'streams.version': 1 } }, 'features.streams.version', /^samsa has no feature streams\.version; its features: eligible\.leader\.replicas\.version, group\.version, kraft\.version, metadata\.version, share\.version, transaction\.version$/);
      refused({ features: { 'group.version': 2 } }, 'features.group.version', /^group\.version 2 is not one samsa implements: 0 to 1$/);
      refused({ features: { 'group.version': 1.5 } }, 'features.group.version', /^must be an integer level, got 1\.5$/);
      refused({ features: { 'kraft.version': 0 } }, 'features.kraft.version', /^kraft\.version 0 is not one samsa implements: 1 \(a samsa quorum is always dynamic, KIP-853\)$/);
    });

    it('refused: a dependency not met, at the key that asked for the level (the dependency\'s when the level was a default)', () => {
      expect(bootstrapFeatureLevels({ releaseVersion: '4.0-IV0', features: { 'eligible.leader.replicas.version': 1 } })).to.deep.equal({
        ok: false,
        where: 'features.eligible.leader.replicas.version',
        message: 'eligible.leader.replicas.version 1 needs metadata.version 4.0-IV1 (23) or later; metadata.version is 4.0-IV0 (22) from release 4.0-IV0',
      });
      expect(bootstrapFeatureLevels({ features: { 'metadata.version': 22 } })).to.deep.equal({
        ok: false,
        where: 'features.metadata.version',
        message: "eligible.leader.replicas.version 1 (samsa's default) needs metadata.version 4.0-IV1 (23) or later; metadata.version is 4.0-IV0 (22)",
      });
    });
  });

  it("levels as Kafka's levelToString prints them: metadata.version by release name, UNKNOWN for a level Kafka 4.2 does not know", () => {
    expect(featureLevelName('metadata.version', 22)).to.equal('4.0-IV0');
    expect(featureLevelName('metadata.version', 7)).to.equal('3.3-IV3');
    expect(featureLevelName('metadata.version', 29)).to.equal('4.2-IV1');
    expect(featureLevelName('metadata.version', 99)).to.equal('UNKNOWN 99');
    expect(featureLevelName('metadata.version', 4)).to.equal('UNKNOWN 4');
    expect(featureLevelName('metadata.version', 0)).to.equal('UNKNOWN 0');
    expect(featureLevelName('group.version', 1)).to.equal('1');
  });

  describe('releases: the level each gives each feature (Kafka 4.2 bootstrap levels)', () => {
    // Kafka 4.2: KRaftVersion 1 at 3.9-IV0 (21), GroupVersion 1 at 4.0-IV0 (22), TransactionVersion
    // 1 and 2 at 4.0-IV2 (24), ShareVersion 1 at 4.2-IV0 (28)
    const at = (mv: number) => Object.fromEntries(releaseFeatureLevels(mv).map((f) => [f.name, f.level]));

    it("lists samsa's features in the order of Kafka's Feature enum, and none it lacks", () => {
      expect(releaseFeatureLevels(22).map((f) => f.name)).to.deep.equal(['kraft.version', 'transaction.version', 'group.version', 'eligible.leader.replicas.version', 'share.version']);
      expect(RELEASE_FEATURES).to.not.include('metadata.version');
      expect(RELEASE_FEATURES).to.not.include('streams.version');
      // every feature samsa has but metadata.version is in a release
      expect([...RELEASE_FEATURES].sort()).to.deep.equal(FEATURES.map((f) => f.name).filter((n) => n !== 'metadata.version').sort());
    });

    it('each boundary: the level appears at its bootstrap metadata.version, not one level before', () => {
      expect(at(7)).to.deep.equal({ 'kraft.version': 0, 'transaction.version': 0, 'group.version': 0, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(20)).to.deep.equal({ 'kraft.version': 0, 'transaction.version': 0, 'group.version': 0, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(21)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 0, 'group.version': 0, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(22)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 0, 'group.version': 1, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(23)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 0, 'group.version': 1, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(24)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 2, 'group.version': 1, 'eligible.leader.replicas.version': 0, 'share.version': 0 });
      expect(at(25)['eligible.leader.replicas.version']).to.equal(0);
      expect(at(26)['eligible.leader.replicas.version']).to.equal(1);
      expect(at(27)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 2, 'group.version': 1, 'eligible.leader.replicas.version': 1, 'share.version': 0 });
      expect(at(28)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 2, 'group.version': 1, 'eligible.leader.replicas.version': 1, 'share.version': 1 });
      expect(at(29)).to.deep.equal({ 'kraft.version': 1, 'transaction.version': 2, 'group.version': 1, 'eligible.leader.replicas.version': 1, 'share.version': 1 });
    });

    it("transaction.version goes from 0 straight to 2 (1 and 2 share 4.0-IV2); a feature without bootstrap levels is 0", () => {
      expect(releaseFeatureLevel(featureDefinition('transaction.version')!, 24)).to.equal(2);
      expect(releaseFeatureLevel(featureDefinition('transaction.version')!, 23)).to.equal(0);
      expect(releaseFeatureLevel(featureDefinition('metadata.version')!, 22)).to.equal(0);
      expect(releaseFeatureLevel({ name: 'x', min: 0, max: 3, defaultLevel: 0, bootstrapMetadataVersions: [7, 10, 12, 20] }, 12)).to.equal(2);
    });

    it("no release gives a level outside samsa's ranges; a downgrade to samsa's release (4.0-IV0) passes the controller's checks from a new cluster's levels, share.version going to 0", () => {
      for (let mv = 7; mv <= 29; mv++) {
        for (const f of releaseFeatureLevels(mv)) {
          const def = featureDefinition(f.name)!;
          expect(f.level, `${f.name} at ${mv}`).to.be.within(def.min, def.max);
        }
      }
      const levels = { 'metadata.version': 22, ...at(22) };
      const updates = Object.entries(levels).map(([feature, level]) => ({ feature, level, upgradeType: UpgradeType.SafeDowngrade }));
      expect(checkFeatureUpdates(CURRENT, updates)).to.deep.equal({ ok: true, levels: { 'metadata.version': 22, 'kraft.version': 1, 'group.version': 1 } });
    });
  });

  it('group.version down to 0 (a safe downgrade) drops it; back up to 1; an update to the level it has changes nothing', () => {
    expect(checkFeatureUpdates(CURRENT, [safe('group.version', 0)])).to.deep.equal({ ok: true, levels: { 'metadata.version': 22, 'kraft.version': 1, 'share.version': 1 } });
    expect(checkFeatureUpdates({ 'metadata.version': 22 }, [up('group.version', 1)])).to.deep.equal({ ok: true, levels: { 'metadata.version': 22, 'group.version': 1 } });
    expect(checkFeatureUpdates(CURRENT, [up('group.version', 1)])).to.deep.equal({ ok: true, levels: CURRENT });
    expect(checkFeatureUpdates(CURRENT, [unsafe('group.version', 0)]).ok).to.equal(true);
  });

  it('refused: a lower level as an upgrade, a higher one as a downgrade', () => {
    refused([up('group.version', 0)], /Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade/);
    refused([safe('group.version', 1)], /Can't downgrade to a newer version/, { 'metadata.version': 22 });
  });

  it('refused: a level outside what samsa implements; a feature it does not know (only 0 is)', () => {
    refused([up('group.version', 2)], /^Invalid update version 2 for feature group.version\. Local controller only supports versions 0-1$/);
    refused([up('transaction.version', 3)], /only supports versions 0-2$/);
    refused([up('metadata.version', 28)], /^Invalid update version 28 for feature metadata.version\. Local controller only supports versions 22-27$/);
    refused([up('eligible.leader.replicas.version', 2)], /only supports versions 0-1$/);
    refused([up('no.such.feature', 1)], /^Invalid update version 1 for feature no.such.feature\. Local controller does not support this feature\.$/);
    // Kafka's features samsa lacks are taken as disabled: disabling one changes nothing
    expect(checkFeatureUpdates(CURRENT, [safe('no.such.feature', 0)])).to.deep.equal({ ok: true, levels: CURRENT });
    // the controller names itself as Kafka's does
    const named = checkFeatureUpdates(CURRENT, [up('group.version', 2)], 3000);
    expect(named).to.deep.include({ ok: false, errorMessage: 'Invalid update version 2 for feature group.version. Local controller 3000 only supports versions 0-1' });
  });

  it('refused: a level below 0, an unknown upgrade type, a feature named twice', () => {
    refused([up('group.version', -1)], /cannot be less than 0/);
    refused([{ feature: 'group.version', level: 1, upgradeType: 7 }], /does not support the given upgrade type/);
    const twice = checkFeatureUpdates(CURRENT, [up('group.version', 1), safe('group.version', 0)]);
    expect(twice).to.deep.include({ ok: false, errorCode: ErrorCode.INVALID_REQUEST });
  });

  it("refused: lowering kraft.version (as Kafka's controller), and metadata.version below the one level samsa writes", () => {
    refused([safe('kraft.version', 0)], /^Invalid update version 0 for feature kraft\.version\. Can't downgrade the version of this feature\.$/);
    refused([unsafe('kraft.version', 0)], /Can't downgrade the version of this feature\.$/);
    expect(checkFeatureUpdates(CURRENT, [safe('kraft.version', 1)]).ok).to.equal(true);
    expect(checkFeatureUpdates(CURRENT, [up('kraft.version', 1)]).ok).to.equal(true);
    refused([safe('metadata.version', 21)], /only supports versions 22-27$/);
    refused([unsafe('metadata.version', 21)], /only supports versions 22-27$/);
  });

  it("a metadata.version downgrade across a level that changed the metadata is refused, safe or unsafe, with Kafka's messages", () => {
    // a level samsa implements, below the finalized one (a cluster that finalized a later level): 4.0-IV1 (23) changed the metadata
    refused([unsafe('metadata.version', 22)], /^Unsupported metadata\.version downgrade from 25 to 22\. Unsafe metadata downgrade is not supported in this version\.$/, { 'metadata.version': 25 });
    refused([safe('metadata.version', 22)], /^Unsupported metadata\.version downgrade from 25 to 22\. Refusing to perform the requested downgrade because it might delete metadata information\.$/, { 'metadata.version': 25 });
    refused([safe('metadata.version', 22)], /^Unsupported metadata\.version downgrade from 23 to 22\./, { 'metadata.version': 23 });
  });

  it("dependencies: every level above 0 needs metadata.version 3.3-IV3 among the updated levels (Kafka's Feature.validateVersion); group.version has no others", () => {
    refused([up('group.version', 1)], /^Invalid update version 1 for feature group.version\. group.version could not be set to 1 because it depends on metadata.version=7 \(3\.3-IV3\)$/, {});
    expect(checkFeatureUpdates({}, [up('metadata.version', 22), up('group.version', 1)]).ok).to.equal(true);
    expect(checkFeatureUpdates({}, [safe('group.version', 0)]).ok).to.equal(true);
    for (const f of FEATURES.filter((x) => x.name !== 'eligible.leader.replicas.version')) expect(f.dependencies ?? {}, f.name).to.deep.equal({});
  });

  describe('eligible.leader.replicas.version (KIP-966)', () => {
    it('1 needs metadata.version 4.0-IV1 (23): refused at 4.0-IV0, taken with it in the same update or once the cluster has it', () => {
      refused([up('eligible.leader.replicas.version', 1)], /^Invalid update version 1 for feature eligible\.leader\.replicas\.version\. eligible\.leader\.replicas\.version could not be set to 1 because it depends on metadata\.version level 23$/);
      expect(checkFeatureUpdates(CURRENT, [up('metadata.version', 23), up('eligible.leader.replicas.version', 1)])).to.deep.equal({
        ok: true,
        levels: { ...CURRENT, 'metadata.version': 23, 'eligible.leader.replicas.version': 1 },
      });
      expect(checkFeatureUpdates({ ...CURRENT, 'metadata.version': 26 }, [up('eligible.leader.replicas.version', 1)]).ok).to.equal(true);
    });

    it('may be lowered to 0 (safe) and raised again; metadata.version cannot go back below 4.0-IV1 once there', () => {
      expect(checkFeatureUpdates(NEW_CLUSTER, [safe('eligible.leader.replicas.version', 0)])).to.deep.equal({ ok: true, levels: { 'metadata.version': 27, 'group.version': 1, 'kraft.version': 1, 'share.version': 1, 'transaction.version': 2 } });
      refused([safe('metadata.version', 22)], /^Unsupported metadata\.version downgrade from 27 to 22\./, NEW_CLUSTER);
      // 4.0-IV2 to 4.1-IV1 changed no metadata: a safe downgrade among them passes (ELR keeps its 4.0-IV1)
      expect(checkFeatureUpdates(NEW_CLUSTER, [safe('metadata.version', 23)]).ok).to.equal(true);
      // 4.1-IV1 down to 4.1-IV0 (followers stop sending their high watermark, KIP-1166) loses nothing
      expect(checkFeatureUpdates(NEW_CLUSTER, [safe('metadata.version', 26)]).ok).to.equal(true);
    });

    it('metadata.version upgrades one level at a time or at once from 4.0-IV0 to 4.1-IV1', () => {
      for (let mv = 23; mv <= 27; mv++) expect(checkFeatureUpdates(CURRENT, [up('metadata.version', mv)]).ok, String(mv)).to.equal(true);
    });
  });

  it('all or none: one refused update refuses the whole request', () => {
    const r = checkFeatureUpdates(CURRENT, [safe('group.version', 0), up('transaction.version', 3)]);
    expect(r.ok).to.equal(false);
  });
});
