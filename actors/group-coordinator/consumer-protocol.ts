/**
 * Kafka's ConsumerProtocol: the bytes a consumer puts in JoinGroup's protocol metadata (its
 * Subscription) and the bytes the leader hands each member through SyncGroup (its Assignment),
 * for the "consumer" protocol type. Layout as Kafka's (non-flexible, big-endian): an int16
 * version header, then
 *
 *   Subscription v0: topics [string], userData nullable bytes
 *                v1: + ownedPartitions [{ topic string, partitions [int32] }]
 *                v2: + generationId int32 (-1 when unknown)
 *                v3: + rackId nullable string
 *   Assignment v0-v3: partitions [{ topic string, partitions [int32] }], userData nullable bytes
 *
 * where [x] is an int32 count then the elements, string is an int16 byte length then UTF-8,
 * bytes an int32 length then the bytes (-1 for null). A version above the highest known one is
 * read as the highest known one (newer versions only append fields), as Kafka does; bytes after
 * the known fields are ignored. Truncated or malformed input throws ConsumerProtocolError.
 */

export const CONSUMER_PROTOCOL_TYPE = 'consumer';
export const SUBSCRIPTION_MAX_VERSION = 3;
export const ASSIGNMENT_MAX_VERSION = 3;
/** Kafka's "no generation" marker in Subscription v2+. */
export const DEFAULT_GENERATION = -1;

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Partitions of one topic, as the protocol groups them on the wire. */
export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface Subscription {
  version: number;
  topics: string[];
  userData: Uint8Array | null;
  /** v1+: the partitions the member owned in its last generation. */
  ownedPartitions: TopicPartitions[];
  /** v2+: the generation of ownedPartitions, DEFAULT_GENERATION when unknown. */
  generationId: number;
  /** v3+: the member's rack. */
  rackId: string | null;
}

/** What encodeSubscription takes: missing fields get Kafka's defaults, version the highest. */
export interface SubscriptionInput {
  version?: number;
  topics: readonly string[];
  userData?: Uint8Array | null;
  ownedPartitions?: readonly TopicPartitions[];
  generationId?: number;
  rackId?: string | null;
}

export interface Assignment {
  version: number;
  partitions: TopicPartitions[];
  userData: Uint8Array | null;
}

export interface AssignmentInput {
  version?: number;
  partitions: readonly TopicPartitions[];
  userData?: Uint8Array | null;
}

/** Bytes that are not a valid Subscription or Assignment, or values that cannot be encoded. */
export class ConsumerProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsumerProtocolError';
  }
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const INT16_MAX = 0x7fff;

// ---------------------------------------------------------------------------------------------
// Writing

class Writer {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  int16(v: number): this {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setInt16(0, v);
    return this.push(b);
  }

  int32(v: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v);
    return this.push(b);
  }

  string(v: string, what: string): this {
    const b = utf8Encoder.encode(v);
    if (b.length > INT16_MAX) {
      throw new ConsumerProtocolError(`${what} is ${b.length} bytes long, above the maximum of ${INT16_MAX}`);
    }
    return this.int16(b.length).push(b);
  }

  nullableString(v: string | null, what: string): this {
    return v === null ? this.int16(-1) : this.string(v, what);
  }

  nullableBytes(v: Uint8Array | null): this {
    return v === null ? this.int32(-1) : this.int32(v.length).push(v);
  }

  topicPartitions(list: readonly TopicPartitions[], what: string): this {
    this.int32(list.length);
    for (const { topic, partitions } of list) {
      this.string(topic, `${what} topic name`);
      this.int32(partitions.length);
      for (const p of partitions) {
        checkInt32(p, `${what} partition of ${topic}`);
        this.int32(p);
      }
    }
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  private push(b: Uint8Array): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }
}

function checkInt32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) {
    throw new ConsumerProtocolError(`${what} must be a 32-bit integer, got ${v}`);
  }
}

function checkVersion(version: number, what: string): void {
  if (!Number.isInteger(version) || version < 0 || version > INT16_MAX) {
    throw new ConsumerProtocolError(`${what} version must be an integer in [0, ${INT16_MAX}], got ${version}`);
  }
}

/**
 * Encodes a Subscription. Fields the version does not have are left out (Kafka marks them
 * ignorable), so a v0 subscription carries neither owned partitions nor generation.
 */
export function encodeSubscription(s: SubscriptionInput): Uint8Array {
  const version = s.version ?? SUBSCRIPTION_MAX_VERSION;
  checkVersion(version, 'Subscription');
  const w = new Writer().int16(version).int32(s.topics.length);
  for (const topic of s.topics) w.string(topic, 'Subscription topic name');
  w.nullableBytes(s.userData ?? null);
  if (version >= 1) w.topicPartitions(s.ownedPartitions ?? [], 'Subscription owned');
  if (version >= 2) {
    const generationId = s.generationId ?? DEFAULT_GENERATION;
    checkInt32(generationId, 'Subscription generationId');
    w.int32(generationId);
  }
  if (version >= 3) w.nullableString(s.rackId ?? null, 'Subscription rackId');
  return w.finish();
}

/** Encodes an Assignment (the same layout in every version). */
export function encodeAssignment(a: AssignmentInput): Uint8Array {
  const version = a.version ?? ASSIGNMENT_MAX_VERSION;
  checkVersion(version, 'Assignment');
  return new Writer()
    .int16(version)
    .topicPartitions(a.partitions, 'Assignment')
    .nullableBytes(a.userData ?? null)
    .finish();
}

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
  private offset = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number, field: string): void {
    const left = this.bytes.length - this.offset;
    if (left < n) {
      throw new ConsumerProtocolError(
        `Truncated ${this.what}: ${field} needs ${n} bytes at offset ${this.offset}, only ${left} left`,
      );
    }
  }

  int16(field: string): number {
    this.need(2, field);
    const v = this.view.getInt16(this.offset);
    this.offset += 2;
    return v;
  }

  int32(field: string): number {
    this.need(4, field);
    const v = this.view.getInt32(this.offset);
    this.offset += 4;
    return v;
  }

  nullableString(field: string): string | null {
    const at = this.offset;
    const len = this.int16(`${field} length`);
    if (len === -1) return null;
    if (len < 0) throw new ConsumerProtocolError(`Malformed ${this.what}: ${field} has length ${len} at offset ${at}`);
    this.need(len, field);
    const raw = this.bytes.subarray(this.offset, this.offset + len);
    this.offset += len;
    try {
      return utf8Decoder.decode(raw);
    } catch {
      throw new ConsumerProtocolError(`Malformed ${this.what}: ${field} at offset ${at} is not valid UTF-8`);
    }
  }

  string(field: string): string {
    const at = this.offset;
    const s = this.nullableString(field);
    if (s === null) throw new ConsumerProtocolError(`Malformed ${this.what}: ${field} at offset ${at} is null`);
    return s;
  }

  /** A copy, so the result does not pin or alias the input buffer. */
  nullableBytes(field: string): Uint8Array | null {
    const at = this.offset;
    const len = this.int32(`${field} length`);
    if (len === -1) return null;
    if (len < 0) throw new ConsumerProtocolError(`Malformed ${this.what}: ${field} has length ${len} at offset ${at}`);
    this.need(len, field);
    const out = this.bytes.slice(this.offset, this.offset + len);
    this.offset += len;
    return out;
  }

  /** An array count; each element takes at least `minElementSize` bytes, checked up front. */
  count(field: string, minElementSize: number): number {
    const at = this.offset;
    const n = this.int32(`${field} count`);
    if (n < 0) throw new ConsumerProtocolError(`Malformed ${this.what}: ${field} count is ${n} at offset ${at}`);
    this.need(n * minElementSize, `${field} (${n} elements)`);
    return n;
  }

  topicPartitions(field: string): TopicPartitions[] {
    const n = this.count(field, 6);
    const out: TopicPartitions[] = [];
    for (let i = 0; i < n; i++) {
      const topic = this.string(`${field}[${i}] topic`);
      const m = this.count(`${field}[${i}] partitions`, 4);
      const partitions: number[] = [];
      for (let j = 0; j < m; j++) partitions.push(this.int32(`${field}[${i}] partition`));
      out.push({ topic, partitions });
    }
    return out;
  }
}

export function decodeSubscription(bytes: Uint8Array): Subscription {
  const r = new Reader(bytes, 'consumer Subscription');
  const version = r.int16('version');
  if (version < 0) throw new ConsumerProtocolError(`Malformed consumer Subscription: version ${version}`);
  const n = r.count('topics', 2);
  const topics: string[] = [];
  for (let i = 0; i < n; i++) topics.push(r.string(`topics[${i}]`));
  const userData = r.nullableBytes('userData');
  const ownedPartitions = version >= 1 ? r.topicPartitions('ownedPartitions') : [];
  const generationId = version >= 2 ? r.int32('generationId') : DEFAULT_GENERATION;
  const rackId = version >= 3 ? r.nullableString('rackId') : null;
  return { version, topics, userData, ownedPartitions, generationId, rackId };
}

/**
 * Decodes an Assignment. Zero bytes are "no assignment" (what a member gets when the leader
 * assigned it nothing) and decode to an empty version 0 assignment.
 */
export function decodeAssignment(bytes: Uint8Array): Assignment {
  if (bytes.length === 0) return { version: 0, partitions: [], userData: null };
  const r = new Reader(bytes, 'consumer Assignment');
  const version = r.int16('version');
  if (version < 0) throw new ConsumerProtocolError(`Malformed consumer Assignment: version ${version}`);
  const partitions = r.topicPartitions('partitions');
  const userData = r.nullableBytes('userData');
  return { version, partitions, userData };
}

// ---------------------------------------------------------------------------------------------
// Helpers between the wire grouping and flat topic-partition lists

/** Groups topic-partitions by topic, topics in order of first appearance. */
export function groupByTopic(list: readonly TopicPartition[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of list) {
    let ps = byTopic.get(topic);
    if (!ps) byTopic.set(topic, (ps = []));
    ps.push(partition);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/** Flattens grouped partitions into topic-partitions, in order. */
export function flattenTopicPartitions(list: readonly TopicPartitions[]): TopicPartition[] {
  return list.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
}
