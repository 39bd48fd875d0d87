/**
 * The message schemas by api key, and their compiled codecs: each (message, version) is compiled
 * the first time it is used and cached.
 */
import { inRange, type MessageSchema } from '../schemas/format.js';
import { ApiKeys, messageSchemas } from '../schemas/generated.js';
import { compileStruct, type StructCodec } from './compile.js';
import { KafkaCodecError } from './errors.js';

const requests = new Map<number, MessageSchema>();
const responses = new Map<number, MessageSchema>();
for (const m of messageSchemas) (m.kind === 'request' ? requests : responses).set(m.apiKey, m);

const names = new Map<number, string>(Object.entries(ApiKeys).map(([name, key]) => [key, name]));

/** The name of an api key ('Produce', 'Fetch', ...), or undefined for a key we do not speak. */
export function apiName(apiKey: number): string | undefined {
  return names.get(apiKey);
}

/** The versions of `apiKey` we can decode and encode, or undefined for an unknown api. */
export function schemaVersions(apiKey: number): { min: number; max: number } | undefined {
  const m = requests.get(apiKey);
  return m === undefined ? undefined : { min: m.validVersions[0], max: m.validVersions[1] };
}

function flexibleIn(m: MessageSchema, version: number): boolean {
  return m.flexibleFrom >= 0 && version >= m.flexibleFrom;
}

/** Whether `version` of `apiKey` is flexible (compact encodings, tagged fields, header v2/v1). */
export function isFlexible(apiKey: number, version: number): boolean {
  const m = requests.get(apiKey);
  return m !== undefined && flexibleIn(m, version);
}

export interface BodyCodec extends StructCodec {
  readonly schema: MessageSchema;
  readonly version: number;
  readonly flexible: boolean;
}

const compiled = new Map<MessageSchema, (BodyCodec | undefined)[]>();

/** The codec of the request or response body of `apiKey` at `version`; throws for unknown ones. */
export function bodyCodec(kind: 'request' | 'response', apiKey: number, version: number): BodyCodec {
  const schema = (kind === 'request' ? requests : responses).get(apiKey);
  if (schema === undefined) throw new KafkaCodecError('unknown-api', `api key ${apiKey} is not supported`);
  if (!inRange(schema.validVersions, version)) {
    const [min, max] = schema.validVersions;
    throw new KafkaCodecError('unsupported-version', `${schema.name} v${version} (supported: v${min}-v${max})`);
  }
  let byVersion = compiled.get(schema);
  if (byVersion === undefined) compiled.set(schema, (byVersion = []));
  let codec = byVersion[version];
  if (codec === undefined) {
    const flexible = flexibleIn(schema, version);
    codec = { ...compileStruct(schema.fields, version, flexible), schema, version, flexible };
    byVersion[version] = codec;
  }
  return codec;
}
