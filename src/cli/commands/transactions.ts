/**
 * `samsa transactions`: Kafka's kafka-transactions tool, through the admin client. `list`
 * prints every transaction the brokers coordinate (TransactionalId, Coordinator, ProducerId,
 * TransactionState), only those running longer than --duration-filter ms when given, and, beyond
 * Kafka's tool, only those in the --state and of the --producer-id given (the Admin API's
 * filters). `describe --transactional-id` prints one id's transaction as Kafka's tool does;
 * `describe-producers --topic --partition` a partition's producers, from its leader.
 */
import type { PartitionProducers, TransactionDescription, TransactionListing } from '../../client/admin.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out, table } from '../output.js';

const SUBCOMMANDS = ['list', 'describe', 'describe-producers'] as const;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'transactional-id', kind: 'string', value: 'id', help: 'with describe: the transactional id to describe' },
  { name: 'duration-filter', kind: 'int', value: 'ms', min: -1, help: 'with list: only transactions running longer than this many ms (-1: all, the default)' },
  { name: 'state', kind: 'list', value: 'state', help: 'with list: only transactions in these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence)' },
  { name: 'producer-id', kind: 'list', value: 'id', help: 'with list: only transactions of these producer ids' },
  { name: 'topic', kind: 'string', value: 'topic', help: 'with describe-producers: the topic' },
  { name: 'partition', kind: 'int', value: 'n', min: 0, help: 'with describe-producers: the partition' },
  HELP_OPTION,
];

const positional: PositionalSpec = { name: 'list|describe', help: 'the subcommand: list the transactions, or describe one transactional id', max: 1 };

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

function producerIds(args: Args): number[] {
  return args.list('producer-id').map((v) => {
    const id = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(id)) throw new UsageError(`--producer-id ${v}: not a producer id (a non-negative integer)`);
    return id;
  });
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError(`give the subcommand: ${SUBCOMMANDS.join(' or ')}`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': use ${SUBCOMMANDS.join(' or ')}`);
  const listOnly = ['duration-filter', 'state', 'producer-id'].filter((o) => args.has(o));
  const producersOnly = ['topic', 'partition'].filter((o) => args.has(o));
  if (sub !== 'describe-producers' && producersOnly.length > 0) throw new UsageError(`--${producersOnly[0]} goes with describe-producers, not with ${sub}`);
  if (sub === 'describe-producers') {
    const extra = [...listOnly, ...(args.has('transactional-id') ? ['transactional-id'] : [])];
    if (extra.length > 0) throw new UsageError(`--${extra[0]} does not go with describe-producers`);
    const topic = args.require('topic');
    const partition = args.int('partition');
    if (partition === undefined) throw new UsageError('--partition is required');
    await withCluster(args, 'samsa-transactions', async (conn) => {
      await withAdmin(conn, async (admin) => {
        const p = (await admin.describeProducers(topic, [partition])).partitions[0];
        if (!p || p.errorCode !== ErrorCode.NONE) {
          throw new CliError(`Failed to describe producers for partition ${topic}-${partition} on leader: ${errorName(p?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}`);
        }
        for (const l of producerLines(p.producers)) out(l);
      });
    });
    return EXIT_OK;
  }
  if (sub === 'describe') {
    if (listOnly.length > 0) throw new UsageError(`--${listOnly[0]} goes with list, not with describe`);
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
  if (args.has('transactional-id')) throw new UsageError('--transactional-id goes with describe, not with list');
  const ids = producerIds(args);
  await withCluster(args, 'samsa-transactions', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const r = await admin.listTransactions({ states: args.list('state'), producerIds: ids, durationMs: args.int('duration-filter') ?? -1 });
      if (r.unknownStateFilters.length > 0) err(`unknown transaction state(s): ${r.unknownStateFilters.join(', ')} (none matches)`);
      for (const l of listLines(r.transactions)) out(l);
    });
  });
  return EXIT_OK;
}

export const transactionsCommand: Command = {
  name: 'transactions',
  summary: "list the transactions of the cluster, describe one transactional id, or a partition's producers",
  usage: [
    '[--bootstrap-server host:port] list [--duration-filter ms] [--state state ...] [--producer-id id ...]',
    '[--bootstrap-server host:port] describe --transactional-id id',
    '[--bootstrap-server host:port] describe-producers --topic topic --partition n',
  ],
  description:
    "Shows the transactions of the cluster like Kafka's kafka-transactions tool, from the transaction coordinators (each broker coordinates the transactional ids whose __transaction_state partition it leads). list prints each transactional id with the broker coordinating it, its producer id and its state; --duration-filter keeps only transactions running longer than that many ms (the hanging ones), --state and --producer-id keep only those states and producers. describe prints one id's coordinator, producer id and epoch, state, timeout, when its current transaction started and how long it has run (None when it has none), and the partitions in it. describe-producers prints the producers a partition's leader knows: epoch, latest coordinator epoch, last sequence and timestamp, and where an open transaction of theirs starts (None when none is).\n\nAn id that no producer has used, or that expired (transactional.id.expiration.ms), cannot be described: exit 1.",
  options,
  positional,
  examples: ['samsa transactions list', 'samsa transactions list --duration-filter 60000 --state Ongoing', 'samsa transactions describe --transactional-id orders-writer', 'samsa transactions describe-producers --topic orders --partition 0'],
  run,
};
