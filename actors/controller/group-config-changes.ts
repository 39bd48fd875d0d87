/**
 * Group configs in the controller (Kafka 4.0's GROUP config resources): per group id, the
 * overrides of its session timeout and heartbeat interval. A pure function turns a request into
 * GroupConfig records (each group's map replaced whole) and one answer per group, checked as
 * Kafka's controller checks them (GroupConfigManager.validate against the controller's own
 * consumer group settings); coordinators read the maps from the metadata.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { groupConfigProblem, type ConsumerGroupTimeouts } from '../group-coordinator/group-configs.js';
import { isStringMap } from './broker-configs.js';
import type { MetadataRecord, MetadataState } from './metadata-state.js';

export interface GroupConfigAnswer {
  group: string;
  errorCode: number;
  errorMessage: string | null;
}

/** The records for the valid changes among `groups`, and an answer for each, in order. */
export function groupConfigChanges(state: MetadataState, groups: readonly unknown[], bounds: ConsumerGroupTimeouts): { records: MetadataRecord[]; results: GroupConfigAnswer[] } {
  const records: MetadataRecord[] = [];
  const seen = new Set<string>();
  const results = groups.map((raw): GroupConfigAnswer => {
    const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { group?: unknown; set?: unknown; delete?: unknown };
    const group = typeof r.group === 'string' ? r.group : '';
    const fail = (errorCode: number, errorMessage: string) => ({ group, errorCode, errorMessage });
    if (typeof r.group !== 'string' || r.group === '') return fail(ErrorCode.INVALID_REQUEST, 'Group name must not be empty');
    if (seen.has(group)) return fail(ErrorCode.INVALID_REQUEST, `group '${group}' is named twice`);
    seen.add(group);
    const set = r.set ?? {};
    const deletes = r.delete ?? [];
    if (!isStringMap(set)) return fail(ErrorCode.INVALID_REQUEST, 'Null value not supported for group configs: config values must be strings');
    if (!Array.isArray(deletes) || deletes.some((k) => typeof k !== 'string')) return fail(ErrorCode.INVALID_REQUEST, 'deleted keys must be strings');
    const current = state.groupConfigs.get(group) ?? {};
    const next: Record<string, string> = { ...current, ...set };
    for (const k of deletes as string[]) delete next[k];
    // a key deleted that the group does not have is no change; an unknown key set is refused
    const problem = groupConfigProblem(next, bounds);
    if (problem) return fail(ErrorCode.INVALID_CONFIG, problem);
    if (JSON.stringify(Object.entries(next).sort()) !== JSON.stringify(Object.entries(current).sort())) records.push({ type: 'GroupConfig', group, config: next });
    return { group, errorCode: ErrorCode.NONE, errorMessage: null };
  });
  return { records, results };
}
