/**
 * `samsa share-groups`: list, describe and delete KIP-932 share groups, delete their offsets and
 * reset them, like Kafka 4.2's kafka-share-groups tool (ShareGroupCommand), through the admin
 * client's share group calls (src/client/admin.ts). --describe prints per group its offsets (the
 * default: each partition's start offset and lag), its members (--members) or its state
 * (--state), Kafka's columns, with --verbose Kafka's extra ones. --reset-offsets prints its plan
 * and changes nothing unless --execute is given; besides Kafka's --to-earliest, --to-latest and
 * --to-datetime it takes kafka-consumer-groups' --to-offset and --by-duration.
 */
import type { Admin, ShareGroupDescription } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster, type Connection } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { err, out, plural, table } from '../output.js';
import { coordinatorCell } from '../group-views.js';
import { checkPartitions, parseTopicArg, partitionsNamed, planResets, resetTarget, type ResetTargetOption } from '../offset-resets.js';

const MODES = ['list', 'describe', 'delete', 'delete-offsets', 'reset-offsets'] as const;
const TARGETS: readonly ResetTargetOption[] = ['to-earliest', 'to-latest', 'to-offset', 'to-datetime', 'by-duration'];
const DESCRIBE_KINDS = ['members', 'offsets', 'state'] as const;
/** A share group's states, as Kafka's GroupState.groupStatesForType(SHARE) names them. */
const SHARE_STATES = ['Empty', 'Stable', 'Dead'] as const;
const MISSING = '-';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'list', kind: 'flag', help: 'list the share groups' },
  { name: 'describe', kind: 'flag', help: "describe share groups: their offsets (the default), members (--members) or state (--state)" },
  { name: 'delete', kind: 'flag', help: 'delete share groups and their offsets; each must have no running consumers' },
  { name: 'delete-offsets', kind: 'flag', help: "delete a share group's offsets of whole topics; the group must have no running consumers" },
  { name: 'reset-offsets', kind: 'flag', help: "plan (and with --execute, apply) new start offsets of a share group; the group must have no running consumers" },
  { name: 'group', kind: 'list', value: 'g', help: 'the share group (--describe and --delete take several)', modes: ['describe', 'delete', 'delete-offsets', 'reset-offsets'] },
  { name: 'all-groups', kind: 'flag', help: 'with --describe or --delete: every share group', modes: ['describe', 'delete'] },
  { name: 'topic', kind: 'list', value: 't[:p,p...]', help: 'with --delete-offsets: a topic whose offsets to delete; with --reset-offsets: a topic (all its partitions, or those listed after the colon)', modes: ['delete-offsets', 'reset-offsets'] },
  { name: 'all-topics', kind: 'flag', help: 'with --reset-offsets: every partition the group has offsets of or its members use', modes: ['reset-offsets'] },
  { name: 'members', kind: 'flag', help: 'with --describe: the members, their clients, hosts and assigned partitions', modes: ['describe'] },
  { name: 'offsets', kind: 'flag', help: "with --describe: each partition's start offset and lag (the default)", modes: ['describe'] },
  {
    name: 'state',
    kind: 'string',
    optionalValue: true,
    value: 'states',
    help: `with --describe: the group's coordinator, state and members; with --list: each group's state, or only the groups in the states given (comma-separated: ${SHARE_STATES.join(', ')})`,
    modes: ['list', 'describe'],
  },
  { name: 'verbose', kind: 'flag', help: 'with --describe: more columns (the leader epoch, member epochs, group and assignment epochs)', modes: ['describe'] },
  { name: 'to-earliest', kind: 'flag', help: "reset to each partition's earliest offset", modes: ['reset-offsets'] },
  { name: 'to-latest', kind: 'flag', help: "reset to each partition's latest offset (the high watermark)", modes: ['reset-offsets'] },
  { name: 'to-offset', kind: 'int', value: 'n', min: 0, help: 'reset every partition to offset n (kept within earliest..latest)', modes: ['reset-offsets'] },
  { name: 'to-datetime', kind: 'string', value: 'YYYY-MM-DDThh:mm:ss.sss', help: 'reset to the first offset written at or after this time (local time, or with Z or an offset such as +02:00)', modes: ['reset-offsets'] },
  { name: 'by-duration', kind: 'string', value: 'PnDTnHnMn.nS', help: 'reset to the first offset written at most this long ago (an ISO-8601 duration)', modes: ['reset-offsets'] },
  { name: 'dry-run', kind: 'flag', help: 'only print the plan (the default)', modes: ['reset-offsets'] },
  { name: 'execute', kind: 'flag', help: 'apply the plan', modes: ['reset-offsets'] },
  HELP_OPTION,
];

// ---------------------------------------------------------------------------------------------
// Parsing what Kafka's tool takes

/** --list --state's value: share group states, comma-separated, case-insensitive (Kafka's GroupState.parse). */
export function parseStates(raw: string): string[] {
  const states = raw.split(',').map((s) => s.trim());
  const bad = states.filter((s) => !SHARE_STATES.some((x) => x.toLowerCase() === s.toLowerCase()));
  if (bad.length > 0 || states.length === 0) throw new UsageError(`Invalid state list '${raw}'. Valid states are: ${SHARE_STATES.join(', ')}`);
  return [...new Set(states.map((s) => SHARE_STATES.find((x) => x.toLowerCase() === s.toLowerCase())!))];
}

// ---------------------------------------------------------------------------------------------
// What is printed

/** A member's assignment as Kafka prints it: `topic:0,1;other:2`, topics sorted; - for none. */
export function assignmentString(assignment: readonly { topicName: string; partitions: readonly number[] }[]): string {
  const byTopic = new Map<string, number[]>();
  for (const a of assignment) byTopic.set(a.topicName, [...(byTopic.get(a.topicName) ?? []), ...a.partitions]);
  if (byTopic.size === 0) return MISSING;
  return [...byTopic]
    .map(([topic, ps]) => `${topic}:${[...ps].sort((x, y) => x - y).join(',')}`)
    .sort()
    .join(';');
}

/** --describe --members: Kafka's table of a group's members (none: the group's state said instead). */
export function memberLines(g: ShareGroupDescription, verbose: boolean): string[] {
  const members = [...g.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const header = verbose ? ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'MEMBER-EPOCH', 'ASSIGNMENT'] : ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'ASSIGNMENT'];
  const rows = members.map((m) => {
    const partitions = m.assignment.reduce((n, a) => n + a.partitions.length, 0);
    const cells: (string | number)[] = [g.groupId, m.memberId, m.clientHost || MISSING, m.clientId || MISSING, partitions];
    if (verbose) cells.push(m.memberEpoch);
    cells.push(assignmentString(m.assignment));
    return cells;
  });
  return table(header, rows);
}

/** --describe --state: Kafka's row of the group's coordinator, state and members. */
export function stateLines(g: ShareGroupDescription, coordinator: string, verbose: boolean): string[] {
  if (verbose) return table(['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS'], [[g.groupId, coordinator, g.groupState, g.groupEpoch, g.assignmentEpoch, g.members.length]]);
  return table(['GROUP', 'COORDINATOR (ID)', 'STATE', '#MEMBERS'], [[g.groupId, coordinator, g.groupState, g.members.length]]);
}

/** --describe (--offsets): Kafka's table of a group's partitions, start offsets and lag (- where there is none). */
export function offsetLines(groupId: string, offsets: Awaited<ReturnType<Admin['listShareGroupOffsets']>>, verbose: boolean): string[] {
  const header = verbose ? ['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'] : ['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET', 'LAG'];
  const shown = (n: number) => (n >= 0 ? n : MISSING);
  const rows = offsets
    .filter((p) => p.errorCode === ErrorCode.NONE)
    .map((p) => {
      const has = p.startOffset >= 0;
      const cells: (string | number)[] = [groupId, p.topic, p.partition];
      if (verbose) cells.push(has ? shown(p.leaderEpoch) : MISSING);
      cells.push(has ? p.startOffset : MISSING, has ? shown(p.lag) : MISSING);
      return cells;
    });
  return table(header, rows);
}

// ---------------------------------------------------------------------------------------------
// The modes

function noSuchGroup(group: string): string {
  return `share group '${group}' does not exist — list the share groups with \`samsa share-groups --list\``;
}

function shareGroupIds(args: Args): string[] {
  return [...new Set(args.list('group'))];
}

async function allShareGroups(admin: Admin): Promise<string[]> {
  return (await admin.listGroups({ types: ['share'] })).groups.map((g) => g.groupId).sort();
}

async function list(admin: Admin, args: Args): Promise<number> {
  if (!args.has('state')) {
    for (const id of await allShareGroups(admin)) out(id);
    return EXIT_OK;
  }
  const raw = args.string('state') ?? '';
  const states = raw === '' ? undefined : parseStates(raw);
  const { groups } = await admin.listGroups({ types: ['share'], ...(states ? { states } : {}) });
  const rows = [...groups].sort((a, b) => (a.groupId < b.groupId ? -1 : 1)).map((g) => [g.groupId, g.state]);
  for (const l of table(['GROUP', 'STATE'], rows)) out(l);
  return EXIT_OK;
}

async function describe(conn: Connection, admin: Admin, args: Args): Promise<number> {
  const ids = args.has('all-groups') ? await allShareGroups(admin) : shareGroupIds(args);
  const kind = args.has('members') ? 'members' : args.has('state') ? 'state' : 'offsets';
  const verbose = args.has('verbose');
  const { groups } = await admin.describeShareGroups(ids);
  let failed = false;
  let first = true;
  const md = kind === 'state' ? await conn.metadata() : null;
  for (const g of [...groups].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))) {
    if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) {
      err(`Error: ${noSuchGroup(g.groupId)}`);
      failed = true;
      continue;
    }
    if (g.errorCode !== ErrorCode.NONE) throw new SamsaError(g.errorCode, `describing share group ${g.groupId}${g.errorMessage ? `: ${g.errorMessage}` : ''}`);
    if (!first) out();
    first = false;
    if (kind === 'members') {
      if (g.members.length === 0) err(`Share group '${g.groupId}' has no active members.`);
      else for (const l of memberLines(g, verbose)) out(l);
    } else if (kind === 'state') {
      if (g.groupState === 'Empty') err(`Share group '${g.groupId}' has no active members.`);
      for (const l of stateLines(g, coordinatorCell(md!, g.coordinatorId), verbose)) out(l);
    } else {
      const offsets = await admin.listShareGroupOffsets({ groupId: g.groupId });
      for (const p of offsets.filter((x) => x.errorCode !== ErrorCode.NONE)) err(`${p.topic}-${p.partition}: ${errorName(p.errorCode)}${p.errorMessage ? `: ${p.errorMessage}` : ''}`);
      for (const l of offsetLines(g.groupId, offsets, verbose)) out(l);
    }
  }
  return failed ? EXIT_FAILURE : EXIT_OK;
}

async function remove(admin: Admin, args: Args): Promise<number> {
  const listing = (await admin.listGroups({ types: ['share'] })).groups;
  const ids = args.has('all-groups') ? listing.map((g) => g.groupId).sort() : shareGroupIds(args);
  // as Kafka's tool: each group checked against the listing first
  const failures = new Map<string, string>();
  for (const id of ids) {
    const l = listing.find((g) => g.groupId === id);
    if (!l) failures.set(id, `Group '${id}' is not a share group.`);
    else if (l.state === 'Dead') failures.set(id, `Share group '${id}' group state is DEAD.`);
    else if (l.state !== 'Empty') failures.set(id, `Share group '${id}' is not EMPTY.`);
  }
  const asked = ids.filter((id) => !failures.has(id));
  const deleted: string[] = [];
  if (asked.length > 0) {
    for (const r of await admin.deleteShareGroups(asked)) {
      if (r.errorCode === ErrorCode.NONE) deleted.push(r.groupId);
      else failures.set(r.groupId, `${errorName(r.errorCode)}${r.errorCode === ErrorCode.NON_EMPTY_GROUP ? ': the group still has active members' : ''}`);
    }
  }
  const quoted = (xs: string[]) => xs.map((g) => `'${g}'`).join(', ');
  if (failures.size === 0) {
    out(`Deletion of requested share groups (${quoted(deleted)}) was successful.`);
    return EXIT_OK;
  }
  err('Error: Deletion of some share groups failed:');
  for (const [g, why] of failures) err(`* Group '${g}' could not be deleted due to: ${why}`);
  if (deleted.length > 0) out(`These share groups were deleted successfully: ${quoted(deleted)}`);
  return EXIT_FAILURE;
}

/** A group-level refusal of --delete-offsets or --reset-offsets, in words. */
function groupRefusal(e: unknown, group: string, what: string): unknown {
  if (!(e instanceof SamsaError)) return e;
  if (e.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return new CliError(noSuchGroup(group));
  if (e.errorCode === ErrorCode.NON_EMPTY_GROUP) return new CliError(`share group '${group}' has active members: its offsets can only be ${what} while none of its consumers runs — stop them first`);
  return e;
}

async function deleteOffsets(admin: Admin, args: Args, group: string): Promise<number> {
  const topics = [...new Set(args.list('topic'))];
  let results: Awaited<ReturnType<Admin['deleteShareGroupOffsets']>>;
  try {
    results = await admin.deleteShareGroupOffsets(group, topics);
  } catch (e) {
    throw groupRefusal(e, group, 'deleted');
  }
  const rows = [...results].sort((a, b) => (a.topic < b.topic ? -1 : 1)).map((r) => [r.topic, r.errorCode === ErrorCode.NONE ? 'Successful' : `Error: ${r.errorMessage ?? errorName(r.errorCode)}`]);
  for (const l of table(['TOPIC', 'STATUS'], rows)) out(l);
  return results.every((r) => r.errorCode === ErrorCode.NONE) ? EXIT_OK : EXIT_FAILURE;
}

async function resetOffsets(conn: Connection, admin: Admin, args: Args, group: string): Promise<number> {
  const g = (await admin.describeShareGroups([group])).groups[0];
  if (g && g.errorCode !== ErrorCode.NONE && g.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND) throw new SamsaError(g.errorCode, `describing share group ${group}`);
  // as Kafka's tool: a group that does not exist yet may have its offsets set
  if (g && g.errorCode === ErrorCode.NONE && g.groupState !== 'Empty' && g.groupState !== 'Dead') {
    throw new CliError(`share group '${group}' is not empty: it has ${plural(g.members.length, 'active member')} (state ${g.groupState}); offsets can only be reset while none of its consumers runs — stop them first`);
  }

  // the partitions, and their new offsets
  const md = await conn.metadata();
  const parts = args.has('topic') ? partitionsNamed(md, args.list('topic')) : checkPartitions(md, (await admin.listShareGroupOffsets({ groupId: group })).map((p) => ({ topic: p.topic, partition: p.partition })));
  const plan = await planResets(admin, parts, resetTarget(args, TARGETS), new Map(), Date.now());

  if (args.has('execute') && plan.length > 0) {
    let results: Awaited<ReturnType<Admin['alterShareGroupOffsets']>>;
    try {
      results = await admin.alterShareGroupOffsets(group, plan);
    } catch (e) {
      throw groupRefusal(e, group, 'reset');
    }
    const bad = results.filter((r) => r.errorCode !== ErrorCode.NONE);
    for (const r of bad) err(`${r.topic}-${r.partition}: ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`);
    if (bad.length > 0) throw new CliError(`${plural(bad.length, 'partition')} of share group '${group}' could not be reset`);
  }
  for (const l of table(['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'], plan.map((p) => [group, p.topic, p.partition, p.offset]))) out(l);
  if (plan.length === 0) err(`share group '${group}' has no partitions to reset: it has no offsets and no members (name the partitions with --topic)`);
  else if (args.has('execute')) err(`reset the offsets of share group '${group}' on ${plural(plan.length, 'partition')}`);
  else err('dry run: nothing was changed — add --execute to reset these offsets');
  return EXIT_OK;
}

/** The command line's checks (Kafka's ShareGroupCommandOptions.checkArgs), before connecting. */
function check(mode: string, args: Args): void {
  const groups = shareGroupIds(args);
  const one = (what: string) => {
    if (groups.length !== 1) throw new UsageError(`--${what} takes exactly one --group`);
  };
  switch (mode) {
    case 'describe': {
      if (groups.length === 0 && !args.has('all-groups')) throw new UsageError('--describe takes one of these options: --group, --all-groups');
      if (groups.length > 0 && args.has('all-groups')) throw new UsageError('--describe takes --group or --all-groups, not both');
      if (DESCRIBE_KINDS.filter((k) => args.has(k)).length > 1) throw new UsageError(`--describe takes at most one of these options: ${DESCRIBE_KINDS.map((k) => `--${k}`).join(', ')}`);
      if (args.has('state') && args.string('state') !== '') throw new UsageError('--describe does not take a value for --state');
      break;
    }
    case 'list':
      if (args.string('state')) parseStates(args.string('state')!);
      break;
    case 'delete':
      if (groups.length === 0 && !args.has('all-groups')) throw new UsageError('--delete takes the options --group or --all-groups');
      if (groups.length > 0 && args.has('all-groups')) throw new UsageError('--delete takes either --group or --all-groups, not both.');
      break;
    case 'delete-offsets':
      one('delete-offsets');
      if (!args.has('topic')) throw new UsageError('--delete-offsets takes the following options: --group, --topic');
      for (const t of args.list('topic')) if (t.includes(':')) throw new UsageError(`--delete-offsets deletes the offsets of whole topics: give --topic ${t.split(':')[0]}`);
      break;
    case 'reset-offsets': {
      one('reset-offsets');
      if (args.has('dry-run') && args.has('execute')) throw new UsageError('--reset-offsets only accepts one of --execute and --dry-run');
      if (!args.has('topic') && !args.has('all-topics')) throw new UsageError('--reset-offsets takes one of these options: --all-topics, --topic');
      if (args.has('topic') && args.has('all-topics')) throw new UsageError('--reset-offsets takes --topic or --all-topics, not both');
      resetTarget(args, TARGETS);
      for (const t of args.list('topic')) parseTopicArg(t);
      break;
    }
  }
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES);
  check(mode, args);
  return withCluster(args, 'samsa-share-groups', (conn) =>
    withAdmin(conn, async (admin) => {
      // loads the admin client's metadata, so its group requests go to brokers rather than to the bootstrap node
      await admin.describeCluster();
      switch (mode) {
        case 'list':
          return list(admin, args);
        case 'describe':
          return describe(conn, admin, args);
        case 'delete':
          return remove(admin, args);
        case 'delete-offsets':
          return deleteOffsets(admin, args, shareGroupIds(args)[0]!);
        default:
          return resetOffsets(conn, admin, args, shareGroupIds(args)[0]!);
      }
    }),
  );
}

export const shareGroupsCommand: Command = {
  name: 'share-groups',
  summary: 'list, describe, delete share groups (KIP-932), delete and reset their offsets',
  usage: [
    '[--bootstrap-server host:port] --list [--state [states]]',
    '[--bootstrap-server host:port] --describe (--group g ... | --all-groups) [--offsets | --members | --state] [--verbose]',
    '[--bootstrap-server host:port] --delete (--group g ... | --all-groups)',
    '[--bootstrap-server host:port] --delete-offsets --group g --topic t ...',
    '[--bootstrap-server host:port] --reset-offsets --group g (--topic t[:p,...] ... | --all-topics) (--to-earliest | --to-latest | --to-offset n | --to-datetime t | --by-duration d) [--dry-run | --execute]',
  ],
  description:
    "Manages KIP-932 share groups like Kafka's kafka-share-groups. --describe prints each group's offsets: per partition the share-partition start offset (the first offset not yet delivered and done) and the lag (records from there to the high watermark not yet acknowledged or archived), - where the group has none; --members its members with their client, host and assigned partitions; --state its coordinator, state and member count. --verbose adds the leader epoch, member epochs, group and assignment epochs.\n\n" +
    '--delete, --delete-offsets and --reset-offsets need a group without running consumers (state Empty; --reset-offsets also takes a group that does not exist yet, whose first members then start where it says). --reset-offsets prints the new start offsets and changes nothing unless --execute is given; --to-offset and --by-duration are kafka-consumer-groups\' options, not in Kafka\'s kafka-share-groups.',
  options,
  examples: [
    'samsa share-groups --list --state',
    'samsa share-groups --describe --group billing',
    'samsa share-groups --describe --group billing --members --verbose',
    'samsa share-groups --reset-offsets --group billing --topic orders --to-earliest            # dry run',
    'samsa share-groups --reset-offsets --group billing --topic orders:0,1 --to-offset 42 --execute',
    'samsa share-groups --delete-offsets --group billing --topic orders',
  ],
  run,
};
