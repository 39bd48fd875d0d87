/**
 * A consumer's membership in a KIP-848 consumer group (group.protocol consumer), as Kafka 4.0's
 * ConsumerMembershipManager and the heartbeat manager over it: the member state machine
 * (member-state.ts), the member id and epoch the coordinator gives, the target assignment it
 * sends and the assignment made effective, the reconciliation between them, and which heartbeat
 * to send when with which fields (heartbeat-state.ts).
 *
 * Pure and synchronous: no I/O. Time comes from the injected clock. The consumer actor
 * (group-member.ts) drives it: it sends the heartbeats `pollHeartbeat` and `leaveHeartbeat`
 * return, hands their answers to `onHeartbeatResponse` / `onHeartbeatFailure`, acts on the
 * outcome (finds the coordinator, releases partitions of a fenced or failed member), and carries a
 * reconciliation out (commit, revoke, assign) between `startReconciliation` and
 * `completeReconciliation`. A throw from here (IllegalMemberTransition) is a bug in the caller.
 */
import { ErrorCode, errorName } from '../../src/protocol/errors.js';
import type { Clock } from '../../src/runtime/clock.js';
import { LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH } from '../group-coordinator/consumer-group.js';
import type { ConsumerGroupHeartbeatResponse, CoordinatorMsg } from '../group-coordinator/messages.js';
import { HeartbeatTiming, SentFields } from './heartbeat-state.js';
import { LocalAssignment } from './local-assignment.js';
import { canHandleNewAssignment, IllegalMemberTransition, isNotInGroup, isValidMemberTransition, MemberState } from './member-state.js';

export const JOIN_GROUP_MEMBER_EPOCH = 0;

export type ConsumerGroupHeartbeatMsg = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

export interface MembershipConfig {
  groupId: string;
  /** group.instance.id, null for a dynamic member. */
  instanceId: string | null;
  /** client.rack, null when unset. */
  rackId: string | null;
  /** max.poll.interval.ms, as Kafka's consumer sends it. */
  rebalanceTimeoutMs: number;
  /** group.remote.assignor, null for the coordinator's choice. */
  serverAssignor: string | null;
  clientId: string;
  /** Until the coordinator names its own. */
  heartbeatIntervalMs: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  /** The member id a consumer makes for itself (Kafka 4.0's KIP-1082): a new one per consumer. */
  newMemberId(): string;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** A reconciliation under way: what the consumer owns once it is done, and the steps there. */
export interface Reconciliation {
  readonly id: number;
  /** The assignment made effective when done (the part of the target whose topics have names). */
  readonly assignment: LocalAssignment;
  /** Every partition of `assignment`, named. */
  readonly assigned: readonly TopicPartition[];
  /** Assigned and not owned now: to add, after the revocation. */
  readonly added: readonly TopicPartition[];
  /** Owned now and no longer assigned: to revoke first. */
  readonly revoked: readonly TopicPartition[];
}

/** What the consumer has to do after a heartbeat's answer. */
export type HeartbeatOutcome =
  /** Nothing: an answer to an older heartbeat, or one the state has no use for. */
  | { kind: 'ignored' }
  /** Taken: the member id and epoch are current; the state may now be RECONCILING. */
  | { kind: 'ok' }
  /** FENCED: release every partition without committing, then call rejoinAfterFence(). */
  | { kind: 'fenced'; errorCode: number; message: string }
  /** The coordinator moved or is unavailable: find it again; the heartbeat goes once it is known. */
  | { kind: 'find-coordinator'; errorCode: number; message: string }
  /** Try again after the backoff (the coordinator is loading; an instance id not yet released). */
  | { kind: 'retry'; errorCode: number; message: string }
  /** FATAL: release every partition without committing and report the error; nothing follows. */
  | { kind: 'fatal'; errorCode: number; message: string };

const FATAL_ERRORS = new Set<number>([
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.GROUP_MAX_SIZE_REACHED,
  ErrorCode.UNSUPPORTED_ASSIGNOR,
  ErrorCode.UNSUPPORTED_VERSION,
  ErrorCode.FENCED_INSTANCE_ID,
]);

export class ConsumerMembership {
  state = MemberState.Unsubscribed;
  /** Made by the consumer (the coordinator takes it when it creates the member) and kept across rejoins. */
  memberId: string;
  memberEpoch = JOIN_GROUP_MEMBER_EPOCH;
  /** The assignment made effective (what the heartbeats report as owned). */
  current = LocalAssignment.NONE;
  /** The latest assignment the coordinator sent. */
  target = LocalAssignment.NONE;
  readonly timing: HeartbeatTiming;
  private subscription: string[] = [];
  private subscriptionUpdated = false;
  private readonly sent = new SentFields();
  private reconciling: Reconciliation | null = null;
  private rejoinedWhileReconciling = false;
  private pollTimerExpired = false;
  /** A join (epoch 0) was answered FENCED_MEMBER_EPOCH: the coordinator holds the id at another epoch, so the next join takes a new one. */
  private joinFenced = false;
  /** Names of the topics assigned, for revoking a topic the metadata no longer has. */
  private readonly assignedNames = new Map<string, string>();
  private nextSeq = 1;
  private nextReconciliationId = 1;

  constructor(
    private readonly config: MembershipConfig,
    private readonly clock: Clock,
  ) {
    this.timing = new HeartbeatTiming(config.heartbeatIntervalMs, config.retryBackoffMs, config.retryBackoffMaxMs);
    this.memberId = config.newMemberId();
  }

  /** The subscribed topic names (sorted). */
  get subscribedTopics(): readonly string[] {
    return this.subscription;
  }

  get isStatic(): boolean {
    return this.config.instanceId !== null;
  }

  /** Whether a reconciliation is between startReconciliation and completeReconciliation. */
  get reconciliationInProgress(): boolean {
    return this.reconciling !== null;
  }

  transitionTo(next: MemberState): void {
    if (!isValidMemberTransition(this.state, next)) throw new IllegalMemberTransition(this.state, next);
    this.state = next;
  }

  // ---------------------------------------------------------------------------------------------
  // Subscription and joining

  /** The topics the consumer subscribes to now (a pattern resolved against metadata); true when they changed. */
  updateSubscription(topics: readonly string[]): boolean {
    const next = [...new Set(topics)].sort();
    if (next.length === this.subscription.length && next.every((t, i) => t === this.subscription[i])) return false;
    this.subscription = next;
    this.subscriptionUpdated = true;
    return true;
  }

  /**
   * Kafka's onConsumerPoll and maybeRejoinStaleMember: a consumer with a new subscription that is
   * not a member yet joins, and one that left because its poll timer expired joins again. True
   * when it is now JOINING.
   */
  maybeJoin(): boolean {
    if (this.subscription.length === 0) return false;
    if (this.state === MemberState.Unsubscribed && this.subscriptionUpdated) {
      this.subscriptionUpdated = false;
      this.transitionToJoining();
      return true;
    }
    if (this.state === MemberState.Stale) {
      this.pollTimerExpired = false;
      this.transitionToJoining();
      return true;
    }
    return false;
  }

  /** JOINING with epoch 0 and no assignment; a reconciliation under way is abandoned. */
  transitionToJoining(): void {
    if (this.state === MemberState.Fatal) return;
    if (this.reconciling) this.rejoinedWhileReconciling = true;
    if (this.joinFenced) {
      this.memberId = this.config.newMemberId();
      this.joinFenced = false;
    }
    this.memberEpoch = JOIN_GROUP_MEMBER_EPOCH;
    this.transitionTo(MemberState.Joining);
    this.target = LocalAssignment.NONE;
    this.assignedNames.clear();
    this.timing.reset(this.clock.now());
  }

  // ---------------------------------------------------------------------------------------------
  // Heartbeats

  /** States in which no heartbeat goes out. */
  shouldSkipHeartbeat(): boolean {
    return isNotInGroup(this.state);
  }

  isLeavingGroup(): boolean {
    return this.state === MemberState.PrepareLeaving || this.state === MemberState.Leaving;
  }

  /** Whether the state asks for a heartbeat without waiting for the interval. */
  shouldHeartbeatNow(): boolean {
    return this.state === MemberState.Joining || this.state === MemberState.Acknowledging;
  }

  /**
   * The heartbeat to send now with its sequence number, or null: none is due, one is in flight,
   * the coordinator is not known, the state sends none, or a join has no topic to name yet.
   * LEAVING sends through leaveHeartbeat.
   */
  pollHeartbeat(coordinatorKnown: boolean): { seq: number; msg: ConsumerGroupHeartbeatMsg } | null {
    if (!coordinatorKnown || this.shouldSkipHeartbeat()) {
      this.onHeartbeatRequestSkipped();
      return null;
    }
    if (this.state === MemberState.Leaving) return null;
    if (this.state === MemberState.Joining && this.subscription.length === 0) return null;
    const now = this.clock.now();
    const due = this.shouldHeartbeatNow() ? this.timing.canSendNow(now) : this.timing.canSend(now);
    if (!due) return null;
    const seq = this.nextSeq++;
    const msg = this.buildHeartbeat();
    this.timing.onSent(now, seq);
    this.onHeartbeatRequestGenerated();
    return { seq, msg };
  }

  /**
   * In LEAVING: the heartbeat that leaves the group (epoch -1, a static member -2). The state
   * moves on at once (UNSUBSCRIBED, or STALE when the poll timer expired): the answer changes
   * nothing. Null in any other state.
   */
  leaveHeartbeat(coordinatorKnown: boolean): ConsumerGroupHeartbeatMsg | null {
    if (this.state !== MemberState.Leaving) return null;
    if (!coordinatorKnown) {
      this.onHeartbeatRequestSkipped();
      return null;
    }
    const msg = this.buildHeartbeat();
    this.timing.reset(this.clock.now());
    this.sent.reset();
    this.onHeartbeatRequestGenerated();
    return msg;
  }

  /** Kafka's HeartbeatState.buildRequestData: the member id and epoch always, other fields when changed (all when joining). */
  private buildHeartbeat(): ConsumerGroupHeartbeatMsg {
    const all = this.state === MemberState.Joining;
    const c = this.config;
    const msg: ConsumerGroupHeartbeatMsg = {
      type: 'ConsumerGroupHeartbeat',
      groupId: c.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      instanceId: c.instanceId,
      rackId: all ? c.rackId : null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: null,
      clientId: c.clientId,
    };
    if (all || this.sent.rebalanceTimeoutMs !== c.rebalanceTimeoutMs) {
      msg.rebalanceTimeoutMs = c.rebalanceTimeoutMs;
      this.sent.rebalanceTimeoutMs = c.rebalanceTimeoutMs;
    }
    const sentNames = this.sent.subscribedTopicNames;
    if (all || sentNames === null || sentNames.length !== this.subscription.length || sentNames.some((t, i) => t !== this.subscription[i])) {
      msg.subscribedTopicNames = [...this.subscription];
      this.sent.subscribedTopicNames = [...this.subscription];
    }
    if (c.serverAssignor !== null && (all || this.sent.serverAssignor !== c.serverAssignor)) {
      msg.serverAssignor = c.serverAssignor;
      this.sent.serverAssignor = c.serverAssignor;
    }
    if (all || !this.current.equals(this.sent.localAssignment)) {
      msg.topicPartitions = this.current.toTopicPartitions();
      this.sent.localAssignment = this.current;
    }
    return msg;
  }

  /** A heartbeat went out: ACKNOWLEDGING is done (STABLE, or RECONCILING when the target moved on); LEAVING has left. */
  private onHeartbeatRequestGenerated(): void {
    if (this.state === MemberState.Acknowledging) {
      this.transitionTo(this.targetReconciled() ? MemberState.Stable : MemberState.Reconciling);
    } else if (this.state === MemberState.Leaving) {
      this.leftGroup();
    }
  }

  /** No coordinator to send the leave to: the member is out all the same. */
  private onHeartbeatRequestSkipped(): void {
    if (this.state === MemberState.Leaving) this.leftGroup();
  }

  /** The leave went (or could not): UNSUBSCRIBED, or STALE when the poll timer expired; no assignment either way. */
  private leftGroup(): void {
    this.transitionTo(this.pollTimerExpired ? MemberState.Stale : MemberState.Unsubscribed);
    this.clearAssignment();
  }

  /** The coordinator's answer to heartbeat `seq`. */
  onHeartbeatResponse(seq: number, r: ConsumerGroupHeartbeatResponse): HeartbeatOutcome {
    if (seq !== this.timing.inFlight) return { kind: 'ignored' };
    const now = this.clock.now();
    if (r.errorCode === ErrorCode.NONE) {
      this.timing.onSuccess(now, r.heartbeatIntervalMs);
      return this.onHeartbeatSuccess(r);
    }
    return this.onErrorResponse(now, r.errorCode, r.errorMessage ?? errorName(r.errorCode));
  }

  /** Heartbeat `seq` got no answer (timed out, the coordinator's actor is gone): find the coordinator again. */
  onHeartbeatFailure(seq: number, errorCode: number, message: string): HeartbeatOutcome {
    if (seq !== this.timing.inFlight) return { kind: 'ignored' };
    this.timing.onFailure(this.clock.now(), false);
    this.sent.reset();
    return { kind: 'find-coordinator', errorCode, message };
  }

  private onHeartbeatSuccess(r: ConsumerGroupHeartbeatResponse): HeartbeatOutcome {
    if (this.state === MemberState.Leaving || isNotInGroup(this.state)) return { kind: 'ignored' };
    if (r.memberId !== null) this.memberId = r.memberId;
    this.memberEpoch = r.memberEpoch;
    if (r.assignment !== null && canHandleNewAssignment(this.state)) this.processAssignmentReceived(LocalAssignment.fromTopicPartitions(0, r.assignment));
    return { kind: 'ok' };
  }

  /** Kafka's onErrorResponse: every error resends all fields next time; the code decides the rest. */
  private onErrorResponse(now: number, code: number, message: string): HeartbeatOutcome {
    this.sent.reset();
    switch (code) {
      case ErrorCode.NOT_COORDINATOR:
      case ErrorCode.COORDINATOR_NOT_AVAILABLE:
        this.timing.onFailure(now, true);
        return { kind: 'find-coordinator', errorCode: code, message };
      case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      case ErrorCode.UNRELEASED_INSTANCE_ID:
        // the instance id is still another member's (it has not left yet, or its session not run out): ask again later
        this.timing.onFailure(now, false);
        return { kind: 'retry', errorCode: code, message };
      case ErrorCode.FENCED_MEMBER_EPOCH:
      case ErrorCode.UNKNOWN_MEMBER_ID:
        this.timing.onFailure(now, true);
        if (code === ErrorCode.FENCED_MEMBER_EPOCH && this.memberEpoch === JOIN_GROUP_MEMBER_EPOCH) this.joinFenced = true;
        return this.transitionToFenced() ? { kind: 'fenced', errorCode: code, message } : { kind: 'ignored' };
      default:
        this.timing.onFailure(now, false);
        if (!FATAL_ERRORS.has(code)) message = `unexpected error ${errorName(code)}: ${message}`;
        this.transitionToFatal();
        return { kind: 'fatal', errorCode: code, message };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Assignments and reconciliation

  private targetReconciled(): boolean {
    return this.current.equals(this.target);
  }

  /** A new target from the coordinator: RECONCILING when it differs from what is effective. */
  private processAssignmentReceived(assignment: LocalAssignment): void {
    const next = this.target.updateWith(assignment);
    if (next) this.target = next;
    if (!this.targetReconciled()) {
      this.transitionTo(MemberState.Reconciling);
    } else if (this.state === MemberState.Reconciling || this.state === MemberState.Joining) {
      this.transitionTo(MemberState.Stable);
    }
  }

  /**
   * Kafka's maybeReconcile: in RECONCILING with nothing under way, the plan from what is owned
   * (`owned`, by name) to the target's partitions whose topic `resolve` names. Topic ids without
   * a name are returned in `unresolved` (refresh the metadata and try again). When the named part
   * equals what is effective, the member only acknowledges it (ACKNOWLEDGING, no plan).
   */
  startReconciliation(resolve: (topicId: string) => string | undefined, owned: readonly TopicPartition[]): { plan: Reconciliation | null; unresolved: string[] } {
    const unresolved: string[] = [];
    if (this.state !== MemberState.Reconciling || this.reconciling || this.targetReconciled()) return { plan: null, unresolved };
    const resolved = new Map<string, readonly number[]>();
    const assigned: TopicPartition[] = [];
    for (const [topicId, partitions] of this.target.partitions) {
      const fromMetadata = resolve(topicId);
      if (fromMetadata !== undefined) this.assignedNames.set(topicId, fromMetadata);
      const topic = fromMetadata ?? this.assignedNames.get(topicId);
      if (topic === undefined) {
        unresolved.push(topicId);
        continue;
      }
      resolved.set(topicId, partitions);
      for (const partition of partitions) assigned.push({ topic, partition });
    }
    const assignment = new LocalAssignment(this.target.localEpoch, resolved);
    if (!this.current.isNone() && assignment.samePartitions(this.current)) {
      // nothing new can be made effective yet: acknowledge (the local epoch moves, so the heartbeat reports it)
      this.current = assignment;
      this.transitionTo(MemberState.Acknowledging);
      return { plan: null, unresolved };
    }
    const k = (tp: TopicPartition) => `${tp.topic}\u0000${tp.partition}`;
    const assignedKeys = new Set(assigned.map(k));
    const ownedKeys = new Set(owned.map(k));
    const plan: Reconciliation = {
      id: this.nextReconciliationId++,
      assignment,
      assigned,
      added: assigned.filter((tp) => !ownedKeys.has(k(tp))),
      revoked: owned.filter((tp) => !assignedKeys.has(k(tp))),
    };
    this.reconciling = plan;
    this.rejoinedWhileReconciling = false;
    return { plan, unresolved };
  }

  /**
   * Kafka's maybeAbortReconciliation: whether `plan` is still worth carrying out (the member is
   * still RECONCILING it and has not rejoined meanwhile). False also ends it.
   */
  continueReconciliation(plan: Reconciliation): boolean {
    if (this.reconciling !== plan) return false;
    if (this.state !== MemberState.Reconciling || this.rejoinedWhileReconciling) {
      this.reconciling = null;
      this.rejoinedWhileReconciling = false;
      return false;
    }
    return true;
  }

  /** The plan's assignment is effective: ACKNOWLEDGING (false when it was abandoned meanwhile). */
  completeReconciliation(plan: Reconciliation): boolean {
    if (!this.continueReconciliation(plan)) return false;
    this.current = plan.assignment;
    this.transitionTo(MemberState.Acknowledging);
    this.reconciling = null;
    for (const topicId of [...this.assignedNames.keys()]) if (!plan.assignment.partitions.has(topicId)) this.assignedNames.delete(topicId);
    return true;
  }

  /** A reconciliation that could not finish: it stays RECONCILING and is tried again. */
  failReconciliation(plan: Reconciliation): void {
    if (this.reconciling === plan) {
      this.reconciling = null;
      this.rejoinedWhileReconciling = false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Fenced, fatal, leaving

  /**
   * FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID: true when the member is now FENCED (epoch 0) and
   * must release its partitions and call rejoinAfterFence(); a member on its way out just ends up
   * UNSUBSCRIBED (false).
   */
  transitionToFenced(): boolean {
    if (this.state === MemberState.PrepareLeaving) {
      this.transitionToSendingLeaveGroup(false);
      this.leftGroup();
      return false;
    }
    if (this.state === MemberState.Leaving) {
      this.leftGroup();
      return false;
    }
    if (this.state === MemberState.Unsubscribed || this.state === MemberState.Fatal || this.state === MemberState.Stale) return false;
    this.transitionTo(MemberState.Fenced);
    this.memberEpoch = JOIN_GROUP_MEMBER_EPOCH;
    return true;
  }

  /** The fenced member released its partitions: it joins again (unless something else happened meanwhile). */
  rejoinAfterFence(): void {
    this.clearAssignment();
    if (this.state === MemberState.Fenced) this.transitionToJoining();
  }

  /** FATAL: no more heartbeats; the caller releases the partitions and reports the error. */
  transitionToFatal(): void {
    this.transitionTo(MemberState.Fatal);
    this.clearAssignment();
  }

  /**
   * Kafka's leaveGroup (closing): true when the member is now PREPARE_LEAVING and must commit and
   * release its partitions, then call transitionToSendingLeaveGroup(false). A member not in the
   * group has nothing to leave (a fenced one stops rejoining); one already leaving goes on.
   */
  leaveGroup(): boolean {
    if (isNotInGroup(this.state)) {
      if (this.state === MemberState.Fenced) {
        this.clearAssignment();
        this.transitionTo(MemberState.Unsubscribed);
      }
      this.subscriptionUpdated = false;
      return false;
    }
    if (this.isLeavingGroup()) return false;
    this.transitionTo(MemberState.PrepareLeaving);
    return true;
  }

  /**
   * LEAVING with the leave epoch (-1, a static member -2): the next heartbeat (leaveHeartbeat)
   * leaves. `dueToExpiredPollTimer`: max.poll.interval.ms passed; the member goes STALE after it.
   */
  transitionToSendingLeaveGroup(dueToExpiredPollTimer: boolean): void {
    if (this.state === MemberState.Fatal || this.state === MemberState.Unsubscribed) return;
    if (dueToExpiredPollTimer) {
      this.pollTimerExpired = true;
      this.transitionTo(MemberState.PrepareLeaving);
    }
    this.memberEpoch = this.isStatic ? LEAVE_GROUP_STATIC_MEMBER_EPOCH : LEAVE_GROUP_MEMBER_EPOCH;
    this.current = LocalAssignment.NONE;
    this.transitionTo(MemberState.Leaving);
  }

  private clearAssignment(): void {
    this.current = LocalAssignment.NONE;
    this.target = LocalAssignment.NONE;
    this.assignedNames.clear();
    this.reconciling = null;
    this.rejoinedWhileReconciling = false;
  }

  /** Whether the member takes part in the group now (its epoch counts for commits). */
  hasValidEpoch(): boolean {
    return this.memberEpoch > 0 && !isNotInGroup(this.state) && this.state !== MemberState.Leaving;
  }
}
