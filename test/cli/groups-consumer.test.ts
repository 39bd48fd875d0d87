import { expect } from 'chai';
import { consumerGroupLines } from '../../src/cli/commands/groups.js';

describe('cli: groups --describe of a KIP-848 consumer group', () => {
  it('prints the state, epochs and assignor, and each member with its epoch, whether it is upgraded (KIP-1099) and its assignment by topic name', () => {
    const { lines, owner, assigned } = consumerGroupLines('orders-app', {
      groupId: 'orders-app',
      errorCode: 0,
      errorMessage: null,
      groupState: 'Stable',
      groupEpoch: 4,
      assignmentEpoch: 4,
      assignorName: 'uniform',
      members: [
        { memberId: 'm-1', instanceId: null, rackId: null, memberEpoch: 4, clientId: 'c1', clientHost: '/10.0.0.1', subscribedTopicNames: ['orders'], subscribedTopicRegex: null, assignment: [{ topicId: 'x', topicName: 'orders', partitions: [1, 0] }], targetAssignment: [], memberType: 'consumer' },
        { memberId: 'm-2', instanceId: 'i-2', rackId: null, memberEpoch: 3, clientId: 'c2', clientHost: '/10.0.0.2', subscribedTopicNames: ['orders'], subscribedTopicRegex: null, assignment: [], targetAssignment: [], memberType: 'classic' },
      ],
    });
    expect(lines[0]).to.equal('Group: orders-app\tState: Stable\tProtocol: consumer (assignor uniform)\tEpoch: 4\tAssignment epoch: 4\tMembers: 2');
    expect(lines[2]).to.match(/^MEMBER-ID +GROUP-INSTANCE-ID +EPOCH +CLIENT-ID +HOST +UPGRADED +ASSIGNMENT$/);
    expect(lines[3]).to.match(/^m-1 +- +4 +c1 +\/10\.0\.0\.1 +true +orders:0,1$/);
    expect(lines[4]).to.match(/^m-2 +i-2 +3 +c2 +\/10\.0\.0\.2 +false +-$/);
    expect([...assigned]).to.deep.equal(['orders']);
    expect(owner.get('orders\u00000')).to.deep.equal({ memberId: 'm-1', clientId: 'c1' });
  });

  it('an empty group says so', () => {
    const { lines } = consumerGroupLines('idle', { groupId: 'idle', errorCode: 0, errorMessage: null, groupState: 'Empty', groupEpoch: 2, assignmentEpoch: 2, assignorName: 'range', members: [] });
    expect(lines.slice(2)).to.deep.equal(["Consumer group 'idle' has no active members."]);
  });
});
