/**
 * A transaction of a transactional producer (KIP-98), shaped like KafkaJS's:
 *
 *   const producer = samsa.producer({ transactionalId: 'orders-copier' });
 *   await producer.connect();
 *   const txn = await producer.transaction();
 *   try {
 *     await txn.send({ topic: 'orders', messages: [{ key: 'k', value: 'v' }] });
 *     await txn.sendOffsets({ consumerGroupId: 'copier', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: 42 }] }] });
 *     // or, fencing a consumer the group moved on from (KIP-447):
 *     //   sendOffsets({ consumerGroupMetadata: await consumer.groupMetadata(), topics })
 *     await txn.commit();
 *   } catch (err) {
 *     await txn.abort();
 *     throw err;
 *   }
 *
 * One transaction at a time per producer. Its records reach read_committed consumers only once
 * it commits; its offsets count for the group only then. A failed send makes the transaction
 * abortable: commit() then fails, and abort() must follow. A producer fenced by a newer one with
 * the same transactional id (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH) makes no more transactions.
 */
import type { RecordMetadata, TxnGroupMember } from '../../actors/producer/messages.js';
import type { ConsumerGroupMetadata } from './consumer.js';
import { ErrorCode } from '../protocol/errors.js';
import { assertNever } from '../runtime/assert-never.js';
import { SamsaError } from './errors.js';
import type { ProducerRecordBatch } from './producer.js';

/**
 * The offsets a transaction commits for a consumer group: KafkaJS's sendOffsets argument
 * (consumerGroupId), or with the consumer's groupMetadata() instead, as Kafka's Java producer
 * takes it (KIP-447): then the group coordinator refuses the offsets (ILLEGAL_GENERATION,
 * UNKNOWN_MEMBER_ID) once the group has moved on without that member, and the transaction must
 * be aborted, so a consumer that lost its partitions cannot commit them.
 */
export interface TransactionOffsets {
  consumerGroupId?: string;
  consumerGroupMetadata?: ConsumerGroupMetadata;
  topics: { topic: string; partitions: { partition: number; offset: number | string | bigint; metadata?: string | null }[] }[];
}

/** What a Transaction needs from its producer. */
export interface TransactionPort {
  sendBatch(req: { topicMessages: ProducerRecordBatch[] }): Promise<RecordMetadata[]>;
  sendOffsets(groupId: string, topics: { topic: string; partitions: { partition: number; offset: number; metadata?: string | null }[] }[], member?: TxnGroupMember): Promise<void>;
  end(commit: boolean): Promise<void>;
}

type TransactionState = 'Active' | 'Ending' | 'Committed' | 'Aborted';

export class Transaction {
  private state: TransactionState = 'Active';

  constructor(private readonly port: TransactionPort) {}

  /** True until commit() or abort() has been called. */
  isActive(): boolean {
    return this.state === 'Active';
  }

  send(batch: ProducerRecordBatch): Promise<RecordMetadata[]> {
    return this.sendBatch({ topicMessages: [batch] });
  }

  sendBatch(req: { topicMessages: ProducerRecordBatch[] }): Promise<RecordMetadata[]> {
    const refused = this.refuse('send');
    if (refused) return Promise.reject(refused);
    return this.port.sendBatch(req);
  }

  /** Commits the group's offsets with this transaction (AddOffsetsToTxn, then TxnOffsetCommit). */
  async sendOffsets(offsets: TransactionOffsets): Promise<void> {
    const refused = this.refuse('sendOffsets');
    if (refused) throw refused;
    const topics = offsets.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => {
        const offset = Number(p.offset);
        if (!Number.isSafeInteger(offset) || offset < 0) throw new SamsaError(ErrorCode.INVALID_REQUEST, `sendOffsets: offset ${String(p.offset)} of ${t.topic}-${p.partition} is not a non-negative integer`);
        return p.metadata !== undefined ? { partition: p.partition, offset, metadata: p.metadata } : { partition: p.partition, offset };
      }),
    }));
    const meta = offsets.consumerGroupMetadata;
    const groupId = offsets.consumerGroupId ?? meta?.groupId;
    if (typeof groupId !== 'string' || groupId === '') throw new SamsaError(ErrorCode.INVALID_REQUEST, 'sendOffsets needs a consumerGroupId or consumerGroupMetadata');
    if (meta && meta.groupId !== groupId) throw new SamsaError(ErrorCode.INVALID_REQUEST, `sendOffsets: consumerGroupId '${groupId}' is not the group of consumerGroupMetadata ('${meta.groupId}')`);
    if (!meta) return this.port.sendOffsets(groupId, topics);
    await this.port.sendOffsets(groupId, topics, { generationId: meta.generationId, memberId: meta.memberId, groupInstanceId: meta.groupInstanceId });
  }

  /** Sends every batch of the transaction, then commits it. */
  commit(): Promise<void> {
    return this.end(true);
  }

  /** Aborts the transaction: batches not yet sent are dropped, and read_committed consumers never see its records. */
  abort(): Promise<void> {
    return this.end(false);
  }

  private async end(commit: boolean): Promise<void> {
    const refused = this.refuse(commit ? 'commit' : 'abort');
    if (refused) throw refused;
    this.state = 'Ending';
    try {
      await this.port.end(commit);
      this.state = commit ? 'Committed' : 'Aborted';
    } catch (err) {
      // a commit that failed leaves the transaction to abort; an abort that failed, to try again
      this.state = 'Active';
      throw err;
    }
  }

  private refuse(what: string): SamsaError | null {
    switch (this.state) {
      case 'Active':
        return null;
      case 'Ending':
        return new SamsaError(ErrorCode.INVALID_TXN_STATE, `${what}: the transaction is ending`);
      case 'Committed':
      case 'Aborted':
        return new SamsaError(ErrorCode.INVALID_TXN_STATE, `${what}: the transaction is already ${this.state.toLowerCase()}`);
      default:
        return assertNever(this.state);
    }
  }
}
