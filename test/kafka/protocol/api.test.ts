/**
 * The public surface: api keys and names, header versions (request header v2 and response
 * header v1 exactly when flexible, ApiVersions responses always v0), typed bodies (checked at
 * compile time: `npm test` typechecks this file), narrowing decoded requests, and zero-copy
 * records on decode.
 */
import { expect } from 'chai';
import {
  ApiKeys,
  apiName,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  isRequest,
  type KafkaRequest,
  type MetadataResponse,
  type ProduceRequest,
  type RequestOf,
} from '../../../src/kafka/protocol/index.js';

describe('kafka codec api', () => {
  it('ApiKeys and apiName', () => {
    expect(ApiKeys).to.deep.equal({
      Produce: 0, Fetch: 1, ListOffsets: 2, Metadata: 3, OffsetCommit: 8, OffsetFetch: 9, FindCoordinator: 10,
      JoinGroup: 11, Heartbeat: 12, LeaveGroup: 13, SyncGroup: 14, DescribeGroups: 15, ListGroups: 16, SaslHandshake: 17,
      ApiVersions: 18, CreateTopics: 19, DeleteTopics: 20, DeleteRecords: 21, InitProducerId: 22, OffsetForLeaderEpoch: 23,
      AddPartitionsToTxn: 24, AddOffsetsToTxn: 25, EndTxn: 26, WriteTxnMarkers: 27, TxnOffsetCommit: 28,
      DescribeAcls: 29, CreateAcls: 30, DeleteAcls: 31,
      DescribeConfigs: 32, AlterConfigs: 33, AlterReplicaLogDirs: 34, DescribeLogDirs: 35, SaslAuthenticate: 36, CreatePartitions: 37,
      CreateDelegationToken: 38, RenewDelegationToken: 39, ExpireDelegationToken: 40, DescribeDelegationToken: 41, DeleteGroups: 42, ElectLeaders: 43, IncrementalAlterConfigs: 44,
      AlterPartitionReassignments: 45, ListPartitionReassignments: 46, OffsetDelete: 47, DescribeClientQuotas: 48, AlterClientQuotas: 49,
      DescribeUserScramCredentials: 50, AlterUserScramCredentials: 51, DescribeQuorum: 55, UpdateFeatures: 57,
      DescribeCluster: 60, DescribeProducers: 61, UnregisterBroker: 64, DescribeTransactions: 65, ListTransactions: 66, ConsumerGroupHeartbeat: 68, ConsumerGroupDescribe: 69, GetTelemetrySubscriptions: 71, PushTelemetry: 72, ListClientMetricsResources: 74, DescribeTopicPartitions: 75,
      ShareGroupHeartbeat: 76, ShareGroupDescribe: 77, ShareFetch: 78, ShareAcknowledge: 79,
      AddRaftVoter: 80, RemoveRaftVoter: 81, DescribeShareGroupOffsets: 90, AlterShareGroupOffsets: 91, DeleteShareGroupOffsets: 92,
    });
    expect(apiName(1)).to.equal('Fetch');
    expect(apiName(37)).to.equal('CreatePartitions');
    expect(apiName(17)).to.equal('SaslHandshake');
    expect(apiName(4)).to.equal(undefined);
  });

  it('request header v1 before flexible versions, v2 (with tagged fields) from them', () => {
    const v3 = encodeRequest({ apiKey: ApiKeys.Heartbeat, apiVersion: 3, correlationId: 0x01020304, clientId: 'ab' }, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null });
    expect(v3.toString('hex')).to.equal('00000018' + '000c0003' + '01020304' + '00026162' + '000167' + '00000001' + '00016d' + 'ffff');
    const v4 = encodeRequest({ apiKey: ApiKeys.Heartbeat, apiVersion: 4, correlationId: 0x01020304, clientId: 'ab' }, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null });
    // clientId keeps its int16 length in header v2; then the header's tag section, compact body fields
    expect(v4.toString('hex')).to.equal('00000017' + '000c0004' + '01020304' + '00026162' + '00' + '0267' + '00000001' + '026d' + '00' + '00');
    const nullClient = encodeRequest({ apiKey: ApiKeys.Heartbeat, apiVersion: 4, correlationId: 1, clientId: null }, {});
    expect(nullClient.subarray(12, 15).toString('hex')).to.equal('ffff00');
    expect(decodeRequest(nullClient.subarray(4)).header.clientId).to.equal(null);
  });

  it('response header v0 before flexible versions, v1 from them, and always v0 for ApiVersions', () => {
    expect(encodeResponse(ApiKeys.Heartbeat, 3, 9, { throttleTimeMs: 1, errorCode: 2 }).toString('hex')).to.equal('0000000a' + '00000009' + '00000001' + '0002');
    expect(encodeResponse(ApiKeys.Heartbeat, 4, 9, { throttleTimeMs: 1, errorCode: 2 }).toString('hex')).to.equal('0000000c' + '00000009' + '00' + '00000001' + '0002' + '00');
    const av = encodeResponse(ApiKeys.ApiVersions, 3, 9, { apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] });
    expect(av.toString('hex')).to.equal('00000013' + '00000009' + '0000' + '02' + '0012' + '0000' + '0004' + '00' + '00000000' + '00');
    expect(decodeResponse(ApiKeys.ApiVersions, 3, av.subarray(4)).body.apiKeys).to.deep.equal([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
    const hb = decodeResponse(ApiKeys.Heartbeat, 4, encodeResponse(ApiKeys.Heartbeat, 4, 9, { errorCode: 2 }).subarray(4));
    expect(hb).to.deep.equal({ correlationId: 9, body: { throttleTimeMs: 0, errorCode: 2 } });
  });

  it('bodies are typed by api key', () => {
    const body: Partial<MetadataResponse> = { brokers: [], clusterId: null };
    encodeResponse(ApiKeys.Metadata, 9, 1, body);
    encodeResponse(ApiKeys.Metadata, 9, 1, { brokers: [{ nodeId: 1, host: 'h' }], topics: [{ name: 't', partitions: [{ isrNodes: [1] }] }] });
    // Compile-time only: these lines must fail to typecheck.
    const typeErrors = (): void => {
      // @ts-expect-error: not a field of MetadataResponse
      encodeResponse(ApiKeys.Metadata, 9, 1, { brokerz: [] });
      // @ts-expect-error: port is a number
      encodeResponse(ApiKeys.Metadata, 9, 1, { brokers: [{ port: '9092' }] });
      // @ts-expect-error: acks is a number
      encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: 3, correlationId: 1, clientId: null }, { acks: 'all' });
    };
    expect(typeErrors).to.be.a('function');
    const apiKey: number = ApiKeys.Heartbeat;
    encodeResponse(apiKey, 0, 1, { anything: 'goes when the key is not a literal' });
    encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: 3, correlationId: 1, clientId: null }, { acks: 1 });
    const { body: decoded } = decodeResponse(ApiKeys.Metadata, 9, encodeResponse(ApiKeys.Metadata, 9, 1, body).subarray(4));
    const brokers: MetadataResponse['brokers'] = decoded.brokers;
    expect(brokers).to.deep.equal([]);
  });

  it('decoded requests narrow by api key', () => {
    const frame = encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: 7, correlationId: 1, clientId: 'c' }, { acks: -1, topicData: [{ name: 't', partitionData: [{ index: 0, records: null }] }] });
    const req = decodeRequest(frame.subarray(4));
    if (!isRequest(req, ApiKeys.Produce)) expect.fail('not a produce request');
    const produce: ProduceRequest = req.body;
    expect(produce.topicData[0]!.name).to.equal('t');
    const union = req as KafkaRequest;
    let acks = 0;
    switch (union.header.apiKey) {
      case ApiKeys.Produce: {
        const b: RequestOf<typeof ApiKeys.Produce> = union.body as RequestOf<0>;
        acks = b.acks;
        break;
      }
      default:
        expect.fail('unexpected api');
    }
    expect(acks).to.equal(-1);
  });

  it('records decode as a view of the frame: a 1 MiB produce is not copied', () => {
    const records = Buffer.alloc(1 << 20, 0xab);
    for (const version of [3, 9]) {
      const frame = encodeRequest({ apiKey: ApiKeys.Produce, apiVersion: version, correlationId: 1, clientId: 'c' }, { acks: 1, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] }).subarray(4);
      const body = decodeRequest(frame).body as ProduceRequest;
      const view = body.topicData[0]!.partitionData[0]!.records!;
      expect(view.length).to.equal(1 << 20);
      expect(view.buffer).to.equal(frame.buffer);
      expect(view.byteOffset).to.be.within(frame.byteOffset, frame.byteOffset + frame.length - view.length);
      frame[view.byteOffset - frame.byteOffset] = 0x01;
      expect(view[0]).to.equal(0x01);
    }
  });
});
