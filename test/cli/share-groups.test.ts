/**
 * `samsa share-groups` against a one-broker cluster, as kafka-share-groups.sh is used: --list
 * (with --state and a states filter), --describe with --offsets (the default), --members and
 * --state (and --verbose), --reset-offsets (a dry run by default; --execute; --to-earliest,
 * --to-latest, --to-offset, --to-datetime, --by-duration; refused while the group has members),
 * --delete-offsets and --delete; the command line's checks and the parsers of its values.
 */
import { expect } from 'chai';
import type { CoordinatorMsg, FindCoordinatorResponse, ShareGroupHeartbeatResponse } from '../../actors/group-coordinator/messages.js';
import { coordinatorPath } from '../../actors/group-coordinator/messages.js';
import type { BrokerMsg } from '../../actors/broker/messages.js';
import { sharePartitionManagerPath, type ShareAcknowledgeResult, type ShareFetchResult, type ShareManagerMsg } from '../../actors/share-partition/messages.js';
import { AcknowledgeType } from '../../actors/share-partition/share-partition-state.js';
import { assignmentString, parseStates } from '../../src/cli/commands/share-groups.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { kafkaTopicId } from '../../src/protocol/topic-id.js';
import { isFailure, type ActorRef } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const { Accept, Release } = AcknowledgeType;

describe('cli: share-groups, its command line', () => {
  it('refuses what kafka-share-groups refuses, before connecting (exit 2)', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['share-groups', '--describe'], says: /--describe takes one of these options: --group, --all-groups/ },
      { argv: ['share-groups', '--describe', '--group', 'g', '--members', '--state'], says: /at most one of these options: --members, --offsets, --state/ },
      { argv: ['share-groups', '--describe', '--group', 'g', '--state', 'Stable'], says: /--describe does not take a value for --state/ },
      { argv: ['share-groups', '--list', '--state', 'Bogus'], says: /Invalid state list 'Bogus'. Valid states are: Empty, Stable, Dead/ },
      { argv: ['share-groups', '--delete'], says: /--delete takes the options --group or --all-groups/ },
      { argv: ['share-groups', '--delete-offsets', '--group', 'g'], says: /--delete-offsets takes the following options: --group, --topic/ },
      { argv: ['share-groups', '--reset-offsets', '--group', 'g', '--topic', 't'], says: /exactly one of these options: --to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration/ },
      { argv: ['share-groups', '--reset-offsets', '--group', 'g', '--to-latest'], says: /takes one of these options: --all-topics, --topic/ },
      { argv: ['share-groups', '--reset-offsets', '--group', 'g', '--topic', 't', '--to-latest', '--dry-run', '--execute'], says: /only accepts one of --execute and --dry-run/ },
      { argv: ['share-groups', '--reset-offsets', '--group', 'g', '--topic', 't:x', '--to-latest'], says: /Invalid partition 'x'/ },
      { argv: ['share-groups', '--reset-offsets', '--group', 'g', '--topic', 't', '--by-duration', '1h'], says: /not an ISO-8601 duration/ },
      { argv: ['share-groups', '--list', '--topic', 't'], says: /--topic goes with --delete-offsets or --reset-offsets, not with --list/ },
    ];
    for (const c of cases) {
      const r = await runCli(c.argv);
      expect(r.code, c.argv.join(' ')).to.equal(2);
      expect(r.stderr, c.argv.join(' ')).to.match(c.says);
    }
  });

  it('--help names the modes and the reset targets', async () => {
    const r = await runCli(['share-groups', '--help']);
    expect(r.code).to.equal(0);
    for (const o of ['--list', '--describe', '--delete', '--delete-offsets', '--reset-offsets', '--members', '--state [states]', '--to-datetime', '--by-duration', '--all-topics']) expect(r.stdout).to.contain(o);
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/^ {2}share-groups /m);
  });

  it('parses states as Kafka does; prints assignments as Kafka does', () => {
    expect(parseStates('stable,EMPTY')).to.deep.equal(['Stable', 'Empty']);
    expect(assignmentString([{ topicName: 'b', partitions: [2, 0] }, { topicName: 'a', partitions: [1] }])).to.equal('a:1;b:0,2');
    expect(assignmentString([])).to.equal('-');
  });
});

describe('cli: share-groups on a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;
  let topicId: string;
  const TOPIC = 'shared-orders';
  const G = 'billing';
  const manager: ActorRef<ShareManagerMsg> = { node: 'b1', path: sharePartitionManagerPath(1) };
  const broker: ActorRef<BrokerMsg> = { node: 'b1', path: brokerPath(1) };

  before(async () => {
    c = await CliCluster.start(1, {}, {
      brokerConfig: {
        'share.coordinator.state.topic.num.partitions': 1,
        'share.coordinator.state.topic.replication.factor': 1,
        'offsets.topic.num.partitions': 1,
        'offsets.topic.replication.factor': 1,
      },
    });
    await c.cluster.client.createTopic(TOPIC, 1, 1);
    await c.cluster.client.createTopic('quiet', 1, 1);
    await c.cluster.client.waitForLeaders(TOPIC);
    const md = await c.cluster.client.metadata();
    topicId = kafkaTopicId(md.topics.find((t) => t.name === TOPIC)!.topicId);
  });
  after(async () => {
    await c?.stop();
  });

  const sys = () => c.cluster.system();
  const part = (acks: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[] = []) => ({ topic: TOPIC, topicId, partition: 0, acknowledgementBatches: acks, fetch: true });

  async function heartbeat(memberId: string, memberEpoch: number): Promise<ShareGroupHeartbeatResponse> {
    return checkFor(async () => {
      const at = await sys().ask<FindCoordinatorResponse>(broker, { type: 'FindCoordinator', key: G }, { timeoutMs: 5_000 });
      if (isFailure(at) || at.errorCode !== ErrorCode.NONE) return null;
      const coordinator: ActorRef<CoordinatorMsg> = { node: at.node, path: coordinatorPath(at.brokerId) };
      const r = await sys().ask<ShareGroupHeartbeatResponse>(coordinator, { type: 'ShareGroupHeartbeat', groupId: G, memberId, memberEpoch, rackId: null, subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null, clientId: 'billing-app', clientHost: '/10.0.0.7' }, { timeoutMs: 5_000 });
      return !isFailure(r) && r.errorCode === ErrorCode.NONE ? r : null;
    }, 30_000, 50);
  }

  async function fetch(memberId: string, maxWaitMs = 0): Promise<ShareFetchResult> {
    const r = await sys().ask<ShareFetchResult>(manager, { type: 'ShareFetch', groupId: G, memberId, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, partitions: [part()] }, { timeoutMs: 20_000 });
    if (isFailure(r)) throw new Error(r.message);
    return r;
  }

  const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

  it('a group with a member: --list, --describe (offsets, members, state), and no reset while it runs', async () => {
    // member-1 joins; its partition starts at the high watermark (0); five records come, 0-1 and
    // 3 are accepted, 2 and 4 released: the start offset is 2, one record above it done, lag 2
    await heartbeat('member-1', 0);
    await checkFor(async () => (await fetch('member-1')).partitions[0]!.errorCode === ErrorCode.NONE, 30_000, 100);
    await c.cluster.client.produce(TOPIC, 0, ['r0', 'r1', 'r2', 'r3', 'r4']);
    const got = await checkFor(async () => {
      const r = await fetch('member-1', 200);
      return r.partitions[0]!.acquiredRecords.length > 0 ? r : null;
    }, 10_000, 50);
    expect(got.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    const ack = await sys().ask<ShareAcknowledgeResult>(manager, { type: 'ShareAcknowledge', groupId: G, memberId: 'member-1', partitions: [part([{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [Accept, Accept, Release, Accept, Release] }])] }, { timeoutMs: 20_000 });
    expect(isFailure(ack) ? ack.message : ack.partitions[0]!.errorCode).to.equal(ErrorCode.NONE);

    const list = await c.run('share-groups', ['--list']);
    expect(list.code).to.equal(0);
    expect(lines(list.stdout)).to.deep.equal([G]);
    const states = await c.run('share-groups', ['--list', '--state']);
    expect(lines(states.stdout)).to.have.length(2);
    expect(lines(states.stdout)[0]).to.match(/^GROUP +STATE$/);
    expect(lines(states.stdout)[1]).to.match(/^billing +Stable$/);
    expect(lines((await c.run('share-groups', ['--list', '--state', 'empty'])).stdout)).to.deep.equal(['GROUP  STATE']);

    const offsets = await c.run('share-groups', ['--describe', '--group', G]);
    expect(offsets.code, offsets.stderr).to.equal(0);
    expect(lines(offsets.stdout)).to.have.length(2);
    expect(lines(offsets.stdout)[0]).to.match(/^GROUP +TOPIC +PARTITION +START-OFFSET +LAG$/);
    expect(lines(offsets.stdout)[1]).to.match(/^billing +shared-orders +0 +2 +2$/);
    const verbose = await c.run('share-groups', ['--describe', '--group', G, '--offsets', '--verbose']);
    expect(lines(verbose.stdout)[0]).to.match(/^GROUP +TOPIC +PARTITION +LEADER-EPOCH +START-OFFSET +LAG$/);
    expect(lines(verbose.stdout)[1]).to.match(/^billing +shared-orders +0 +0 +2 +2$/);

    const members = await c.run('share-groups', ['--describe', '--group', G, '--members', '--verbose']);
    expect(members.code).to.equal(0);
    expect(lines(members.stdout)[0]).to.match(/^GROUP +CONSUMER-ID +HOST +CLIENT-ID +#PARTITIONS +MEMBER-EPOCH +ASSIGNMENT$/);
    expect(lines(members.stdout)[1]).to.match(/^billing +member-1 +\/10\.0\.0\.7 +billing-app +1 +\d+ +shared-orders:0$/);

    const state = await c.run('share-groups', ['--describe', '--group', G, '--state', '--verbose']);
    expect(lines(state.stdout)[0]).to.match(/^GROUP +COORDINATOR \(ID\) +STATE +GROUP-EPOCH +ASSIGNMENT-EPOCH +#MEMBERS$/);
    expect(lines(state.stdout)[1]).to.match(/^billing +\S+ +\(1\) +Stable +\d+ +\d+ +1$/);

    const nobody = await c.run('share-groups', ['--describe', '--group', 'nobody']);
    expect(nobody.code).to.equal(1);
    expect(nobody.stderr).to.contain("share group 'nobody' does not exist");

    const busy = await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-earliest', '--execute']);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.match(/share group 'billing' is not empty: it has 1 active member \(state Stable\)/);
    const busyDelete = await c.run('share-groups', ['--delete-offsets', '--group', G, '--topic', TOPIC]);
    expect(busyDelete.code).to.equal(1);
    expect(busyDelete.stderr).to.contain("share group 'billing' has active members");
  });

  it('the group Empty: --reset-offsets plans (dry run), then --execute moves the start offset; every target', async () => {
    await heartbeat('member-1', -1);
    const members = await c.run('share-groups', ['--describe', '--group', G, '--members']);
    expect(members.code).to.equal(0);
    expect(members.stdout).to.equal('');
    expect(members.stderr).to.contain("Share group 'billing' has no active members.");

    const dry = await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-earliest']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(lines(dry.stdout)).to.have.length(2);
    expect(lines(dry.stdout)[0]).to.match(/^GROUP +TOPIC +PARTITION +NEW-OFFSET$/);
    expect(lines(dry.stdout)[1]).to.match(/^billing +shared-orders +0 +0$/);
    expect(dry.stderr).to.contain('dry run: nothing was changed');
    const startOffset = async () => lines((await c.run('share-groups', ['--describe', '--group', G])).stdout)[1]!.split(/ +/).slice(3);
    expect(await startOffset()).to.deep.equal(['2', '2']);

    const done = await c.run('share-groups', ['--reset-offsets', '--group', G, '--all-topics', '--to-earliest', '--execute']);
    expect(done.code, done.stderr).to.equal(0);
    expect(lines(done.stdout)[1]).to.match(/^billing +shared-orders +0 +0$/);
    // the state starts again at 0: nothing done above it
    expect(await startOffset()).to.deep.equal(['0', '5']);

    const to3 = await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', `${TOPIC}:0`, '--to-offset', '3', '--execute']);
    expect(to3.code, to3.stderr).to.equal(0);
    expect(await startOffset()).to.deep.equal(['3', '2']);
    const past = await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-offset', '99']);
    expect(lines(past.stdout)[1]).to.match(/ 5$/);
    expect(past.stderr).to.contain('offset 99 is past the latest offset 5; using 5');

    expect((await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-latest', '--execute'])).code).to.equal(0);
    expect(await startOffset()).to.deep.equal(['5', '0']);
    // every record was written within the hour: back to the first
    expect((await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--by-duration', 'PT1H', '--execute'])).code).to.equal(0);
    expect(await startOffset()).to.deep.equal(['0', '5']);
    // a time after every record: the latest offset
    expect((await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', TOPIC, '--to-datetime', '2999-01-01T00:00:00.000Z', '--execute'])).code).to.equal(0);
    expect(await startOffset()).to.deep.equal(['5', '0']);

    // the next member starts where the reset put the group
    await c.cluster.client.produce(TOPIC, 0, ['r5']);
    const r = await checkFor(async () => {
      const x = await fetch('member-2', 200);
      return x.partitions[0]!.acquiredRecords.length > 0 ? x : null;
    }, 10_000, 50);
    expect(r.partitions[0]!.acquiredRecords).to.deep.equal([{ firstOffset: 5, lastOffset: 5, deliveryCount: 1 }]);

    const missing = await c.run('share-groups', ['--reset-offsets', '--group', G, '--topic', `${TOPIC}:7`, '--to-latest']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('The partitions "shared-orders-7" do not exist');
  });

  it('--delete-offsets reports each topic; --delete deletes the group, and refuses one that is not a share group', async () => {
    const del = await c.run('share-groups', ['--delete-offsets', '--group', G, '--topic', TOPIC, '--topic', 'quiet']);
    expect(del.code).to.equal(1);
    expect(lines(del.stdout)).to.have.length(3);
    expect(lines(del.stdout)[0]).to.match(/^TOPIC +STATUS$/);
    expect(lines(del.stdout)[1]).to.match(/^quiet +Error: There is no offset information to delete\.$/);
    expect(lines(del.stdout)[2]).to.match(/^shared-orders +Successful$/);
    // named, the topic has no offsets left; unnamed, the Empty group has none to show
    const after = await c.run('share-groups', ['--reset-offsets', '--group', G, '--all-topics', '--to-latest']);
    expect(lines(after.stdout)).to.deep.equal(['GROUP  TOPIC  PARTITION  NEW-OFFSET']);
    expect(after.stderr).to.contain("share group 'billing' has no partitions to reset");
    expect(lines((await c.run('share-groups', ['--describe', '--group', G])).stdout)).to.have.length(1);

    const notShare = await c.run('share-groups', ['--delete', '--group', 'no-such-group', '--group', G]);
    expect(notShare.code).to.equal(1);
    expect(notShare.stderr).to.contain("* Group 'no-such-group' could not be deleted due to: Group 'no-such-group' is not a share group.");
    expect(notShare.stdout).to.contain("These share groups were deleted successfully: 'billing'");
    expect(lines((await c.run('share-groups', ['--list'])).stdout)).to.deep.equal([]);
    const none = await c.run('share-groups', ['--delete', '--all-groups']);
    expect(none.code).to.equal(0);
    expect(none.stdout).to.contain('Deletion of requested share groups () was successful.');
  });
});
