/**
 * `samsa transactions`: Kafka's kafka-transactions tool, through the admin client. `list`
 * prints every transaction the brokers coordinate (TransactionalId, Coordinator, ProducerId,
 * TransactionState), only those running longer than --duration-filter ms when given, and, beyond
 * Kafka's tool, only those in the --state and of the --producer-id given (the Admin API's
 * filters). `describe --transactional-id` prints one id's transaction as Kafka's tool does.
 */
import type { TransactionDescription, TransactionListing } from '../../client/admin.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out, table } from '../output.js';

const SUBCOMMANDS = ['list', 'describe'] as const;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'transactional-id', kind: 'string', value: 'id', help: 'with describe: the transactional id to describe' },
  { name: 'duration-filter', kind: 'int', value: 'ms', min: -1, help: 'with list: only transactions running longer than this many ms (-1: all, the default)' },
  { name: 'state', kind: 'list', value: 'state', help: 'with list: only transactions in these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, PrepareEpochFence)' },
  { name: 'producer-id', kind: 'list', value: 'id', help: 'with list: only transactions of these producer ids' },
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
  summary: 'list the transactions of the cluster, or describe one transactional id',
  usage: ['[--bootstrap-server host:port] list [--duration-filter ms] [--state state ...] [--producer-id id ...]', '[--bootstrap-server host:port] describe --transactional-id id'],
  description:
    "Shows the transactions of the cluster like Kafka's kafka-transactions tool, from the transaction coordinators (each broker coordinates the transactional ids whose __transaction_state partition it leads). list prints each transactional id with the broker coordinating it, its producer id and its state; --duration-filter keeps only transactions running longer than that many ms (the hanging ones), --state and --producer-id keep only those states and producers. describe prints one id's coordinator, producer id and epoch, state, timeout, when its current transaction started and how long it has run (None when it has none), and the partitions in it.\n\nAn id that no producer has used, or that expired (transactional.id.expiration.ms), cannot be described: exit 1.",
  options,
  positional,
  examples: ['samsa transactions list', 'samsa transactions list --duration-filter 60000 --state Ongoing', 'samsa transactions describe --transactional-id orders-writer'],
  run,
};
