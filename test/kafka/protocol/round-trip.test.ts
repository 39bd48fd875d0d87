/**
 * Every request and response body at every version Kafka defines for it: a generated non-trivial
 * body (nested arrays, nulls where nullable, tagged fields set) encodes, decodes back to itself,
 * and re-encodes to the same bytes; an empty body decodes to the schema defaults. Plus the
 * tagged-field rules: unknown tags are skipped, known ones are written only when not default.
 */
import { expect } from 'chai';
import {
  ApiKeys,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  isFlexible,
  schemaVersions,
} from '../../../src/kafka/protocol/index.js';
import { inRange, type FieldSchema, type MessageSchema } from '../../../src/kafka/schemas/format.js';
import { messageSchemas } from '../../../src/kafka/schemas/generated.js';

class Counter {
  n = 0;
  next(): number {
    return ++this.n;
  }
}

function sampleOne(f: FieldSchema, v: number, c: Counter): unknown {
  const n = c.next();
  switch (f.type) {
    case 'struct':
      return sampleStruct(f.fields ?? [], v, c);
    case 'bool':
      return f.tagged !== undefined || n % 2 === 1;
    case 'int8':
      return (n % 200) - 100;
    case 'int16':
      return -((n * 37) % 30000) - 2;
    case 'uint16':
      return 65535 - n;
    case 'int32':
      return n * 100_003 * (n % 2 ? 1 : -1);
    case 'int64':
      return n % 2 ? 2 ** 40 + n : -(2 ** 52) - n;
    case 'float64':
      return n + 0.25;
    case 'string':
      return `s${n}-é✓`;
    case 'bytes':
      return Buffer.from([n & 255, 1, 2, n & 255]);
    case 'records':
      return Buffer.alloc(7 + (n % 5), n & 255);
    case 'uuid': {
      const b = Buffer.alloc(16, n & 255);
      b[0] = 1;
      return b.toString('base64url');
    }
  }
}

function sampleField(f: FieldSchema, v: number, c: Counter): unknown {
  if (inRange(f.nullable, v) && c.next() % 3 === 0) return null;
  if (f.array) return Array.from({ length: f.type === 'struct' ? 2 : 3 }, () => sampleOne(f, v, c));
  return sampleOne(f, v, c);
}

function sampleStruct(fields: readonly FieldSchema[], v: number, c: Counter): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of fields) if (inRange(f.versions, v)) o[f.name] = sampleField(f, v, c);
  return o;
}

/** Only the fields of version `v`, Buffers as hex, for comparison. */
function present(fields: readonly FieldSchema[], v: number, o: unknown): unknown {
  const src = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (!inRange(f.versions, v)) continue;
    const x = src[f.name];
    const one = (e: unknown): unknown =>
      e === null ? null : f.type === 'struct' ? present(f.fields ?? [], v, e) : Buffer.isBuffer(e) ? `hex:${e.toString('hex')}` : e;
    out[f.name] = f.array && x !== null ? (x as unknown[]).map(one) : one(x);
  }
  return out;
}

function encode(m: MessageSchema, v: number, body: object): Buffer {
  return m.kind === 'request'
    ? encodeRequest({ apiKey: m.apiKey, apiVersion: v, correlationId: 1234567, clientId: 'rt-client' }, body)
    : encodeResponse(m.apiKey, v, 1234567, body);
}

function decode(m: MessageSchema, v: number, frame: Buffer): Record<string, unknown> {
  expect(frame.readInt32BE(0)).to.equal(frame.length - 4);
  if (m.kind === 'request') {
    const { header, body } = decodeRequest(frame.subarray(4));
    expect(header).to.deep.equal({ apiKey: m.apiKey, apiVersion: v, correlationId: 1234567, clientId: 'rt-client' });
    return body;
  }
  const { correlationId, body } = decodeResponse(m.apiKey, v, frame.subarray(4));
  expect(correlationId).to.equal(1234567);
  return body;
}

function versionsOf(m: MessageSchema): number[] {
  const out: number[] = [];
  for (let v = m.validVersions[0]; v <= m.validVersions[1]; v++) out.push(v);
  return out;
}

describe('kafka codec round trip', () => {
  it('covers every generated API, requests and responses', () => {
    expect(messageSchemas).to.have.lengthOf(Object.keys(ApiKeys).length * 2);
    for (const key of Object.values(ApiKeys)) {
      expect(messageSchemas.filter((m) => m.apiKey === key).map((m) => m.kind)).to.deep.equal(['request', 'response']);
    }
  });

  for (const m of messageSchemas) {
    describe(m.name, () => {
      it(`every version v${m.validVersions[0]}-v${m.validVersions[1]}: sample body round-trips and re-encodes identically`, () => {
        for (const v of versionsOf(m)) {
          for (let seed = 0; seed < 3; seed++) {
            const c = new Counter();
            c.n = seed;
            const body = sampleStruct(m.fields, v, c);
            const frame = encode(m, v, body);
            const decoded = decode(m, v, frame);
            expect(present(m.fields, v, decoded), `${m.name} v${v} seed ${seed}`).to.deep.equal(present(m.fields, v, body));
            // every schema field is there, in schema order
            expect(Object.keys(decoded)).to.deep.equal(m.fields.map((f) => f.name));
            expect(encode(m, v, decoded).equals(frame), `${m.name} v${v} re-encode`).to.equal(true);
          }
        }
      });

      it('every version: an empty body encodes to defaults and decodes to them', () => {
        for (const v of versionsOf(m)) {
          const frame = encode(m, v, {});
          const decoded = decode(m, v, frame);
          expect(encode(m, v, decoded).equals(frame)).to.equal(true);
        }
      });
    });
  }

  it('fills defaults from the schema for fields the version does not carry', () => {
    const meta = decodeRequest(encodeRequest({ apiKey: ApiKeys.Metadata, apiVersion: 3, correlationId: 1, clientId: null }, { topics: [{ name: 'a' }] }).subarray(4));
    expect(meta.body).to.deep.equal({
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'a' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(meta.header.clientId).to.equal(null);
    const fetch = decodeRequest(encodeRequest({ apiKey: ApiKeys.Fetch, apiVersion: 2, correlationId: 1, clientId: 'c' }, {}).subarray(4));
    expect(fetch.body).to.include({ maxBytes: 0x7fffffff, sessionEpoch: -1, clusterId: null, replicaId: -1, rackId: '' });
    expect(fetch.body.replicaState).to.deep.equal({ replicaId: -1, replicaEpoch: -1 });
    const lo = decodeRequest(encodeRequest({ apiKey: ApiKeys.ListOffsets, apiVersion: 1, correlationId: 1, clientId: 'c' }, { topics: [{ name: 't', partitions: [{}] }] }).subarray(4));
    expect(lo.body.topics[0].partitions[0]).to.deep.equal({ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 0, maxNumOffsets: 1 });
  });

  it('missing fields encode as their defaults (explicit ones honoured)', () => {
    const withDefaults = encodeRequest({ apiKey: ApiKeys.Fetch, apiVersion: 4, correlationId: 9, clientId: 'c' }, {});
    const explicit = encodeRequest(
      { apiKey: ApiKeys.Fetch, apiVersion: 4, correlationId: 9, clientId: 'c' },
      { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 0x7fffffff, isolationLevel: 0, topics: [] },
    );
    expect(withDefaults.equals(explicit)).to.equal(true);
    // ProduceRequest v3: transactionalId defaults to null (int16 -1)
    const produce = encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: 3, correlationId: 9, clientId: null }, {});
    expect(produce.subarray(14).toString('hex')).to.equal('ffff' + '0000' + '00000000' + '00000000');
  });
});

describe('kafka codec tagged fields', () => {
  it('writes a known tagged field only when it is not default', () => {
    const base = { responses: [{ topicId: 'AQEBAQEBAQEBAQEBAQEBAQ', partitions: [{ partitionIndex: 0, records: null }] }] };
    const plain = encodeResponse(ApiKeys.Fetch, 12, 1, base);
    const withDefaults = encodeResponse(ApiKeys.Fetch, 12, 1, {
      responses: [{ ...base.responses[0], partitions: [{ partitionIndex: 0, records: null, divergingEpoch: { epoch: -1, endOffset: -1 }, currentLeader: {} }] }],
      nodeEndpoints: [],
    });
    expect(withDefaults.equals(plain)).to.equal(true);
    const withLeader = encodeResponse(ApiKeys.Fetch, 12, 1, {
      responses: [{ ...base.responses[0], partitions: [{ partitionIndex: 0, records: null, currentLeader: { leaderId: 2 } }] }],
    });
    // tag count 1, tag 1, size 9: leaderId 2, leaderEpoch -1, and the struct's own (empty) tag section
    expect(withLeader.length).to.equal(plain.length + 11);
    expect(withLeader.includes(Buffer.from('0101090000000' + '2ffffffff00', 'hex'))).to.equal(true);
    const decoded = decodeResponse(ApiKeys.Fetch, 12, withLeader.subarray(4)).body;
    expect(decoded.responses[0].partitions[0].currentLeader).to.deep.equal({ leaderId: 2, leaderEpoch: -1 });
    expect(decoded.responses[0].partitions[0].divergingEpoch).to.deep.equal({ epoch: -1, endOffset: -1 });
  });

  it('writes tagged fields in tag order', () => {
    const frame = encodeResponse(ApiKeys.ApiVersions, 3, 5, {
      apiKeys: [],
      zkMigrationReady: true,
      finalizedFeaturesEpoch: 7,
    });
    // header v0: correlationId only; errorCode, empty compact array, throttle, then tags 1 and 3
    expect(frame.subarray(4).toString('hex')).to.equal('00000005' + '0000' + '01' + '00000000' + '02' + '0108' + '0000000000000007' + '030101');
  });

  it('skips unknown tags in the header and the body, and decodes known ones among them', () => {
    const frame = encodeRequest(
      { apiKey: ApiKeys.ApiVersions, apiVersion: 3, correlationId: 1, clientId: 'c' },
      { clientSoftwareName: 'n', clientSoftwareVersion: '1' },
    );
    expect(frame.subarray(4).toString('hex')).to.equal('00120003' + '00000001' + '000163' + '00' + '026e' + '0231' + '00');
    const withUnknown = Buffer.from('00120003' + '00000001' + '000163' + '01' + '0902aabb' + '026e' + '0231' + '02' + '0501cc' + '4000', 'hex');
    expect(decodeRequest(withUnknown).body).to.deep.equal({ clientSoftwareName: 'n', clientSoftwareVersion: '1' });

    const response = encodeResponse(ApiKeys.ApiVersions, 3, 1, { apiKeys: [], finalizedFeaturesEpoch: 7 });
    const body = response.subarray(8, response.length - 11);
    const tags = Buffer.from('02' + '0108' + '0000000000000007' + '0903000102', 'hex');
    const decoded = decodeResponse(ApiKeys.ApiVersions, 3, Buffer.concat([response.subarray(4, 8), body, tags])).body;
    expect(decoded.finalizedFeaturesEpoch).to.equal(7);
    expect(decoded.supportedFeatures).to.deep.equal([]);
  });

  it('versions and flexibility come from the schemas', () => {
    expect(schemaVersions(ApiKeys.Produce)).to.deep.equal({ min: 0, max: 13 });
    expect(schemaVersions(ApiKeys.Fetch)).to.deep.equal({ min: 0, max: 18 });
    expect(schemaVersions(99)).to.equal(undefined);
    expect(isFlexible(ApiKeys.Produce, 8)).to.equal(false);
    expect(isFlexible(ApiKeys.Produce, 9)).to.equal(true);
    expect(isFlexible(ApiKeys.InitProducerId, 2)).to.equal(true);
    expect(isFlexible(99, 9)).to.equal(false);
  });
});
