/**
 * Kafka's `kafka-consumer-groups --describe` tables for `samsa groups --describe --offsets`,
 * `--members` and `--state` (with `--verbose` the last two's extra columns), built from one view of a
 * group that covers both protocols: a classic group (DescribeGroups, its members' assignments
 * decoded) and a KIP-848 consumer group (ConsumerGroupDescribe, with epochs and target
 * assignments). Missing values print as Kafka's '-'.
 */
import { decodeAssignment } from '../../actors/group-coordinator/consumer-protocol.js';
import type { DescribedConsumerGroup, DescribedGroup } from '../../actors/group-coordinator/messages.js';
import type { ClusterMetadata } from '../protocol/cluster.js';
import type { TopicPartitionRef } from './offset-resets.js';
import { table } from './output.js';


export interface GroupMemberView {
  memberId: string;
  instanceId: string | null;
  host: string;
  clientId: string;
  assignment: TopicPartitionRef[];
  /** KIP-848 groups only (null: a classic group). */
  epoch: number | null;
  target: TopicPartitionRef[] | null;
  /** KIP-848 groups only: whether the member speaks the consumer protocol (false: a classic member). */
  upgraded: boolean | null;
}

export interface GroupView {
  groupId: string;
  state: string;
  coordinatorId: number;
  /** The classic protocol's assignor (protocol name), or a KIP-848 group's server assignor; '' for none. */
  assignmentStrategy: string;
  groupEpoch: number | null;
  targetAssignmentEpoch: number | null;
  members: GroupMemberView[];
}

/** A classic group as a view: its members' assignments decoded (none when not the consumer protocol or unreadable). */
export function classicGroupView(g: DescribedGroup & { coordinatorId: number }): GroupView {
  return {
    groupId: g.groupId,
    state: g.state,
    coordinatorId: g.coordinatorId,
    assignmentStrategy: g.protocolName,
    groupEpoch: null,
    targetAssignmentEpoch: null,
    members: g.members.map((m) => {
      let assignment: TopicPartitionRef[] = [];
      if (g.protocolType === 'consumer' && m.assignment.byteLength > 0) {
        try {
          assignment = decodeAssignment(m.assignment).partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
        } catch {
          assignment = [];
        }
      }
      return { memberId: m.memberId, instanceId: m.groupInstanceId, host: m.clientHost, clientId: m.clientId, assignment, epoch: null, target: null, upgraded: null };
    }),
  };
}

/** A KIP-848 consumer group as a view. */
export function consumerGroupView(g: DescribedConsumerGroup & { coordinatorId: number }): GroupView {
  const flat = (a: readonly { topicName: string; partitions: readonly number[] }[]) => a.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topicName, partition })));
  return {
    groupId: g.groupId,
    state: g.groupState,
    coordinatorId: g.coordinatorId,
    assignmentStrategy: g.assignorName,
    groupEpoch: g.groupEpoch,
    targetAssignmentEpoch: g.assignmentEpoch,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      host: m.clientHost,
      clientId: m.clientId,
      assignment: flat(m.assignment),
      epoch: m.memberEpoch,
      target: flat(m.targetAssignment),
      upgraded: m.memberType === 'consumer',
    })),
  };
}

const dash = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '-' : String(v));

/** Kafka's assignment string: `topic(0,1),other(2)`, topics and partitions sorted; '-' for none. */
export function assignmentString(parts: readonly TopicPartitionRef[]): string {
  if (parts.length === 0) return '-';
  const byTopic = new Map<string, number[]>();
  for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  return [...byTopic]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([t, ps]) => `${t}(${[...ps].sort((a, b) => a - b).join(',')})`)
    .join(',');
}

/** Kafka's COORDINATOR (ID) cell: the coordinator broker's address (samsa's endpoint, else its Kafka listener, else its node), two spaces, its id in brackets. */
export function coordinatorCell(md: ClusterMetadata, id: number): string {
  const b = md.brokers.find((x) => x.brokerId === id);
  const at = b ? (b.endpoint ?? b.kafkaEndpoint ?? b.node) : 'unknown';
  return `${at}  (${id})`;
}

/** --state: GROUP, COORDINATOR (ID), ASSIGNMENT-STRATEGY, STATE, [GROUP-EPOCH, TARGET-ASSIGNMENT-EPOCH,] #MEMBERS. */
export function stateLines(v: GroupView, coordinator: string, verbose: boolean): string[] {
  const header = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', ...(verbose ? ['GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH'] : []), '#MEMBERS'];
  const row = [v.groupId, coordinator, dash(v.assignmentStrategy), v.state, ...(verbose ? [dash(v.groupEpoch), dash(v.targetAssignmentEpoch)] : []), v.members.length];
  return table(header, [row]);
}

/**
 * --members: GROUP, CONSUMER-ID, GROUP-INSTANCE-ID (when a member has one), HOST, CLIENT-ID,
 * #PARTITIONS; verbose adds CURRENT-EPOCH, CURRENT-ASSIGNMENT, TARGET-EPOCH, TARGET-ASSIGNMENT and,
 * while the group has members of both protocols, UPGRADED.
 */
export function memberLines(v: GroupView, verbose: boolean): string[] {
  const withInstance = v.members.some((m) => m.instanceId !== null && m.instanceId !== '');
  const migrating = v.members.some((m) => m.upgraded === true) && v.members.some((m) => m.upgraded === false);
  const header = ['GROUP', 'CONSUMER-ID', ...(withInstance ? ['GROUP-INSTANCE-ID'] : []), 'HOST', 'CLIENT-ID', '#PARTITIONS'];
  if (verbose) header.push('CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', ...(migrating ? ['UPGRADED'] : []));
  const rows = [...v.members]
    .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
    .map((m) => {
      const row: (string | number)[] = [v.groupId, m.memberId, ...(withInstance ? [dash(m.instanceId)] : []), dash(m.host), dash(m.clientId), m.assignment.length];
      if (verbose) {
        // a classic member's target is what it has (Kafka prints its epoch as the group's)
        row.push(dash(m.epoch), assignmentString(m.assignment), dash(m.epoch === null ? null : v.targetAssignmentEpoch), m.target === null ? '-' : assignmentString(m.target));
        if (migrating) row.push(dash(m.upgraded === null ? null : String(m.upgraded)));
      }
      return row;
    });
  return table(header, rows);
}

/** One partition's offsets for --offsets: the committed offset (-1: none) and the log end. */
export interface PartitionOffsets extends TopicPartitionRef {
  committed: number;
  logEndOffset: number;
}

/**
 * --offsets (Kafka's default describe): GROUP, TOPIC, PARTITION, CURRENT-OFFSET, LOG-END-OFFSET,
 * LAG, CONSUMER-ID, HOST, CLIENT-ID, by topic then partition; '-' where nothing is committed or
 * no member holds the partition.
 */
export function offsetLines(v: GroupView, offsets: readonly PartitionOffsets[]): string[] {
  const owner = new Map<string, GroupMemberView>();
  for (const m of v.members) for (const p of m.assignment) owner.set(`${p.topic}\u0000${p.partition}`, m);
  const header = ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'];
  const rows = [...offsets]
    .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
    .map((o) => {
      const m = owner.get(`${o.topic}\u0000${o.partition}`);
      const has = o.committed >= 0;
      return [v.groupId, o.topic, o.partition, has ? o.committed : '-', o.logEndOffset, has ? Math.max(0, o.logEndOffset - o.committed) : '-', dash(m?.memberId), dash(m?.host), dash(m?.clientId)];
    });
  return table(header, rows);
}
