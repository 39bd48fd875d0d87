/**
 * A KIP-932 share group (Kafka's ShareGroup, ShareGroupMember and
 * GroupMetadataManager.shareGroupHeartbeat / shareGroupLeave, as Kafka 4.1 has them), as a plain
 * state machine the group coordinator drives: no timers, no I/O. The coordinator keeps each
 * member's session timer (a member whose heartbeats stop is removed with `leave`), answers
 * ShareGroupHeartbeat with `heartbeat`'s outcome and ShareGroupDescribe with `describe`, and
 * persists what `takeDirty` says changed as Kafka 4.2's share group records (the group epoch with
 * its topics' metadata hash, each member's metadata, target assignment and current assignment, the
 * target's epoch); `markAllDirty` asks for all of them again. A coordinator taking the group over
 * rebuilds it with `ShareGroup.restore` from those records: its members carry on at their epochs
 * (their sessions start again there), and the hash tells whether the topics changed meanwhile.
 *
 * Group state (Kafka's ShareGroup.ShareGroupState): Empty (no members), Stable (members), Dead
 * (deleted). Transitions: Empty -> Stable on the first join, Stable -> Empty when the last member
 * leaves or is fenced, Empty -> Dead with `markDead` (DeleteGroups; the caller checked it is
 * empty). A Dead group takes no heartbeat (GROUP_ID_NOT_FOUND): the coordinator drops it, and a
 * join makes a new group. There is no assigning or reconciling state: a share partition may be
 * consumed by several members at once, so nothing has to be revoked first and a member moves
 * straight to its target assignment at its next heartbeat.
 *
 * Epochs: the group epoch moves on a join, a leave (or fencing), a change of a member's
 * subscription, and a change of the subscribed topics' metadata (a topic created, deleted or
 * recreated, or given more partitions: the hash of what `env.topic` says now against the hash
 * the group epoch was last written with; a topic `env` never looked up counts as the group last
 * saw it). Each move recomputes the target assignment with the simple assignor
 * (assignors/share-simple.ts) at once: the assignment epoch is then the group epoch. A member
 * whose epoch is behind the target's takes it at its next heartbeat: its epoch becomes the
 * assignment epoch and its assignment its target.
 *
 * Heartbeats (memberEpoch, as ShareGroupHeartbeat v1 where the member names its own id,
 * KIP-1082): the request is checked first, as Kafka's GroupCoordinatorService (an empty member id,
 * an empty rack id, a join without topics and an epoch below -1 are INVALID_REQUEST); -1 leaves
 * (UNKNOWN_MEMBER_ID if it is not a member); then a member not yet in a group of group.share.max.size
 * members is refused (GROUP_MAX_SIZE_REACHED); 0 joins, or rejoins a known member, which is reset
 * (epoch 0, nothing assigned) and takes the current target again, the group epoch moving only if
 * its subscription changed; any other epoch must be the member's (a greater one, or a smaller one
 * other than its previous epoch, is FENCED_MEMBER_EPOCH; its previous epoch is accepted, as
 * Kafka does, since the response that moved it on may have been lost), and an unknown member is
 * UNKNOWN_MEMBER_ID. Errors leave the group unchanged. The response carries the member's
 * assignment when it (re)joined, when its assignment changed, or when it came with its previous
 * epoch (it missed the last response); otherwise null.
 *
 * Topics are named by their Kafka-form topic ids in assignments, by name in subscriptions.
 */
import { createHash } from 'node:crypto';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { TopicIdPartitions } from './messages.js';
import type { TopicAssignment } from './assignors/server.js';
import { SHARE_SIMPLE_ASSIGNOR, assignShareSimple } from './assignors/share-simple.js';
import { assignmentsEqual, copyAssignment, type TopicInfo } from './consumer-group.js';

export type { TopicInfo } from './consumer-group.js';

export enum ShareGroupState {
  Empty = 'Empty',
  Stable = 'Stable',
  Dead = 'Dead',
}

export const SHARE_JOIN_GROUP_MEMBER_EPOCH = 0;
export const SHARE_LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ShareMember {
  memberId: string;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  /** Sorted, without duplicates. */
  subscribedTopicNames: string[];
  memberEpoch: number;
  /** The epoch before the last move (accepted in a heartbeat: its response may have been lost). */
  previousMemberEpoch: number;
  /** What the member was last given (its target as of its epoch). */
  assigned: TopicAssignment;
}

export interface ShareHeartbeat {
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  /** null: unchanged. */
  subscribedTopicNames: string[] | null;
  clientId: string;
  clientHost: string;
}

/** Where a leave or a fencing finds the subscribed topics' metadata. */
export interface ShareTopicsEnv {
  /** The topic of that name as the cluster's metadata has it now, or undefined (null: none either). */
  topic(name: string): TopicInfo | null | undefined;
}

export interface ShareHeartbeatEnv extends ShareTopicsEnv {
  /** group.share.max.size. */
  maxSize: number;
  /** group.share.heartbeat.interval.ms (or the group's override), echoed in the response. */
  heartbeatIntervalMs: number;
}

export type ShareHeartbeatOutcome =
  | { kind: 'error'; errorCode: number; errorMessage: string }
  | {
      kind: 'ok';
      memberId: string;
      /** -1 after a leave. */
      memberEpoch: number;
      heartbeatIntervalMs: number;
      /** The member's assignment, topics and partitions ascending (null: not sent). */
      assignment: TopicIdPartitions[] | null;
    };

export interface DescribedShareMember {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  /** topic id -> partitions, both ascending. */
  assignment: Map<string, number[]>;
}

export interface ShareGroupDescription {
  groupId: string;
  /** As Kafka spells it: "Empty", "Stable", "Dead". */
  state: ShareGroupState;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  /** In the order they joined. */
  members: DescribedShareMember[];
}

/** What changed since the last takeDirty (the records to write). */
export interface ShareGroupDirty {
  /** The group epoch or its topics' metadata hash (ShareGroupMetadata). */
  epoch: boolean;
  assignmentEpoch: boolean;
  memberMetadata: Set<string>;
  targetAssignment: Set<string>;
  currentAssignment: Set<string>;
  /** Members removed: their three member records get tombstones. */
  removed: Set<string>;
}

function emptyDirty(): ShareGroupDirty {
  return { epoch: false, assignmentEpoch: false, memberMetadata: new Set(), targetAssignment: new Set(), currentAssignment: new Set(), removed: new Set() };
}

/** What a group is rebuilt from (its replayed records). */
export interface RestoredShareGroup {
  epoch: number;
  metadataHash: number;
  assignmentEpoch: number;
  /** In the order they are to be listed. */
  members: ShareMember[];
  targets: Map<string, TopicAssignment>;
}

/**
 * The hash of the subscribed topics' metadata written with the group epoch (0 when there are no
 * topics, as Kafka's): a coordinator that rebuilds the group compares it with the topics as they
 * are now. A 48-bit integer from SHA-256 over each topic's name, id and partition count.
 */
export function shareMetadataHash(metadata: ReadonlyMap<string, TopicInfo>): number {
  if (metadata.size === 0) return 0;
  const h = createHash('sha256');
  for (const name of [...metadata.keys()].sort()) {
    const t = metadata.get(name)!;
    h.update(JSON.stringify([t.name, t.topicId, t.numPartitions]));
    h.update('\n');
  }
  return h.digest().readUIntBE(0, 6);
}

/** An assignment as a heartbeat response carries it: topics by id, partitions ascending. */
export function toTopicIdPartitions(a: TopicAssignment): TopicIdPartitions[] {
  return [...a]
    .filter(([, ps]) => ps.size > 0)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((x, y) => x - y) }));
}

function sortedNames(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Whether two members' metadata (what the member metadata record holds) are the same. */
function sameMetadataOf(a: ShareMember, b: ShareMember): boolean {
  return a.rackId === b.rackId && a.clientId === b.clientId && a.clientHost === b.clientHost && sameNames(a.subscribedTopicNames, b.subscribedTopicNames);
}

function cloneMember(m: ShareMember): ShareMember {
  return { ...m, subscribedTopicNames: [...m.subscribedTopicNames], assigned: copyAssignment(m.assigned) };
}

function blank(s: string | null | undefined): boolean {
  return typeof s !== 'string' || s.trim() === '';
}

function error(errorCode: number, errorMessage: string): ShareHeartbeatOutcome {
  return { kind: 'error', errorCode, errorMessage };
}

export class ShareGroup {
  private epoch: number;
  private targetEpoch: number;
  /** memberId -> member, in the order they joined. */
  private readonly byId = new Map<string, ShareMember>();
  /** memberId -> target assignment. */
  private readonly targets = new Map<string, TopicAssignment>();
  /** Subscribed topics that exist: name -> its metadata when last computed (empty in a restored group until then). */
  private metadata = new Map<string, TopicInfo>();
  /** shareMetadataHash of the topics' metadata the group epoch was last computed with. */
  private hash = 0;
  private dead = false;
  private dirty = emptyDirty();

  /** A new group: Empty, at epoch 0. */
  constructor(readonly groupId: string) {
    this.epoch = 0;
    this.targetEpoch = 0;
  }

  /**
   * Rebuilds a group from its records. A member without metadata is left out (its assignment
   * records are orphans of a write that was cut short); the targets of members not there go too.
   */
  static restore(groupId: string, r: RestoredShareGroup): ShareGroup {
    const g = new ShareGroup(groupId);
    g.epoch = r.epoch;
    g.hash = r.metadataHash;
    g.targetEpoch = r.assignmentEpoch;
    for (const m of r.members) g.byId.set(m.memberId, cloneMember(m));
    for (const [memberId, a] of r.targets) if (g.byId.has(memberId)) g.targets.set(memberId, copyAssignment(a));
    return g;
  }

  /** The hash of the subscribed topics' metadata, as written with the group epoch. */
  get metadataHash(): number {
    return this.hash;
  }

  get groupEpoch(): number {
    return this.epoch;
  }

  /** The target assignment's epoch. */
  get assignmentEpoch(): number {
    return this.targetEpoch;
  }

  get state(): ShareGroupState {
    if (this.dead) return ShareGroupState.Dead;
    return this.byId.size === 0 ? ShareGroupState.Empty : ShareGroupState.Stable;
  }

  /** Empty -> Dead (deleted); the caller checked it is empty. */
  markDead(): void {
    this.dead = true;
  }

  /** What changed since the last call (the records to write), and starts over. */
  takeDirty(): ShareGroupDirty {
    const d = this.dirty;
    this.dirty = emptyDirty();
    return d;
  }

  /** Marks everything for writing (a full rewrite of the group: after a failed write, or to refresh old records). */
  markAllDirty(): void {
    this.dirty.epoch = true;
    this.dirty.assignmentEpoch = true;
    for (const id of this.byId.keys()) {
      this.dirty.memberMetadata.add(id);
      this.dirty.currentAssignment.add(id);
    }
    for (const id of this.targets.keys()) this.dirty.targetAssignment.add(id);
  }

  /** The members (copies), in the order they joined. */
  members(): ShareMember[] {
    return [...this.byId.values()].map(cloneMember);
  }

  member(memberId: string): ShareMember | undefined {
    const m = this.byId.get(memberId);
    return m && cloneMember(m);
  }

  /** A member's target assignment (a copy), or undefined when it is not a member. */
  targetAssignment(memberId: string): TopicAssignment | undefined {
    const t = this.targets.get(memberId);
    return t && copyAssignment(t);
  }

  /** Topic names some member subscribes to. */
  subscribedTopicNames(): Set<string> {
    const out = new Set<string>();
    for (const m of this.byId.values()) for (const t of m.subscribedTopicNames) out.add(t);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // ShareGroupHeartbeat

  heartbeat(req: ShareHeartbeat, env: ShareHeartbeatEnv): ShareHeartbeatOutcome {
    // the request on its own (Kafka's throwIfShareGroupHeartbeatRequestIsInvalid)
    if (blank(req.memberId)) return error(ErrorCode.INVALID_REQUEST, "MemberId can't be empty.");
    if (req.rackId !== null && blank(req.rackId)) return error(ErrorCode.INVALID_REQUEST, "RackId can't be empty.");
    if (req.memberEpoch === SHARE_JOIN_GROUP_MEMBER_EPOCH) {
      if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) {
        return error(ErrorCode.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.');
      }
    } else if (req.memberEpoch < SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
      return error(ErrorCode.INVALID_REQUEST, 'MemberEpoch is invalid.');
    }
    if (this.dead) return error(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${this.groupId} not found.`);

    const memberId = req.memberId;
    const existing = this.byId.get(memberId);
    if (req.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
      if (!existing) return this.unknownMember(memberId);
      this.removeMembers([memberId], env);
      return { kind: 'ok', memberId, memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH, heartbeatIntervalMs: env.heartbeatIntervalMs, assignment: null };
    }

    if (!existing && this.byId.size >= env.maxSize) {
      return error(ErrorCode.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${env.maxSize} members.`);
    }
    let current: ShareMember;
    let lostResponse = false;
    if (!existing) {
      if (req.memberEpoch !== SHARE_JOIN_GROUP_MEMBER_EPOCH) return this.unknownMember(memberId);
      current = { memberId, rackId: null, clientId: '', clientHost: '', subscribedTopicNames: [], memberEpoch: 0, previousMemberEpoch: 0, assigned: new Map() };
    } else if (req.memberEpoch === SHARE_JOIN_GROUP_MEMBER_EPOCH) {
      // a known member rejoining starts over: it takes the current target again
      current = { ...cloneMember(existing), memberEpoch: 0, previousMemberEpoch: 0, assigned: new Map() };
    } else {
      if (req.memberEpoch > existing.memberEpoch) {
        return error(
          ErrorCode.FENCED_MEMBER_EPOCH,
          `The share group member has a greater member epoch (${req.memberEpoch}) than the one known by the group coordinator (${existing.memberEpoch}). The member must abandon all its partitions and rejoin.`,
        );
      }
      if (req.memberEpoch < existing.memberEpoch) {
        if (req.memberEpoch !== existing.previousMemberEpoch) {
          return error(
            ErrorCode.FENCED_MEMBER_EPOCH,
            `The share group member has a smaller member epoch (${req.memberEpoch}) than the one known by the group coordinator (${existing.memberEpoch}), and it does not match the previous member epoch (${existing.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`,
          );
        }
        lostResponse = true;
      }
      current = existing;
    }

    // 1. the member's metadata; a join or a changed subscription moves the group epoch
    const updated = cloneMember(current);
    if (req.rackId !== null) updated.rackId = req.rackId;
    if (req.subscribedTopicNames !== null) updated.subscribedTopicNames = sortedNames(req.subscribedTopicNames);
    updated.clientId = req.clientId;
    updated.clientHost = req.clientHost;
    let bump = !existing || !sameNames(updated.subscribedTopicNames, current.subscribedTopicNames);
    if (!existing || !sameMetadataOf(updated, existing)) this.dirty.memberMetadata.add(memberId);
    this.byId.set(memberId, updated);

    // 2. the subscribed topics' metadata: a topic created, deleted or grown moves it too
    if (this.refreshMetadata(env)) bump = true;
    if (bump) this.bumpEpoch();

    // 3. the member moves to its target when behind it
    if (updated.memberEpoch !== this.targetEpoch) {
      updated.previousMemberEpoch = updated.memberEpoch;
      updated.memberEpoch = this.targetEpoch;
      updated.assigned = copyAssignment(this.targets.get(memberId) ?? new Map());
    }
    if (!existing || updated.memberEpoch !== existing.memberEpoch || updated.previousMemberEpoch !== existing.previousMemberEpoch || !assignmentsEqual(updated.assigned, existing.assigned)) {
      this.dirty.currentAssignment.add(memberId);
    }

    const before = existing?.assigned ?? new Map<string, Set<number>>();
    const send = req.memberEpoch === SHARE_JOIN_GROUP_MEMBER_EPOCH || lostResponse || !assignmentsEqual(before, updated.assigned);
    return {
      kind: 'ok',
      memberId,
      memberEpoch: updated.memberEpoch,
      heartbeatIntervalMs: env.heartbeatIntervalMs,
      assignment: send ? toTopicIdPartitions(updated.assigned) : null,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Fencing

  /**
   * Removes a member (its session timed out) and moves the group epoch; whether it was a member.
   * The target assignment of the others is computed again over the topics as `env` has them now.
   */
  leave(memberId: string, env: ShareTopicsEnv): boolean {
    if (this.dead || !this.byId.has(memberId)) return false;
    this.removeMembers([memberId], env);
    return true;
  }

  private removeMembers(memberIds: readonly string[], env: ShareTopicsEnv): void {
    let removed = 0;
    for (const id of memberIds) {
      if (!this.byId.delete(id)) continue;
      this.targets.delete(id);
      this.dirty.memberMetadata.delete(id);
      this.dirty.targetAssignment.delete(id);
      this.dirty.currentAssignment.delete(id);
      this.dirty.removed.add(id);
      removed++;
    }
    if (removed === 0) return;
    // the topics no member subscribes to any more leave the metadata
    this.refreshMetadata(env);
    this.bumpEpoch();
  }

  // -------------------------------------------------------------------------------------------
  // Epochs and the target assignment

  private bumpEpoch(): void {
    this.epoch += 1;
    this.dirty.epoch = true;
    this.computeTargetAssignment();
  }

  /** The simple assignor over the members and the subscribed topics; the target's epoch becomes the group epoch. */
  private computeTargetAssignment(): void {
    const partitions = new Map<string, number>();
    for (const t of this.metadata.values()) partitions.set(t.topicId, t.numPartitions);
    const members = [...this.byId.values()].map((m) => ({
      memberId: m.memberId,
      topics: m.subscribedTopicNames.map((n) => this.metadata.get(n)?.topicId).filter((x): x is string => x !== undefined),
    }));
    const next = assignShareSimple({ members, partitions, previous: this.targets });
    for (const [memberId, a] of next) {
      const before = this.targets.get(memberId);
      if (!before || !assignmentsEqual(before, a)) this.dirty.targetAssignment.add(memberId);
    }
    this.targets.clear();
    for (const [memberId, a] of next) this.targets.set(memberId, a);
    if (this.targetEpoch !== this.epoch) this.dirty.assignmentEpoch = true;
    this.targetEpoch = this.epoch;
  }

  /** The subscribed topics' metadata from `env`; whether its hash moved (the group epoch must then move). */
  private refreshMetadata(env: ShareTopicsEnv): boolean {
    const next = new Map<string, TopicInfo>();
    for (const name of [...this.subscribedTopicNames()].sort()) {
      const found = env.topic(name);
      // a topic the environment never looked up is as the group last saw it
      const t = found === undefined ? this.metadata.get(name) : found;
      if (t && t.numPartitions > 0) next.set(name, { topicId: t.topicId, name: t.name, numPartitions: t.numPartitions });
    }
    this.metadata = next;
    const hash = shareMetadataHash(next);
    if (hash === this.hash) return false;
    this.hash = hash;
    return true;
  }

  private unknownMember(memberId: string): ShareHeartbeatOutcome {
    return error(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${this.groupId}.`);
  }

  // -------------------------------------------------------------------------------------------
  // ShareGroupDescribe

  describe(): ShareGroupDescription {
    return {
      groupId: this.groupId,
      state: this.state,
      groupEpoch: this.epoch,
      assignmentEpoch: this.targetEpoch,
      assignorName: SHARE_SIMPLE_ASSIGNOR,
      members: [...this.byId.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames],
        assignment: new Map(toTopicIdPartitions(m.assigned).map((t) => [t.topicId, t.partitions])),
      })),
    };
  }
}
