/**
 * `samsa groups`: list, describe and delete consumer groups and reset their offsets, like
 * Kafka's kafka-consumer-groups tool. KIP-848 groups (group.protocol=consumer) are described with
 * their epochs, assignor and each member's epoch, type (UPGRADED: the consumer protocol, or a
 * classic member) and assignment. --describe shows the group's state, members with their
 * assigned partitions, and per partition the committed offset, log end offset and lag.
 * --reset-offsets (Kafka's targets and topic forms, src/cli/offset-resets.ts) prints its plan and
 * changes nothing unless --execute is given. --delete-offsets
 * deletes a group's committed offsets of some topics, as Kafka's tool prints it.
 */
import fs from 'node:fs';
import { decodeAssignment, type TopicPartitions } from '../../../actors/group-coordinator/consumer-protocol.js';
import type { DescribedConsumerGroup, DescribedGroup, GroupListing } from '../../../actors/group-coordinator/messages.js';
import type { Admin } from '../../client/admin.js';
import { SamsaError } from '../../client/errors.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster, type Connection } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { classicGroupView, consumerGroupView, coordinatorCell, memberLines, offsetLines, stateLines, type GroupView } from '../group-views.js';
import { checkPartitions, offsetKey, parseResetPlan, parseTopicArg, partitionsNamed, planResets, RESET_TARGETS, resetPlanCsv, resetTarget, type PlannedOffset, type ResetTargetOption } from '../offset-resets.js';
import { err, out, plural, table } from '../output.js';

const MODES = ['list', 'describe', 'reset-offsets', 'delete', 'delete-offsets'] as const;

/** Kafka's consumer group states (GroupState), as --list --state takes and prints them. */
export const CONSUMER_GROUP_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty', 'Assigning', 'Reconciling'] as const;
const GROUP_TYPES = { classic: 'Classic', consumer: 'Consumer' } as const;
const TARGETS: readonly ResetTargetOption[] = RESET_TARGETS;

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'list', kind: 'flag', help: 'list the consumer groups' },
  { name: 'describe', kind: 'flag', help: 'show state, members and their partitions, committed offsets, log end offsets and lag' },
  { name: 'reset-offsets', kind: 'flag', help: 'plan (and with --execute, apply) new committed offsets; the group must have no running consumers' },
  { name: 'delete', kind: 'flag', help: 'delete a group and its committed offsets; the group must have no running consumers' },
  { name: 'delete-offsets', kind: 'flag', help: "delete a group's committed offsets of topics (or some of their partitions) its members are not subscribed to" },
  { name: 'group', kind: 'string', value: 'g', help: 'the group (required by --describe, --reset-offsets, --delete and --delete-offsets, unless --all-groups)', modes: ['describe', 'reset-offsets', 'delete', 'delete-offsets'] },
  { name: 'all-groups', kind: 'flag', help: 'with --describe, --reset-offsets and --delete: every consumer group, one after another', modes: ['describe', 'reset-offsets', 'delete'] },
  {
    name: 'state',
    kind: 'string',
    optionalValue: true,
    value: 'states',
    help: `with --list: each group's state, or only the groups in the states given (comma-separated: ${CONSUMER_GROUP_STATES.join(', ')}); with --describe (no value): Kafka's state table (coordinator, assignor, state, members)`,
    modes: ['list', 'describe'],
  },
  { name: 'members', kind: 'flag', help: "with --describe: Kafka's members table (consumer id, instance id, host, client id, partition count)", modes: ['describe'] },
  { name: 'offsets', kind: 'flag', help: "with --describe: Kafka's offsets table (each partition's committed offset, log end offset, lag and owner)", modes: ['describe'] },
  { name: 'verbose', kind: 'flag', help: 'with --describe --members or --state: the epochs and assignments, as Kafka\'s --verbose', modes: ['describe'] },
  { name: 'type', kind: 'string', optionalValue: true, value: 'types', help: "with --list: each group's type, or only the groups of the types given (comma-separated: Classic, Consumer)", modes: ['list'] },
  {
    name: 'topic',
    kind: 'list',
    value: 't',
    help: 'with --reset-offsets and --delete-offsets: a topic, all its partitions or those given as topic:0,1 (repeatable)',
    modes: ['reset-offsets', 'delete-offsets'],
  },
  { name: 'all-topics', kind: 'flag', help: 'with --reset-offsets: every partition the group has committed offsets of', modes: ['reset-offsets'] },
  { name: 'to-earliest', kind: 'flag', help: "reset to each partition's earliest offset", modes: ['reset-offsets'] },
  { name: 'to-latest', kind: 'flag', help: "reset to each partition's log end offset", modes: ['reset-offsets'] },
  { name: 'to-offset', kind: 'int', value: 'n', min: 0, help: 'reset every partition to offset n (kept within earliest..latest)', modes: ['reset-offsets'] },
  { name: 'to-datetime', kind: 'string', value: 'YYYY-MM-DDThh:mm:ss.sss', help: 'reset to the first offset written at or after this time (local time, or with Z or an offset such as +02:00)', modes: ['reset-offsets'] },
  { name: 'by-duration', kind: 'string', value: 'PnDTnHnMn.nS', help: 'reset to the first offset written at most this long ago (an ISO-8601 duration)', modes: ['reset-offsets'] },
  { name: 'shift-by', kind: 'int', value: 'n', help: 'move each committed offset by n (negative: back), kept within earliest..latest', modes: ['reset-offsets'] },
  { name: 'to-current', kind: 'flag', help: 'reset to the committed offset (the latest where none is)', modes: ['reset-offsets'] },
  { name: 'from-file', kind: 'string', value: 'file', help: 'reset to the offsets a CSV file gives (Kafka\'s: topic,partition,offset lines, or group,topic,partition,offset), as --export writes them', modes: ['reset-offsets'] },
  { name: 'export', kind: 'flag', help: "with --reset-offsets: print the plan as Kafka's CSV (for --from-file) instead of the table", modes: ['reset-offsets'] },
  { name: 'dry-run', kind: 'flag', help: 'only print the plan (the default)', modes: ['reset-offsets'] },
  { name: 'execute', kind: 'flag', help: 'apply the plan', modes: ['reset-offsets'] },
  HELP_OPTION,
];

function noSuchGroup(group: string): CliError {
  return new CliError(`consumer group '${group}' does not exist — list the groups with \`samsa groups --list\``);
}

async function describeOne(admin: Admin, group: string): Promise<DescribedGroup> {
  const g = (await admin.describeGroups([group])).groups[0];
  if (!g) throw noSuchGroup(group);
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw noSuchGroup(group);
  if (g.errorCode !== ErrorCode.NONE) throw new SamsaError(g.errorCode, `describing group ${group}`);
  return g;
}

function assignmentOf(g: DescribedGroup, m: DescribedGroup['members'][number]): TopicPartitions[] | null {
  if (g.protocolType !== 'consumer' || m.assignment.byteLength === 0) return [];
  try {
    return decodeAssignment(m.assignment).partitions;
  } catch {
    return null;
  }
}

function formatAssignment(a: TopicPartitions[] | null): string {
  if (a === null) return '(unreadable)';
  if (a.length === 0) return '-';
  return a.map((t) => `${t.topic}:${[...t.partitions].sort((x, y) => x - y).join(',')}`).join(' ');
}

/** A KIP-848 consumer group (group.protocol=consumer), or null for a classic group or none. */
async function describeConsumerGroup(admin: Admin, group: string): Promise<DescribedConsumerGroup | null> {
  const g = (await admin.describeConsumerGroups([group])).groups[0];
  if (!g || g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) return null;
  if (g.errorCode !== ErrorCode.NONE) throw new SamsaError(g.errorCode, `describing group ${group}`);
  return g;
}

/** The group's committed offsets and lag beside the owner of each partition, as kafka-consumer-groups prints them. */
async function printOffsets(admin: Admin, group: string, owner: Map<string, { memberId: string; clientId: string }>, assigned: Set<string>, known?: Awaited<ReturnType<Admin['fetchOffsets']>>): Promise<void> {
  const committed = known ?? (await admin.fetchOffsets({ groupId: group }));
  const topics = [...new Set([...committed.filter((t) => t.partitions.some((p) => p.offset >= 0)).map((t) => t.topic), ...assigned])].sort();
  const lag = topics.length ? await admin.lag({ groupId: group, topics }) : [];
  out();
  if (lag.length === 0) {
    out(`Consumer group '${group}' has no committed offsets and no assigned partitions.`);
    return;
  }
  const rows = [...lag]
    .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
    .map((l) => {
      const m = owner.get(`${l.topic}\u0000${l.partition}`);
      const has = l.committed >= 0;
      return [l.topic, l.partition, has ? l.committed : '-', l.logEndOffset, has ? l.lag : '-', m?.memberId ?? '-', m?.clientId ?? '-'];
    });
  for (const l of table(['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'MEMBER-ID', 'CLIENT-ID'], rows)) out(l);
}

/**
 * A KIP-848 group's lines: its state, epochs and assignor, then each member's epoch, whether it
 * is upgraded (true: the consumer protocol, false: a classic member of the group) and its
 * assignment; with the owner of each assigned partition, for the offsets table.
 */
export function consumerGroupLines(group: string, g: DescribedConsumerGroup): { lines: string[]; owner: Map<string, { memberId: string; clientId: string }>; assigned: Set<string> } {
  const owner = new Map<string, { memberId: string; clientId: string }>();
  const assigned = new Set<string>();
  const members = g.members.map((m) => {
    const parts = m.assignment.map((t) => ({ topic: t.topicName, partitions: t.partitions }));
    for (const t of parts) {
      assigned.add(t.topic);
      for (const p of t.partitions) owner.set(`${t.topic}\u0000${p}`, { memberId: m.memberId, clientId: m.clientId });
    }
    // UPGRADED, as Kafka 4.0's kafka-consumer-groups (KIP-1099): whether the member speaks the consumer protocol
    return [m.memberId, m.instanceId ?? '-', m.memberEpoch, m.clientId || '-', m.clientHost || '-', String(m.memberType === 'consumer'), formatAssignment(parts)];
  });
  const lines = [`Group: ${group}\tState: ${g.groupState}\tProtocol: consumer (assignor ${g.assignorName || '-'})\tEpoch: ${g.groupEpoch}\tAssignment epoch: ${g.assignmentEpoch}\tMembers: ${g.members.length}`, ''];
  if (members.length === 0) lines.push(`Consumer group '${group}' has no active members.`);
  else lines.push(...table(['MEMBER-ID', 'GROUP-INSTANCE-ID', 'EPOCH', 'CLIENT-ID', 'HOST', 'UPGRADED', 'ASSIGNMENT'], members));
  return { lines, owner, assigned };
}

async function describeConsumer(admin: Admin, group: string, g: DescribedConsumerGroup): Promise<void> {
  const { lines, owner, assigned } = consumerGroupLines(group, g);
  for (const l of lines) out(l);
  await printOffsets(admin, group, owner, assigned);
}

/**
 * --describe with --offsets, --members or --state: Kafka's tables (src/cli/group-views.ts) for a
 * classic or a KIP-848 group, after Kafka's notes on stderr for a group without members or in a
 * rebalance.
 */
/**
 * A group as one view for either protocol: the KIP-848 consumer group of that id, else the
 * classic group; `view` null when there is neither (GROUP_ID_NOT_FOUND from both), with the
 * coordinator that said so. Other errors throw.
 */
async function findGroupView(admin: Admin, group: string): Promise<{ view: GroupView | null; coordinatorId: number }> {
  const consumer = (await admin.describeConsumerGroups([group])).groups[0];
  if (consumer && consumer.errorCode === ErrorCode.NONE) return { view: consumerGroupView(consumer), coordinatorId: consumer.coordinatorId };
  if (consumer && consumer.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND) throw new SamsaError(consumer.errorCode, `describing group ${group}`);
  const classic = (await admin.describeGroups([group])).groups[0];
  if (!classic || (classic.errorCode !== ErrorCode.NONE && classic.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND)) throw new SamsaError(classic?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, `describing group ${group}`);
  return { view: classic.errorCode === ErrorCode.NONE ? classicGroupView(classic) : null, coordinatorId: classic.coordinatorId };
}

async function describeAsKafka(conn: Connection, admin: Admin, args: Args, group: string): Promise<void> {
  const found = await findGroupView(admin, group);
  let view = found.view;
  if (!view) {
    // a group known only by its committed offsets: empty, as Kafka's tool shows it
    const committed = await admin.fetchOffsets({ groupId: group });
    if (!committed.some((t) => t.partitions.some((p) => p.offset >= 0))) throw noSuchGroup(group);
    view = { groupId: group, state: 'Empty', coordinatorId: found.coordinatorId, assignmentStrategy: '', groupEpoch: null, targetAssignmentEpoch: null, members: [] };
  }
  if (view.state === 'Empty' || view.state === 'Dead') err(`Consumer group '${group}' has no active members.`);
  else if (view.state !== 'Stable') err(`Warning: Consumer group '${group}' is rebalancing.`);
  let lines: string[];
  if (args.has('state')) {
    lines = stateLines(view, coordinatorCell(await conn.metadata(), view.coordinatorId), args.has('verbose'));
  } else if (args.has('members')) lines = memberLines(view, args.has('verbose'));
  else {
    const committed = await admin.fetchOffsets({ groupId: group });
    const topics = [...new Set([...committed.filter((t) => t.partitions.some((p) => p.offset >= 0)).map((t) => t.topic), ...view.members.flatMap((m) => m.assignment.map((p) => p.topic))])].sort();
    const lag = topics.length ? await admin.lag({ groupId: group, topics }) : [];
    lines = offsetLines(view, lag.filter((l) => l.committed >= 0 || view.members.some((m) => m.assignment.some((p) => p.topic === l.topic && p.partition === l.partition))));
  }
  for (const l of lines) out(l);
}

async function describe(admin: Admin, group: string): Promise<void> {
  const consumerGroup = await describeConsumerGroup(admin, group);
  if (consumerGroup) return describeConsumer(admin, group, consumerGroup);
  const g = await describeOne(admin, group);
  const committed = await admin.fetchOffsets({ groupId: group });
  const hasOffsets = committed.some((t) => t.partitions.some((p) => p.offset >= 0));
  if (g.state === 'Dead' && g.members.length === 0 && !hasOffsets) throw noSuchGroup(group);

  const owner = new Map<string, DescribedGroup['members'][number]>();
  const assigned = new Set<string>();
  const members = g.members.map((m) => {
    const a = assignmentOf(g, m);
    for (const t of a ?? []) {
      assigned.add(t.topic);
      for (const p of t.partitions) owner.set(`${t.topic}\u0000${p}`, m);
    }
    return [m.memberId, m.groupInstanceId ?? '-', m.clientId || '-', m.clientHost || '-', formatAssignment(a)];
  });
  const protocol = g.protocolType ? `${g.protocolType}${g.protocolName ? `/${g.protocolName}` : ''}` : '-';
  out(`Group: ${group}\tState: ${g.state}\tProtocol: ${protocol}\tGeneration: ${g.generationId}\tMembers: ${g.members.length}`);
  out();
  if (members.length === 0) out(`Consumer group '${group}' has no active members.`);
  else for (const l of table(['MEMBER-ID', 'GROUP-INSTANCE-ID', 'CLIENT-ID', 'HOST', 'ASSIGNMENT'], members)) out(l);
  await printOffsets(admin, group, owner, assigned, committed);
}

/**
 * The group's state for a reset: a classic group's, else a consumer group's (KIP-848); throws
 * unless it has no running member (a group that does not exist yet may have offsets set, as
 * Kafka's tool allows).
 */
async function requireInactive(admin: Admin, group: string): Promise<void> {
  const { view } = await findGroupView(admin, group);
  if (view && (view.members.length > 0 || (view.state !== 'Empty' && view.state !== 'Dead'))) {
    throw new CliError(`consumer group '${group}' has ${plural(view.members.length, 'active member')} (state ${view.state}): offsets can only be reset while none of its consumers runs — stop them first`);
  }
}

async function resetOffsets(conn: Connection, admin: Admin, args: Args, group: string, fromFile: ReadonlyMap<string, PlannedOffset[]> | null): Promise<void> {
  await requireInactive(admin, group);
  const md = await conn.metadata();
  const committedList = await admin.fetchOffsets({ groupId: group });
  const committed = new Map(committedList.flatMap((t) => t.partitions.filter((p) => p.offset >= 0).map((p): [string, number] => [offsetKey(t.topic, p.partition), p.offset])));
  let plan: PlannedOffset[];
  if (fromFile) {
    // as Kafka's --from-file: the offsets as the file gives them, on partitions that exist
    plan = fromFile.get(group) ?? [];
    checkPartitions(md, plan);
  } else {
    const parts = args.has('all-topics')
      ? checkPartitions(md, committedList.flatMap((t) => t.partitions.filter((p) => p.offset >= 0).map((p) => ({ topic: t.topic, partition: p.partition }))))
      : partitionsNamed(md, args.list('topic'));
    plan = await planResets(admin, parts, resetTarget(args, TARGETS), committed, Date.now());
  }

  if (args.has('execute')) {
    for (const topic of [...new Set(plan.map((p) => p.topic))]) {
      await admin.resetOffsets({ groupId: group, topic, partitions: plan.filter((p) => p.topic === topic).map((p) => ({ partition: p.partition, offset: p.offset })) });
    }
  }
  const rows = plan.map((p) => {
    const c = committed.get(offsetKey(p.topic, p.partition));
    return [group, p.topic, p.partition, c ?? '-', p.offset];
  });
  if (args.has('export')) for (const l of resetPlanCsv(group, plan, args.has('all-groups'))) out(l);
  else for (const l of table(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'], rows)) out(l);
  const topics = [...new Set(plan.map((p) => p.topic))];
  if (plan.length === 0) err(fromFile ? `--from-file has no offsets for consumer group '${group}'` : `consumer group '${group}' has no committed offsets to reset (name the partitions with --topic)`);
  else if (args.has('execute')) err(`reset the offsets of group '${group}' on ${plural(plan.length, 'partition')} of ${topics.join(', ')}`);
  else err('dry run: nothing was changed — add --execute to reset these offsets');
}

/** Kafka's --delete-offsets table: topic, partition ('-' for a topic that could not be read) and status. */
export function deleteOffsetsLines(results: readonly { topic: string; partition: number; error: string | null }[]): string[] {
  const width = Math.max(15, ...results.map((r) => r.topic.length));
  const row = (a: string, b: string, c: string) => `${a.padEnd(width)} ${b.padEnd(10)} ${c}`.trimEnd();
  const sorted = [...results].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return [row('TOPIC', 'PARTITION', 'STATUS'), ...sorted.map((r) => row(r.topic, r.partition >= 0 ? String(r.partition) : '-', r.error === null ? 'Successful' : `Error: ${r.error}`))];
}

async function deleteOffsets(conn: Connection, admin: Admin, group: string, selections: readonly { topic: string; partitions: number[] | null }[]): Promise<void> {
  const md = await conn.metadata();
  const results: { topic: string; partition: number; error: string | null }[] = [];
  const partitions: { topic: string; partition: number }[] = [];
  for (const sel of selections) {
    const t = md.topics.find((x) => x.name === sel.topic);
    if (sel.partitions !== null) {
      for (const partition of sel.partitions) partitions.push({ topic: sel.topic, partition });
    } else if (!t) {
      results.push({ topic: sel.topic, partition: -1, error: errorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).message });
    } else {
      for (const p of t.partitions) partitions.push({ topic: sel.topic, partition: p.partition });
    }
  }
  let topLevel: SamsaError | null = null;
  if (partitions.length > 0) {
    try {
      const answered = await admin.deleteConsumerGroupOffsets(group, partitions);
      for (const r of answered) results.push({ topic: r.topic, partition: r.partition, error: r.errorCode === ErrorCode.NONE ? null : errorInfo(r.errorCode).message });
    } catch (e) {
      if (!(e instanceof SamsaError)) throw e;
      topLevel = e;
    }
  }
  if (topLevel) {
    if (topLevel.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw noSuchGroup(group);
    throw new CliError(`deleting offsets from group '${group}': ${errorInfo(topLevel.errorCode).name}: ${errorInfo(topLevel.errorCode).message}`);
  }
  const failed = results.filter((r) => r.error !== null).length;
  out(failed === 0 ? `Request succeeded for deleting offsets from group ${group}.` : '\nError: Encountered some partition-level error, see the follow-up details.');
  out();
  for (const l of deleteOffsetsLines(results)) out(l);
  if (failed > 0) throw new CliError(`${plural(failed, 'partition')} kept ${failed === 1 ? 'its offset' : 'their offsets'} or could not be read`);
}

/** --list --state's value: consumer group states, comma-separated, any case (Kafka's GroupState.parse). */
export function parseGroupStates(raw: string): string[] {
  const states = raw.split(',').map((x) => x.trim());
  const found = states.map((x) => CONSUMER_GROUP_STATES.find((k) => k.toLowerCase() === x.toLowerCase()));
  if (found.some((x) => x === undefined)) throw new UsageError(`Invalid state list '${raw}'. Valid states are: ${CONSUMER_GROUP_STATES.join(', ')}`);
  return [...new Set(found as string[])];
}

/** --list --type's value: Classic and/or Consumer, comma-separated, any case. */
export function parseGroupTypes(raw: string): ('classic' | 'consumer')[] {
  const types = raw.split(',').map((x) => x.trim().toLowerCase());
  if (types.some((x) => x !== 'classic' && x !== 'consumer')) throw new UsageError(`Invalid types list '${raw}'. Valid types are: ${Object.values(GROUP_TYPES).join(', ')}`);
  return [...new Set(types as ('classic' | 'consumer')[])];
}

/** Whether a group is a consumer group, as Kafka's tool takes them: a KIP-848 group, or a classic group of the consumer protocol type (or of none). */
function isConsumerGroup(g: GroupListing): boolean {
  return g.groupType === 'consumer' || (g.groupType === 'classic' && (g.protocolType === '' || g.protocolType === 'consumer'));
}

/** The ids of the consumer groups (as --list lists them), sorted. */
async function consumerGroupIds(admin: Admin): Promise<string[]> {
  const { groups } = await admin.listGroups({ types: ['classic', 'consumer'] });
  return groups
    .filter(isConsumerGroup)
    .map((g) => g.groupId)
    .sort();
}

/**
 * --list as Kafka's tool: the consumer groups (classic groups of the consumer protocol type or of
 * none, and KIP-848 groups; not share groups, nor classic groups of another protocol such as
 * Connect's), their ids alone, or with --type and --state those columns, filtered by the types and
 * states given.
 */
async function list(admin: Admin, args: Args): Promise<void> {
  const states = args.string('state') ? parseGroupStates(args.string('state')!) : null;
  const types = args.string('type') ? parseGroupTypes(args.string('type')!) : (['classic', 'consumer'] as const);
  const { groups } = await admin.listGroups({ types: [...types], ...(states ? { states } : {}) });
  const consumerGroups = groups.filter(isConsumerGroup).sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  if (!args.has('state') && !args.has('type')) {
    for (const g of consumerGroups) out(g.groupId);
    return;
  }
  const header = ['GROUP', ...(args.has('type') ? ['TYPE'] : []), ...(args.has('state') ? ['STATE'] : [])];
  const rows = consumerGroups.map((g) => [g.groupId, ...(args.has('type') ? [GROUP_TYPES[g.groupType as 'classic' | 'consumer']] : []), ...(args.has('state') ? [g.state] : [])]);
  for (const l of table(header, rows)) out(l);
}

async function remove(admin: Admin, group: string): Promise<void> {
  const r = (await admin.deleteGroups([group])).find((x) => x.groupId === group) ?? { groupId: group, errorCode: ErrorCode.GROUP_ID_NOT_FOUND };
  if (r.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw noSuchGroup(group);
  if (r.errorCode === ErrorCode.NON_EMPTY_GROUP) throw new CliError(`consumer group '${group}' still has active members — stop its consumers, then delete it`);
  if (r.errorCode !== ErrorCode.NONE) throw new SamsaError(r.errorCode, `deleting group ${group}`);
  out(`Deleted consumer group '${group}'.`);
}

async function run(args: Args): Promise<number> {
  const mode = args.mode(MODES);
  const failed: string[] = [];
  const group = args.string('group');
  if (args.has('all-groups') && group !== undefined) throw new UsageError('give --group or --all-groups, not both');
  if (mode !== 'list' && group === undefined && !args.has('all-groups')) throw new UsageError(`--${mode} needs --group${mode === 'delete-offsets' ? '' : ' or --all-groups'}`);
  if (mode === 'list' && args.string('state')) parseGroupStates(args.string('state')!);
  if (mode === 'describe') {
    if (args.string('state')) throw new UsageError('--describe --state takes no value (it prints the state table)');
    const tables = ['offsets', 'members', 'state'].filter((o) => args.has(o));
    if (tables.length > 1) throw new UsageError(`give only one of --offsets, --members, --state (got ${tables.map((t) => `--${t}`).join(' and ')})`);
    if (args.has('verbose') && !args.has('members') && !args.has('state')) throw new UsageError('--verbose goes with --describe --members or --state');
  }
  if (args.string('type')) parseGroupTypes(args.string('type')!);
  // check the command line before connecting
  if (mode === 'delete-offsets' && !args.has('topic')) throw new UsageError('--delete-offsets needs --topic (repeatable; topic or topic:0,1)');
  const deleting = mode === 'delete-offsets' ? args.list('topic').map(parseTopicArg) : [];
  let fromFile: Map<string, PlannedOffset[]> | null = null;
  if (mode === 'reset-offsets' && args.has('from-file')) {
    const others = ['topic', 'all-topics', ...TARGETS].filter((o) => args.has(o));
    if (others.length > 0) throw new UsageError(`--from-file gives the partitions and their offsets: leave out ${others.map((o) => `--${o}`).join(', ')}`);
    const file = args.string('from-file')!;
    let csv: string;
    try {
      csv = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`--from-file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    fromFile = parseResetPlan(csv, group ?? null);
  } else if (mode === 'reset-offsets') {
    if (args.has('topic') === args.has('all-topics')) throw new UsageError('--reset-offsets takes one of these options: --all-topics, --topic');
    for (const t of args.list('topic')) parseTopicArg(t);
    resetTarget(args, TARGETS);
  }
  if (mode === 'reset-offsets' && args.has('dry-run') && args.has('execute')) throw new UsageError('give --dry-run or --execute, not both');

  await withCluster(args, 'samsa-groups', (conn) =>
    withAdmin(conn, async (admin) => {
      // loads the admin client's metadata, so its group requests go to brokers rather than
      // to the bootstrap node (DescribeGroups and DeleteGroups do not load it themselves)
      await admin.describeCluster();
      if (mode === 'list') return list(admin, args);
      if (mode === 'delete-offsets') return deleteOffsets(conn, admin, group!, deleting);
      // one group, or with --all-groups each consumer group in turn: a failure is reported and the others go on
      const groups = group !== undefined ? [group] : await consumerGroupIds(admin);
      if (groups.length === 0) err('there are no consumer groups');
      for (const [i, g] of groups.entries()) {
        if (i > 0 && mode === 'describe') out();
        try {
          if (mode === 'describe') await (args.has('offsets') || args.has('members') || args.has('state') ? describeAsKafka(conn, admin, args, g) : describe(admin, g));
          else if (mode === 'reset-offsets') await resetOffsets(conn, admin, args, g, fromFile);
          else await remove(admin, g);
        } catch (e) {
          if (groups.length === 1) throw e;
          failed.push(`${g}: ${(e as Error).message}`);
        }
      }
    }),
  );
  if (failed.length > 0) throw new CliError(`${plural(failed.length, 'group')} failed:\n${failed.map((f) => `  ${f}`).join('\n')}`);
  return EXIT_OK;
}

export const groupsCommand: Command = {
  name: 'groups',
  summary: 'list, describe, delete consumer groups, reset and delete their offsets',
  usage: [
    '[--bootstrap-server host:port] --list [--state [states]] [--type [types]]',
    '[--bootstrap-server host:port] --describe (--group g | --all-groups) [--offsets | --members [--verbose] | --state [--verbose]]',
    '[--bootstrap-server host:port] --reset-offsets (--group g | --all-groups) (--topic t[:p,p...] ... | --all-topics) (--to-earliest | --to-latest | --to-offset n | --to-datetime t | --by-duration d | --shift-by n | --to-current) [--dry-run | --execute] [--export]',
    '[--bootstrap-server host:port] --reset-offsets (--group g | --all-groups) --from-file plan.csv [--dry-run | --execute]',
    '[--bootstrap-server host:port] --delete (--group g | --all-groups)',
    '[--bootstrap-server host:port] --delete-offsets --group g --topic t[:p,p...] [--topic ...]',
  ],
  description:
    "Manages consumer groups like Kafka's kafka-consumer-groups. --describe prints the group's state, protocol and generation, its members (client id, host, assigned partitions), and per partition the committed offset, the log end offset and the lag (- where nothing is committed). --reset-offsets needs a group without running consumers (classic or KIP-848); it takes the partitions of the topics given (all of a topic, or those after a colon) or, with --all-topics, every partition the group has committed offsets of, and sets them as Kafka's tool does: to the earliest or latest offset, an offset (kept within them), the first offset written at or after a time (--to-datetime) or at most a duration ago (--by-duration; the latest when no record is that recent), the committed offset shifted by n (--shift-by, kept within them), or the committed offset itself (--to-current, the latest where none is), or what a CSV file says (--from-file: Kafka's topic,partition,offset lines, or group,topic,partition,offset); it prints the plan (with --export as that CSV) and changes nothing unless --execute is given. --describe with --offsets, --members or --state prints Kafka's table of that name instead of samsa's summary (--verbose adds the epochs and assignments of --members and --state). --all-groups runs --describe, --reset-offsets or --delete on every consumer group in turn (a group that fails is reported at the end, exit 1, and the others go on). --delete-offsets deletes the group's committed offsets of the topics given (all their partitions, or those listed after a colon), as Kafka's tool: a partition of a topic a running member subscribes to keeps its offset (GROUP_SUBSCRIBED_TO_TOPIC), a topic that does not exist is reported, each partition's result is printed, and the command exits 1 when any failed.",
  options,
  examples: [
    'samsa groups --describe --group billing',
    'samsa groups --reset-offsets --group billing --topic orders --to-earliest            # dry run',
    'samsa groups --reset-offsets --group billing --topic orders --to-earliest --execute',
    'samsa groups --reset-offsets --group billing --all-topics --by-duration PT1H --execute   # an hour back',
    'samsa groups --reset-offsets --group billing --topic orders:0,1 --shift-by -100 --execute',
    'samsa groups --delete-offsets --group billing --topic old-orders --topic audit:0,1',
  ],
  run,
};
