/**
 * Kafka's `kafka-consumer-groups --describe` tables (src/cli/group-views.ts) from views of a
 * classic and a KIP-848 group: the state table (with --verbose's epochs), the members table
 * (GROUP-INSTANCE-ID only when a member has one; --verbose's epochs and assignments, UPGRADED only
 * while both protocols' members are in the group), and the offsets table ('-' where nothing is
 * committed or no member holds the partition).
 */
import { expect } from 'chai';
import { assignmentString, consumerGroupView, memberLines, offsetLines, stateLines, type GroupView } from '../../src/cli/group-views.js';

const split = (lines: string[]) => lines.map((l) => l.split(/\s{2,}/));

const classic: GroupView = {
  groupId: 'billing',
  state: 'Stable',
  coordinatorId: 2,
  assignmentStrategy: 'range',
  groupEpoch: null,
  targetAssignmentEpoch: null,
  members: [
    { memberId: 'm-b', instanceId: null, host: '/10.0.0.2', clientId: 'app', assignment: [{ topic: 'orders', partition: 1 }], epoch: null, target: null, upgraded: null },
    { memberId: 'm-a', instanceId: null, host: '/10.0.0.1', clientId: 'app', assignment: [{ topic: 'orders', partition: 0 }, { topic: 'audit', partition: 0 }], epoch: null, target: null, upgraded: null },
  ],
};

describe('cli/group-views', () => {
  it("prints assignments as Kafka does: topic(partitions), sorted; '-' for none", () => {
    expect(assignmentString([{ topic: 'b', partition: 2 }, { topic: 'a', partition: 1 }, { topic: 'b', partition: 0 }])).to.equal('a(1),b(0,2)');
    expect(assignmentString([])).to.equal('-');
  });

  it('the state table: coordinator, assignor, state and member count; --verbose adds the epochs', () => {
    // Kafka's coordinator column: host:port, two spaces, (id)
    const [head, row] = stateLines(classic, 'host:9192  (2)', false);
    expect(head!.split(/\s{2,}/)).to.deep.equal(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS']);
    expect(row).to.match(/^billing\s+host:9192 {2}\(2\)\s+range\s+Stable\s+2$/);
    const verbose = stateLines({ ...classic, assignmentStrategy: '', groupEpoch: 7, targetAssignmentEpoch: 6 }, 'h:1  (2)', true);
    expect(verbose[0]!.split(/\s{2,}/)).to.deep.equal(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', 'GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH', '#MEMBERS']);
    expect(verbose[1]).to.match(/^billing\s+h:1 {2}\(2\)\s+-\s+Stable\s+7\s+6\s+2$/);
  });

  it('the members table of a classic group: by member id, no instance id column without one; --verbose with its assignment', () => {
    expect(split(memberLines(classic, false))).to.deep.equal([
      ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS'],
      ['billing', 'm-a', '/10.0.0.1', 'app', '2'],
      ['billing', 'm-b', '/10.0.0.2', 'app', '1'],
    ]);
    expect(split(memberLines(classic, true))[1]).to.deep.equal(['billing', 'm-a', '/10.0.0.1', 'app', '2', '-', 'audit(0),orders(0)', '-', '-']);
  });

  it('the members table of a KIP-848 group in migration: instance ids, epochs, targets, and UPGRADED', () => {
    const v = consumerGroupView({
      groupId: 'g',
      errorCode: 0,
      errorMessage: null,
      groupState: 'Reconciling',
      groupEpoch: 5,
      assignmentEpoch: 5,
      assignorName: 'uniform',
      coordinatorId: 1,
      members: [
        { memberId: 'c1', instanceId: 'i-1', rackId: null, memberEpoch: 5, clientId: 'x', clientHost: '/h', subscribedTopicNames: ['t'], subscribedTopicRegex: null, assignment: [{ topicId: 'id', topicName: 't', partitions: [0] }], targetAssignment: [{ topicId: 'id', topicName: 't', partitions: [0, 1] }], memberType: 'consumer' },
        { memberId: 'c2', instanceId: null, rackId: null, memberEpoch: 4, clientId: 'y', clientHost: '/h2', subscribedTopicNames: ['t'], subscribedTopicRegex: null, assignment: [{ topicId: 'id', topicName: 't', partitions: [1] }], targetAssignment: [], memberType: 'classic' },
      ],
    });
    expect(split(memberLines(v, true))).to.deep.equal([
      ['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', 'UPGRADED'],
      ['g', 'c1', 'i-1', '/h', 'x', '1', '5', 't(0)', '5', 't(0,1)', 'true'],
      ['g', 'c2', '-', '/h2', 'y', '1', '4', 't(1)', '5', '-', 'false'],
    ]);
  });

  it("the offsets table: each partition's committed offset, log end, lag and owner; '-' where none", () => {
    expect(
      split(
        offsetLines(classic, [
          { topic: 'orders', partition: 1, committed: 5, logEndOffset: 9 },
          { topic: 'orders', partition: 0, committed: -1, logEndOffset: 3 },
          { topic: 'old', partition: 0, committed: 2, logEndOffset: 2 },
        ]),
      ),
    ).to.deep.equal([
      ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID'],
      ['billing', 'old', '0', '2', '2', '0', '-', '-', '-'],
      ['billing', 'orders', '0', '-', '3', '-', 'm-a', '/10.0.0.1', 'app'],
      ['billing', 'orders', '1', '5', '9', '4', 'm-b', '/10.0.0.2', 'app'],
    ]);
  });
});
