import { expect } from 'chai';
import { ErrorCode, allErrors, errorInfo, errorName, isRetriable } from '../../src/protocol/errors.js';

describe('protocol/errors', () => {
  it('uses Kafka\'s numeric codes', () => {
    expect(ErrorCode.NONE).to.equal(0);
    expect(ErrorCode.OFFSET_OUT_OF_RANGE).to.equal(1);
    expect(ErrorCode.CORRUPT_MESSAGE).to.equal(2);
    expect(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).to.equal(3);
    expect(ErrorCode.LEADER_NOT_AVAILABLE).to.equal(5);
    expect(ErrorCode.NOT_LEADER_OR_FOLLOWER).to.equal(6);
    expect(ErrorCode.REQUEST_TIMED_OUT).to.equal(7);
    expect(ErrorCode.NOT_COORDINATOR).to.equal(16);
    expect(ErrorCode.NOT_ENOUGH_REPLICAS).to.equal(19);
    expect(ErrorCode.ILLEGAL_GENERATION).to.equal(22);
    expect(ErrorCode.UNKNOWN_MEMBER_ID).to.equal(25);
    expect(ErrorCode.REBALANCE_IN_PROGRESS).to.equal(27);
    expect(ErrorCode.TOPIC_ALREADY_EXISTS).to.equal(36);
    expect(ErrorCode.NON_EMPTY_GROUP).to.equal(68);
    expect(ErrorCode.FENCED_LEADER_EPOCH).to.equal(74);
    expect(ErrorCode.MEMBER_ID_REQUIRED).to.equal(79);
    expect(ErrorCode.UNSTABLE_OFFSET_COMMIT).to.equal(88);
  });

  it('has unique codes and names', () => {
    const all = allErrors();
    expect(new Set(all.map((e) => e.code)).size).to.equal(all.length);
    expect(new Set(all.map((e) => e.name)).size).to.equal(all.length);
  });

  it('marks retriable codes like Kafka', () => {
    expect(isRetriable(ErrorCode.NOT_LEADER_OR_FOLLOWER)).to.equal(true);
    expect(isRetriable(ErrorCode.REQUEST_TIMED_OUT)).to.equal(true);
    expect(isRetriable(ErrorCode.TOPIC_ALREADY_EXISTS)).to.equal(false);
    expect(isRetriable(ErrorCode.ILLEGAL_GENERATION)).to.equal(false);
  });

  it('describes unknown codes without throwing', () => {
    expect(errorName(12345)).to.equal('UNKNOWN_ERROR_12345');
    expect(errorInfo(12345).retriable).to.equal(false);
  });
});
