/**
 * Readers for configuration values given the way Kafka users give them (numbers or numeric
 * strings, booleans or 'true'/'false'), shared by the producer and consumer configs. Each
 * returns the value or the reason it is not acceptable; the caller names the key.
 */
export type ValueResult<T> = { ok: true; value: T } | { ok: false; message: string };

export function intValue(raw: unknown, min?: number): ValueResult<number> {
  const v = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) return { ok: false, message: `expected an integer, got ${JSON.stringify(raw)}` };
  if (min !== undefined && v < min) return { ok: false, message: `${v} is not valid: must be >= ${min}` };
  return { ok: true, value: v };
}

export function stringValue(raw: unknown): ValueResult<string> {
  return typeof raw === 'string' && raw.length > 0 ? { ok: true, value: raw } : { ok: false, message: 'must be a non-empty string' };
}

export function boolValue(raw: unknown): ValueResult<boolean> {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
  return { ok: false, message: `must be true or false, got ${JSON.stringify(raw)}` };
}
