/**
 * Group configs in the controller (Kafka's GROUP config resources): per group id, its overrides
 * of the group keys (group-configs.ts: a consumer group's session timeout and heartbeat interval,
 * a share group's share.*). A pure function turns a request into GroupConfig records (each
 * group's map replaced whole) and one answer per group, checked as Kafka's controller checks them
 * (GroupConfigManager.validate against the controller's own consumer and share group settings);
 * coordinators and share partition managers read the maps from the metadata.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { DEFAULT_SHARE_GROUP_BOUNDS, groupConfigProblem, type ConsumerGroupTimeouts, type ShareGroupBounds } from '../group-coordinator/group-configs.js';
import { configsChanged, readConfigChange } from './config-change.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

export interface GroupConfigAnswer {
  group: string;
  errorCode: number;
  errorMessage: string | null;
}

/** The records for the valid changes among `groups`, and an answer for each, in order. */
export function groupConfigChanges(
  state: MetadataState,
  groups: readonly unknown[],
  bounds: ConsumerGroupTimeouts,
  shareBounds: ShareGroupBounds = DEFAULT_SHARE_GROUP_BOUNDS,
): { records: MetadataRecord[]; results: GroupConfigAnswer[] } {
  const records: MetadataRecord[] = [];
  const seen = new Set<string>();
  const results = groups.map((raw): GroupConfigAnswer => {
    const c = readConfigChange(raw, GROUP_CHANGE, seen, (g) => state.groupConfigs.get(g));
    if (!c.ok) return { group: c.name, errorCode: c.errorCode, errorMessage: c.errorMessage };
    // a key deleted that the group does not have is no change; an unknown key set is refused
    const problem = groupConfigProblem(c.next, bounds, shareBounds);
    if (problem) return { group: c.name, errorCode: ErrorCode.INVALID_CONFIG, errorMessage: problem };
    if (configsChanged(c.next, c.current)) records.push({ type: 'GroupConfig', group: c.name, config: c.next });
    return { group: c.name, errorCode: ErrorCode.NONE, errorMessage: null };
  });
  return { records, results };
}

const GROUP_CHANGE = { nameKey: 'group', what: 'group', emptyName: 'Group name must not be empty', configs: 'group configs' } as const;
