/**
 * A consumer group's state and membership, as Kafka's GroupMetadata/MemberMetadata: the state
 * machine (Empty, PreparingRebalance, CompletingRebalance, Stable, Dead) with Kafka's
 * validPreviousStates and an asserting transitionTo, the generation, the chosen protocol, the
 * leader, the members with their protocols and assignments, pending (id-less) joiners, the
 * members still to send SyncGroup, and static members by group instance id.
 *
 * Pure and synchronous: no timers and no clock. Where time matters the caller passes `now`.
 * The group coordinator actor owns one GroupMetadata per group and drives it: it checks a
 * request with the validateX methods (an ErrorCode or null) before acting, so that a throw from
 * here (IllegalStateTransition, GroupStateError) always means a bug in the coordinator.
 *
 *   Empty ------> PreparingRebalance ------> CompletingRebalance ------> Stable
 *     ^               |     ^     ^                    |                    |
 *     +---------------+     |     +--------------------+                    |
 *                           +-----------------------------------------------+
 *   (every state, Dead included) ------> Dead
 */
import { nanoid } from 'nanoid';
import { ErrorCode } from '../../src/protocol/errors.js';
import { assertNever } from '../../src/runtime/assert-never.js';
import { CONSUMER_PROTOCOL_TYPE, ConsumerProtocolError, decodeSubscription } from './consumer-protocol.js';

export enum GroupState {
  /** No members; the group may still have committed offsets. */
  Empty = 'Empty',
  /** A rebalance started: waiting for the members to (re)join. */
  PreparingRebalance = 'PreparingRebalance',
  /** Everyone joined and a generation began: waiting for the leader's assignment (SyncGroup). */
  CompletingRebalance = 'CompletingRebalance',
  /** The assignment was handed out; members heartbeat and consume. */
  Stable = 'Stable',
  /** The group is gone (deleted, or its offsets partition moved away); nothing is accepted. */
  Dead = 'Dead',
}

/** For each state, the states it may be entered from (Kafka's validPreviousStates). */
export const validPreviousStates: Readonly<Record<GroupState, ReadonlySet<GroupState>>> = Object.freeze({
  [GroupState.Empty]: new Set([GroupState.PreparingRebalance]),
  [GroupState.PreparingRebalance]: new Set([GroupState.Stable, GroupState.CompletingRebalance, GroupState.Empty]),
  [GroupState.CompletingRebalance]: new Set([GroupState.PreparingRebalance]),
  [GroupState.Stable]: new Set([GroupState.CompletingRebalance]),
  [GroupState.Dead]: new Set([
    GroupState.Stable,
    GroupState.PreparingRebalance,
    GroupState.CompletingRebalance,
    GroupState.Empty,
    GroupState.Dead,
  ]),
});

export function isValidTransition(from: GroupState, to: GroupState): boolean {
  return validPreviousStates[to].has(from);
}

/** A precondition of GroupMetadata was broken: a bug in the caller, not a bad request. */
export class GroupStateError extends Error {
  constructor(
    readonly groupId: string,
    message: string,
  ) {
    super(`Group ${groupId}: ${message}`);
    this.name = 'GroupStateError';
  }
}

export class IllegalStateTransition extends GroupStateError {
  constructor(
    groupId: string,
    readonly from: GroupState,
    readonly to: GroupState,
  ) {
    super(groupId, `illegal state transition ${from} -> ${to} (${to} may follow only ${[...validPreviousStates[to]].join(', ')})`);
    this.name = 'IllegalStateTransition';
  }
}

/** One protocol a member supports (an assignor name for consumers) and its metadata bytes. */
export interface Protocol {
  name: string;
  metadata: Uint8Array;
}

/** A new member id as Kafka makes them: the client id (the instance id for static members), a dash, a unique suffix. */
export function newMemberId(clientId: string, groupInstanceId?: string | null): string {
  return `${groupInstanceId ?? clientId}-${nanoid()}`;
}

export interface MemberInit {
  memberId: string;
  groupInstanceId?: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  /** In the member's order of preference. */
  supportedProtocols: readonly Protocol[];
  /** When the member joined; its first heartbeat time. */
  now?: number;
}

const EMPTY = new Uint8Array(0);

export class MemberMetadata {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  readonly protocolType: string;
  supportedProtocols: readonly Protocol[];
  /** The member's assignment bytes of the current generation (empty until SyncGroup). */
  assignment: Uint8Array = EMPTY;
  /** A JoinGroup of this member waits for the join phase to complete. */
  isAwaitingJoin = false;
  /** A SyncGroup of this member waits for the leader's assignment. */
  isAwaitingSync = false;
  /** Joined but not yet answered its first JoinGroup (Kafka's isNew). */
  isNew = false;
  lastHeartbeatMs: number;

  constructor(init: MemberInit) {
    this.memberId = init.memberId;
    this.groupInstanceId = init.groupInstanceId ?? null;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = [...init.supportedProtocols];
    this.lastHeartbeatMs = init.now ?? 0;
  }

  get isStaticMember(): boolean {
    return this.groupInstanceId !== null;
  }

  protocolNames(): string[] {
    return this.supportedProtocols.map((p) => p.name);
  }

  /** The metadata the member gave for `protocol`. */
  metadata(protocol: string): Uint8Array {
    const p = this.supportedProtocols.find((x) => x.name === protocol);
    if (!p) throw new Error(`Member ${this.memberId} does not support protocol ${protocol}`);
    return p.metadata;
  }

  /** Same protocols, same order, same bytes: a rejoin with these would change nothing. */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.supportedProtocols.length) return false;
    return protocols.every((p, i) => {
      const q = this.supportedProtocols[i]!;
      return p.name === q.name && bytesEqual(p.metadata, q.metadata);
    });
  }

  /** The member's most preferred protocol among `candidates`. */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.supportedProtocols.find((p) => candidates.has(p.name));
    if (!choice) throw new Error(`Member ${this.memberId} supports none of the protocols ${[...candidates].join(', ')}`);
    return choice.name;
  }

  /** No heartbeat within the session timeout. */
  hasSessionExpired(now: number): boolean {
    return now >= this.lastHeartbeatMs + this.sessionTimeoutMs;
  }

  /** The same member under another id (a static member replaced by a new instance). */
  withMemberId(memberId: string): MemberMetadata {
    const copy = new MemberMetadata({ ...this, memberId, now: this.lastHeartbeatMs });
    copy.assignment = this.assignment;
    copy.isNew = this.isNew;
    return copy;
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What JoinGroup hands the leader for each member: its metadata for the chosen protocol. */
export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Uint8Array;
}

export interface MemberSummary {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Empty unless the group is Stable. */
  metadata: Uint8Array;
  /** Empty unless the group is Stable. */
  assignment: Uint8Array;
}

/** DescribeGroups' view of a group, as Kafka's GroupSummary (shaped like messages.ts' DescribedGroup). */
export interface GroupSummary {
  groupId: string;
  state: GroupState;
  protocolType: string;
  /** The chosen protocol when Stable, otherwise ''. */
  protocolName: string;
  generationId: number;
  /** The leader's member id, '' when there is none. */
  leader: string;
  members: MemberSummary[];
}

export interface GroupMetadataOptions {
  /** Empty by default; a group loaded from __consumer_offsets may start in another state. */
  initialState?: GroupState;
  now?: number;
}

export class GroupMetadata {
  readonly groupId: string;
  generationId = 0;
  /** Set by the first member; null for a group that never had one. */
  protocolType: string | null = null;
  /** The protocol chosen for the current generation. */
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** When the group entered its current state, if the caller said. */
  stateTimestampMs: number | undefined;

  private currentState: GroupState;
  private readonly memberMap = new Map<string, MemberMetadata>();
  /** Members given an id by JoinGroup (MEMBER_ID_REQUIRED) that have not joined with it yet. */
  private readonly pending = new Set<string>();
  /** Members of the new generation that have not sent SyncGroup yet. */
  private readonly pendingSync = new Set<string>();
  /** group instance id -> member id. */
  private readonly statics = new Map<string, string>();
  private subscribed: Set<string> | null = null;

  constructor(groupId: string, options: GroupMetadataOptions = {}) {
    this.groupId = groupId;
    this.currentState = options.initialState ?? GroupState.Empty;
    this.stateTimestampMs = options.now;
  }

  // -------------------------------------------------------------------------------------------
  // State

  get state(): GroupState {
    return this.currentState;
  }

  is(state: GroupState): boolean {
    return this.currentState === state;
  }

  /** Moves to `state`; throws IllegalStateTransition unless Kafka allows the move. */
  transitionTo(state: GroupState, now?: number): void {
    if (!isValidTransition(this.currentState, state)) throw new IllegalStateTransition(this.groupId, this.currentState, state);
    this.currentState = state;
    this.stateTimestampMs = now;
  }

  /** A rebalance may start from here (PreparingRebalance is a valid next state). */
  get canRebalance(): boolean {
    return validPreviousStates[GroupState.PreparingRebalance].has(this.currentState);
  }

  // -------------------------------------------------------------------------------------------
  // Members

  get members(): ReadonlyMap<string, MemberMetadata> {
    return this.memberMap;
  }

  get size(): number {
    return this.memberMap.size;
  }

  has(memberId: string): boolean {
    return this.memberMap.has(memberId);
  }

  get(memberId: string): MemberMetadata | undefined {
    return this.memberMap.get(memberId);
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  allMembers(): MemberMetadata[] {
    return [...this.memberMap.values()];
  }

  /**
   * Adds a member. The first member sets the group's protocol type and every member must share
   * it and support a protocol all others support (check with validateProtocols first). The
   * first member to join becomes the leader.
   */
  add(member: MemberMetadata): void {
    if (this.memberMap.has(member.memberId)) throw new GroupStateError(this.groupId, `member ${member.memberId} is already in the group`);
    if (this.validateProtocols(member.protocolType, member.protocolNames()) !== null) {
      throw new GroupStateError(
        this.groupId,
        `member ${member.memberId} (${member.protocolType}: ${member.protocolNames().join(', ')}) is inconsistent with the group's protocols`,
      );
    }
    if (this.memberMap.size === 0) this.protocolType = member.protocolType;
    if (member.groupInstanceId !== null) this.statics.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.memberMap.set(member.memberId, member);
    this.pending.delete(member.memberId);
  }

  /** Removes a member (left, expired or fenced). A leaving leader passes the lead to the oldest remaining member. */
  remove(memberId: string): void {
    const member = this.memberMap.get(memberId);
    if (member) {
      this.memberMap.delete(memberId);
      if (member.groupInstanceId !== null && this.statics.get(member.groupInstanceId) === memberId) {
        this.statics.delete(member.groupInstanceId);
      }
    }
    if (this.leaderId === memberId) this.leaderId = this.memberMap.keys().next().value ?? null;
    this.pending.delete(memberId);
    this.pendingSync.delete(memberId);
  }

  /** A known member rejoined, possibly with new protocols or timeouts. */
  updateMember(
    memberId: string,
    update: { supportedProtocols: readonly Protocol[]; rebalanceTimeoutMs: number; sessionTimeoutMs: number },
  ): void {
    const member = this.requireMember(memberId);
    if (this.validateProtocols(member.protocolType, update.supportedProtocols.map((p) => p.name), memberId) !== null) {
      throw new GroupStateError(this.groupId, `member ${memberId}'s new protocols are inconsistent with the group's`);
    }
    member.supportedProtocols = [...update.supportedProtocols];
    member.rebalanceTimeoutMs = update.rebalanceTimeoutMs;
    member.sessionTimeoutMs = update.sessionTimeoutMs;
  }

  /** The members whose session expired at `now`. */
  expiredMembers(now: number): MemberMetadata[] {
    return this.allMembers().filter((m) => m.hasSessionExpired(now));
  }

  /** The longest rebalance timeout of the members: how long the join phase may wait. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.memberMap.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  // Pending members (KIP-394: a joiner without an id is given one and must join again with it).

  addPendingMember(memberId: string): void {
    this.pending.add(memberId);
  }

  hasPendingMember(memberId: string): boolean {
    return this.pending.has(memberId);
  }

  removePendingMember(memberId: string): void {
    this.pending.delete(memberId);
  }

  get numPendingMembers(): number {
    return this.pending.size;
  }

  // Static members (KIP-345).

  getStaticMemberId(groupInstanceId: string): string | undefined {
    return this.statics.get(groupInstanceId);
  }

  hasStaticMember(groupInstanceId: string): boolean {
    return this.statics.has(groupInstanceId);
  }

  /**
   * A static member came back under a new member id: the member keeps its place, protocols and
   * assignment under `newMemberId`, stays leader if it was, and the old id is fenced. Returns
   * whether the old id had a JoinGroup or SyncGroup waiting, which the caller must answer with
   * FENCED_INSTANCE_ID.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): { wasAwaitingJoin: boolean; wasAwaitingSync: boolean } {
    const old = this.requireMember(oldMemberId);
    if (old.groupInstanceId !== groupInstanceId) {
      throw new GroupStateError(this.groupId, `member ${oldMemberId} is not the static member ${groupInstanceId}`);
    }
    const replacement = old.withMemberId(newMemberId);
    // Keep the member's position in join order: rebuild the map in the same order.
    const entries = [...this.memberMap].map(([id, m]) => (id === oldMemberId ? ([newMemberId, replacement] as const) : ([id, m] as const)));
    this.memberMap.clear();
    for (const [id, m] of entries) this.memberMap.set(id, m);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    if (this.pendingSync.delete(oldMemberId)) this.pendingSync.add(newMemberId);
    this.statics.set(groupInstanceId, newMemberId);
    return { wasAwaitingJoin: old.isAwaitingJoin, wasAwaitingSync: old.isAwaitingSync };
  }

  // -------------------------------------------------------------------------------------------
  // The join phase

  /**
   * Whether a JoinGroup of `memberId` ('' for one with no id yet) may join under group.max.size
   * `maxSize` (Kafka's acceptJoiningMember, KIP-389): always while Empty or Dead; while preparing
   * a rebalance, a member already rejoined, or any while fewer than `maxSize` have rejoined (the
   * count of the rejoined, not of the members: a group over a lowered size keeps the first to
   * rejoin); else a member, or any while the group has fewer than `maxSize` members.
   */
  acceptsJoiningMember(memberId: string, maxSize: number): boolean {
    switch (this.state) {
      case GroupState.Empty:
      case GroupState.Dead:
        return true;
      case GroupState.PreparingRebalance:
        return this.memberMap.get(memberId)?.isAwaitingJoin === true || this.numAwaitingJoin < maxSize;
      case GroupState.CompletingRebalance:
      case GroupState.Stable:
        return this.memberMap.has(memberId) || this.memberMap.size < maxSize;
      default:
        return assertNever(this.state, 'group state');
    }
  }

  get numAwaitingJoin(): number {
    let n = 0;
    for (const m of this.memberMap.values()) if (m.isAwaitingJoin) n++;
    return n;
  }

  /** Every member has rejoined and no id-less joiner is still expected. */
  get allMembersJoined(): boolean {
    return this.memberMap.size === this.numAwaitingJoin && this.pending.size === 0;
  }

  /** The members that have not rejoined in this rebalance. */
  notYetRejoinedMembers(): MemberMetadata[] {
    return this.allMembers().filter((m) => !m.isAwaitingJoin);
  }

  /**
   * Makes sure the leader is a member that rejoined: if the leader did not, the first member
   * that did becomes leader. Returns false when no member rejoined (then there is no leader to
   * hand the members to).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    if (this.memberMap.get(this.leaderId)?.isAwaitingJoin) return true;
    const joined = this.allMembers().find((m) => m.isAwaitingJoin);
    if (!joined) return false;
    this.leaderId = joined.memberId;
    return true;
  }

  /**
   * Ends the join phase: generation + 1. With members, the protocol is chosen and the group
   * moves to CompletingRebalance, every member now owing a SyncGroup; without members, it moves
   * to Empty with no protocol. Must be in PreparingRebalance.
   */
  initNextGeneration(now?: number): void {
    if (this.memberMap.size > 0) {
      const protocol = this.selectProtocol();
      this.transitionTo(GroupState.CompletingRebalance, now);
      this.generationId += 1;
      this.protocolName = protocol;
      this.pendingSync.clear();
      for (const id of this.memberMap.keys()) this.pendingSync.add(id);
    } else {
      this.transitionTo(GroupState.Empty, now);
      this.generationId += 1;
      this.protocolName = null;
      this.pendingSync.clear();
    }
    this.subscribed = this.computeSubscribedTopics();
  }

  // -------------------------------------------------------------------------------------------
  // Protocols

  /**
   * Null when a member with this protocol type and these protocols may join, else
   * INCONSISTENT_GROUP_PROTOCOL: an empty group takes any non-empty type and protocol list;
   * otherwise the type must be the group's and at least one of the protocols must be supported
   * by every other member. For a member that rejoins, pass its id as `rejoiningMemberId`: its own old protocols
   * then do not count.
   */
  validateProtocols(protocolType: string, protocolNames: readonly string[], rejoiningMemberId?: string): number | null {
    const inconsistent = ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    if (protocolType.length === 0 || protocolNames.length === 0) return inconsistent;
    if (this.memberMap.size === 0) return null;
    if (this.protocolType !== protocolType) return inconsistent;
    const others = this.allMembers().filter((m) => m.memberId !== rejoiningMemberId);
    const shared = protocolNames.some((name) => others.every((m) => m.supportedProtocols.some((p) => p.name === name)));
    return shared ? null : inconsistent;
  }

  /** The protocols every member supports. */
  candidateProtocols(): Set<string> {
    const out = new Set<string>();
    const first = this.memberMap.values().next().value;
    if (!first) return out;
    for (const name of first.protocolNames()) if (this.supportCount(name) === this.memberMap.size) out.add(name);
    return out;
  }

  /**
   * The protocol for the next generation, as Kafka chooses it: among the protocols all members
   * support, each member votes for the one it prefers most, and the most votes win. Ties go to
   * the protocol the leader prefers (Kafka leaves ties to hash order; this is deterministic).
   */
  selectProtocol(): string {
    if (this.memberMap.size === 0) throw new GroupStateError(this.groupId, 'cannot select a protocol for a group without members');
    const candidates = this.candidateProtocols();
    if (candidates.size === 0) throw new GroupStateError(this.groupId, 'the members share no protocol');
    const votes = new Map<string, number>();
    for (const m of this.memberMap.values()) {
      const choice = m.vote(candidates);
      votes.set(choice, (votes.get(choice) ?? 0) + 1);
    }
    const tieOrder = (this.leaderId !== null ? this.memberMap.get(this.leaderId) : undefined) ?? this.memberMap.values().next().value!;
    let best: string | null = null;
    for (const name of tieOrder.protocolNames()) {
      if (!candidates.has(name)) continue;
      if (best === null || (votes.get(name) ?? 0) > (votes.get(best) ?? 0)) best = name;
    }
    return best!;
  }

  private supportCount(protocol: string): number {
    let n = 0;
    for (const m of this.memberMap.values()) if (m.supportedProtocols.some((p) => p.name === protocol)) n++;
    return n;
  }

  /** What the leader's JoinGroup response lists: each member's metadata for the chosen protocol. */
  currentMemberMetadata(): JoinGroupMember[] {
    if (this.is(GroupState.Dead) || this.is(GroupState.PreparingRebalance) || this.protocolName === null) {
      throw new GroupStateError(this.groupId, `cannot list member metadata in state ${this.currentState} without a chosen protocol`);
    }
    const protocol = this.protocolName;
    return this.allMembers().map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(protocol) }));
  }

  // -------------------------------------------------------------------------------------------
  // Subscriptions (consumer groups)

  /**
   * The topics the members of the current generation subscribe to: known for "consumer" groups
   * (decoded from each member's Subscription for the chosen protocol), null otherwise or when a
   * subscription could not be decoded. Computed when a generation starts.
   */
  get subscribedTopics(): ReadonlySet<string> | null {
    return this.subscribed;
  }

  /** Whether a member of the current generation subscribes to `topic` (false when unknown). */
  isSubscribedTo(topic: string): boolean {
    return this.subscribed?.has(topic) ?? false;
  }

  private computeSubscribedTopics(): Set<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE) return null;
    if (this.memberMap.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const topics = new Set<string>();
    try {
      for (const m of this.memberMap.values()) for (const t of decodeSubscription(m.metadata(this.protocolName)).topics) topics.add(t);
    } catch (err) {
      if (err instanceof ConsumerProtocolError) return null;
      throw err;
    }
    return topics;
  }

  // -------------------------------------------------------------------------------------------
  // The sync phase

  /** Stores the leader's assignment (member id -> bytes); members it leaves out get empty bytes. Must be in CompletingRebalance. */
  setAssignments(assignments: ReadonlyMap<string, Uint8Array>): void {
    if (!this.is(GroupState.CompletingRebalance)) {
      throw new GroupStateError(this.groupId, `cannot set assignments in state ${this.currentState}`);
    }
    for (const m of this.memberMap.values()) m.assignment = assignments.get(m.memberId) ?? EMPTY;
  }

  /** Forgets every member's assignment (a rebalance started before SyncGroup completed). */
  clearAssignments(): void {
    for (const m of this.memberMap.values()) m.assignment = EMPTY;
  }

  get pendingSyncMembers(): ReadonlySet<string> {
    return this.pendingSync;
  }

  /** The member sent SyncGroup; false if it was not expected to. */
  removePendingSyncMember(memberId: string): boolean {
    return this.pendingSync.delete(memberId);
  }

  hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSync.size === 0;
  }

  clearPendingSyncMembers(): void {
    this.pendingSync.clear();
  }

  // -------------------------------------------------------------------------------------------
  // Request validation (an ErrorCode, or null when fine)

  /**
   * Is the sender a current member? A static member (with an instance id) must be the instance's
   * current member id (else FENCED_INSTANCE_ID); any other unknown id is UNKNOWN_MEMBER_ID.
   */
  validateMember(memberId: string, groupInstanceId?: string | null): number | null {
    if (groupInstanceId !== undefined && groupInstanceId !== null) {
      const current = this.statics.get(groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return null;
    }
    return this.memberMap.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** ILLEGAL_GENERATION unless `generationId` is the current one. */
  validateGeneration(generationId: number): number | null {
    return generationId === this.generationId ? null : ErrorCode.ILLEGAL_GENERATION;
  }

  // -------------------------------------------------------------------------------------------

  /** DescribeGroups' view: member metadata and assignments only when Stable, as Kafka. */
  summary(): GroupSummary {
    const stable = this.is(GroupState.Stable);
    const protocol = stable ? (this.protocolName ?? '') : '';
    return {
      groupId: this.groupId,
      state: this.currentState,
      protocolType: this.protocolType ?? '',
      protocolName: protocol,
      generationId: this.generationId,
      leader: this.leaderId ?? '',
      members: this.allMembers().map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable && protocol !== '' ? m.metadata(protocol) : EMPTY,
        assignment: stable ? m.assignment : EMPTY,
      })),
    };
  }

  private requireMember(memberId: string): MemberMetadata {
    const m = this.memberMap.get(memberId);
    if (!m) throw new GroupStateError(this.groupId, `unknown member ${memberId}`);
    return m;
  }
}
