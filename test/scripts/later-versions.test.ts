/**
 * scripts/kafka-schemas/later-versions.ts: versions Kafka added after the definitions the schemas
 * are generated from, laid over those definitions. The changes land where Kafka puts them (byte
 * order on the wire), in order, only above the definitions' own highest version; a table that
 * names a field that is not there, or skips a version, stops the generator.
 */
import { expect } from 'chai';
import { LATER_VERSIONS, withLaterVersions } from '../../scripts/kafka-schemas/later-versions.js';
import type { RawMessage } from '../../scripts/kafka-schemas/parse.js';
import { Reader, Writer } from '../../src/kafka/protocol/index.js';
import { bodyCodec } from '../../src/kafka/protocol/registry.js';

function encode(kind: 'request' | 'response', apiKey: number, version: number, body: unknown): Buffer {
  const w = new Writer();
  bodyCodec(kind, apiKey, version).encode(w, body as never);
  return Buffer.from(w.finish());
}

const produceRequest = (validVersions: string): RawMessage => ({
  apiKey: 0,
  type: 'request',
  name: 'ProduceRequest',
  validVersions,
  flexibleVersions: '9+',
  fields: [
    { name: 'Acks', type: 'int16', versions: '0+' },
    {
      name: 'TopicData',
      type: '[]TopicProduceData',
      versions: '0+',
      fields: [
        { name: 'Name', type: 'string', versions: '0+' },
        { name: 'PartitionData', type: '[]PartitionProduceData', versions: '0+', fields: [{ name: 'Index', type: 'int32', versions: '0+' }] },
      ],
    },
  ],
});

describe('kafka schemas: later versions', () => {
  it('lays every later version over older definitions, in order: Produce 11 -> 13 ends the topic name at 12 and puts the topic id right after it', () => {
    const raw = produceRequest('0-11');
    const out = withLaterVersions(raw);
    expect(out.validVersions).to.equal('0-13');
    expect(out.fields[1]!.fields!.map((f) => [f.name, f.type, f.versions])).to.deep.equal([
      ['Name', 'string', '0-12'],
      ['TopicId', 'uuid', '13+'],
      ['PartitionData', '[]PartitionProduceData', '0+'],
    ]);
    // the definitions read are left as they were
    expect(raw.validVersions).to.equal('0-11');
    expect(raw.fields[1]!.fields!.map((f) => f.name)).to.deep.equal(['Name', 'PartitionData']);
  });

  it('leaves definitions that have caught up alone', () => {
    const raw = produceRequest('0-13');
    expect(withLaterVersions(raw)).to.equal(raw);
  });

  it('a change to a field that is not there, or a field added twice, stops the generator', () => {
    const noName = produceRequest('0-11');
    noName.fields[1]!.fields!.shift();
    expect(() => withLaterVersions(noName)).to.throw(/ProduceRequest\.TopicData: no field Name/);
    const twice = produceRequest('0-12');
    twice.fields[1]!.fields!.push({ name: 'TopicId', type: 'uuid', versions: '13+' });
    expect(() => withLaterVersions(twice)).to.throw(/TopicId is there already/);
    const noPath: RawMessage = { ...produceRequest('0-11'), fields: [] };
    expect(() => withLaterVersions(noPath)).to.throw(/no field TopicData/);
  });

  it('adds a field to a message that had none: ListClientMetricsResources 0 -> ListConfigResources 1, its resource types and each resource\'s type', () => {
    const request: RawMessage = { apiKey: 74, type: 'request', name: 'ListClientMetricsResourcesRequest', validVersions: '0', flexibleVersions: '0+', fields: [] };
    const out = withLaterVersions(request);
    expect(out.validVersions).to.equal('0-1');
    expect(out.fields).to.deep.equal([{ name: 'ResourceTypes', type: '[]int8', versions: '1+' }]);
    // on the wire: v0 is an empty body, v1 carries the types, each resource its type after its name
    expect(encode('request', 74, 0, { resourceTypes: [2] }).length).to.equal(1);
    expect([...encode('request', 74, 1, { resourceTypes: [2, 32] })]).to.deep.equal([3, 2, 32, 0]);
    const resources = { throttleTimeMs: 0, errorCode: 0, clientMetricsResources: [{ name: 't', resourceType: 2 }] };
    expect([...encode('response', 74, 1, resources)].slice(6)).to.deep.equal([2, 2, 0x74, 2, 0, 0]);
    expect([...encode('response', 74, 0, resources)].slice(6)).to.deep.equal([2, 2, 0x74, 0, 0]);
  });

  it('the table has no gaps: each api\'s later versions follow one another', () => {
    const byKey = new Map<number, number[]>();
    for (const v of LATER_VERSIONS) byKey.set(v.apiKey, [...(byKey.get(v.apiKey) ?? []), v.version]);
    for (const [key, versions] of byKey) {
      const sorted = [...versions].sort((a, b) => a - b);
      sorted.forEach((v, i) => i > 0 && expect(v, `api ${key}`).to.equal(sorted[i - 1]! + 1));
    }
  });

  it('on the wire: Produce v13 names a topic by id where v12 has its name; ConsumerGroupDescribe v1 ends each member with its type', () => {
    const hex = '0123456789abcdef0123456789abcdef';
    const id = Buffer.from(hex, 'hex').toString('base64url');
    const body = { transactionalId: null, acks: 1, timeoutMs: 100, topicData: [{ name: 't', topicId: id, partitionData: [] }] };
    const v13 = encode('request', 0, 13, body);
    const v12 = encode('request', 0, 12, body);
    // acks, timeout, a null transactional id (1 byte), a compact array of one topic (1 byte)
    const at = 1 + 2 + 4 + 1;
    expect(Buffer.from(v13.subarray(at, at + 16)).toString('hex')).to.equal(hex);
    expect(v13.length - v12.length).to.equal(16 - 2); // a uuid in place of a compact string of 1
    const member = {
      memberId: 'm', instanceId: null, rackId: null, memberEpoch: 3, clientId: 'c', clientHost: '/h',
      subscribedTopicNames: [], subscribedTopicRegex: null,
      assignment: { topicPartitions: [] }, targetAssignment: { topicPartitions: [] }, memberType: 1,
    };
    const group = { errorCode: 0, errorMessage: null, groupId: 'g', groupState: 'Stable', groupEpoch: 1, assignmentEpoch: 1, assignorName: 'uniform', members: [member], authorizedOperations: -2147483648 };
    const v1 = encode('response', 69, 1, { throttleTimeMs: 0, groups: [group] });
    const v0 = encode('response', 69, 0, { throttleTimeMs: 0, groups: [group] });
    expect(v1.length - v0.length).to.equal(1);
    // the member's type is its last field: the byte before its (empty) tagged fields
    const typeAt = v1.indexOf(Buffer.from('/h')) + 2 + 1 + 1 + 2 + 2;
    expect(v1[typeAt]).to.equal(1);
    type Described = { groups: { members: { memberType: number }[] }[] };
    const back = bodyCodec('response', 69, 1).decode(new Reader(v1)) as Described;
    expect(back.groups[0]!.members[0]!.memberType).to.equal(1);
    const old = bodyCodec('response', 69, 0).decode(new Reader(v0)) as Described;
    expect(old.groups[0]!.members[0]!.memberType).to.equal(-1);
  });
});
