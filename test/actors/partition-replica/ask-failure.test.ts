import { expect } from 'chai';
import { replicaAskFailureCode } from '../../../actors/partition-replica/ask-failure.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { Failure } from '../../../src/runtime/types.js';

const failure = (reason: string, errorCode: number = ErrorCode.UNKNOWN_SERVER_ERROR): Failure => ({ type: 'Failure', reason, errorCode, message: reason }) as unknown as Failure;

describe('actors/partition-replica/ask-failure', () => {
  it('a replica gone, stopped or crashed is a leadership lost', () => {
    for (const reason of ['unknown-actor', 'actor-stopped', 'actor-crashed']) expect(replicaAskFailureCode(failure(reason)), reason).to.equal(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  });

  it('no answer in time or a full mailbox is a timeout', () => {
    for (const reason of ['timeout', 'overflow']) expect(replicaAskFailureCode(failure(reason)), reason).to.equal(ErrorCode.REQUEST_TIMED_OUT);
  });

  it("anything else keeps the failure's own code", () => {
    expect(replicaAskFailureCode(failure('invalid-message', ErrorCode.INVALID_REQUEST))).to.equal(ErrorCode.INVALID_REQUEST);
  });
});
