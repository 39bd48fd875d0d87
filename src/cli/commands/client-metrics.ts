/**
 * `samsa client-metrics`: Kafka's kafka-client-metrics tool (ClientMetricsCommand, KIP-714),
 * through the admin client's client metrics subscriptions. `--list` prints each subscription's
 * name; `--describe` each one's keys, the ones not set at their defaults, as Kafka's describe of
 * a CLIENT_METRICS resource gives them; `--alter` sets `--metrics`, `--interval` and `--match` of
 * `--name` (or of a new uuid with `--generate-name`), an empty value removing the key; `--delete`
 * removes every key of the subscription, which ends it. Kafka's lines and messages throughout.
 */
import { randomUUID } from 'node:crypto';
import type { Admin } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const ACTIONS = ['alter', 'delete', 'describe', 'list'] as const;
type Action = (typeof ACTIONS)[number];

/** The selectors a subscription's match may name (KIP-714). */
export const MATCH_SELECTORS = ['client_id', 'client_instance_id', 'client_software_name', 'client_software_version', 'client_source_address', 'client_source_port'] as const;

/** A subscription's keys and Kafka's defaults for those not set. */
const DEFAULTS: Readonly<Record<string, string>> = { 'interval.ms': '300000', match: '', metrics: '' };

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'list', kind: 'flag', help: 'list the client metrics resources (subscriptions)' },
  { name: 'describe', kind: 'flag', help: 'list the configurations of the client metrics resource --name, or of every one' },
  { name: 'alter', kind: 'flag', help: 'alter the configuration of the client metrics resource --name (or of a new one, --generate-name)' },
  { name: 'delete', kind: 'flag', help: 'delete the configuration of the client metrics resource --name' },
  { name: 'name', kind: 'string', value: 'name', help: 'the name of the client metrics resource', modes: ['alter', 'delete', 'describe'] },
  { name: 'generate-name', kind: 'flag', help: 'generate a UUID to use as the name', modes: ['alter'] },
  { name: 'interval', kind: 'string', value: 'push interval', help: 'the metrics push interval in milliseconds; empty to reset it', modes: ['alter'] },
  { name: 'metrics', kind: 'list', value: 'm1,m2', help: "telemetry metric name prefixes 'm1,m2' (* every metric); empty to remove them", modes: ['alter'] },
  { name: 'match', kind: 'list', value: 'k1=v1,k2=v2', help: `matching selectors 'k1=v1,k2=v2', each value a regular expression; the selectors: ${MATCH_SELECTORS.join(', ')}; empty to match every client`, modes: ['alter'] },
  HELP_OPTION,
];

/** A comma-separated option's values, as Kafka's withValuesSeparatedBy(',') reads them (given once or several times). */
function commaValues(args: Args, name: string): string[] {
  return args.list(name).flatMap((v) => v.split(','));
}

/** What --alter sets (a non-empty value) and removes (an empty one), as Kafka's tool builds its AlterConfigOps. */
export function alterPlan(o: { interval?: string; metrics?: string[]; match?: string[] }): { set: Record<string, string>; delete: string[] } {
  const values: Record<string, string> = {};
  if (o.interval !== undefined) {
    if (o.interval !== '' && !/^[+-]?\d+$/.test(o.interval.trim())) throw new UsageError('Invalid interval value. Enter an integer, or leave empty to reset.');
    values['interval.ms'] = o.interval.trim();
  }
  if (o.metrics !== undefined) values.metrics = o.metrics.join(',');
  if (o.match !== undefined) values.match = o.match.join(',');
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (v === '' || v === ',') remove.push(k);
    else set[k] = v;
  }
  return { set, delete: remove };
}

/** Checks the command line as Kafka's ClientMetricsCommandOptions.checkArgs does; returns the action. */
export function checkArgs(args: Args): Action {
  const given = ACTIONS.filter((a) => args.has(a));
  if (given.length !== 1) throw new UsageError('Command must include exactly one action: --alter, --delete, --describe or --list.');
  const action = args.mode(ACTIONS);
  const named = args.has('name');
  if (action === 'alter' && named === args.has('generate-name')) throw new UsageError('One of --name or --generate-name must be specified with --alter.');
  if (action === 'delete' && !named) throw new UsageError('A client metrics resource name must be specified with --delete.');
  if (named && args.string('name')!.trim() === '') throw new UsageError('--name needs a client metrics resource name');
  return action as Action;
}

/** The subscription's keys as Kafka's describe gives them: every key, those not set at their defaults. */
export function describedKeys(configs: Record<string, string>): [string, string][] {
  return Object.entries({ ...DEFAULTS, ...configs }).sort(([a], [b]) => a.localeCompare(b));
}

async function names(admin: Admin): Promise<string[]> {
  return (await admin.describeClientMetrics()).map((s) => s.name);
}

/** Kafka's line for a refused call; exit 1 as Kafka's tool. */
function refused(e: unknown): number {
  out(`Error while executing client metrics command : ${(e as Error).message}`);
  return EXIT_FAILURE;
}

async function alter(admin: Admin, args: Args): Promise<number> {
  const name = args.has('generate-name') ? randomUUID() : args.string('name')!;
  const plan = alterPlan({
    ...(args.has('interval') ? { interval: args.string('interval')! } : {}),
    ...(args.has('metrics') ? { metrics: commaValues(args, 'metrics') } : {}),
    ...(args.has('match') ? { match: commaValues(args, 'match') } : {}),
  });
  if (Object.keys(plan.set).length > 0 || plan.delete.length > 0) {
    // removing a key that is not set is no change (Kafka's DELETE of an absent key)
    const current = plan.delete.length > 0 ? ((await admin.describeClientMetrics({ name }))[0]?.configs ?? {}) : {};
    const remove = plan.delete.filter((k) => Object.prototype.hasOwnProperty.call(current, k));
    if (Object.keys(plan.set).length > 0 || remove.length > 0) {
      const [r] = await admin.alterClientMetrics([{ name, set: plan.set, delete: remove }]);
      if (r && r.errorCode !== ErrorCode.NONE) return refused(new SamsaError(r.errorCode, r.errorMessage ?? undefined));
    }
  }
  out(`Altered client metrics config for ${name}.`);
  return EXIT_OK;
}

async function remove(admin: Admin, name: string): Promise<number> {
  const current = (await admin.describeClientMetrics({ name }))[0]?.configs ?? {};
  const keys = Object.keys(current);
  if (keys.length > 0) {
    const [r] = await admin.alterClientMetrics([{ name, delete: keys }]);
    if (r && r.errorCode !== ErrorCode.NONE) return refused(new SamsaError(r.errorCode, r.errorMessage ?? undefined));
  }
  out(`Deleted client metrics config for ${name}.`);
  return EXIT_OK;
}

async function describe(admin: Admin, name: string | undefined): Promise<number> {
  const all = await admin.describeClientMetrics();
  if (name !== undefined && !all.some((s) => s.name === name)) {
    out(`The client metric resource ${name} doesn't exist and doesn't have dynamic config.`);
    return EXIT_OK;
  }
  for (const sub of all) {
    if (name !== undefined && sub.name !== name) continue;
    out(`Client metrics configs for ${sub.name} are:`);
    for (const [k, v] of describedKeys(sub.configs)) out(`  ${k}=${v}`);
  }
  return EXIT_OK;
}

async function run(args: Args): Promise<number> {
  const action = checkArgs(args);
  return withCluster(args, 'samsa-client-metrics', (conn) =>
    withAdmin(conn, async (admin) => {
      try {
        switch (action) {
          case 'alter':
            return await alter(admin, args);
          case 'delete':
            return await remove(admin, args.string('name')!);
          case 'describe':
            return await describe(admin, args.string('name'));
          case 'list':
            out((await names(admin)).join('\n'));
            return EXIT_OK;
        }
      } catch (e) {
        if (e instanceof SamsaError) return refused(e);
        throw e;
      }
    }),
  );
}

export const clientMetricsCommand: Command = {
  name: 'client-metrics',
  summary: 'list, describe, alter and delete client metrics subscriptions (KIP-714), like kafka-client-metrics',
  usage: [
    '[--bootstrap-server host:port] --list',
    '[--bootstrap-server host:port] --describe [--name name]',
    "[--bootstrap-server host:port] --alter (--name name | --generate-name) [--metrics m1,m2] [--interval ms] [--match 'k1=v1,k2=v2']",
    '[--bootstrap-server host:port] --delete --name name',
  ],
  description:
    "Manages client metrics subscriptions like Kafka's kafka-client-metrics (KIP-714): which metrics the clients that match a subscription push to the brokers (metric name prefixes; * every metric), how often (interval.ms, 100 to 3600000, 300000 by default) and which clients (match: selector=regular expression pairs the client must all match; none: every client). The brokers hand what the clients push to their telemetry receiver (client.telemetry.receiver). --alter sets the keys given (an empty value removes one; a subscription is made by its first key and gone with its last), --delete removes them all, --describe prints every key of a subscription (those not set at their defaults), --list the names. `samsa configs --entity-type client-metrics` reaches the same subscriptions.\n\nThe controller checks a change as Kafka's does: an interval out of range, an unknown selector or a bad pattern is refused with its reason (Kafka's line `Error while executing client metrics command : ...`, exit 1).",
  options,
  examples: [
    "samsa client-metrics --alter --name producers --metrics org.apache.kafka.producer. --interval 60000 --match 'client_software_name=samsa'",
    'samsa client-metrics --describe --name producers',
    'samsa client-metrics --list',
    'samsa client-metrics --delete --name producers',
  ],
  run,
};
