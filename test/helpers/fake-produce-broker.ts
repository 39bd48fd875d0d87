/**
 * A broker for producer tests: answers Metadata (one broker, topic 't' with partitions 0 and 1)
 * and InitProducerId, and holds each Produce until told to Release it (offsets counted per
 * partition), or answers the next ones with an error (FailNext). Seen reports what each request
 * carried.
 */
import type { BrokerProduceResponse, ProducePartition, ProducePartitionResult } from '../../actors/broker/messages.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';
import { entryRecords } from '../../src/protocol/batch-parts.js';
import { decodeRecordBatches } from '../../src/protocol/record-batch.js';
import { defineActor, type ReplyToken } from '../../src/runtime/actor-definition.js';

export interface SeenPartition {
  topic: string;
  partition: number;
  bytes: number;
  /** Buffers the entry came as (a list of batches, or 1), records per batch, every value in order. */
  parts: number;
  batchSizes: number[];
  values: string[];
}

interface HeldProduce {
  token: ReplyToken | undefined;
  partitions: ProducePartition[];
}

interface FakeBroker {
  held: HeldProduce[];
  /** Metadata requests answered. */
  metadataAsks: number;
  /** Error codes to answer the next Produce requests with (every partition), in turn. */
  failures: number[];
  seen: SeenPartition[][];
  /** Next offset per partition key. */
  next: Map<string, number>;
}

export type FakeBrokerMsg =
  | { type: 'Metadata' }
  | { type: 'InitProducerId' }
  | { type: 'Produce'; acks: number; timeoutMs: number; partitions: ProducePartition[] }
  | { type: 'Release' }
  | { type: 'FailNext'; errorCode: number }
  | { type: 'Seen' };

const METADATA: ClusterMetadata = {
  clusterId: 'fake',
  controllerNode: 'n1',
  controllerEpoch: 1,
  brokers: [{ brokerId: 1, node: 'n1', rack: null, fenced: false, brokerEpoch: 1 }],
  topics: [
    {
      name: 't',
      topicId: 'tid',
      internal: false,
      config: {},
      partitions: [0, 1].map((p) => ({ topic: 't', partition: p, replicas: [1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 })),
    },
  ],
};

export const fakeBroker = defineActor<FakeBroker, FakeBrokerMsg>({
  kind: 'fake-broker',
  init: () => ({ held: [], metadataAsks: 0, failures: [], seen: [], next: new Map() }),
  supervision: 'resume',
  handlers: {
    Metadata: (s, _m, ctx) => {
      s.metadataAsks++;
      ctx.reply({ type: 'MetadataResponse', errorCode: 0, metadata: METADATA } as never);
    },
    InitProducerId: (_s, _m, ctx) => ctx.reply({ type: 'InitProducerIdResult', errorCode: 0, producerId: 42, producerEpoch: 0 } as never),
    Produce: (s, m, ctx) => {
      const failure = s.failures.shift();
      if (failure !== undefined) {
        const partitions = m.partitions.map((pp) => ({ topic: pp.topic, partition: pp.partition, errorCode: failure, errorMessage: 'failed', baseOffset: -1, logAppendTime: -1, logStartOffset: -1 }));
        return ctx.reply({ type: 'BrokerProduceResponse', errorCode: 0, partitions } satisfies BrokerProduceResponse);
      }
      s.seen.push(
        m.partitions.map((pp) => {
          const records = entryRecords(pp.records);
          const batches = decodeRecordBatches(records);
          return {
            topic: pp.topic,
            partition: pp.partition,
            bytes: records.length,
            parts: Array.isArray(pp.records) ? pp.records.length : 1,
            batchSizes: batches.map((b) => b.records.length),
            values: batches.flatMap((b) => b.records.map((r) => String(r.value))),
          };
        }),
      );
      s.held.push({ token: ctx.deferReply(), partitions: m.partitions });
    },
    Release: (s, _m, ctx) => {
      for (const h of s.held.splice(0)) {
        const partitions: ProducePartitionResult[] = h.partitions.map((pp) => {
          const key = `${pp.topic}-${pp.partition}`;
          const base = s.next.get(key) ?? 0;
          const n = decodeRecordBatches(entryRecords(pp.records)).reduce((k, b) => k + b.records.length, 0);
          s.next.set(key, base + n);
          return { topic: pp.topic, partition: pp.partition, errorCode: 0, errorMessage: null, baseOffset: base, logAppendTime: -1, logStartOffset: 0 };
        });
        if (h.token) ctx.replyTo(h.token, { type: 'BrokerProduceResponse', errorCode: 0, partitions } satisfies BrokerProduceResponse);
      }
    },
    FailNext: (s, m) => {
      s.failures.push(m.errorCode);
    },
    Seen: (s, _m, ctx) => ctx.reply({ type: 'Seen', seen: s.seen, held: s.held.length, metadataAsks: s.metadataAsks } as never),
  },
});

