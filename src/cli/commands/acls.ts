/**
 * `samsa acls`: adds, removes and lists ACLs like Kafka's kafka-acls tool, through the admin
 * client's createAcls / deleteAcls / describeAcls. The options are kafka-acls' own: resources
 * (--topic, --group, --cluster, --transactional-id, repeatable) and their --resource-pattern-type;
 * entries made of every --allow-principal / --deny-principal with every --operation (default
 * All) from every --allow-host / --deny-host (default '*'); the --producer and --consumer
 * shorthands; --principal to list one principal's ACLs. As kafka-acls, it refuses an operation
 * that does not apply to a resource type (Read on the cluster) before it connects.
 *
 * --remove shows the ACLs it would remove and asks for a y on stdin (one question for the whole
 * command) unless --force: `yes | samsa acls --remove ...` answers it, and a stdin that ends
 * without an answer fails the command (exit 1) without removing anything.
 */
import readline from 'node:readline';
import type { AclFilter, AclResource, Admin } from '../../client/admin.js';
import {
  AclOperation,
  AclPermission,
  bindingKey,
  CLUSTER_NAME,
  compareBindings,
  isPrincipal,
  operationName,
  PatternType,
  patternTypeName,
  permissionName,
  ResourceType,
  resourceTypeName,
  SUPPORTED_OPERATIONS,
  WILDCARD,
  type AclBinding,
} from '../../security/acl.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const MODES = ['add', 'remove', 'list'] as const;
type Mode = (typeof MODES)[number];

/** The operations kafka-acls takes, by Kafka's names (SecurityUtils.operationName). */
const OPERATIONS: readonly (readonly [string, number])[] = [
  ['All', AclOperation.ALL],
  ['Read', AclOperation.READ],
  ['Write', AclOperation.WRITE],
  ['Create', AclOperation.CREATE],
  ['Delete', AclOperation.DELETE],
  ['Alter', AclOperation.ALTER],
  ['Describe', AclOperation.DESCRIBE],
  ['ClusterAction', AclOperation.CLUSTER_ACTION],
  ['DescribeConfigs', AclOperation.DESCRIBE_CONFIGS],
  ['AlterConfigs', AclOperation.ALTER_CONFIGS],
  ['IdempotentWrite', AclOperation.IDEMPOTENT_WRITE],
];
const OPERATION_NAMES = OPERATIONS.map(([n]) => n).join(', ');

const opName = (code: number): string => OPERATIONS.find(([, c]) => c === code)?.[0] ?? operationName(code);

const RESOURCE_WORDS: Record<number, string> = {
  [ResourceType.TOPIC]: 'a topic',
  [ResourceType.GROUP]: 'a group',
  [ResourceType.CLUSTER]: 'the cluster',
  [ResourceType.TRANSACTIONAL_ID]: 'a transactional id',
};

const PATTERN_TYPES: Record<string, number> = { literal: PatternType.LITERAL, prefixed: PatternType.PREFIXED, any: PatternType.ANY, match: PatternType.MATCH };

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'add', kind: 'flag', help: 'add ACLs: every principal given, with every operation, from every host, on every resource' },
  { name: 'remove', kind: 'flag', help: 'remove ACLs: those of the principals, operations and hosts given, or without a principal every ACL of the resources; asks first unless --force' },
  { name: 'list', kind: 'flag', help: 'list ACLs: of the resources given, or all of them' },
  { name: 'topic', kind: 'list', value: 't', help: "a topic; '*' is every topic (repeatable)" },
  { name: 'group', kind: 'list', value: 'g', help: "a consumer group; '*' is every group (repeatable)" },
  { name: 'cluster', kind: 'flag', help: `the cluster (the resource ${CLUSTER_NAME})` },
  { name: 'transactional-id', kind: 'list', value: 'id', help: "a transactional id; '*' is every one (repeatable)" },
  {
    name: 'resource-pattern-type',
    kind: 'string',
    value: 'type',
    help: 'how resource names are read (default literal): literal or prefixed with --add; with --list and --remove also any (either, the name as given) or match (every ACL that applies to the resource: its literal name, the wildcard and prefixes of it; take care with --remove)',
  },
  { name: 'allow-principal', kind: 'list', value: 'Type:name', help: "a principal to allow, such as User:alice; User:'*' is everyone (repeatable)", modes: ['add', 'remove'] },
  { name: 'deny-principal', kind: 'list', value: 'Type:name', help: 'a principal to deny (repeatable); DENY takes precedence over ALLOW', modes: ['add', 'remove'] },
  { name: 'allow-host', kind: 'list', value: 'host', help: "a host the allowed principals may connect from (repeatable; default '*', every host)", modes: ['add', 'remove'] },
  { name: 'deny-host', kind: 'list', value: 'host', help: "a host the denied principals are denied from (repeatable; default '*')", modes: ['add', 'remove'] },
  { name: 'operation', kind: 'list', value: 'op', help: `an operation to allow or deny (repeatable; default All; with --remove only the ACLs of that operation): ${OPERATION_NAMES}`, modes: ['add', 'remove'] },
  { name: 'producer', kind: 'flag', help: 'the ACLs of a producer: Write, Describe and Create on the topics, Write and Describe on the transactional ids', modes: ['add', 'remove'] },
  { name: 'idempotent', kind: 'flag', help: 'with --producer: IdempotentWrite on the cluster as well', modes: ['add', 'remove'] },
  { name: 'consumer', kind: 'flag', help: 'the ACLs of a consumer: Read and Describe on the topics, Read on the groups (needs --topic and --group)', modes: ['add', 'remove'] },
  { name: 'principal', kind: 'list', value: 'Type:name', help: 'with --list: only the ACLs of this principal (repeatable: a section for each)', modes: ['list'] },
  { name: 'force', kind: 'flag', help: 'with --remove: remove without asking', modes: ['remove'] },
  HELP_OPTION,
];

/** A resource pattern, or for --list and --remove a resource pattern filter (pattern type ANY, MATCH). */
export interface AclResourcePattern {
  resourceType: number;
  resourceName: string;
  patternType: number;
}

export interface AclEntryData {
  principal: string;
  host: string;
  operation: number;
  permission: number;
}

/** What a command line asks for: each resource with its entries (none: every ACL of it, for --remove). */
export interface AclPlan {
  mode: Mode;
  resources: { resource: AclResourcePattern; entries: AclEntryData[] }[];
  /** --list --principal. */
  principals: string[];
}

/** An operation by Kafka's name (Read, IdempotentWrite), in any case, with or without _ and -. */
export function parseOperation(raw: string): number {
  const norm = (s: string) => s.replace(/[-_\s]/g, '').toLowerCase();
  const hit = OPERATIONS.find(([n]) => norm(n) === norm(raw));
  if (!hit) throw new UsageError(`unknown operation '${raw}': --operation takes ${OPERATION_NAMES}`);
  return hit[1];
}

function parsePrincipal(raw: string, option: string): string {
  const p = raw.trim();
  if (!isPrincipal(p)) throw new UsageError(`--${option} takes a principal of the form Type:name, such as User:alice (User:'*' for everyone); got '${raw}'`);
  return p;
}

function parsePatternType(args: Args, mode: Mode): number {
  const raw = args.string('resource-pattern-type') ?? 'literal';
  const t = PATTERN_TYPES[raw.toLowerCase()];
  if (t === undefined) throw new UsageError(`--resource-pattern-type must be one of literal, prefixed, any, match; got '${raw}'`);
  if (mode === 'add' && t !== PatternType.LITERAL && t !== PatternType.PREFIXED) throw new UsageError(`--resource-pattern-type ${raw} is not valid with --add: ACLs are literal or prefixed`);
  return t;
}

function resourcesOf(args: Args, patternType: number): AclResourcePattern[] {
  const out: AclResourcePattern[] = [];
  const add = (option: string, resourceType: number) => {
    for (const name of args.list(option)) {
      if (name === '') throw new UsageError(`--${option} needs a name ('*' for every one)`);
      if (patternType === PatternType.PREFIXED && name === WILDCARD) throw new UsageError(`--${option} '*' cannot be a prefix: '*' with --resource-pattern-type literal is every one`);
      if (!out.some((r) => r.resourceType === resourceType && r.resourceName === name)) out.push({ resourceType, resourceName: name, patternType });
    }
  };
  add('topic', ResourceType.TOPIC);
  if (args.has('cluster') || args.has('idempotent')) {
    if (args.has('cluster') && patternType === PatternType.PREFIXED) throw new UsageError(`the cluster is the literal resource ${CLUSTER_NAME}: --cluster does not go with --resource-pattern-type prefixed`);
    // the cluster has one name, always literal (--idempotent's too, with prefixed topics): a
    // filter's ANY or MATCH would select exactly its literal ACLs
    out.push({ resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME, patternType: PatternType.LITERAL });
  }
  add('group', ResourceType.GROUP);
  add('transactional-id', ResourceType.TRANSACTIONAL_ID);
  return out;
}

/** Every principal with every operation from every host, allowed and denied. */
function entriesFor(args: Args, operations: readonly number[]): AclEntryData[] {
  const entries: AclEntryData[] = [];
  for (const [kind, permission] of [
    ['allow', AclPermission.ALLOW],
    ['deny', AclPermission.DENY],
  ] as const) {
    const principals = [...new Set(args.list(`${kind}-principal`).map((p) => parsePrincipal(p, `${kind}-principal`)))];
    const hostsGiven = args.list(`${kind}-host`).map((h) => h.trim());
    if (hostsGiven.length > 0 && principals.length === 0) throw new UsageError(`--${kind}-host goes with --${kind}-principal`);
    if (hostsGiven.some((h) => h === '')) throw new UsageError(`--${kind}-host needs a host ('*' for every host)`);
    const hosts = hostsGiven.length > 0 ? [...new Set(hostsGiven)] : [WILDCARD];
    for (const principal of principals) for (const operation of operations) for (const host of hosts) entries.push({ principal, host, operation, permission });
  }
  return entries;
}

/** The command line as resources and entries, every check that needs no cluster made. */
export function planAcls(args: Args): AclPlan {
  const mode = args.mode(MODES) as Mode;
  const patternType = parsePatternType(args, mode);
  if (args.has('idempotent') && !args.has('producer')) throw new UsageError('--idempotent goes with --producer');
  const resources = resourcesOf(args, patternType);
  if (mode === 'list') return { mode, resources: resources.map((resource) => ({ resource, entries: [] })), principals: [...new Set(args.list('principal').map((p) => parsePrincipal(p, 'principal')))] };

  const producer = args.has('producer');
  const consumer = args.has('consumer');
  if (producer || consumer) {
    const role = producer ? '--producer' : '--consumer';
    for (const o of ['operation', 'deny-principal', 'deny-host']) if (args.has(o)) throw new UsageError(`--${o} does not go with ${role}: the operations are ${role}'s, and its ACLs allow`);
    if (args.has('cluster')) throw new UsageError(`--cluster does not go with ${role}${producer ? ': --idempotent adds IdempotentWrite on the cluster' : ''}`);
    if (producer && !args.has('topic')) throw new UsageError('--producer needs --topic');
    if (consumer && (!args.has('topic') || !args.has('group'))) throw new UsageError('--consumer needs --topic and --group');
    if (consumer && !producer && args.has('transactional-id')) throw new UsageError('--transactional-id goes with --producer, not --consumer alone');
    if (producer && !consumer && args.has('group')) throw new UsageError('--group goes with --consumer, not --producer alone');
  }
  if (resources.length === 0) throw new UsageError(`--${mode} needs a resource: --topic t, --group g, --cluster or --transactional-id id`);
  const hasPrincipal = args.has('allow-principal') || args.has('deny-principal');
  if (mode === 'add' && !hasPrincipal) throw new UsageError('--add needs --allow-principal or --deny-principal');
  if (args.has('operation') && !hasPrincipal) throw new UsageError('--operation goes with --allow-principal or --deny-principal (without a principal, --remove removes every ACL of the resources)');
  if (!hasPrincipal && (producer || consumer)) throw new UsageError(`--${producer ? 'producer' : 'consumer'} needs --allow-principal`);

  const operationsFor = (r: AclResourcePattern): number[] => {
    if (!producer && !consumer) {
      const ops = args.list('operation').map(parseOperation);
      return ops.length > 0 ? [...new Set(ops)] : [AclOperation.ALL];
    }
    const ops: number[] = [];
    if (producer && r.resourceType === ResourceType.TOPIC) ops.push(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE);
    if (producer && r.resourceType === ResourceType.TRANSACTIONAL_ID) ops.push(AclOperation.WRITE, AclOperation.DESCRIBE);
    if (producer && r.resourceType === ResourceType.CLUSTER) ops.push(AclOperation.IDEMPOTENT_WRITE);
    if (consumer && r.resourceType === ResourceType.TOPIC) ops.push(AclOperation.READ, AclOperation.DESCRIBE);
    if (consumer && r.resourceType === ResourceType.GROUP) ops.push(AclOperation.READ);
    return [...new Set(ops)];
  };

  const planned = resources.map((resource) => {
    const ops = operationsFor(resource);
    const supported = SUPPORTED_OPERATIONS.get(resource.resourceType)!;
    const bad = ops.filter((op) => op !== AclOperation.ALL && !supported.includes(op));
    if (bad.length > 0) {
      throw new UsageError(
        `${bad.map(opName).join(', ')} cannot apply to ${RESOURCE_WORDS[resource.resourceType]}: ${resourceTypeName(resource.resourceType)} has the operations All, ${supported.map(opName).join(', ')}`,
      );
    }
    return { resource, entries: entriesFor(args, ops) };
  });
  return { mode, resources: planned, principals: [] };
}

/** Kafka's ResourcePattern / ResourcePatternFilter toString. */
export function patternText(r: AclResourcePattern): string {
  return `ResourcePattern(resourceType=${resourceTypeName(r.resourceType)}, name=${r.resourceName}, patternType=${patternTypeName(r.patternType)})`;
}

/** Kafka's AccessControlEntry toString. */
export function entryText(e: AclEntryData): string {
  return `(principal=${e.principal}, host=${e.host}, operation=${operationName(e.operation)}, permissionType=${permissionName(e.permission)})`;
}

/** Bindings grouped by resource pattern, as kafka-acls prints them: a heading, a tab-indented entry a line, a blank line. */
export function aclLines(heading: string, bindings: readonly AclBinding[]): string[] {
  const sorted = [...new Map(bindings.map((b) => [bindingKey(b), b])).values()].sort(compareBindings);
  const lines: string[] = [];
  let last: AclBinding | undefined;
  for (const b of sorted) {
    if (!last || last.resourceType !== b.resourceType || last.resourceName !== b.resourceName || last.patternType !== b.patternType) {
      if (last) lines.push('');
      lines.push(`${heading} \`${patternText(b)}\`:`);
    }
    lines.push(`\t${entryText(b)}`);
    last = b;
  }
  if (last) lines.push('');
  return lines;
}

function bindingsOf(resources: readonly AclResource[]): AclBinding[] {
  return resources.flatMap((r) =>
    r.acls.map((a) => ({ resourceType: r.resourceType, resourceName: r.resourceName, patternType: r.resourcePatternType, principal: a.principal, host: a.host, operation: a.operation, permission: a.permissionType })),
  );
}

function filterOf(r: AclResourcePattern, e?: AclEntryData, principal?: string): AclFilter {
  return {
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    resourcePatternType: r.patternType,
    ...(e ? { principal: e.principal, host: e.host, operation: e.operation, permissionType: e.permission } : {}),
    ...(principal !== undefined ? { principal } : {}),
  };
}

/** The ACLs the filters select, each once. */
async function describeAll(admin: Admin, filters: readonly AclFilter[]): Promise<AclBinding[]> {
  const found = await Promise.all(filters.map(async (f) => bindingsOf((await admin.describeAcls(f)).resources)));
  return found.flat();
}

/** One line from stdin: true for y or yes; a stdin that ends first is a CliError. */
async function confirm(question: string): Promise<boolean> {
  process.stderr.write(`${question} (y/n) `);
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of rl) return /^y(es)?$/i.test(line.trim());
  } finally {
    rl.close();
  }
  err();
  throw new CliError('no answer came on stdin: nothing was removed — answer y, or add --force to remove without asking');
}

async function list(admin: Admin, plan: AclPlan): Promise<void> {
  const filtersFor = (principal?: string): AclFilter[] => (plan.resources.length === 0 ? [principal !== undefined ? { principal } : {}] : plan.resources.map((r) => filterOf(r.resource, undefined, principal)));
  if (plan.principals.length === 0) {
    const found = await describeAll(admin, filtersFor());
    for (const l of aclLines('Current ACLs for resource', found)) out(l);
    if (found.length === 0) err('No ACLs found.');
    return;
  }
  for (const principal of plan.principals) {
    out(`ACLs for principal \`${principal}\``);
    for (const l of aclLines('Current ACLs for resource', await describeAll(admin, filtersFor(principal)))) out(l);
  }
}

async function add(admin: Admin, plan: AclPlan): Promise<void> {
  const bindings: AclBinding[] = plan.resources.flatMap(({ resource, entries }) => entries.map((e) => ({ ...resource, ...e })));
  for (const l of aclLines('Adding ACLs for resource', bindings)) out(l);
  await admin.createAcls({ acl: bindings.map((b) => ({ resourceType: b.resourceType, resourceName: b.resourceName, resourcePatternType: b.patternType, principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permission })) });
  for (const l of aclLines('Current ACLs for resource', await describeAll(admin, plan.resources.map((r) => filterOf(r.resource))))) out(l);
}

async function remove(admin: Admin, plan: AclPlan, force: boolean): Promise<void> {
  const filters = plan.resources.flatMap(({ resource, entries }) => (entries.length === 0 ? [filterOf(resource)] : entries.map((e) => filterOf(resource, e))));
  const matching = await describeAll(admin, filters);
  if (matching.length === 0) {
    err(`No ACLs match ${plan.resources.map((r) => `\`${patternText(r.resource)}\``).join(', ')}${plan.resources.some((r) => r.entries.length > 0) ? ' with the principals, hosts and operations given' : ''}: nothing to remove.`);
    return;
  }
  if (!force) {
    for (const l of aclLines('ACLs to remove for resource', matching)) err(l);
    if (!(await confirm(`Are you sure you want to remove ${matching.length === 1 ? 'this ACL' : `these ${matching.length} ACLs`}?`))) {
      err('Nothing was removed.');
      return;
    }
  }
  const { filterResponses } = await admin.deleteAcls({ filters });
  const removed = filterResponses.flatMap((f) =>
    f.matchingAcls.map((a) => ({ resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.resourcePatternType, principal: a.principal, host: a.host, operation: a.operation, permission: a.permissionType })),
  );
  for (const l of aclLines('Removed ACLs for resource', removed)) out(l);
  if (removed.length === 0) err('Nothing was removed: the ACLs went in the meantime.');
}

async function run(args: Args): Promise<number> {
  const plan = planAcls(args);
  await withCluster(args, 'samsa-acls', (conn) =>
    withAdmin(conn, async (admin) => {
      if (plan.mode === 'list') await list(admin, plan);
      else if (plan.mode === 'add') await add(admin, plan);
      else await remove(admin, plan, args.has('force'));
    }),
  );
  return EXIT_OK;
}

export const aclsCommand: Command = {
  name: 'acls',
  summary: 'add, remove and list ACLs (who may do what to which topic, group, cluster or transactional id)',
  usage: [
    '[--bootstrap-server host:port] --add (--allow-principal P | --deny-principal P) ... [--operation op ...] [--allow-host h ...] [--deny-host h ...] RESOURCES',
    '[--bootstrap-server host:port] --add --allow-principal P ... (--producer [--idempotent] | --consumer) RESOURCES',
    '[--bootstrap-server host:port] --remove [--allow-principal P ... | --deny-principal P ...] [--operation op ...] RESOURCES [--force]',
    '[--bootstrap-server host:port] --list [RESOURCES] [--principal P ...]',
  ],
  description:
    "Manages ACLs like Kafka's kafka-acls. An ACL allows or denies a principal (User:alice; User:'*' is everyone) an operation on a resource from a host. --add binds every principal given with every --operation (default All) from every host (default '*') to every resource given; --remove removes those ACLs, or without a principal every ACL of the resources; --list prints the ACLs of the resources given, or all of them.\n\n" +
    "RESOURCES are --topic t, --group g, --cluster and --transactional-id id, each repeatable but --cluster. Their names are literal unless --resource-pattern-type prefixed (every name that starts with it); '*' is every resource of its type.\n\n" +
    "--producer binds Write, Describe and Create on the topics and Write, Describe on the transactional ids (--idempotent: IdempotentWrite on the cluster as well, as kafka-acls' --idempotent); --consumer Read, Describe on the topics and Read on the groups. An operation that does not apply to a resource type (Read on the cluster) is refused, as kafka-acls does.\n\n" +
    '--remove prints the ACLs it would remove and asks for y on stdin unless --force; if stdin ends without an answer nothing is removed and the command exits 1. Brokers enforce ACLs on their Kafka listeners when they set authorizer.class.name.',
  options,
  examples: [
    'samsa acls --add --allow-principal User:alice --operation Read --operation Describe --topic orders',
    'samsa acls --add --allow-principal User:bob --producer --topic orders- --resource-pattern-type prefixed',
    'samsa acls --add --allow-principal User:carol --consumer --topic orders --group billing',
    "samsa acls --add --allow-principal User:'*' --deny-principal User:mallory --operation Read --topic '*'",
    'samsa acls --list --topic orders --resource-pattern-type match',
    'samsa acls --remove --allow-principal User:alice --operation Read --topic orders --force',
  ],
  run,
};
