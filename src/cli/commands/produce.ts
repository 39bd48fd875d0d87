/**
 * `samsa produce`: reads lines from stdin and sends each as a record (Kafka's console
 * producer). With --key-separator a line is key and value split at the first separator. Lines
 * go out in batches as they arrive; at end of input (or on Ctrl-C) the producer flushes and a
 * one-line summary goes to stderr.
 */
import readline from 'node:readline';
import { ProducerConfigError, parseProducerConfig } from '../../../actors/producer/producer-config.js';
import type { Message } from '../../client/records.js';
import { keyValues, type Args, type OptionSpec } from '../args.js';
import { requireTopic, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError, explain } from '../errors.js';
import { err, plural } from '../output.js';

/** Lines per send; a smaller batch goes out as soon as the lines read so far are handled. */
const BATCH_LINES = 1_000;
/** Sends awaiting acknowledgement before reading pauses. */
const MAX_IN_FLIGHT = 8;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'topic', kind: 'string', value: 't', help: 'the topic to write to (required)' },
  { name: 'key-separator', kind: 'string', value: 'sep', help: 'split every line into key and value at the first sep (a line without it is an error)' },
  { name: 'acks', kind: 'string', value: 'all|1|0', choices: ['all', '-1', '1', '0'], help: 'acknowledgement: all in-sync replicas (default), the leader only, or none' },
  { name: 'partition', kind: 'int', value: 'n', min: 0, help: 'send every record to partition n (default: by key hash, or sticky batches without keys)' },
  { name: 'producer-property', kind: 'list', value: 'key=value', help: 'a producer config such as linger.ms=5 or compression.type=lz4 (repeatable)' },
  HELP_OPTION,
];

function producerConfig(args: Args): Record<string, unknown> {
  const config: Record<string, unknown> = keyValues('producer-property', args.list('producer-property'));
  const acks = args.string('acks');
  if (acks !== undefined) config.acks = acks === 'all' ? 'all' : Number(acks);
  try {
    parseProducerConfig(config);
  } catch (e) {
    if (e instanceof ProducerConfigError) throw new UsageError(`--producer-property ${e.message}`);
    throw e;
  }
  return config;
}

async function run(args: Args): Promise<number> {
  const topic = args.require('topic');
  const sep = args.string('key-separator');
  if (sep === '') throw new UsageError('--key-separator cannot be empty');
  const partition = args.int('partition');
  const config = producerConfig(args);
  const acksName = config.acks === undefined || config.acks === 'all' || config.acks === -1 ? 'all' : String(config.acks);

  await withCluster(args, 'samsa-produce', async (conn) => {
    const t = requireTopic(await conn.metadata(), topic, conn.servers);
    if (partition !== undefined && partition >= t.partitions.length) {
      throw new CliError(`--partition ${partition} does not exist: topic '${topic}' has ${plural(t.partitions.length, 'partition')} (0-${t.partitions.length - 1})`);
    }
    const producer = conn.client.producer(config);
    await producer.connect();
    const started = performance.now();
    let acked = 0;
    let read = 0;
    let failure: unknown = null;
    let badLine = 0;
    const inFlight = new Set<Promise<void>>();
    let buffered: Message[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;

    const sendBuffered = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (buffered.length === 0 || failure) return;
      const messages = buffered;
      buffered = [];
      const p: Promise<void> = producer
        .send({ topic, messages })
        .then(
          () => void (acked += messages.length),
          (e: unknown) => void (failure ??= e),
        )
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };

    const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
    const stop = () => rl.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (process.stdin.isTTY) err(`type records for ${topic}, one per line${sep !== undefined ? ` as key${sep}value` : ''}; Ctrl-D sends and ends`);
    try {
      for await (const line of rl) {
        if (failure) break;
        read++;
        let m: Message;
        if (sep !== undefined) {
          const at = line.indexOf(sep);
          if (at < 0) {
            badLine = read;
            break;
          }
          m = { key: line.slice(0, at), value: line.slice(at + sep.length) };
        } else m = { value: line };
        if (partition !== undefined) m.partition = partition;
        buffered.push(m);
        if (buffered.length >= BATCH_LINES) sendBuffered();
        else timer ??= setTimeout(sendBuffered, 0);
        while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      }
      sendBuffered();
      await Promise.all(inFlight);
      await producer.flush();
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      rl.close();
      await producer.disconnect().catch(() => undefined);
    }

    const ms = Math.round(performance.now() - started);
    if (failure) {
      throw new CliError(`${plural(acked, 'record')} of ${read} sent to ${topic} before a send failed: ${explain(failure)}`);
    }
    if (badLine) {
      throw new CliError(
        `line ${badLine} has no key separator '${sep}' — with --key-separator every line must be key${sep}value (${plural(acked, 'record')} before it ${acked === 1 ? 'was' : 'were'} sent)`,
      );
    }
    err(`produced ${plural(acked, 'record')} to ${topic} in ${ms} ms (acks=${acksName})`);
  });
  return EXIT_OK;
}

export const produceCommand: Command = {
  name: 'produce',
  summary: 'send lines from stdin as records to a topic',
  usage: ['[--bootstrap-server host:port] --topic t [--key-separator sep] [--acks all|1|0] [--partition n] [--producer-property k=v ...]'],
  description:
    "Reads stdin line by line and sends every line as one record, like Kafka's console producer: the line is the value, or with --key-separator the text before the first separator is the key and the rest the value. Records are sent as lines arrive; at the end of input (Ctrl-D, or the end of a pipe) or on Ctrl-C everything read is flushed and a summary is printed to stderr. The topic must exist.",
  options,
  examples: [
    "printf 'k1:hello\\nk2:world\\n' | samsa produce --topic orders --key-separator :",
    'samsa produce --topic orders --acks 1 < records.txt',
  ],
  run,
};
