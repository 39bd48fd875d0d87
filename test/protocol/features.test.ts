/**
 * Feature levels (src/protocol/features.ts): the definitions samsa advertises, level names as
 * Kafka's tools print them, and every rule of checkFeatureUpdates (Kafka's
 * FeatureControlManager.updateFeatures): all or none, upgrade vs downgrade, ranges, fixed
 * features, dependencies, unsafe metadata.version downgrades.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../src/protocol/errors.js';
import {
  checkFeatureUpdates,
  defaultFeatureLevels,
  featureLevelName,
  finalizedLevel,
  metadataVersionLevel,
  UpgradeType,
  type FeatureUpdate,
} from '../../src/protocol/features.js';

const CURRENT = { 'metadata.version': 22, 'group.version': 1, 'kraft.version': 1, 'share.version': 1 };
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
  it("a new cluster's levels: metadata.version 4.0-IV0, group.version 1, kraft.version 1, share.version 1 (transaction.version 0 is not finalized)", () => {
    expect(defaultFeatureLevels()).to.deep.equal(CURRENT);
    expect(finalizedLevel({ levels: CURRENT, epoch: 3 }, 'group.version')).to.equal(1);
    expect(finalizedLevel({ levels: CURRENT, epoch: 3 }, 'transaction.version')).to.equal(0);
    expect(finalizedLevel(undefined, 'group.version')).to.equal(0);
  });

  it("metadata.version levels by Kafka's release names, and back", () => {
    expect(featureLevelName('metadata.version', 22)).to.equal('4.0-IV0');
    expect(featureLevelName('metadata.version', 7)).to.equal('3.3-IV3');
    expect(featureLevelName('metadata.version', 99)).to.equal('99');
    expect(featureLevelName('group.version', 1)).to.equal('1');
    expect(metadataVersionLevel('4.0-IV0')).to.equal(22);
    expect(metadataVersionLevel('3.7')).to.equal(19);
    expect(metadataVersionLevel('2.8')).to.equal(undefined);
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
    refused([up('group.version', 2)], /^Invalid update version 2 for feature group.version\. Local controller only supports versions 0-1\.$/);
    refused([up('transaction.version', 3)], /only supports versions 0-2/);
    refused([up('metadata.version', 23)], /only supports versions 22-22/);
    refused([up('no.such.feature', 1)], /only supports versions 0-0/);
    expect(checkFeatureUpdates(CURRENT, [safe('no.such.feature', 0)]).ok).to.equal(true);
  });

  it('refused: a level below 0, an unknown upgrade type, a feature named twice', () => {
    refused([up('group.version', -1)], /cannot be less than 0/);
    refused([{ feature: 'group.version', level: 1, upgradeType: 7 }], /does not support the given upgrade type/);
    const twice = checkFeatureUpdates(CURRENT, [up('group.version', 1), safe('group.version', 0)]);
    expect(twice).to.deep.include({ ok: false, errorCode: ErrorCode.INVALID_REQUEST });
  });

  it('refused: changing a feature samsa keeps fixed (kraft.version), and metadata.version below the one level samsa writes', () => {
    refused([safe('kraft.version', 0)], /samsa cannot change it: every samsa controller quorum is dynamic/);
    refused([safe('metadata.version', 21)], /only supports versions 22-22/);
    refused([unsafe('metadata.version', 21)], /only supports versions 22-22/);
  });

  it('an unsafe downgrade of metadata.version is refused as in KRaft, before anything else is looked at', () => {
    // a level samsa implements, below the finalized one (a cluster that finalized a later level)
    refused([unsafe('metadata.version', 22)], /Unsafe metadata downgrade is not supported/, { 'metadata.version': 25 });
  });

  it('dependencies: group.version 1 needs metadata.version 4.0-IV0, among the updated levels', () => {
    refused([up('group.version', 1)], /group.version could not be set to 1 because it depends on metadata.version level 22/, {});
    expect(checkFeatureUpdates({}, [up('metadata.version', 22), up('group.version', 1)]).ok).to.equal(true);
  });

  it('all or none: one refused update refuses the whole request', () => {
    const r = checkFeatureUpdates(CURRENT, [safe('group.version', 0), up('transaction.version', 3)]);
    expect(r.ok).to.equal(false);
  });
});
