/**
 * The states of a consumer that is a member of a KIP-848 consumer group (group.protocol
 * consumer), as Kafka 4.0's MemberState, with the states each may be entered from and an
 * asserting check. Pure data: membership.ts moves between them.
 *
 *   UNSUBSCRIBED --subscribe--> JOINING --assignment--> RECONCILING --done--> ACKNOWLEDGING
 *        ^                        ^  |                     ^   |                  |
 *        |                        |  +--same assignment--> STABLE <--ack sent-----+
 *        |                        |                        (a new assignment: RECONCILING)
 *        |                      FENCED <-- UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH in any state in the group
 *        |                        (partitions released, no commit, then JOINING again)
 *        +-- LEAVING <-- PREPARE_LEAVING <-- close (partitions committed and released)
 *   STALE <-- LEAVING (max.poll.interval.ms passed: left, partitions lost; JOINING on the next poll)
 *   FATAL <-- a fatal heartbeat error, from any state but FENCED and STALE; nothing follows it
 */

export enum MemberState {
  /** Not in the group: no subscription yet, or it left. No heartbeats. */
  Unsubscribed = 'UNSUBSCRIBED',
  /** Heartbeating with epoch 0 until the coordinator answers with an epoch and an assignment. */
  Joining = 'JOINING',
  /** Making a new assignment effective: commit, revoke what went, add what came. */
  Reconciling = 'RECONCILING',
  /** The assignment is effective: the next heartbeat, sent at once, reports it. */
  Acknowledging = 'ACKNOWLEDGING',
  /** In the group with everything it was given; heartbeats every interval. */
  Stable = 'STABLE',
  /** The coordinator fenced it: partitions are released without a commit, then it joins again. */
  Fenced = 'FENCED',
  /** Closing: processed offsets are committed and partitions released before the leave. */
  PrepareLeaving = 'PREPARE_LEAVING',
  /** The next heartbeat, sent at once, leaves the group (epoch -1, a static member -2). */
  Leaving = 'LEAVING',
  /** A fatal error: no more requests, nothing follows. */
  Fatal = 'FATAL',
  /** It left because max.poll.interval.ms passed without a poll; the next poll joins again. */
  Stale = 'STALE',
}

const S = MemberState;

/** For each state, the states it may be entered from (Kafka's previousValidStates). */
export const validPreviousMemberStates: Readonly<Record<MemberState, ReadonlySet<MemberState>>> = Object.freeze({
  [S.Unsubscribed]: new Set([S.PrepareLeaving, S.Leaving, S.Fenced]),
  [S.Joining]: new Set([S.Fenced, S.Unsubscribed, S.Stale]),
  [S.Reconciling]: new Set([S.Stable, S.Joining, S.Acknowledging, S.Reconciling]),
  [S.Acknowledging]: new Set([S.Reconciling]),
  [S.Stable]: new Set([S.Joining, S.Acknowledging, S.Reconciling]),
  [S.Fenced]: new Set([S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.PrepareLeaving, S.Leaving]),
  [S.PrepareLeaving]: new Set([S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.Unsubscribed]),
  [S.Leaving]: new Set([S.PrepareLeaving]),
  [S.Fatal]: new Set([S.Joining, S.Stable, S.Reconciling, S.Acknowledging, S.PrepareLeaving, S.Leaving, S.Unsubscribed]),
  [S.Stale]: new Set([S.Leaving]),
});

/** Staying in a state is always allowed; otherwise `to` must list `from`. */
export function isValidMemberTransition(from: MemberState, to: MemberState): boolean {
  return from === to || validPreviousMemberStates[to].has(from);
}

/** A transition the table forbids: a bug in the caller, never a bad answer from the coordinator. */
export class IllegalMemberTransition extends Error {
  override name = 'IllegalMemberTransition';
  constructor(
    readonly from: MemberState,
    readonly to: MemberState,
  ) {
    super(`illegal member state transition ${from} -> ${to} (${to} may follow only ${[...validPreviousMemberStates[to]].join(', ')})`);
  }
}

/** States in which a new assignment from the coordinator is taken (those RECONCILING may follow). */
export function canHandleNewAssignment(state: MemberState): boolean {
  return validPreviousMemberStates[S.Reconciling].has(state);
}

/** States in which the consumer is not a member and sends no heartbeat. */
export function isNotInGroup(state: MemberState): boolean {
  return state === S.Unsubscribed || state === S.Fenced || state === S.Fatal || state === S.Stale;
}
