/**
 * `samsa delete-records`: deletes the records of partitions below an offset, like Kafka's
 * kafka-delete-records tool (DeleteRecordsCommand), through the admin client's deleteRecords:
 * reads Kafka's offset JSON file ({"partitions":[{"topic":..,"partition":..,"offset":..}],
 * "version":1}, offset -1 the high watermark), refuses a malformed one or one naming a partition
 * twice with Kafka's messages, and prints each partition's new low watermark or its error as
 * Kafka's tool does.
 */
import fs from 'node:fs';
import type { DeleteRecordsResult } from '../../client/admin.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  {
    name: 'offset-json-file',
    kind: 'string',
    value: 'file',
    help: 'the JSON file with the offset per partition: {"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version": 1} (offset -1: the high watermark)',
  },
  HELP_OPTION,
];

/** A partition and the offset its records are deleted below. */
export interface RecordsToDelete {
  topic: string;
  partition: number;
  offset: number;
}

/** Jackson's text of a JSON value, as Kafka's messages quote it. */
function shown(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(o: Record<string, unknown>, name: string): unknown {
  if (!(name in o)) throw new CliError(`No such field exists: \`${name}\``);
  return o[name];
}

const isInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31;
const isLong = (v: unknown): v is number => Number.isSafeInteger(v);

/**
 * Kafka's offset JSON (version 1, the default when absent), with its messages for what is wrong
 * (CliError: the file is read before connecting); a partition named twice is refused naming
 * every such partition, in the order they first appear.
 */
export function parseOffsetJson(text: string): RecordsToDelete[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CliError('The input string is not a valid JSON');
  }
  if (!isObject(doc)) throw new CliError(`Expected JSON object, received ${shown(doc)}`);
  let version = 1;
  if ('version' in doc) {
    if (!isInt(doc.version)) throw new CliError(`Expected \`Int\` value, received ${shown(doc.version)}`);
    version = doc.version;
  }
  if (version !== 1) throw new CliError(`Not supported version field value ${version}`);
  if (!('partitions' in doc)) throw new CliError('Missing partitions field');
  if (!Array.isArray(doc.partitions)) throw new CliError(`Expected JSON array, received ${shown(doc.partitions)}`);
  const entries = doc.partitions.map((e: unknown): RecordsToDelete => {
    if (!isObject(e)) throw new CliError(`Expected JSON object, received ${shown(e)}`);
    const topic = field(e, 'topic');
    if (typeof topic !== 'string') throw new CliError(`Expected \`String\` value, received ${shown(topic)}`);
    const partition = field(e, 'partition');
    if (!isInt(partition)) throw new CliError(`Expected \`Int\` value, received ${shown(partition)}`);
    const offset = field(e, 'offset');
    if (!isLong(offset)) throw new CliError(`Expected \`Long\` value, received ${shown(offset)}`);
    return { topic, partition, offset };
  });
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(`${e.topic}-${e.partition}`, (counts.get(`${e.topic}-${e.partition}`) ?? 0) + 1);
  const twice = [...counts].filter(([, n]) => n > 1).map(([name]) => name);
  if (twice.length > 0) throw new CliError(`Offset json file contains duplicate topic partitions: ${twice.join(',')}`);
  return entries;
}

/** Kafka's result lines: `partition: t-p<TAB>low_watermark: N`, or `partition: t-p<TAB>error: ...`. */
export function resultLines(results: readonly DeleteRecordsResult[]): string[] {
  return results.map((r) => {
    const name = `${r.topic}-${r.partition}`;
    if (r.errorCode === ErrorCode.NONE) return `partition: ${name}\tlow_watermark: ${r.lowWatermark}`;
    const info = errorInfo(r.errorCode);
    return `partition: ${name}\terror: ${info.name}: ${r.errorMessage ?? info.message}`;
  });
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function run(args: Args): Promise<number> {
  const file = args.string('offset-json-file');
  if (file === undefined) throw new UsageError('--offset-json-file is required: the JSON file with the offset per partition');
  const asked = parseOffsetJson(readFile(file));
  const results = await withCluster(args, 'samsa-delete-records', async (conn) =>
    withAdmin(conn, async (admin) => {
      out('Executing records delete operation');
      const r = await admin.deleteRecords(asked);
      out('Records delete operation completed:');
      return r;
    }),
  );
  for (const line of resultLines(results)) out(line);
  return results.some((r) => r.errorCode !== ErrorCode.NONE) ? EXIT_FAILURE : EXIT_OK;
}

export const deleteRecordsCommand: Command = {
  name: 'delete-records',
  summary: 'delete the records of partitions below an offset (their log start moves there)',
  usage: ['[--bootstrap-server host:port] --offset-json-file file'],
  description:
    "Deletes the records of each partition of the file below its offset, as Kafka's kafka-delete-records does: the partition's leader moves its log start there (offset -1: the high watermark, so every record goes) and deletes the segments wholly below it; followers follow. An offset below the log start deletes nothing. Prints per partition its new log start (`partition: orders-0<TAB>low_watermark: 42`) or why it was refused (OFFSET_OUT_OF_RANGE above the high watermark, UNKNOWN_TOPIC_OR_PARTITION, POLICY_VIOLATION on a compacted topic, ...), in the file's order.\n\nThe file is Kafka's: {\"partitions\": [{\"topic\": \"orders\", \"partition\": 0, \"offset\": 42}], \"version\": 1}. A malformed file, or one naming a partition twice, is refused before anything is deleted (exit 1, with Kafka's messages). Exits 1 too when a partition was refused, the others' records deleted.",
  options,
  examples: ['samsa delete-records --offset-json-file delete.json'],
  run,
};
