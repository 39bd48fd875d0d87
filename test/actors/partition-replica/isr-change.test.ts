import { expect } from 'chai';
import type { LeaderAndIsrPartition } from '../../../actors/broker/control-messages.js';
import { isrChangeOutcome } from '../../../actors/partition-replica/isr-change.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const state = (over: Partial<LeaderAndIsrPartition> = {}): LeaderAndIsrPartition => ({
  topic: 't',
  partition: 0,
  topicId: 'id',
  replicas: [1, 2],
  isr: [1, 2],
  leader: 1,
  leaderEpoch: 3,
  partitionEpoch: 5,
  isNew: false,
  config: {},
  ...over,
});

describe('actors/partition-replica/isr-change', () => {
  const outcome = (errorCode: number, st: LeaderAndIsrPartition | null) => isrChangeOutcome(errorCode, st, 1, 3).kind;

  it('committed: success for this leader and epoch, and INVALID_UPDATE_VERSION carrying the current state', () => {
    expect(isrChangeOutcome(ErrorCode.NONE, state(), 1, 3)).to.deep.equal({ kind: 'committed', state: state() });
    expect(outcome(ErrorCode.INVALID_UPDATE_VERSION, state({ partitionEpoch: 7 }))).to.equal('committed');
  });

  it('awaitState: applied under another leader or epoch, or the controller holds a newer state', () => {
    expect(outcome(ErrorCode.NONE, state({ leader: 2, leaderEpoch: 4 }))).to.equal('awaitState');
    expect(outcome(ErrorCode.NONE, state({ leaderEpoch: 4 }))).to.equal('awaitState');
    expect(outcome(ErrorCode.NONE, null)).to.equal('awaitState');
    expect(outcome(ErrorCode.NEW_LEADER_ELECTED, state({ leader: 2, leaderEpoch: 4 }))).to.equal('awaitState');
    expect(outcome(ErrorCode.INVALID_UPDATE_VERSION, null)).to.equal('awaitState');
    expect(outcome(ErrorCode.INVALID_UPDATE_VERSION, state({ leaderEpoch: 4 }))).to.equal('awaitState');
    for (const code of [ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.STALE_BROKER_EPOCH, ErrorCode.BROKER_NOT_AVAILABLE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]) {
      expect(outcome(code, null), String(code)).to.equal('awaitState');
    }
  });

  it('rejected: the controller says it did not apply the change', () => {
    for (const code of [ErrorCode.INELIGIBLE_REPLICA, ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INVALID_REQUEST]) expect(outcome(code, null), String(code)).to.equal('rejected');
  });

  it('retry: anything that leaves the change\'s fate unknown', () => {
    for (const code of [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_CONTROLLER, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.UNKNOWN_SERVER_ERROR]) expect(outcome(code, null), String(code)).to.equal('retry');
  });
});
