/**
 * Transaction markers: the control batches (attributes: transactional and control) a partition
 * leader writes when a transaction ends (Kafka's EndTransactionMarker). One record whose key is
 * int16 version (0) and int16 type (0 ABORT, 1 COMMIT) and whose value is int16 version (0) and
 * int32 coordinator epoch. The batch carries the transaction's producer id and epoch.
 */
import { CONTROL_FLAG_MASK, TRANSACTIONAL_FLAG_MASK, attributesOf } from './batch-header.js';
import { decodeRecordBatch, encodeRecordBatch } from './record-batch.js';

export const ControlType = Object.freeze({ ABORT: 0, COMMIT: 1 } as const);
export type ControlTypeValue = (typeof ControlType)[keyof typeof ControlType];

export interface TxnMarker {
  producerId: number;
  producerEpoch: number;
  type: ControlTypeValue;
  coordinatorEpoch: number;
  timestamp: number;
}

const CURRENT_CONTROL_VERSION = 0;

export class ControlRecordError extends Error {
  override readonly name = 'ControlRecordError';
}

/** The marker batch (offsets and leader epoch are the leader's to assign). */
export function encodeTxnMarker(m: TxnMarker): Buffer {
  if (m.type !== ControlType.ABORT && m.type !== ControlType.COMMIT) throw new ControlRecordError(`unknown transaction marker type ${String(m.type)}`);
  const key = Buffer.alloc(4);
  key.writeInt16BE(CURRENT_CONTROL_VERSION, 0);
  key.writeInt16BE(m.type, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(CURRENT_CONTROL_VERSION, 0);
  value.writeInt32BE(m.coordinatorEpoch, 2);
  return encodeRecordBatch({
    transactional: true,
    control: true,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    records: [{ key, value, timestamp: m.timestamp }],
  });
}

/** Whether the batch at `pos` is a control batch. */
export function isControlBatch(buf: Uint8Array, pos: number): boolean {
  return (attributesOf(buf, pos) & CONTROL_FLAG_MASK) !== 0;
}

/** Whether the batch at `pos` belongs to a transaction (its data or its marker). */
export function isTransactionalBatch(buf: Uint8Array, pos: number): boolean {
  return (attributesOf(buf, pos) & TRANSACTIONAL_FLAG_MASK) !== 0;
}

/**
 * The transaction marker in the control batch at `pos`: its type and coordinator epoch. A control
 * record of a newer version or an unknown type is reported as null (Kafka skips control records
 * it does not know).
 */
export function readTxnMarker(buf: Uint8Array, pos: number): { type: ControlTypeValue; coordinatorEpoch: number } | null {
  const b = decodeRecordBatch(buf, pos);
  const r = b.records[0];
  const key = r?.key;
  if (!key || key.length < 4) throw new ControlRecordError(`control batch at offset ${b.baseOffset} has no control record key`);
  if (key.readInt16BE(0) !== CURRENT_CONTROL_VERSION) return null;
  const type = key.readInt16BE(2);
  if (type !== ControlType.ABORT && type !== ControlType.COMMIT) return null;
  const value = r.value;
  const coordinatorEpoch = value && value.length >= 6 ? value.readInt32BE(2) : -1;
  return { type, coordinatorEpoch };
}

/** The marker type a decoded control record's key names, or null (not a marker this version knows). */
export function txnMarkerTypeOfKey(key: Uint8Array | null): ControlTypeValue | null {
  if (!key || key.length < 4) return null;
  const view = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  if (view.readInt16BE(0) !== CURRENT_CONTROL_VERSION) return null;
  const type = view.readInt16BE(2);
  return type === ControlType.ABORT || type === ControlType.COMMIT ? type : null;
}

/** The marker type of the control batch at `pos` (see readTxnMarker). */
export function txnMarkerTypeAt(buf: Uint8Array, pos: number): ControlTypeValue | null {
  return readTxnMarker(buf, pos)?.type ?? null;
}
