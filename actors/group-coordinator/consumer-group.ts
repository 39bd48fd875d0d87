/**
 * A KIP-848 consumer group (Kafka's ConsumerGroup, GroupMetadataManager.consumerGroupHeartbeat and
 * CurrentAssignmentBuilder), as a plain state machine the group coordinator drives: no timers, no
 * I/O. The coordinator keeps the member timers (session, rebalance) and persists what an
 * operation changed (`takeDirty`) as records of __consumer_offsets.
 *
 * Group state (derived, as Kafka's maybeUpdateGroupState): Empty (no members), Assigning (the
 * group epoch is ahead of the target assignment's), Reconciling (some member has not reached the
 * target: its epoch differs or it waits on partitions), Stable; Dead once deleted. Transitions:
 * Empty -> Assigning on the first join (the epoch bump), Assigning -> Reconciling / Stable when a
 * heartbeat computes the new target, Reconciling -> Stable when the last member converges, any ->
 * Assigning on a join, a leave, a fence or a subscription / metadata change, Stable | Reconciling
 * -> Empty when the last member goes, Empty -> Dead (DeleteGroups, or no offsets left).
 *
 * Member state (Kafka's MemberState, persisted as its int8): Stable (it has everything of its
 * epoch), UnrevokedPartitions (it must give partitions up first: they are left out of its
 * assignment and it stays at its epoch until a heartbeat no longer reports them), and
 * UnreleasedPartitions (it reached the target epoch but some target partitions are still owned by
 * other members: they are handed over as those revoke them).
 *
 * Topics are named by their Kafka-form topic ids in assignments, by name in subscriptions. A
 * member subscribes to topic names, to a regular expression (ConsumerGroupHeartbeat v1,
 * topic-regex.ts), or to both; the group keeps each of its expressions' resolution (the topics it
 * matched when the coordinator last resolved it, handed in with a heartbeat) and a member is
 * subscribed to its names and to its expression's topics. An expression new to the group is
 * compiled first (INVALID_REGULAR_EXPRESSION, as Kafka's throwIfRegularExpressionIsInvalid); a
 * resolution that changes what a subscribed expression matches bumps the group epoch.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { TopicIdPartitions } from './messages.js';
import { DEFAULT_SERVER_ASSIGNOR, SERVER_ASSIGNORS, type TopicAssignment } from './assignors/server.js';
import { compileTopicRegex, invalidRegexMessage } from './topic-regex.js';

export enum ConsumerGroupState {
  Empty = 'Empty',
  Assigning = 'Assigning',
  Reconciling = 'Reconciling',
  Stable = 'Stable',
  Dead = 'Dead',
}

/** Kafka's MemberState and its persisted byte. */
export enum MemberState {
  Stable = 0,
  UnrevokedPartitions = 1,
  UnreleasedPartitions = 2,
}

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface TopicInfo {
  topicId: string;
  name: string;
  numPartitions: number;
}

/**
 * What a member joining through JoinGroup (the classic protocol) brings beyond a consumer
 * protocol member: its session timeout and its protocols with their metadata (Kafka's
 * ClassicMemberMetadata, persisted in the member's record).
 */
export interface ClassicMemberMetadata {
  sessionTimeoutMs: number;
  supportedProtocols: { name: string; metadata: Uint8Array }[];
}

export interface ConsumerMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  subscribedTopicNames: string[];
  /** The member's topic regular expression (null: none). */
  subscribedTopicRegex: string | null;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: MemberState;
  assigned: TopicAssignment;
  pendingRevocation: TopicAssignment;
  /** A member using the classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup); null: the consumer protocol. */
  classic: ClassicMemberMetadata | null;
}

export interface ConsumerHeartbeat {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  /** -1: unchanged. */
  rebalanceTimeoutMs: number;
  /** null: unchanged. */
  subscribedTopicNames: string[] | null;
  /** null: unchanged; '': none any more (v1+). */
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  /** null: unchanged (not sent). */
  ownedTopicPartitions: TopicIdPartitions[] | null;
  clientId: string;
  clientHost: string;
  /**
   * A classic member's JoinGroup (classic-members.ts): its epoch is not checked, a dynamic
   * member is created when unknown, a static one with no member id replaces the instance's
   * current member; absent or null: a ConsumerGroupHeartbeat.
   */
  classic?: ClassicMemberMetadata | null;
}

export interface HeartbeatEnv {
  /** The topic of that name as the cluster's metadata has it now, or undefined. */
  topic(name: string): TopicInfo | undefined;
  /** group.consumer.max.size. */
  maxSize: number;
  newMemberId(): string;
  /**
   * The group's regular expressions (the heartbeat's own included) resolved afresh: each to the
   * topics it matches now; absent, the group's last resolution stands.
   */
  resolvedRegexes?: ReadonlyMap<string, ReadonlySet<string>>;
}

export type HeartbeatOutcome =
  | { kind: 'error'; errorCode: number; errorMessage: string }
  | {
      kind: 'ok';
      memberId: string;
      memberEpoch: number;
      /** The member's assignment to send (null: not sent). */
      assignment: TopicAssignment | null;
      /** The member as it is now (undefined after a leave that removed it). */
      member?: ConsumerMember;
      /** A static member that was replaced by this one (its timers must stop). */
      replacedMemberId?: string;
      /** The member was removed (left). */
      removed?: boolean;
    };

/** What operations changed since the last takeDirty (for the records to write). */
export interface ConsumerGroupDirty {
  epoch: boolean;
  subscriptionMetadata: boolean;
  assignmentEpoch: boolean;
  memberMetadata: Set<string>;
  targetAssignment: Set<string>;
  currentAssignment: Set<string>;
  /** Members removed: their three member records get tombstones. */
  removed: Set<string>;
}

function emptyDirty(): ConsumerGroupDirty {
  return { epoch: false, subscriptionMetadata: false, assignmentEpoch: false, memberMetadata: new Set(), targetAssignment: new Set(), currentAssignment: new Set(), removed: new Set() };
}

export function copyAssignment(a: TopicAssignment): TopicAssignment {
  return new Map([...a].map(([t, ps]) => [t, new Set(ps)]));
}

export function assignmentsEqual(a: TopicAssignment, b: TopicAssignment): boolean {
  const nonEmpty = (x: TopicAssignment) => [...x].filter(([, ps]) => ps.size > 0);
  const ea = nonEmpty(a);
  const eb = nonEmpty(b);
  if (ea.length !== eb.length) return false;
  for (const [t, ps] of ea) {
    const qs = b.get(t);
    if (!qs || qs.size !== ps.size) return false;
    for (const p of ps) if (!qs.has(p)) return false;
  }
  return true;
}

function sameNames(a: Iterable<string>, b: Iterable<string>): boolean {
  const sa = [...new Set(a)].sort();
  const sb = [...new Set(b)].sort();
  return sa.length === sb.length && sa.every((x, i) => x === sb[i]);
}

function sameClassic(a: ClassicMemberMetadata | null, b: ClassicMemberMetadata | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.sessionTimeoutMs !== b.sessionTimeoutMs || a.supportedProtocols.length !== b.supportedProtocols.length) return false;
  return a.supportedProtocols.every((p, i) => p.name === b.supportedProtocols[i]!.name && Buffer.compare(p.metadata, b.supportedProtocols[i]!.metadata) === 0);
}

function ownsAny(owned: TopicIdPartitions[] | null, a: TopicAssignment): boolean {
  // not told: the member is taken to still own them (Kafka's ownsRevokedPartitions)
  if (owned === null) return true;
  for (const t of owned) {
    const ps = a.get(t.topicId);
    if (ps && t.partitions.some((p) => ps.has(p))) return true;
  }
  return false;
}

function isSubset(owned: TopicIdPartitions[] | null, a: TopicAssignment): boolean {
  if (owned === null) return false;
  for (const t of owned) {
    const ps = a.get(t.topicId);
    if (!ps) {
      if (t.partitions.length > 0) return false;
      continue;
    }
    if (t.partitions.some((p) => !ps.has(p))) return false;
  }
  return true;
}

export function newMember(memberId: string): ConsumerMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    rebalanceTimeoutMs: -1,
    serverAssignor: null,
    subscribedTopicNames: [],
    subscribedTopicRegex: null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.Stable,
    assigned: new Map(),
    pendingRevocation: new Map(),
    classic: null,
  };
}

function cloneMember(m: ConsumerMember): ConsumerMember {
  return { ...m, subscribedTopicNames: [...m.subscribedTopicNames], assigned: copyAssignment(m.assigned), pendingRevocation: copyAssignment(m.pendingRevocation) };
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerMember>();
  /** instance id -> member id. */
  readonly staticMembers = new Map<string, string>();
  /** memberId -> target assignment. */
  readonly targetAssignment = new Map<string, TopicAssignment>();
  /** Subscribed topics that exist: name -> its metadata when last computed. */
  subscriptionMetadata = new Map<string, TopicInfo>();
  /** Each subscribed regular expression resolved so far -> the topic names it matched then. */
  readonly resolvedRegexes = new Map<string, ReadonlySet<string>>();
  /** topic id -> partition -> epoch of the member owning it (assigned or pending revocation). */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();
  private dead = false;
  private dirty = emptyDirty();

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.dead) return ConsumerGroupState.Dead;
    if (this.members.size === 0) return ConsumerGroupState.Empty;
    if (this.groupEpoch > this.assignmentEpoch) return ConsumerGroupState.Assigning;
    for (const m of this.members.values()) if (!this.isReconciled(m)) return ConsumerGroupState.Reconciling;
    return ConsumerGroupState.Stable;
  }

  /** Empty -> Dead (deleted); the caller checked it is empty. */
  markDead(): void {
    this.dead = true;
  }

  isReconciled(m: ConsumerMember): boolean {
    return m.memberEpoch === this.assignmentEpoch && m.state === MemberState.Stable;
  }

  takeDirty(): ConsumerGroupDirty {
    const d = this.dirty;
    this.dirty = emptyDirty();
    return d;
  }

  /** Marks everything for writing (a full rewrite of the group, after a failed append). */
  markAllDirty(): void {
    this.dirty.epoch = true;
    this.dirty.subscriptionMetadata = true;
    this.dirty.assignmentEpoch = true;
    for (const id of this.members.keys()) {
      this.dirty.memberMetadata.add(id);
      this.dirty.currentAssignment.add(id);
    }
    for (const id of this.targetAssignment.keys()) this.dirty.targetAssignment.add(id);
  }

  /** Topic names some member subscribes to, by name or through its regular expression's last resolution. */
  subscribedTopicNames(): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) for (const t of this.memberTopics(m)) out.add(t);
    return out;
  }

  /** The regular expressions some member subscribes to. */
  subscribedRegexes(): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) if (m.subscribedTopicRegex !== null) out.add(m.subscribedTopicRegex);
    return out;
  }

  /** A member's topics: its names and what its regular expression matched when last resolved. */
  memberTopics(m: ConsumerMember): Set<string> {
    const out = new Set(m.subscribedTopicNames);
    if (m.subscribedTopicRegex !== null) for (const t of this.resolvedRegexes.get(m.subscribedTopicRegex) ?? []) out.add(t);
    return out;
  }

  /**
   * Takes a fresh resolution of the group's regular expressions and forgets those no member
   * subscribes to any more; true when one resolved before now matches other topics (a first
   * resolution changes nothing by itself: its member joined or changed its subscription, which
   * bumps the epoch, or the group was just loaded and its target assignment stands).
   */
  private updateResolvedRegexes(fresh: ReadonlyMap<string, ReadonlySet<string>> | undefined): boolean {
    const subscribed = this.subscribedRegexes();
    let changed = false;
    for (const regex of [...this.resolvedRegexes.keys()]) if (!subscribed.has(regex)) this.resolvedRegexes.delete(regex);
    if (!fresh) return false;
    for (const regex of subscribed) {
      const next = fresh.get(regex);
      if (next === undefined) continue;
      const before = this.resolvedRegexes.get(regex);
      if (before !== undefined && !sameNames(next, before)) changed = true;
      this.resolvedRegexes.set(regex, new Set(next));
    }
    return changed;
  }

  /** How many members use the classic protocol. */
  get numClassicMembers(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.classic !== null) n++;
    return n;
  }

  /** Kafka's allMembersUseClassicProtocolExcept: `memberId` uses the consumer protocol and every other member the classic one. */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const m = this.members.get(memberId);
    return m !== undefined && m.classic === null && this.numClassicMembers === this.members.size - 1;
  }

  /** The epoch of the member owning a partition, or -1 (free). */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  staticMember(instanceId: string): ConsumerMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  /** The server assignor the members prefer most (ties: by name), else the default. */
  preferredAssignor(): string {
    const counts = new Map<string, number>();
    for (const m of this.members.values()) if (m.serverAssignor) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | null = null;
    for (const [name, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : 1))) if (best === null || n > counts.get(best)!) best = name;
    return best ?? DEFAULT_SERVER_ASSIGNOR;
  }

  // -------------------------------------------------------------------------------------------
  // Members and partition epochs

  /** Puts (or replaces) a member, keeping partition epochs and the static index in step. */
  setMember(m: ConsumerMember): void {
    const old = this.members.get(m.memberId);
    if (old) this.removePartitionEpochs(old);
    if (old?.instanceId && old.instanceId !== m.instanceId && this.staticMembers.get(old.instanceId) === m.memberId) this.staticMembers.delete(old.instanceId);
    this.members.set(m.memberId, m);
    if (m.instanceId) this.staticMembers.set(m.instanceId, m.memberId);
    this.addPartitionEpochs(m);
  }

  private removeMemberState(memberId: string): ConsumerMember | undefined {
    const m = this.members.get(memberId);
    if (!m) return undefined;
    this.removePartitionEpochs(m);
    this.members.delete(memberId);
    if (m.instanceId && this.staticMembers.get(m.instanceId) === memberId) this.staticMembers.delete(m.instanceId);
    this.targetAssignment.delete(memberId);
    return m;
  }

  private addPartitionEpochs(m: ConsumerMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [t, ps] of a) {
        let byP = this.partitionEpochs.get(t);
        if (!byP) this.partitionEpochs.set(t, (byP = new Map()));
        for (const p of ps) byP.set(p, m.memberEpoch);
      }
    }
  }

  private removePartitionEpochs(m: ConsumerMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [t, ps] of a) {
        const byP = this.partitionEpochs.get(t);
        if (!byP) continue;
        for (const p of ps) byP.delete(p);
        if (byP.size === 0) this.partitionEpochs.delete(t);
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // ConsumerGroupHeartbeat

  /**
   * A heartbeat with member epoch >= 0 (0: join or rejoin). Errors leave the group unchanged.
   * Kafka's order: the member is created or found and its epoch checked, its metadata updated
   * (a new member or a changed subscription or assignor bumps the group epoch, as does a change
   * of the subscribed topics' metadata), a new target assignment is computed when the group
   * epoch is ahead of it, and the member is reconciled towards its target.
   */
  heartbeat(req: ConsumerHeartbeat, env: HeartbeatEnv): HeartbeatOutcome {
    const classic = req.classic ?? null;
    // a classic member always joins (Kafka creates it if unknown); a static one without a member id takes the instance over
    const create = classic !== null ? req.instanceId === null || req.memberId === '' : req.memberEpoch === 0;
    if (this.members.size >= env.maxSize && (req.memberId === '' || !this.members.has(req.memberId))) {
      return { kind: 'error', errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, errorMessage: `The consumer group has reached its maximum capacity of ${env.maxSize} members.` };
    }
    const memberId = req.memberId === '' ? env.newMemberId() : req.memberId;
    let current: ConsumerMember;
    let isNew = false;
    let replaced: ConsumerMember | undefined;
    if (req.instanceId === null) {
      const existing = this.members.get(memberId);
      if (!existing) {
        if (!create) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${memberId} is not a member of group ${this.groupId}.` };
        current = newMember(memberId);
        isNew = true;
      } else {
        current = existing;
      }
      const err = classic !== null ? null : this.validateMemberEpoch(current, req.memberEpoch, req.ownedTopicPartitions);
      if (err) return err;
    } else {
      const existing = this.staticMember(req.instanceId);
      if (create) {
        if (!existing) {
          current = this.members.get(memberId) ?? newMember(memberId);
          isNew = !this.members.has(memberId);
        } else {
          // as Kafka: only a consumer protocol member replacing another must wait for its leave
          if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH && classic === null && existing.classic === null) {
            return {
              kind: 'error',
              errorCode: ErrorCode.UNRELEASED_INSTANCE_ID,
              errorMessage: `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
            };
          }
          // the instance comes back under a new member id: it takes the old member's place and assignment
          replaced = existing;
          current = { ...cloneMember(existing), memberId, memberEpoch: 0, previousMemberEpoch: 0 };
          isNew = existing.memberId !== memberId;
        }
      } else {
        if (!existing) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Instance id ${req.instanceId} is unknown.` };
        if (existing.memberId !== memberId) {
          return { kind: 'error', errorCode: ErrorCode.FENCED_INSTANCE_ID, errorMessage: `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${existing.memberId}.` };
        }
        const err = classic !== null ? null : this.validateMemberEpoch(existing, req.memberEpoch, req.ownedTopicPartitions);
        if (err) return err;
        current = existing;
      }
    }

    // 1. the member's metadata
    const updated = cloneMember(current);
    if (req.instanceId !== null) updated.instanceId = req.instanceId;
    if (req.rackId !== null) updated.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) updated.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.serverAssignor !== null) updated.serverAssignor = req.serverAssignor;
    if (req.subscribedTopicNames !== null) updated.subscribedTopicNames = [...req.subscribedTopicNames];
    if (req.subscribedTopicRegex !== null) updated.subscribedTopicRegex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex;
    updated.clientId = req.clientId;
    updated.clientHost = req.clientHost;
    updated.classic = classic === null ? null : { sessionTimeoutMs: classic.sessionTimeoutMs, supportedProtocols: classic.supportedProtocols.map((p) => ({ ...p })) };
    const metadataChanged =
      isNew ||
      replaced !== undefined ||
      updated.instanceId !== current.instanceId ||
      updated.rackId !== current.rackId ||
      updated.rebalanceTimeoutMs !== current.rebalanceTimeoutMs ||
      updated.serverAssignor !== current.serverAssignor ||
      updated.clientId !== current.clientId ||
      updated.clientHost !== current.clientHost ||
      updated.subscribedTopicRegex !== current.subscribedTopicRegex ||
      !sameClassic(updated.classic, current.classic) ||
      !sameNames(updated.subscribedTopicNames, current.subscribedTopicNames);
    const subscriptionChanged = (before: ConsumerMember) =>
      !sameNames(updated.subscribedTopicNames, before.subscribedTopicNames) || updated.subscribedTopicRegex !== before.subscribedTopicRegex || updated.serverAssignor !== before.serverAssignor;
    let bump = isNew || subscriptionChanged(current);

    // a regular expression new to the group must compile (RE2J's syntax, as Kafka)
    const regex = updated.subscribedTopicRegex;
    if (regex !== null && regex !== current.subscribedTopicRegex && !this.subscribedRegexes().has(regex)) {
      const compiled = compileTopicRegex(regex);
      if (!compiled.ok) return { kind: 'error', errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, errorMessage: invalidRegexMessage(regex, compiled.description) };
    }

    if (replaced) {
      // the replaced member's records go; its target moves to the new id
      const target = this.targetAssignment.get(replaced.memberId);
      this.removeMemberState(replaced.memberId);
      this.dirty.removed.add(replaced.memberId);
      if (target) {
        this.targetAssignment.set(memberId, target);
        this.dirty.targetAssignment.add(memberId);
      }
      // a replacement keeps the group epoch (Kafka's replaceMember): the new member reconciles from epoch 0
      bump = subscriptionChanged(replaced);
    }
    this.setMember(updated);
    if (metadataChanged) this.dirty.memberMetadata.add(memberId);
    // what the group's regular expressions match now
    if (this.updateResolvedRegexes(env.resolvedRegexes)) bump = true;

    // the subscribed topics' metadata: a change (topic created, partitions added) bumps the epoch
    const metadata = this.computeSubscriptionMetadata(env);
    if (!this.sameSubscriptionMetadata(metadata)) {
      this.subscriptionMetadata = metadata;
      this.dirty.subscriptionMetadata = true;
      bump = true;
    }
    if (bump) {
      this.groupEpoch += 1;
      this.dirty.epoch = true;
    }

    // 2. the target assignment
    if (this.groupEpoch > this.assignmentEpoch) this.computeTargetAssignment();

    // 3. reconciliation
    const before = this.members.get(memberId)!;
    const reconciled = this.reconcile(before, req.ownedTopicPartitions);
    if (reconciled !== before) {
      this.setMember(reconciled);
      this.dirty.currentAssignment.add(memberId);
    } else if (isNew) {
      this.dirty.currentAssignment.add(memberId);
    }

    const full = req.memberEpoch === 0 || (req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) && req.ownedTopicPartitions !== null);
    const sendAssignment = full || !assignmentsEqual(current.assigned, reconciled.assigned) || isNew;
    const out: HeartbeatOutcome = { kind: 'ok', memberId, memberEpoch: reconciled.memberEpoch, assignment: sendAssignment ? copyAssignment(reconciled.assigned) : null, member: reconciled };
    if (replaced && replaced.memberId !== memberId) out.replacedMemberId = replaced.memberId;
    return out;
  }

  /** Kafka's throwIfConsumerGroupMemberEpochIsInvalid: FENCED_MEMBER_EPOCH, except a lost response's previous epoch. */
  private validateMemberEpoch(member: ConsumerMember, received: number, owned: TopicIdPartitions[] | null): HeartbeatOutcome | null {
    if (received > member.memberEpoch) {
      return {
        kind: 'error',
        errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
        errorMessage: `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      };
    }
    if (received < member.memberEpoch && (received !== member.previousMemberEpoch || !isSubset(owned, member.assigned))) {
      return {
        kind: 'error',
        errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
        errorMessage: `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      };
    }
    return null;
  }

  private computeSubscriptionMetadata(env: HeartbeatEnv): Map<string, TopicInfo> {
    const out = new Map<string, TopicInfo>();
    for (const name of [...this.subscribedTopicNames()].sort()) {
      const t = env.topic(name);
      if (t && t.numPartitions > 0) out.set(name, { ...t });
    }
    return out;
  }

  private sameSubscriptionMetadata(next: Map<string, TopicInfo>): boolean {
    if (next.size !== this.subscriptionMetadata.size) return false;
    for (const [name, t] of next) {
      const cur = this.subscriptionMetadata.get(name);
      if (!cur || cur.topicId !== t.topicId || cur.numPartitions !== t.numPartitions) return false;
    }
    return true;
  }

  /** Runs the preferred server assignor; the target's epoch becomes the group epoch. */
  private computeTargetAssignment(): void {
    const assignor = SERVER_ASSIGNORS.get(this.preferredAssignor()) ?? SERVER_ASSIGNORS.get(DEFAULT_SERVER_ASSIGNOR)!;
    const partitions = new Map<string, number>();
    for (const t of this.subscriptionMetadata.values()) partitions.set(t.topicId, t.numPartitions);
    const members = [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      topics: [...this.memberTopics(m)].map((n) => this.subscriptionMetadata.get(n)?.topicId).filter((x): x is string => x !== undefined),
    }));
    const next = assignor.assign({ members, partitions, previous: this.targetAssignment });
    for (const [memberId, a] of next) {
      const prev = this.targetAssignment.get(memberId);
      if (!prev || !assignmentsEqual(prev, a)) this.dirty.targetAssignment.add(memberId);
      this.targetAssignment.set(memberId, a);
    }
    this.assignmentEpoch = this.groupEpoch;
    this.dirty.assignmentEpoch = true;
  }

  /** Kafka's CurrentAssignmentBuilder.build: the member's next assignment (the same object when nothing changes). */
  reconcile(member: ConsumerMember, owned: TopicIdPartitions[] | null): ConsumerMember {
    if (this.isReconciled(member)) return member;
    switch (member.state) {
      case MemberState.Stable:
        if (member.memberEpoch !== this.assignmentEpoch) return this.computeNextAssignment(member, member.memberEpoch, owned);
        return member;
      case MemberState.UnrevokedPartitions:
        if (ownsAny(owned, member.pendingRevocation)) return member;
        return this.computeNextAssignment(member, member.memberEpoch + 1, owned);
      case MemberState.UnreleasedPartitions:
        return this.computeNextAssignment(member, member.memberEpoch, owned);
    }
  }

  private computeNextAssignment(member: ConsumerMember, memberEpoch: number, owned: TopicIdPartitions[] | null): ConsumerMember {
    const target = this.targetAssignment.get(member.memberId) ?? new Map<string, Set<number>>();
    const assigned: TopicAssignment = new Map();
    const revoke: TopicAssignment = new Map();
    const pendingAssign: TopicAssignment = new Map();
    let unreleased = false;
    for (const topicId of new Set([...target.keys(), ...member.assigned.keys()])) {
      const t = target.get(topicId) ?? new Set<number>();
      const cur = member.assigned.get(topicId) ?? new Set<number>();
      const keep = new Set([...cur].filter((p) => t.has(p)));
      const gone = new Set([...cur].filter((p) => !keep.has(p)));
      const toAssign = new Set<number>();
      for (const p of t) {
        if (keep.has(p)) continue;
        if (this.currentPartitionEpoch(topicId, p) !== -1) unreleased = true;
        else toAssign.add(p);
      }
      if (keep.size > 0) assigned.set(topicId, keep);
      if (gone.size > 0) revoke.set(topicId, gone);
      if (toAssign.size > 0) pendingAssign.set(topicId, toAssign);
    }
    const next = (state: MemberState, epoch: number, a: TopicAssignment, pending: TopicAssignment): ConsumerMember => {
      const m = { ...member, state, assigned: a, pendingRevocation: pending };
      if (epoch !== member.memberEpoch) {
        m.previousMemberEpoch = member.memberEpoch;
        m.memberEpoch = epoch;
      }
      return m;
    };
    let result: ConsumerMember;
    if (revoke.size > 0 && ownsAny(owned, revoke)) {
      // partitions to give up first: the member stays at its epoch until it no longer reports them
      result = next(MemberState.UnrevokedPartitions, memberEpoch, assigned, revoke);
    } else if (pendingAssign.size > 0) {
      for (const [t, ps] of pendingAssign) {
        const set = assigned.get(t) ?? new Set<number>();
        for (const p of ps) set.add(p);
        assigned.set(t, set);
      }
      result = next(unreleased ? MemberState.UnreleasedPartitions : MemberState.Stable, this.assignmentEpoch, assigned, new Map());
    } else {
      result = next(unreleased ? MemberState.UnreleasedPartitions : MemberState.Stable, this.assignmentEpoch, assigned, new Map());
    }
    const unchanged =
      result.state === member.state &&
      result.memberEpoch === member.memberEpoch &&
      assignmentsEqual(result.assigned, member.assigned) &&
      assignmentsEqual(result.pendingRevocation, member.pendingRevocation);
    return unchanged ? member : result;
  }

  // -------------------------------------------------------------------------------------------
  // Leaving and fencing

  /** A heartbeat with epoch -1 (leave) or -2 (a static member leaving for now). */
  leave(memberId: string, instanceId: string | null, memberEpoch: number): HeartbeatOutcome {
    if (instanceId === null) {
      if (!this.members.has(memberId)) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Member ${memberId} is not a member of group ${this.groupId}.` };
      this.fence(memberId);
      return { kind: 'ok', memberId, memberEpoch, assignment: null, removed: true };
    }
    const existing = this.staticMember(instanceId);
    if (!existing) return { kind: 'error', errorCode: ErrorCode.UNKNOWN_MEMBER_ID, errorMessage: `Instance id ${instanceId} is unknown.` };
    if (existing.memberId !== memberId) {
      return { kind: 'error', errorCode: ErrorCode.FENCED_INSTANCE_ID, errorMessage: `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.` };
    }
    if (memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // the static member keeps its partitions (and its place) until its session expires or it comes back
      const m = { ...cloneMember(existing), memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, pendingRevocation: new Map() };
      this.setMember(m);
      this.dirty.currentAssignment.add(memberId);
      return { kind: 'ok', memberId, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH, assignment: null, member: m };
    }
    this.fence(memberId);
    return { kind: 'ok', memberId, memberEpoch, assignment: null, removed: true };
  }

  /** Removes a member (left, session or rebalance timeout) and bumps the group epoch. */
  fence(memberId: string): boolean {
    return this.fenceMany([memberId]) > 0;
  }

  /** Removes members (a classic LeaveGroup names several) and bumps the group epoch once if any was in; how many were. */
  fenceMany(memberIds: readonly string[]): number {
    let removed = 0;
    for (const id of memberIds) if (this.removeMember(id)) removed++;
    if (removed === 0) return 0;
    this.groupEpoch += 1;
    this.dirty.epoch = true;
    return removed;
  }

  private removeMember(memberId: string): boolean {
    const m = this.removeMemberState(memberId);
    if (!m) return false;
    this.dirty.removed.add(memberId);
    this.dirty.memberMetadata.delete(memberId);
    this.dirty.currentAssignment.delete(memberId);
    this.dirty.targetAssignment.delete(memberId);
    this.updateResolvedRegexes(undefined);
    const names = this.subscribedTopicNames();
    // a regular expression not resolved yet (a group just loaded) may still match any of them
    const unresolved = [...this.subscribedRegexes()].some((r) => !this.resolvedRegexes.has(r));
    const metadata = new Map([...this.subscriptionMetadata].filter(([n]) => unresolved || names.has(n)));
    if (!this.sameSubscriptionMetadata(metadata)) {
      this.subscriptionMetadata = metadata;
      this.dirty.subscriptionMetadata = true;
    }
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // Offsets (Kafka's ConsumerGroup.validateOffsetCommit / validateOffsetFetch)

  /**
   * null when the commit may go on: a commit with a negative epoch comes from outside the group
   * and is taken only while the group is empty; members need OffsetCommit v9+
   * (UNSUPPORTED_VERSION before, transactional commits excepted) and their current epoch
   * (STALE_MEMBER_EPOCH); a classic member commits with any version and its epoch as its
   * generation (ILLEGAL_GENERATION).
   */
  validateOffsetCommit(memberId: string, memberEpoch: number, isTransactional: boolean, apiVersion: number): number | null {
    if (memberEpoch < 0 && this.members.size === 0) return null;
    const m = this.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (!isTransactional && m.classic === null && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (memberEpoch !== m.memberEpoch) return m.classic !== null ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
    return null;
  }

  /** null when the fetch may go on: without a member (admin, epoch -1) always; a member with its current epoch. */
  validateOffsetFetch(memberId: string | null, memberEpoch: number): number | null {
    if (memberId === null && memberEpoch < 0) return null;
    const m = memberId === null ? undefined : this.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return null;
  }

  // -------------------------------------------------------------------------------------------
  // Restoring from records

  /** Rebuilds a group from its replayed records (members without metadata are dropped). */
  static restore(
    groupId: string,
    r: {
      epoch: number;
      subscriptionMetadata: TopicInfo[];
      assignmentEpoch: number;
      members: ConsumerMember[];
      targets: Map<string, TopicAssignment>;
    },
  ): ConsumerGroup {
    const g = new ConsumerGroup(groupId);
    g.groupEpoch = r.epoch;
    g.assignmentEpoch = r.assignmentEpoch;
    g.subscriptionMetadata = new Map(r.subscriptionMetadata.map((t) => [t.name, t]));
    for (const m of r.members) g.setMember(m);
    for (const [memberId, a] of r.targets) if (g.members.has(memberId)) g.targetAssignment.set(memberId, a);
    return g;
  }
}
