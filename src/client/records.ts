/**
 * Conversions at the client edge: strings become UTF-8 bytes, headers given as an object become
 * Kafka's ordered header list.
 */
export type Bytesish = string | Uint8Array;

export interface Message {
  key?: Bytesish | null;
  value: Bytesish | null;
  /** Header values may repeat keys by passing an array. */
  headers?: Record<string, Bytesish | null | (Bytesish | null)[]>;
  partition?: number;
  /** Milliseconds since the epoch (number or numeric string); defaults to now. */
  timestamp?: number | string;
}

export function toBytes(v: Bytesish): Uint8Array {
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

export function toBytesOrNull(v: Bytesish | null | undefined): Uint8Array | null {
  return v === null || v === undefined ? null : toBytes(v);
}

export function toHeaderList(h: Message['headers']): { key: string; value: Uint8Array | null }[] | undefined {
  if (!h) return undefined;
  const out: { key: string; value: Uint8Array | null }[] = [];
  for (const [key, v] of Object.entries(h)) {
    for (const one of Array.isArray(v) ? v : [v]) out.push({ key, value: toBytesOrNull(one) });
  }
  return out;
}
