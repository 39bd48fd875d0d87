/**
 * Our compact description of a Kafka request/response body: what the wire codec
 * (src/kafka/protocol) needs and nothing more. `generated.ts` holds these descriptions for the
 * APIs we speak, written by scripts/kafka-schemas/generate.ts from Kafka's published message
 * definitions.
 *
 * Version ranges are inclusive `[lowest, highest]`; an open range ("3+") ends at OPEN_END.
 */

/** The highest version an open range ("N+") reaches. */
export const OPEN_END = 0x7fff;

export type VersionRange = readonly [number, number];

export type ScalarType =
  | 'bool'
  | 'int8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'string'
  | 'bytes'
  | 'records'
  | 'uuid';

export type FieldType = ScalarType | 'struct';

/** An explicit default from the schema (absent: the type's zero value, or null when nullable). */
export type FieldDefault = number | string | boolean | null;

export interface FieldSchema {
  /** camelCase property name. */
  readonly name: string;
  readonly type: FieldType;
  /** An array of `type` (of structs when type is 'struct'). */
  readonly array?: true;
  /** Versions in which the field exists. */
  readonly versions: VersionRange;
  /** Versions in which the field may be null. */
  readonly nullable?: VersionRange;
  /** Versions in which the field travels as a tagged field, with this tag. */
  readonly tagged?: VersionRange;
  readonly tag?: number;
  readonly default?: FieldDefault;
  /** Fields of the struct (type 'struct'). */
  readonly fields?: readonly FieldSchema[];
}

export interface MessageSchema {
  /** e.g. 'ProduceRequest'. */
  readonly name: string;
  readonly apiKey: number;
  readonly kind: 'request' | 'response';
  readonly validVersions: VersionRange;
  /** The first flexible version (compact encodings and tagged fields), or -1 for none. */
  readonly flexibleFrom: number;
  readonly fields: readonly FieldSchema[];
}

export function inRange(range: VersionRange | undefined, version: number): boolean {
  return range !== undefined && version >= range[0] && version <= range[1];
}
