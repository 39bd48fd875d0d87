/**
 * What a failed ask to a partition's replica means for the coordinator that asked it to append
 * (the group, share and transaction coordinators alike): the replica gone or stopped is a
 * leadership lost (NOT_LEADER_OR_FOLLOWER), no answer in time or a full mailbox a timeout
 * (REQUEST_TIMED_OUT); otherwise the failure's own code.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Failure } from '../../src/runtime/types.js';

export function replicaAskFailureCode(r: Failure): number {
  switch (r.reason) {
    case 'unknown-actor':
    case 'actor-stopped':
    case 'actor-crashed':
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    case 'timeout':
    case 'overflow':
      return ErrorCode.REQUEST_TIMED_OUT;
    default:
      return r.errorCode;
  }
}
