/**
 * The replica fetcher's boundary schema: partitions to add or remove and fetch results with
 * malformed entries are refused instead of crashing the fetcher (found by
 * test/transport/actor-message-fuzz.test.ts).
 */
import { expect } from 'chai';
import { replicaFetcher } from '../../../actors/broker/replica-fetcher.js';
import { validateMessage, type ActorDefinition } from '../../../src/runtime/actor-definition.js';
import type { Message } from '../../../src/runtime/types.js';

const check = (msg: Record<string, unknown>) => validateMessage(replicaFetcher as unknown as ActorDefinition<unknown, Message, unknown>, msg as unknown as Message);
const tracked = { topic: 't', partition: 0, fetchOffset: 0, lastFetchedEpoch: -1, currentLeaderEpoch: 2 };

describe('broker/replica-fetcher: boundary schema', () => {
  it('AddPartitions and RemovePartitions take only partition entries', () => {
    expect(check({ type: 'AddPartitions', partitions: [tracked] })).to.equal(null);
    expect(check({ type: 'AddPartitions', partitions: [null, tracked] })).to.match(/partitions\[0\] is required/);
    expect(check({ type: 'RemovePartitions', partitions: [{ topic: 't', partition: 0 }] })).to.equal(null);
    expect(check({ type: 'RemovePartitions', partitions: [{ topic: 't', partition: 1e-9 }] })).to.match(/partitions\[0\]\.partition must be integer/);
  });

  it('FetchResult: a response (a Failure has no partitions) and what was sent', () => {
    const sent = [{ key: 't-0', leaderEpoch: 2 }];
    expect(check({ type: 'FetchResult', response: { type: 'Failure', errorCode: 7, reason: 'timeout', message: 'x' }, sent })).to.equal(null);
    expect(check({ type: 'FetchResult', sent: [] })).to.match(/response is required/);
    const pr = { topic: 't', partition: 0, errorCode: 0, records: new Uint8Array(0), highWatermark: 0, logStartOffset: 0 };
    expect(check({ type: 'FetchResult', response: { type: 'FetchResponse', errorCode: 0, partitions: [pr] }, sent })).to.equal(null);
    expect(check({ type: 'FetchResult', response: { type: 'FetchResponse', errorCode: 0, partitions: [{ ...pr, records: null }] }, sent })).to.match(/records is required/);
  });
});
