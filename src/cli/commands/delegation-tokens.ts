/**
 * `samsa delegation-tokens`: Kafka's kafka-delegation-tokens tool (DelegationTokenCommand),
 * through the admin client: --create (--max-life-time-period, --renewer-principal,
 * --owner-principal), --renew (--hmac, --renew-time-period), --expire (--hmac,
 * --expiry-time-period), --describe (--owner-principal). Its lines are Kafka's: the "Calling ...
 * operation" line, then the token table (TOKENID, HMAC, OWNER, REQUESTER, RENEWERS and the
 * dates as yyyy-MM-ddTHH:mm, local time) or the new expiry date.
 *
 * Not Kafka's: samsa's admin client has no Kafka principal (it is trusted as the cluster's own,
 * as for ACLs), so --create needs --owner-principal (the token's owner and requester), --renew
 * and --expire act as the token's owner, and --describe without --owner-principal lists every
 * token; there is no --command-config.
 */
import type { DelegationToken } from '../../client/admin.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { out } from '../output.js';

const MODES = ['create', 'renew', 'expire', 'describe'] as const;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'create', kind: 'flag', help: 'create a new delegation token (--owner-principal, --renewer-principal, --max-life-time-period)' },
  { name: 'renew', kind: 'flag', help: 'renew a delegation token (--hmac, --renew-time-period)' },
  { name: 'expire', kind: 'flag', help: 'expire a delegation token (--hmac, --expiry-time-period)' },
  { name: 'describe', kind: 'flag', help: 'describe delegation tokens: every token, or those of the --owner-principal given (owner, requester or renewer)' },
  { name: 'owner-principal', kind: 'list', value: 'Type:name', modes: ['create', 'describe'], help: 'a Kafka principal, principalType:name (with --create: the owner, required here; with --describe: repeatable)' },
  { name: 'renewer-principal', kind: 'list', value: 'Type:name', modes: ['create'], help: 'a principal that may renew the token, principalType:name (repeatable)' },
  { name: 'max-life-time-period', kind: 'string', value: 'ms', modes: ['create'], help: "the token's max life in milliseconds; -1: the server's delegation.token.max.lifetime.ms" },
  { name: 'hmac', kind: 'string', value: 'base64', modes: ['renew', 'expire'], help: 'the HMAC of the delegation token' },
  { name: 'renew-time-period', kind: 'string', value: 'ms', modes: ['renew'], help: "renew time period in milliseconds; -1: the server's delegation.token.expiry.time.ms" },
  { name: 'expiry-time-period', kind: 'string', value: 'ms', modes: ['expire'], help: 'expiry time period in milliseconds; -1: the token is invalidated at once' },
  HELP_OPTION,
];

const PRINCIPAL = /^[^:]+:.+$/s;

/** A principal option's values, trimmed, as Kafka's SecurityUtils.parseKafkaPrincipal takes them. */
function principals(args: Args, name: string): string[] {
  return args.list(name).map((raw) => {
    const p = raw.trim();
    if (!PRINCIPAL.test(p)) throw new UsageError(`--${name}: '${raw}' is not a principal in principalType:name format`);
    return p;
  });
}

/** A Long option (milliseconds, may be -1). */
function period(args: Args, name: string): number {
  const raw = args.string(name);
  if (raw === undefined) throw new UsageError(`--${name} is required`);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) throw new UsageError(`--${name}: '${raw}' is not a number of milliseconds`);
  return Number(raw);
}

function hmacOf(args: Args): Buffer {
  const raw = args.string('hmac');
  if (raw === undefined) throw new UsageError('--hmac is required');
  const hmac = Buffer.from(raw, 'base64');
  if (hmac.length === 0 || hmac.toString('base64') !== raw.trim()) throw new UsageError(`--hmac: '${raw}' is not base64`);
  return hmac;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Kafka's SimpleDateFormat("yyyy-MM-dd'T'HH:mm"), in local time. */
export function tokenDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** Java's printf %-Ns: left-justified to at least N. */
const col = (s: string, n: number) => s.padEnd(n);

function row(cells: [string, string, string, string, string, string, string, string]): string {
  const widths = [15, 30, 15, 15, 25, 15, 15, 15];
  return cells.map((c, i) => col(c, widths[i]!)).join(' ');
}

/** Kafka's printToken: an empty line, the header, then an empty line before each token. */
export function tokenLines(tokens: readonly DelegationToken[]): string[] {
  const lines = ['', row(['TOKENID', 'HMAC', 'OWNER', 'REQUESTER', 'RENEWERS', 'ISSUEDATE', 'EXPIRYDATE', 'MAXDATE'])];
  for (const t of tokens) {
    const i = t.tokenInfo;
    lines.push('', row([i.tokenId, t.hmac.toString('base64'), i.owner, i.tokenRequester, `[${i.renewers.join(', ')}]`, tokenDate(i.issueTimestamp), tokenDate(i.expiryTimestamp), tokenDate(i.maxTimestamp)]));
  }
  return lines;
}

async function run(args: Args): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  const given = MODES.filter((m) => args.has(m));
  if (given.length !== 1) throw new UsageError('Command must include exactly one action: --create, --renew, --expire or --describe');
  const mode = args.mode(MODES);
  // every argument is checked before connecting
  let work: (admin: Parameters<Parameters<typeof withAdmin>[1]>[0]) => Promise<void>;
  if (mode === 'create') {
    const maxLifetimeMs = period(args, 'max-life-time-period');
    const renewers = principals(args, 'renewer-principal');
    const owners = principals(args, 'owner-principal');
    if (owners.length === 0) throw new UsageError('--owner-principal is required with --create: samsa\'s admin client has no principal of its own to own the token');
    work = async (admin) => {
      out(`Calling create token operation with renewers :[${renewers.join(', ')}] , max-life-time-period :${maxLifetimeMs}`);
      const token = await admin.createDelegationToken({ owner: owners[0]!, renewers, maxLifetimeMs });
      out(`Created delegation token with tokenId : ${token.tokenInfo.tokenId}`);
      for (const l of tokenLines([token])) out(l);
    };
  } else if (mode === 'renew' || mode === 'expire') {
    const hmac = hmacOf(args);
    const ms = period(args, mode === 'renew' ? 'renew-time-period' : 'expiry-time-period');
    work = async (admin) => {
      const b64 = hmac.toString('base64');
      if (mode === 'renew') {
        out(`Calling renew token operation with hmac :${b64} , renew-time-period :${ms}`);
        out(`Completed renew operation. New expiry date : ${tokenDate(await admin.renewDelegationToken(hmac, { renewTimePeriodMs: ms }))}`);
      } else {
        out(`Calling expire token operation with hmac :${b64} , expire-time-period :${ms}`);
        out(`Completed expire operation. New expiry date : ${tokenDate(await admin.expireDelegationToken(hmac, { expiryTimePeriodMs: ms }))}`);
      }
    };
  } else {
    const owners = principals(args, 'owner-principal');
    work = async (admin) => {
      out(owners.length === 0 ? 'Calling describe token operation for every owner.' : `Calling describe token operation for owners: [${owners.join(', ')}]`);
      const tokens = await admin.describeDelegationToken({ owners: owners.length === 0 ? null : owners });
      out(`Total number of tokens : ${tokens.length}`);
      for (const l of tokenLines(tokens)) out(l);
    };
  }
  await withCluster(args, 'samsa-delegation-tokens', (conn) => withAdmin(conn, work));
  return EXIT_OK;
}

export const delegationTokensCommand: Command = {
  name: 'delegation-tokens',
  summary: 'create, renew, expire and describe delegation tokens (SCRAM logins for clients without credentials of their own)',
  usage: [
    '[--bootstrap-server host:port] --create --owner-principal User:name --max-life-time-period ms [--renewer-principal User:name ...]',
    '[--bootstrap-server host:port] --renew --hmac base64 --renew-time-period ms',
    '[--bootstrap-server host:port] --expire --hmac base64 --expiry-time-period ms',
    '[--bootstrap-server host:port] --describe [--owner-principal User:name ...]',
  ],
  description:
    "Manages delegation tokens (KIP-48) like Kafka's kafka-delegation-tokens. A token lets a client log in over SASL/SCRAM (SCRAM-SHA-256 or -512) without credentials of its own: the token id is the user name, the HMAC (base64) the password, with the SCRAM extension tokenauth=true; the client is then the token's owner. Tokens need delegation.token.secret.key in the controller config; they expire after delegation.token.expiry.time.ms unless renewed, and never outlive delegation.token.max.lifetime.ms.\n\nsamsa's admin client has no principal of its own: --create names the owner with --owner-principal, --renew and --expire act as the token's owner, and --describe without --owner-principal lists every token.",
  options,
  examples: [
    'samsa delegation-tokens --create --owner-principal User:alice --max-life-time-period -1 --renewer-principal User:bob',
    'samsa delegation-tokens --renew --hmac <hmac> --renew-time-period -1',
    'samsa delegation-tokens --expire --hmac <hmac> --expiry-time-period -1',
    'samsa delegation-tokens --describe --owner-principal User:alice',
  ],
  run,
};
