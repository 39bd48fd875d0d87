/**
 * `samsa share-consume`: prints a topic's records to stdout as a member of a share group (KIP-932),
 * like Kafka 4.2's kafka-console-share-consumer. Each record is acknowledged once printed: accepted
 * (the default), or rejected (--reject) or released (--release). It stops at --max-messages, when
 * --timeout-ms passes without a record, or on Ctrl-C; stopping commits the acknowledgements and
 * closes the share consumer, which gives every record it still holds back to the group.
 */
import { once } from 'node:events';
import { ShareConsumerConfigError, parseShareConsumerConfig } from '../../../actors/share-consumer/share-consumer-config.js';
import type { ClusterMetadata } from '../../protocol/cluster.js';
import type { ShareAcknowledgeType, ShareRecord } from '../../client/share-consumer.js';
import { keyValues, type Args, type OptionSpec } from '../args.js';
import { requireTopic, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { err, out, plural } from '../output.js';
import { readPropertiesFile } from '../properties.js';

/** Kafka's default share group of the console share consumer. */
export const DEFAULT_GROUP = 'console-share-consumer';
const CLIENT_ID = 'samsa-share-consume';
/** The longest a poll waits, so that an idle timeout and the first assignment are seen in time. */
const POLL_MS = 500;
/** max.poll.records' default: --max-messages below it asks for no more than it prints. */
const MAX_POLL_RECORDS = 500;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'topic', kind: 'string', value: 't', help: 'the topic to read (required)' },
  { name: 'group', kind: 'string', value: 'g', help: `the share group to read as (default: ${DEFAULT_GROUP}, as Kafka's); group.id in --consumer-property or --command-config must name the same` },
  { name: 'max-messages', kind: 'int', value: 'n', min: 1, help: 'stop after n records' },
  { name: 'timeout-ms', kind: 'int', value: 'ms', min: 1, help: 'stop when no record arrives for ms milliseconds (counted from start and from the first assignment)' },
  { name: 'reject', kind: 'flag', help: 'reject every record printed (archived: never delivered again) instead of accepting it' },
  { name: 'release', kind: 'flag', help: 'release every record printed instead of accepting it: it is delivered again (to this run too), its delivery count one higher, until share.delivery.count.limit archives it' },
  { name: 'reject-message-on-error', kind: 'flag', help: 'reject a record whose printing fails and go on, instead of stopping (the record then goes back to the group)' },
  { name: 'print-timestamp', kind: 'flag', help: 'print CreateTime:ms (LogAppendTime:ms for a topic of message.timestamp.type LogAppendTime) first' },
  { name: 'print-partition', kind: 'flag', help: 'print Partition:n' },
  { name: 'print-offset', kind: 'flag', help: 'print Offset:n' },
  { name: 'print-delivery', kind: 'flag', help: 'print Delivery:n, how many times the record has been delivered (1 the first time)' },
  { name: 'print-headers', kind: 'flag', help: 'print the headers as k:v,k:v (NO_HEADERS for none)' },
  { name: 'print-key', kind: 'flag', help: 'print the key before the value (null for a missing key)' },
  { name: 'consumer-property', kind: 'list', value: 'key=value', help: 'a share consumer config such as max.poll.records=100 or fetch.max.wait.ms=200 (repeatable)' },
  { name: 'command-property', kind: 'list', value: 'key=value', help: "the same as --consumer-property (Kafka 4.2's name); not with it" },
  { name: 'command-config', kind: 'string', value: 'file', help: 'a .properties file of share consumer configs; --consumer-property takes precedence' },
  { name: 'consumer-config', kind: 'string', value: 'file', help: "the same as --command-config (Kafka's older name); not with it" },
  { name: 'enable-systest-events', kind: 'flag', help: 'print shutdown_complete to stdout once the share consumer is closed (for system tests)' },
  HELP_OPTION,
];

/** One of two options naming the same thing (Kafka 4.2's new and old names); both is a usage error. */
function eitherOf(args: Args, a: string, b: string): string | undefined {
  if (args.has(a) && args.has(b)) throw new UsageError(`Options --${b} and --${a} cannot be specified together.`);
  return args.has(a) ? a : args.has(b) ? b : undefined;
}

/** The share consumer's config from the command line: explicit acknowledgement, one group id. */
export function shareConsumerConfig(args: Args): Record<string, unknown> {
  const propOption = eitherOf(args, 'command-property', 'consumer-property') ?? 'consumer-property';
  const fileOption = eitherOf(args, 'command-config', 'consumer-config');
  const fromFile: Record<string, string> = fileOption ? readPropertiesFile(fileOption, args.string(fileOption)!) : {};
  const props: Record<string, string> = keyValues(propOption, args.list(propOption));

  // the group id may come from three places; they must agree (Kafka's message)
  const groups = new Set<string>();
  const group = args.string('group');
  if (group !== undefined) groups.add(group);
  if ('group.id' in fromFile) groups.add(fromFile['group.id']!);
  if ('group.id' in props) groups.add(props['group.id']!);
  if (groups.size > 1) {
    throw new UsageError(
      `The group ids provided in different places (directly using '--group', via '--${propOption}', or via '--${fileOption ?? 'command-config'}') do not match. Detected group ids: ${[...groups].map((g) => `'${g}'`).join(', ')}`,
    );
  }
  const config: Record<string, unknown> = { ...fromFile, ...props, 'group.id': groups.values().next().value ?? DEFAULT_GROUP };
  const where = (key: string) => (key in props ? `--${propOption}` : key in fromFile ? `--${fileOption} ${args.string(fileOption!)}:` : '--group');
  const mode = config['share.acknowledgement.mode'];
  if (mode !== undefined && String(mode).toLowerCase() !== 'explicit') {
    throw new UsageError(`${where('share.acknowledgement.mode')} share.acknowledgement.mode=${String(mode)}: samsa share-consume acknowledges each record itself (explicit); leave it out`);
  }
  config['share.acknowledgement.mode'] = 'explicit';
  if (!('client.id' in config)) config['client.id'] = CLIENT_ID;
  // records acquired and not printed go back at close with their delivery count spent: ask for no more
  const max = args.int('max-messages');
  if (max !== undefined && !('max.poll.records' in config)) config['max.poll.records'] = Math.min(max, MAX_POLL_RECORDS);
  try {
    parseShareConsumerConfig(config);
  } catch (e) {
    if (e instanceof ShareConsumerConfigError) throw new UsageError(`${where(e.key)} ${e.message}`);
    throw e;
  }
  return config;
}

/** The timestamp's label, Kafka's TimestampType name: from the topic's message.timestamp.type, else the cluster-wide one. */
function timestampLabel(md: ClusterMetadata, topic: ClusterMetadata['topics'][number]): string {
  const type = topic.config['message.timestamp.type'] ?? md.brokerConfigs?.['']?.['log.message.timestamp.type'];
  return type === 'LogAppendTime' ? 'LogAppendTime' : 'CreateTime';
}

/** A record as one line: Kafka's DefaultMessageFormatter's fields in its order, tab-separated. */
export function formatRecord(r: ShareRecord, f: { timestamp?: string; partition?: boolean; offset?: boolean; delivery?: boolean; headers?: boolean; key?: boolean }): string {
  const text = (b: Buffer | null) => (b === null ? 'null' : b.toString('utf8'));
  const fields: string[] = [];
  if (f.timestamp !== undefined) fields.push(`${f.timestamp}:${r.timestamp}`);
  if (f.partition) fields.push(`Partition:${r.partition}`);
  if (f.offset) fields.push(`Offset:${r.offset}`);
  if (f.delivery) fields.push(`Delivery:${r.deliveryCount}`);
  if (f.headers) {
    const hs = Object.entries(r.headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}:${text(x)}`));
    fields.push(hs.length === 0 ? 'NO_HEADERS' : hs.join(','));
  }
  if (f.key) fields.push(text(r.key));
  fields.push(text(r.value));
  return fields.join('\t');
}

async function run(args: Args): Promise<number> {
  const topic = args.require('topic');
  if (args.has('reject') && args.has('release')) throw new UsageError('At most one of --reject and --release may be specified.');
  const config = shareConsumerConfig(args);
  const ackType: ShareAcknowledgeType = args.has('reject') ? 'reject' : args.has('release') ? 'release' : 'accept';
  const rejectOnError = args.has('reject-message-on-error');
  const max = args.int('max-messages');
  const idleMs = args.int('timeout-ms');

  await withCluster(args, CLIENT_ID, async (conn) => {
    const md = await conn.metadata();
    const t = requireTopic(md, topic, conn.servers);
    const format = {
      ...(args.has('print-timestamp') ? { timestamp: timestampLabel(md, t) } : {}),
      partition: args.has('print-partition'),
      offset: args.has('print-offset'),
      delivery: args.has('print-delivery'),
      headers: args.has('print-headers'),
      key: args.has('print-key'),
    };
    const consumer = conn.client.shareConsumer(config);
    let count = 0;

    let stopped: string | null = null;
    let wake: () => void = () => undefined;
    const stopping = new Promise<void>((resolve) => (wake = resolve));
    const finish = (why: string) => {
      if (stopped !== null) return;
      stopped = why;
      consumer.wakeup();
      wake();
    };
    const onSignal = () => finish('interrupted');
    const onStdoutError = (e: NodeJS.ErrnoException) => finish(e.code === 'EPIPE' ? 'output closed' : `output failed: ${e.message}`);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.stdout.on('error', onStdoutError);

    try {
      await consumer.subscribe([topic]);
      let deadline = idleMs === undefined ? Infinity : Date.now() + idleMs;
      let assigned = false;
      while (stopped === null) {
        const records = await consumer.poll(Math.max(0, Math.min(deadline - Date.now(), POLL_MS)));
        if (records.length === 0) {
          // the idle clock starts again once the member has partitions, as consume's does once it joined
          if (!assigned && idleMs !== undefined && stopped === null && (await consumer.describe()).assignment.length > 0) {
            assigned = true;
            deadline = Date.now() + idleMs;
          }
          if (Date.now() >= deadline) finish(`no record for ${idleMs} ms`);
          continue;
        }
        for (const r of records) {
          // those left unacknowledged go back to the group when the consumer closes
          if (stopped !== null) break;
          count++;
          let more = true;
          try {
            more = out(formatRecord(r, format));
            consumer.acknowledge(r, ackType);
          } catch (e) {
            if (!rejectOnError) throw e;
            err(`samsa share-consume: ${r.topic}-${r.partition} offset ${r.offset} could not be printed (${(e as Error).message}); rejecting it`);
            consumer.acknowledge(r, 'reject');
          }
          if (max !== undefined && count >= max) finish('max');
          else if (!more) await Promise.race([once(process.stdout, 'drain'), stopping]);
        }
        if (idleMs !== undefined) deadline = Date.now() + idleMs;
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        const failed = (await consumer.commitSync()).filter((res) => res.error !== null);
        for (const f of failed) err(`samsa share-consume: warning: the acknowledgements of ${plural(f.offsets.length, 'record')} of ${f.topic}-${f.partition} failed: ${f.error!.message}`);
      } catch (e) {
        err(`samsa share-consume: warning: could not commit the acknowledgements: ${(e as Error).message}`);
      }
      await consumer.close().catch((e: unknown) => err(`samsa share-consume: could not leave the share group cleanly: ${(e as Error).message}`));
      process.stdout.off('error', onStdoutError);
      err(`Processed a total of ${count} messages`);
      if (args.has('enable-systest-events')) out('shutdown_complete');
    }
  });
  return EXIT_OK;
}

export const shareConsumeCommand: Command = {
  name: 'share-consume',
  summary: 'print the records of a topic as a member of a share group (KIP-932), acknowledging each',
  usage: [
    '[--bootstrap-server host:port] --topic t [--group g] [--max-messages n] [--timeout-ms ms] [--reject | --release] [--reject-message-on-error] [--print-timestamp] [--print-partition] [--print-offset] [--print-delivery] [--print-headers] [--print-key] [--consumer-property k=v ...] [--command-config file] [--enable-systest-events]',
  ],
  description:
    `Reads a topic as a member of a share group, like Kafka's kafka-console-share-consumer: the group hands each record to one member at a time, so several runs of the same group share the records between them. Every record's value is printed on its own line (null for a missing value; the --print-* options add fields before it, tab-separated, in Kafka's order) and, once printed, acknowledged: accepted, or with --reject rejected (archived, never delivered again) or with --release released (delivered again). The group is ${DEFAULT_GROUP} unless --group names another; where a new group starts reading is its share.auto.offset.reset config (latest by default: \`samsa configs --alter --group g --add-config share.auto.offset.reset=earliest\` reads from the start).\n\n` +
    'It runs until --max-messages records were printed, until --timeout-ms passes without one, or until Ctrl-C, then commits the acknowledgements, closes the share consumer (the records it holds and did not print go back to the group at once) and prints a count to stderr. With --max-messages below 500 and no max.poll.records of its own, it acquires no more records per poll than it may print. The topic must exist.',
  options,
  examples: [
    'samsa share-consume --topic orders --group billing --max-messages 10 --print-key --print-delivery',
    'samsa share-consume --topic orders --group billing --release --timeout-ms 5000',
  ],
  run,
};
