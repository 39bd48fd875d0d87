/**
 * `samsa transactions`: Kafka's kafka-transactions tool, through the admin client. `list`
 * prints every transaction the brokers coordinate (TransactionalId, Coordinator, ProducerId,
 * TransactionState), only those running longer than --duration-filter ms when given, only those
 * whose whole transactional id --transactional-id-pattern matches (Kafka 4.1's, KIP-1152: a
 * regular expression in RE2J syntax) when given, and, beyond Kafka's tool, only those in the
 * --state and of the --producer-id given (the Admin API's filters). `describe --transactional-id` prints one id's transaction as Kafka's tool does;
 * `describe-producers --topic --partition` a partition's producers, from its leader or the
 * replica on --broker-id. `find-hanging` (--topic, --partition, --broker-id,
 * --max-transaction-timeout minutes) prints the transactions open longer than that which no
 * coordinator will end; `abort --topic --partition` ends one, named by --start-offset or by
 * --producer-id, --producer-epoch and --coordinator-epoch; `forceTerminateTransaction
 * --transactional-id` aborts an id's ongoing transaction by fencing its producer.
 */
import type { OpenTransaction, PartitionProducers, TransactionDescription, TransactionListing } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out, table } from '../output.js';

const SUBCOMMANDS = ['list', 'describe', 'describe-producers', 'find-hanging', 'abort', 'forceTerminateTransaction'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** The options each subcommand takes (beyond --bootstrap-server and --help). */
const TAKES: Record<Subcommand, readonly string[]> = {
  list: ['duration-filter', 'transactional-id-pattern', 'state', 'producer-id'],
  describe: ['transactional-id'],
  'describe-producers': ['topic', 'partition', 'broker-id'],
  'find-hanging': ['topic', 'partition', 'broker-id', 'max-transaction-timeout'],
  abort: ['topic', 'partition', 'start-offset', 'producer-id', 'producer-epoch', 'coordinator-epoch'],
  forceTerminateTransaction: ['transactional-id', 'transactionalId'],
};

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'transactional-id', kind: 'string', value: 'id', help: 'with describe: the transactional id to describe; with forceTerminateTransaction: the one whose transaction to abort' },
  { name: 'transactionalId', kind: 'string', value: 'id', help: "with forceTerminateTransaction: Kafka's spelling of --transactional-id" },
  { name: 'duration-filter', kind: 'int', value: 'ms', min: -1, help: 'with list: only transactions running longer than this many ms (-1: all, the default)' },
  {
    name: 'transactional-id-pattern',
    kind: 'string',
    value: 'regex',
    help: 'with list: only transactions whose whole transactional id this regular expression matches (RE2J syntax, as Kafka: orders-.* but not orders alone)',
  },
  { name: 'state', kind: 'list', value: 'state', help: 'with list: only transactions in these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence)' },
  { name: 'producer-id', kind: 'list', value: 'id', help: 'with list: only transactions of these producer ids; with abort: the producer whose transaction to abort' },
  { name: 'topic', kind: 'string', value: 'topic', help: 'with describe-producers and abort: the topic; with find-hanging: search only this topic' },
  { name: 'partition', kind: 'int', value: 'n', min: 0, help: 'with describe-producers and abort: the partition; with find-hanging: search only this partition of --topic' },
  { name: 'broker-id', kind: 'int', value: 'id', min: 0, help: "with describe-producers: ask this broker's replica instead of the leader; with find-hanging: search the replicas on this broker" },
  { name: 'max-transaction-timeout', kind: 'int', value: 'minutes', min: 0, help: 'with find-hanging: only transactions open longer than this many minutes (15 by default: the longest transaction timeout allowed)' },
  { name: 'start-offset', kind: 'int', value: 'offset', min: 0, help: 'with abort: the first offset of the open transaction to abort' },
  { name: 'producer-epoch', kind: 'int', value: 'epoch', min: 0, max: 32767, help: "with abort and --producer-id: the producer's epoch" },
  { name: 'coordinator-epoch', kind: 'int', value: 'epoch', min: -1, help: "with abort and --producer-id: the coordinator epoch of the producer's last marker (-1 or 0 when it has none)" },
  HELP_OPTION,
];

const positional: PositionalSpec = { name: SUBCOMMANDS.join('|'), help: 'the subcommand', max: 1 };

/** Kafka's list table, rows in transactional id order. */
export function listLines(listings: readonly TransactionListing[]): string[] {
  return table(
    ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'],
    listings.map((t) => [t.transactionalId, t.coordinatorId, t.producerId, t.state]),
  );
}

/**
 * Kafka's describe table: the start time and duration of the current transaction, None when
 * the id has none; its partitions as topic-partition, comma-separated.
 */
export function describeLines(d: TransactionDescription, now: number): string[] {
  const started = d.transactionStartTimeMs >= 0;
  return table(
    ['CoordinatorId', 'TransactionalId', 'ProducerId', 'ProducerEpoch', 'TransactionState', 'TransactionTimeoutMs', 'CurrentTransactionStartTimeMs', 'TransactionDurationMs', 'TopicPartitions'],
    [
      [
        d.coordinatorId,
        d.transactionalId,
        d.producerId,
        d.producerEpoch,
        d.state,
        d.transactionTimeoutMs,
        started ? d.transactionStartTimeMs : 'None',
        started ? now - d.transactionStartTimeMs : 'None',
        d.topicPartitions.map((p) => `${p.topic}-${p.partition}`).join(','),
      ],
    ],
  );
}

/** Kafka's describe-producers table: a producer per row; None where no transaction is open. */
export function producerLines(producers: PartitionProducers['producers']): string[] {
  return table(
    ['ProducerId', 'ProducerEpoch', 'LatestCoordinatorEpoch', 'LastSequence', 'LastTimestamp', 'CurrentTransactionStartOffset'],
    producers.map((p) => [p.producerId, p.producerEpoch, p.coordinatorEpoch, p.lastSequence, p.lastTimestamp, p.currentTxnStartOffset >= 0 ? p.currentTxnStartOffset : 'None']),
  );
}

/**
 * Kafka's find-hanging table: where each hanging transaction is, its producer, the first offset
 * it holds the partition at, and for how many whole minutes it has run (from its last write).
 */
export function hangingLines(hanging: readonly OpenTransaction[], now: number): string[] {
  return table(
    ['Topic', 'Partition', 'ProducerId', 'ProducerEpoch', 'CoordinatorEpoch', 'StartOffset', 'LastTimestamp', 'Duration(min)'],
    hanging.map((t) => [t.topic, t.partition, t.producer.producerId, t.producer.producerEpoch, t.producer.coordinatorEpoch, t.producer.currentTxnStartOffset, t.producer.lastTimestamp, Math.floor((now - t.producer.lastTimestamp) / 60_000)]),
  );
}

function producerIds(args: Args): number[] {
  return args.list('producer-id').map((v) => {
    const id = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(id)) throw new UsageError(`--producer-id ${v}: not a producer id (a non-negative integer)`);
    return id;
  });
}

function subcommandOf(args: Args): Subcommand {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError(`give the subcommand: ${SUBCOMMANDS.join(', ')}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': use ${SUBCOMMANDS.join(', ')}`);
  const s = sub as Subcommand;
  for (const o of args.given()) {
    if (o === 'bootstrap-server' || o === 'help' || TAKES[s].includes(o)) continue;
    const goesWith = SUBCOMMANDS.filter((x) => TAKES[x].includes(o));
    throw new UsageError(`--${o} goes with ${goesWith.join(' and ')}, not with ${s}`);
  }
  return s;
}

function requirePartition(args: Args): number {
  const partition = args.int('partition');
  if (partition === undefined) throw new UsageError('--partition is required');
  return partition;
}

async function describeProducers(args: Args): Promise<void> {
  const topic = args.require('topic');
  const partition = requirePartition(args);
  const brokerId = args.int('broker-id');
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const p = (await admin.describeProducers(topic, [partition], brokerId !== undefined ? { brokerId } : {})).partitions[0];
      if (!p || p.errorCode !== ErrorCode.NONE) {
        const on = brokerId !== undefined ? `broker ${brokerId}` : 'leader';
        throw new CliError(`Failed to describe producers for partition ${topic}-${partition} on ${on}: ${errorName(p?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}`);
      }
      for (const l of producerLines(p.producers)) out(l);
    });
  });
}

async function findHanging(args: Args): Promise<void> {
  const topic = args.string('topic');
  const partition = args.int('partition');
  const brokerId = args.int('broker-id');
  if (topic === undefined && brokerId === undefined) throw new UsageError('find-hanging needs --topic or --broker-id to limit the search');
  if (partition !== undefined && topic === undefined) throw new UsageError('--partition needs --topic');
  const minutes = args.int('max-transaction-timeout') ?? 15;
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const opts = { maxTransactionTimeoutMs: minutes * 60_000, ...(topic !== undefined ? { topic } : {}), ...(partition !== undefined ? { partition } : {}), ...(brokerId !== undefined ? { brokerId } : {}) };
      const hanging = await admin.findHangingTransactions(opts).catch((e: unknown) => {
        throw e instanceof SamsaError ? new CliError(`Failed to find hanging transactions: ${e.message}`) : e;
      });
      for (const l of hangingLines(hanging, Date.now())) out(l);
    });
  });
}

async function abort(args: Args): Promise<void> {
  const topic = args.require('topic');
  const partition = requirePartition(args);
  const startOffset = args.int('start-offset');
  const ids = producerIds(args);
  if (ids.length > 1) throw new UsageError('abort takes one --producer-id');
  const producerId = ids[0];
  if (startOffset !== undefined && (producerId !== undefined || args.has('producer-epoch') || args.has('coordinator-epoch'))) {
    throw new UsageError('name the transaction to abort either by --start-offset or by --producer-id, --producer-epoch and --coordinator-epoch, not both');
  }
  if (startOffset === undefined && producerId === undefined) {
    throw new UsageError('name the transaction to abort: --start-offset, or --producer-id with --producer-epoch and --coordinator-epoch');
  }
  let named: { producerEpoch: number; coordinatorEpoch: number } | null = null;
  if (producerId !== undefined) {
    const producerEpoch = args.int('producer-epoch');
    const coordinatorEpoch = args.int('coordinator-epoch');
    if (producerEpoch === undefined) throw new UsageError('--producer-epoch is required with --producer-id');
    if (coordinatorEpoch === undefined) throw new UsageError('--coordinator-epoch is required with --producer-id');
    // -1: the producer has no marker there yet; 0 is at most any coordinator epoch (as Kafka's tool)
    named = { producerEpoch, coordinatorEpoch: Math.max(0, coordinatorEpoch) };
  }
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      let spec = named && producerId !== undefined ? { topic, partition, producerId, ...named } : null;
      if (!spec) {
        const p = (await admin.describeProducers(topic, [partition])).partitions[0];
        if (!p || p.errorCode !== ErrorCode.NONE) {
          throw new CliError(`Failed to validate producer state for partition ${topic}-${partition}: ${errorName(p?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}`);
        }
        const found = p.producers.find((x) => x.currentTxnStartOffset === startOffset);
        if (!found) throw new CliError(`Could not find any open transactions starting at offset ${startOffset} on partition ${topic}-${partition}`);
        spec = { topic, partition, producerId: found.producerId, producerEpoch: found.producerEpoch, coordinatorEpoch: Math.max(0, found.coordinatorEpoch) };
      }
      const described = `producer ${spec.producerId} (epoch ${spec.producerEpoch}, coordinator epoch ${spec.coordinatorEpoch}) on ${topic}-${partition}`;
      await admin.abortTransaction(spec).catch((e: unknown) => {
        throw e instanceof SamsaError ? new CliError(`Failed to abort the transaction of ${described}: ${errorName(e.errorCode)}: ${e.message}`) : e;
      });
      out(`Aborted the transaction of ${described}`);
    });
  });
}

/** forceTerminateTransaction, as Kafka's tool: fences the id's producer (aborting its transaction); prints nothing. */
async function forceTerminate(args: Args): Promise<void> {
  if (args.has('transactional-id') && args.has('transactionalId')) throw new UsageError('give --transactional-id once');
  const id = args.string('transactional-id') ?? args.string('transactionalId');
  if (id === undefined) throw new UsageError('forceTerminateTransaction needs --transactional-id');
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      await admin.forceTerminateTransaction(id).catch((e: unknown) => {
        throw e instanceof SamsaError ? new CliError(`Failed to force terminate transactionalId \`${id}\`: ${e.message}`) : e;
      });
    });
  });
}

async function run(args: Args): Promise<number> {
  const sub = subcommandOf(args);
  if (sub === 'describe-producers') {
    await describeProducers(args);
    return EXIT_OK;
  }
  if (sub === 'find-hanging') {
    await findHanging(args);
    return EXIT_OK;
  }
  if (sub === 'abort') {
    await abort(args);
    return EXIT_OK;
  }
  if (sub === 'forceTerminateTransaction') {
    await forceTerminate(args);
    return EXIT_OK;
  }
  if (sub === 'describe') {
    const id = args.require('transactional-id');
    await withCluster(args, 'samsa-transactions', async (conn) => {
      await withAdmin(conn, async (admin) => {
        const d = (await admin.describeTransactions([id])).transactions[0];
        if (!d || d.errorCode !== ErrorCode.NONE) {
          const code = d?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          throw new CliError(`Failed to describe transaction state of transactional-id \`${id}\`: ${errorName(code)}${code === ErrorCode.TRANSACTIONAL_ID_NOT_FOUND ? ' (no producer has used this transactional id, or it expired)' : ''}`);
        }
        for (const l of describeLines(d, Date.now())) out(l);
      });
    });
    return EXIT_OK;
  }
  const ids = producerIds(args);
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const transactionalIdPattern = args.string('transactional-id-pattern') ?? null;
      const r = await admin.listTransactions({ states: args.list('state'), producerIds: ids, durationMs: args.int('duration-filter') ?? -1, transactionalIdPattern }).catch((e: unknown) => {
        throw e instanceof SamsaError ? new CliError(`Failed to list transactions: ${e.message}`) : e;
      });
      if (r.unknownStateFilters.length > 0) err(`unknown transaction state(s): ${r.unknownStateFilters.join(', ')} (none matches)`);
      for (const l of listLines(r.transactions)) out(l);
    });
  });
  return EXIT_OK;
}

export const transactionsCommand: Command = {
  name: 'transactions',
  summary: "list the transactions of the cluster, describe one, show a partition's producers, find and abort hanging transactions",
  usage: [
    '[--bootstrap-server host:port] list [--duration-filter ms] [--transactional-id-pattern regex] [--state state ...] [--producer-id id ...]',
    '[--bootstrap-server host:port] describe --transactional-id id',
    '[--bootstrap-server host:port] describe-producers --topic topic --partition n [--broker-id id]',
    '[--bootstrap-server host:port] find-hanging (--topic topic [--partition n] | --broker-id id) [--max-transaction-timeout minutes]',
    '[--bootstrap-server host:port] abort --topic topic --partition n (--start-offset offset | --producer-id id --producer-epoch epoch --coordinator-epoch epoch)',
    '[--bootstrap-server host:port] forceTerminateTransaction --transactional-id id',
  ],
  description:
    "Shows the transactions of the cluster like Kafka's kafka-transactions tool, from the transaction coordinators (each broker coordinates the transactional ids whose __transaction_state partition it leads), and recovers from hanging ones. list prints each transactional id with the broker coordinating it, its producer id and its state; --duration-filter keeps only transactions running longer than that many ms, --transactional-id-pattern only the ids the regular expression matches whole (RE2J syntax; one that does not compile: exit 1), --state and --producer-id keep only those states and producers. describe prints one id's coordinator, producer id and epoch, state, timeout, when its current transaction started and how long it has run (None when it has none), and the partitions in it. describe-producers prints the producers a partition's leader (or the replica on --broker-id) knows: epoch, latest coordinator epoch, last sequence and timestamp, and where an open transaction of theirs starts (None when none is).\n\nA hanging transaction is open on a partition with no coordinator left to end it (its producer id is not a transactional id's any more, or its coordinator's transaction does not name the partition): it holds the partition's last stable offset, so read_committed consumers stop there. find-hanging prints those open longer than --max-transaction-timeout minutes (15, the largest transaction.max.timeout.ms Kafka allows by default) on a topic, one partition of it, or the replicas of a broker. abort writes an ABORT marker for one, through the partition's leader, as its coordinator would have: name it by the --start-offset find-hanging printed, or by its producer id, epoch and coordinator epoch. forceTerminateTransaction aborts a transactional id's ongoing transaction through its coordinator, as Kafka's tool (the admin's fenceProducers): the id's producer epoch is bumped, so the producer that holds it is fenced and must start again; it prints nothing when done.\n\nAn id that no producer has used, or that expired (transactional.id.expiration.ms), cannot be described: exit 1. A partition that cannot be asked, or a refused abort, exits 1.",
  options,
  positional,
  examples: [
    'samsa transactions list',
    'samsa transactions list --duration-filter 60000 --state Ongoing',
    "samsa transactions list --transactional-id-pattern 'orders-.*'",
    'samsa transactions describe --transactional-id orders-writer',
    'samsa transactions describe-producers --topic orders --partition 0',
    'samsa transactions find-hanging --broker-id 1',
    'samsa transactions abort --topic orders --partition 0 --start-offset 1200',
    'samsa transactions forceTerminateTransaction --transactional-id orders-writer',
  ],
  run,
};
