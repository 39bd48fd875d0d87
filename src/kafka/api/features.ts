/**
 * Cluster features on the Kafka wire (KIP-584): UpdateFeatures (api key 57, v0-v2), what the
 * Java admin's updateFeatures and `kafka-features.sh upgrade|downgrade|disable` send, forwarded
 * to the active controller as Kafka's broker does, with ALTER on the cluster; and the
 * SupportedFeatures / FinalizedFeatures of ApiVersions v3+, what the admin's describeFeatures
 * (`kafka-features.sh describe`) reads.
 *
 * UpdateFeatures v0 says AllowDowngrade instead of an upgrade type (true: a safe downgrade), and
 * a level below 1 drops the feature. The controller makes every update or none: one error for
 * the request; v0-v1 also list each feature with no error when it succeeded, as Kafka's.
 */
import type { ControllerMsg, ControllerReply } from '../../../actors/controller/messages.js';
import type { ClusterMetadata } from '../../protocol/cluster.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { FEATURES, UpgradeType } from '../../protocol/features.js';
import { isFailure } from '../../runtime/types.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../security/acl.js';
import { ApiKeys } from '../protocol/index.js';
import { unansweredError, type ApiHandler } from './context.js';

export const updateFeatures: ApiHandler<typeof ApiKeys.UpdateFeatures> = async (ctx, version, body) => {
  const answer = (errorCode: number, errorMessage: string | null) => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    results: errorCode === ErrorCode.NONE ? body.featureUpdates.map((u) => ({ feature: u.feature, errorCode, errorMessage: null })) : [],
  });
  if (!ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, CLUSTER_NAME)) return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message);
  const updates = body.featureUpdates.map((u) => ({
    feature: u.feature,
    level: Math.max(0, u.maxVersionLevel),
    upgradeType: version === 0 ? (u.allowDowngrade ? UpgradeType.SafeDowngrade : UpgradeType.Upgrade) : u.upgradeType,
  }));
  const r = await ctx.ask<ControllerMsg, ControllerReply>(ctx.controller, { type: 'UpdateFeatures', updates, validateOnly: version >= 1 && body.validateOnly }, Math.max(ctx.config.requestTimeoutMs, body.timeoutMs));
  if (!isFailure(r) && (r.type === 'UpdateFeaturesResponse' || r.type === 'NotController')) return answer(r.errorCode, r.errorCode === ErrorCode.NONE ? null : (r.errorMessage ?? null));
  const { errorCode, errorMessage } = unansweredError(r);
  return answer(errorCode, errorMessage);
};

/**
 * ApiVersions v3+'s feature fields: the ranges samsa implements (before v4, without those
 * starting at 0, which older clients cannot read: KIP-1022) and the cluster's finalized levels
 * as this broker's metadata has them (none, epoch -1, when it has none yet).
 */
export function featureFields(version: number, md: ClusterMetadata | null): {
  supportedFeatures: { name: string; minVersion: number; maxVersion: number }[];
  finalizedFeaturesEpoch: number;
  finalizedFeatures: { name: string; maxVersionLevel: number; minVersionLevel: number }[];
} {
  const supportedFeatures = FEATURES.filter((f) => version >= 4 || f.min > 0)
    .map((f) => ({ name: f.name, minVersion: f.min, maxVersion: f.max }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const features = md?.features;
  if (!features) return { supportedFeatures, finalizedFeaturesEpoch: -1, finalizedFeatures: [] };
  const finalizedFeatures = Object.entries(features.levels)
    .filter(([, level]) => level > 0)
    .map(([name, level]) => ({ name, maxVersionLevel: level, minVersionLevel: level }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return { supportedFeatures, finalizedFeaturesEpoch: features.epoch, finalizedFeatures };
}
