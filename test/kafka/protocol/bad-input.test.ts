/**
 * Malformed frames: decodeRequest/decodeResponse must throw KafkaCodecError with the right reason
 * (truncated at every byte, negative and huge lengths, unknown api, unsupported version, bytes
 * after the body), carrying the request header once it was readable; encoders reject bodies
 * they cannot write.
 */
import { expect } from 'chai';
import {
  ApiKeys,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  peekRequestHeader,
  type RequestHeader,
} from '../../../src/kafka/protocol/index.js';
import { expectCodecError } from './helpers.js';

function requestFrame(apiKey: number, apiVersion: number, body: object, clientId: string | null = 'client-1'): Buffer {
  const header: RequestHeader = { apiKey, apiVersion, correlationId: 77, clientId };
  return encodeRequest(header, body).subarray(4);
}

const samples: [string, Buffer][] = [
  [
    'Produce v3',
    requestFrame(ApiKeys.Produce, 3, {
      transactionalId: 'tx',
      acks: -1,
      timeoutMs: 30000,
      topicData: [{ name: 'events', partitionData: [{ index: 0, records: Buffer.alloc(20, 7) }, { index: 1, records: null }] }],
    }),
  ],
  [
    'Produce v9 (flexible)',
    requestFrame(ApiKeys.Produce, 9, {
      acks: 1,
      timeoutMs: 100,
      topicData: [{ name: 'events', partitionData: [{ index: 3, records: Buffer.alloc(5, 1) }] }],
    }),
  ],
  [
    'Fetch v15 (flexible, tagged replicaState)',
    requestFrame(ApiKeys.Fetch, 15, {
      replicaState: { replicaId: 2, replicaEpoch: 5 },
      maxWaitMs: 500,
      topics: [{ topicId: 'AQEBAQEBAQEBAQEBAQEBAQ', partitions: [{ partition: 0, fetchOffset: 42, partitionMaxBytes: 1 << 20 }] }],
      rackId: 'r1',
    }),
  ],
  ['Metadata v12', requestFrame(ApiKeys.Metadata, 12, { topics: [{ name: 'a' }, { name: null, topicId: 'AQEBAQEBAQEBAQEBAQEBAQ' }] })],
  ['JoinGroup v5', requestFrame(ApiKeys.JoinGroup, 5, { groupId: 'g', memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 2]) }] })],
  ['ApiVersions v3', requestFrame(ApiKeys.ApiVersions, 3, { clientSoftwareName: 'samsa', clientSoftwareVersion: '0.1.0' })],
];

describe('kafka codec bad input', () => {
  it('peekRequestHeader reads the first 8 bytes and needs them', () => {
    const frame = samples[0]![1];
    expect(peekRequestHeader(frame)).to.deep.equal({ apiKey: 0, apiVersion: 3, correlationId: 77 });
    for (let n = 0; n < 8; n++) expectCodecError(() => peekRequestHeader(frame.subarray(0, n)), 'truncated');
  });

  for (const [name, frame] of samples) {
    it(`${name}: decodes whole, and is truncated when cut at any byte`, () => {
      expect(decodeRequest(frame).header.correlationId).to.equal(77);
      for (let n = 0; n < frame.length; n++) {
        const err = expectCodecError(() => decodeRequest(frame.subarray(0, n)), 'truncated');
        if (n >= 8) expect(err.correlationId).to.equal(77);
      }
    });

    it(`${name}: bytes after the body are invalid`, () => {
      const err = expectCodecError(() => decodeRequest(Buffer.concat([frame, Buffer.from([0])])), 'invalid');
      expect(err.message).to.match(/1 bytes left after/);
      expect([err.apiKey, err.apiVersion, err.correlationId]).to.deep.equal([frame.readInt16BE(0), frame.readInt16BE(2), 77]);
    });
  }

  it('unknown api keys', () => {
    for (const key of [5, 99, -1, 4]) {
      const frame = Buffer.from(requestFrame(ApiKeys.Heartbeat, 0, {}));
      frame.writeInt16BE(key, 0);
      const err = expectCodecError(() => decodeRequest(frame), 'unknown-api');
      expect([err.apiKey, err.correlationId]).to.deep.equal([key, 77]);
    }
    expectCodecError(() => encodeResponse(5, 0, 1, {}), 'unknown-api');
    expectCodecError(() => decodeResponse(99, 0, Buffer.alloc(8)), 'unknown-api');
  });

  it('versions outside validVersions are unsupported', () => {
    for (const [key, version] of [[ApiKeys.Produce, 14], [ApiKeys.Fetch, 19], [ApiKeys.ApiVersions, 5], [ApiKeys.Metadata, -1], [ApiKeys.Heartbeat, 0x7fff]] as const) {
      const frame = Buffer.from(requestFrame(key, 0, {}));
      frame.writeInt16BE(version, 2);
      const err = expectCodecError(() => decodeRequest(frame), 'unsupported-version');
      expect([err.apiKey, err.apiVersion]).to.deep.equal([key, version]);
    }
    expectCodecError(() => encodeResponse(ApiKeys.Produce, 14, 1, {}), 'unsupported-version');
    expectCodecError(() => encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: 14, correlationId: 1, clientId: null }, {}), 'unsupported-version');
  });

  it('negative lengths other than -1 are invalid, and -1 where the field is not nullable', () => {
    // Heartbeat v0: groupId string, generationId int32, memberId string
    const hb = (groupLen: number) => {
      const b = Buffer.from(requestFrame(ApiKeys.Heartbeat, 0, { groupId: 'g', generationId: 1, memberId: 'm' }));
      b.writeInt16BE(groupLen, 8 + 2 + 'client-1'.length);
      return b;
    };
    expectCodecError(() => decodeRequest(hb(-1)), 'invalid');
    expectCodecError(() => decodeRequest(hb(-2)), 'invalid');
    expectCodecError(() => decodeRequest(hb(-32768)), 'invalid');
    // client id: nullable, -1 is fine; -2 is not
    const noClient = requestFrame(ApiKeys.Heartbeat, 0, {}, null);
    expect(decodeRequest(noClient).header.clientId).to.equal(null);
    const badClient = Buffer.from(noClient);
    badClient.writeInt16BE(-2, 8);
    expectCodecError(() => decodeRequest(badClient), 'invalid');
    // DescribeGroups v0: groups []string, -1 is not allowed; Metadata v1: topics nullable, -1 is null
    const dg = Buffer.from(requestFrame(ApiKeys.DescribeGroups, 0, { groups: [] }));
    dg.writeInt32BE(-1, dg.length - 4);
    expectCodecError(() => decodeRequest(dg), 'invalid');
    dg.writeInt32BE(-7, dg.length - 4);
    expectCodecError(() => decodeRequest(dg), 'invalid');
    const md = Buffer.from(requestFrame(ApiKeys.Metadata, 1, { topics: [] }));
    md.writeInt32BE(-1, md.length - 4);
    expect(decodeRequest(md).body.topics).to.equal(null);
    // JoinGroup v0 protocol metadata: bytes, not nullable
    const jg = Buffer.from(requestFrame(ApiKeys.JoinGroup, 0, { protocols: [{ name: 'p', metadata: Buffer.alloc(0) }] }));
    jg.writeInt32BE(-1, jg.length - 4);
    expectCodecError(() => decodeRequest(jg), 'invalid');
    jg.writeInt32BE(-100, jg.length - 4);
    expectCodecError(() => decodeRequest(jg), 'invalid');
    // flexible: compact string 0 means null, not allowed for a non-nullable one
    const hb4 = Buffer.from(requestFrame(ApiKeys.Heartbeat, 4, { groupId: '' }));
    expect(hb4[8 + 2 + 'client-1'.length + 1]).to.equal(1);
    hb4[8 + 2 + 'client-1'.length + 1] = 0;
    expectCodecError(() => decodeRequest(hb4), 'invalid');
  });

  it('huge lengths are truncated, without allocating', () => {
    const dg = Buffer.from(requestFrame(ApiKeys.DescribeGroups, 0, { groups: [] }));
    dg.writeInt32BE(0x7fffffff, dg.length - 4);
    expectCodecError(() => decodeRequest(dg), 'truncated');
    const jg = Buffer.from(requestFrame(ApiKeys.JoinGroup, 0, { protocols: [{ name: 'p', metadata: Buffer.alloc(0) }] }));
    jg.writeInt32BE(0x7fffffff, jg.length - 4);
    expectCodecError(() => decodeRequest(jg), 'truncated');
    const hb = Buffer.from(requestFrame(ApiKeys.Heartbeat, 0, { groupId: 'g' }));
    hb.writeInt16BE(0x7fff, 8 + 2 + 'client-1'.length);
    expectCodecError(() => decodeRequest(hb), 'truncated');
    // flexible: a compact array length of 2^32-1 (5-byte varint) in DescribeGroups v5
    const dg5 = requestFrame(ApiKeys.DescribeGroups, 5, { groups: [] });
    const header = dg5.subarray(0, dg5.length - 3);
    expect(dg5.subarray(dg5.length - 3).toString('hex')).to.equal('010000');
    const huge = Buffer.concat([header, Buffer.from('ffffffff0f0000', 'hex')]);
    expectCodecError(() => decodeRequest(huge), 'truncated');
    const overlong = Buffer.concat([header, Buffer.from('ffffffffff0f0000', 'hex')]);
    expectCodecError(() => decodeRequest(overlong), 'invalid');
  });

  it('response frames: truncation, trailing bytes', () => {
    const frame = encodeResponse(ApiKeys.Metadata, 9, 5, {
      brokers: [{ nodeId: 1, host: 'h', port: 9092, rack: null }],
      clusterId: 'c',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicaNodes: [1], isrNodes: [1] }] }],
    }).subarray(4);
    expect(decodeResponse(ApiKeys.Metadata, 9, frame).correlationId).to.equal(5);
    for (let n = 0; n < frame.length; n++) expectCodecError(() => decodeResponse(ApiKeys.Metadata, 9, frame.subarray(0, n)), 'truncated');
    expectCodecError(() => decodeResponse(ApiKeys.Metadata, 9, Buffer.concat([frame, Buffer.alloc(2)])), 'invalid');
  });

  it('encoders reject bodies they cannot write', () => {
    expectCodecError(() => encodeResponse(ApiKeys.Heartbeat, 0, 1, { errorCode: 70000 }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.ListGroups, 0, 1, { groups: [{ groupId: 'x'.repeat(40000) }] }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.ListGroups, 0, 1, { groups: [{ groupId: null as unknown as string }] }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.ListGroups, 0, 1, { groups: null as unknown as [] }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.Metadata, 10, 1, { topics: [{ topicId: 'nope' }] }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.SyncGroup, 0, 1, { assignment: 'abc' as unknown as Buffer }), 'invalid');
    expectCodecError(() => encodeResponse(ApiKeys.Produce, 0, 1, { responses: [{ partitionResponses: [{ baseOffset: 0.5 }] }] }), 'invalid');
    const err = expectCodecError(() => encodeResponse(ApiKeys.Heartbeat, 0, 31, { errorCode: 70000 }), 'invalid');
    expect([err.apiKey, err.apiVersion, err.correlationId]).to.deep.equal([ApiKeys.Heartbeat, 0, 31]);
  });
});
