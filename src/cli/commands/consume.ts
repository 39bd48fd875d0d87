/**
 * `samsa consume`: prints a topic's records to stdout, one per line (Kafka's console
 * consumer). It joins a consumer group (a generated one without --group, which commits
 * nothing) and stops at --max-messages, when --timeout-ms passes without a record, or on
 * Ctrl-C; stopping commits what was printed (with --group) and leaves the group cleanly.
 */
import { once } from 'node:events';
import { ConsumerConfigError, parseConsumerConfig } from '../../../actors/consumer/consumer-config.js';
import type { Admin } from '../../client/admin.js';
import type { KafkaMessage } from '../../client/consumer.js';
import { keyValues, type Args, type OptionSpec } from '../args.js';
import { requireTopic, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'topic', kind: 'string', value: 't', help: 'the topic to read (required)' },
  { name: 'group', kind: 'string', value: 'g', help: 'the consumer group to join; it resumes from, and commits to, the group\'s offsets (default: a new group that commits nothing)' },
  { name: 'from-beginning', kind: 'flag', help: 'start at the earliest record when the group has no committed offset (default: only new records)' },
  { name: 'max-messages', kind: 'int', value: 'n', min: 1, help: 'stop after n records' },
  { name: 'timeout-ms', kind: 'int', value: 'ms', min: 1, help: 'stop when no record arrives for ms milliseconds (counted from start and from joining the group)' },
  { name: 'print-key', kind: 'flag', help: 'print key<TAB>value (null for a missing key)' },
  { name: 'print-partition', kind: 'flag', help: 'print Partition:n first' },
  { name: 'print-offset', kind: 'flag', help: 'print Offset:n before the key and value' },
  { name: 'isolation-level', kind: 'string', value: 'level', help: 'read_committed to print only records of committed transactions (and records written outside transactions), read_uncommitted to print them all (default: read_uncommitted)' },
  { name: 'consumer-property', kind: 'list', value: 'key=value', help: 'a consumer config such as max.poll.records=100 or partition.assignment.strategy=roundrobin (repeatable)' },
  HELP_OPTION,
];

function consumerConfig(args: Args): Record<string, unknown> {
  const props: Record<string, unknown> = keyValues('consumer-property', args.list('consumer-property'));
  if ('group.id' in props) throw new UsageError('set the group with --group, not --consumer-property group.id=...');
  const isolation = args.string('isolation-level');
  if (isolation !== undefined && 'isolation.level' in props) throw new UsageError('give the isolation level once: --isolation-level or --consumer-property isolation.level=...');
  const group = args.string('group');
  const config: Record<string, unknown> = { ...props, 'group.id': group ?? `samsa-console-consumer-${Math.floor(Math.random() * 100_000)}` };
  // a group made up for one run keeps no offsets
  if (group === undefined && !('enable.auto.commit' in props)) config['enable.auto.commit'] = false;
  if (!('client.id' in props)) config['client.id'] = 'samsa-consume';
  if (isolation !== undefined) config['isolation.level'] = isolation;
  try {
    parseConsumerConfig(config);
  } catch (e) {
    if (e instanceof ConsumerConfigError && e.key === 'isolation.level' && isolation !== undefined) throw new UsageError(`--isolation-level must be read_committed or read_uncommitted, got '${isolation}'`);
    if (e instanceof ConsumerConfigError) throw new UsageError(`--consumer-property ${e.message}`);
    throw e;
  }
  return config;
}

async function deleteGroupQuietly(admin: Admin, groupId: string): Promise<void> {
  try {
    await admin.connect();
    await admin.describeCluster();
    await admin.deleteGroups([groupId]);
  } catch {
    // best effort: an empty group without offsets does no harm
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function run(args: Args): Promise<number> {
  const topic = args.require('topic');
  const config = consumerConfig(args);
  const generated = !args.has('group');
  const max = args.int('max-messages');
  const idleMs = args.int('timeout-ms');
  const fields = (partition: number, m: KafkaMessage): string => {
    const f: string[] = [];
    if (args.has('print-partition')) f.push(`Partition:${partition}`);
    if (args.has('print-offset')) f.push(`Offset:${m.offset}`);
    if (args.has('print-key')) f.push(m.key === null ? 'null' : m.key.toString('utf8'));
    f.push(m.value === null ? 'null' : m.value.toString('utf8'));
    return f.join('\t');
  };

  let count = 0;
  await withCluster(args, 'samsa-consume', async (conn) => {
    requireTopic(await conn.metadata(), topic, conn.servers);
    const consumer = conn.client.consumer(config);

    let finished = false;
    let finish: (why: string) => void = () => undefined;
    const done = new Promise<string>((resolve) => {
      finish = (why) => {
        if (finished) return;
        finished = true;
        resolve(why);
      };
    });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const restartIdle = () => {
      if (idleMs === undefined || finished) return;
      clearTimeout(idle);
      idle = setTimeout(() => finish(`no record for ${idleMs} ms`), idleMs);
    };
    const onSignal = () => finish('interrupted');
    const onStdoutError = (e: NodeJS.ErrnoException) => finish(e.code === 'EPIPE' ? 'output closed' : `output failed: ${e.message}`);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.stdout.on('error', onStdoutError);
    consumer.on('group.join', restartIdle);
    consumer.on('crash', (e) => {
      if (!finished) err(`samsa consume: warning: ${e.message}`);
    });

    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: args.has('from-beginning') });
      restartIdle();
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset }) => {
          for (const m of batch.messages) {
            if (finished) return;
            const more = out(fields(batch.partition, m));
            count++;
            resolveOffset(m.offset);
            restartIdle();
            if (max !== undefined && count >= max) return finish('max');
            if (!more) await Promise.race([once(process.stdout, 'drain'), done]);
          }
        },
      });
      await done;
    } finally {
      clearTimeout(idle);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await consumer.disconnect().catch((e: unknown) => err(`samsa consume: could not leave the group cleanly: ${(e as Error).message}`));
      process.stdout.off('error', onStdoutError);
    }
    // Kafka drops a group once its last member left and it has no offsets; do the same for ours
    if (generated) await deleteGroupQuietly(conn.client.admin(), String(config['group.id']));
  });
  err(`Processed a total of ${count} messages`);
  return EXIT_OK;
}

export const consumeCommand: Command = {
  name: 'consume',
  summary: 'print the records of a topic, one per line',
  usage: ['[--bootstrap-server host:port] --topic t [--group g] [--from-beginning] [--max-messages n] [--timeout-ms ms] [--print-key] [--isolation-level read_committed] [--consumer-property k=v ...]'],
  description:
    "Prints every record's value on its own line, like Kafka's console consumer (key<TAB>value with --print-key; null for a missing key or value). It reads as a member of a consumer group: with --group it starts from the group's committed offsets and commits what it printed when it stops; without, it uses a new group named samsa-console-consumer-<n> that commits nothing. Transaction markers are never printed; with --isolation-level read_committed neither are the records of aborted transactions, and those of an open transaction only once it commits. It runs until --max-messages records were printed, until --timeout-ms passes without one, or until Ctrl-C, then leaves the group and prints a count to stderr. The topic must exist.",
  options,
  examples: [
    'samsa consume --topic orders --from-beginning --max-messages 10 --print-key',
    'samsa consume --topic orders --group billing --timeout-ms 5000',
  ],
  run,
};
