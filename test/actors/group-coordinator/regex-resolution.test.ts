/**
 * How a consumer group's regular expressions are resolved (regex-resolution.ts), on its own and
 * in the group coordinator on the FakeClock (coordinator-harness.ts): against the cluster's topic
 * list (internal topics never), before the heartbeat that brings a new one, again at most every
 * refresh interval (a topic created that matches is assigned within it; one deleted leaves with
 * the topic metadata's age), under ACLs only to the topics the member may DESCRIBE (the listener
 * it came through asked), and again by a coordinator that takes the group over.
 */
import { expect } from 'chai';
import type { ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatResponse, ConsumerTopicInfo, CoordinatorMsg } from '../../../actors/group-coordinator/messages.js';
import { ConsumerGroup } from '../../../actors/group-coordinator/consumer-group.js';
import { regexesToResolve, resolveTopicRegexes } from '../../../actors/group-coordinator/regex-resolution.js';
import type { KafkaListenerMsg, TopicsAuthorized } from '../../../actors/kafka-listener/messages.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { defineActor } from '../../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../../src/runtime/types.js';
import { CoordinatorHarness, consumerHeartbeat } from './coordinator-harness.js';

const G = 'rg';
const T = 'AAAAAAAAAAAAAAAAAAAAAg';
const EU = 'AAAAAAAAAAAAAAAAAAAAAw';
const US = 'AAAAAAAAAAAAAAAAAAAABA';
const SECRET = 'AAAAAAAAAAAAAAAAAAAABQ';

type HB = Extract<CoordinatorMsg, { type: 'ConsumerGroupHeartbeat' }>;

/** A Kafka listener that allows the topics `allow` names, and counts what it is asked. */
const fakeListener = defineActor<{ allow: (topic: string) => boolean; asked: string[][] }, KafkaListenerMsg | { type: 'Asked' }, { allow: (topic: string) => boolean }>({
  kind: 'fake-kafka-listener',
  supervision: 'resume',
  init: (_ctx, args) => ({ allow: args.allow, asked: [] }),
  handlers: {
    AuthorizeTopics(s, m, ctx) {
      s.asked.push(m.topics);
      ctx.reply({ type: 'TopicsAuthorized', errorCode: ErrorCode.NONE, allowed: m.topics.filter(s.allow) } satisfies TopicsAuthorized);
    },
    Asked(s, _m, ctx) {
      ctx.reply({ type: 'AskedTopics', asked: s.asked });
    },
    DescribeKafkaListener() {},
    AclsChanged() {},
    ClientQuotasChanged() {},
    ConnectionLimitsChanged() {},
    ShareVersionChanged() {},
    ScramCredentialsChanged() {},
    DelegationTokensChanged() {},
    RefreshJwks() {},
  },
});

describe('actors/group-coordinator regex-resolution', () => {
  const topic = (name: string, topicId: string, numPartitions: number, internal = false): ConsumerTopicInfo => ({ topicId, name, numPartitions, internal });

  describe('on its own', () => {
    it('resolves each expression to the whole names it matches, never an internal topic, and skips one that does not compile', () => {
      const topics = [topic('orders-eu', EU, 2), topic('orders-us', US, 2), topic('reorders', T, 1), topic('__consumer_offsets', SECRET, 50, true), topic('__transaction_state', SECRET, 50)];
      const r = resolveTopicRegexes(['orders-.*', '.*', '__.*', '('], topics);
      expect(r.get('orders-.*')).to.deep.equal(new Set(['orders-eu', 'orders-us']));
      expect(r.get('.*')).to.deep.equal(new Set(['orders-eu', 'orders-us', 'reorders']));
      expect(r.get('__.*')).to.deep.equal(new Set());
      expect(r.has('(')).to.equal(false);
    });

    it('resolves when an expression is new to the group or the last resolution is older than the interval', () => {
      expect(regexesToResolve(undefined, null, 0, 0, 10_000)).to.equal(null);
      expect(regexesToResolve(undefined, 'a.*', 0, 0, 10_000)).to.deep.equal(['a.*']);
      // one that does not compile is refused by the group, not resolved
      expect(regexesToResolve(undefined, '(', 0, 0, 10_000)).to.equal(null);
      const g = new ConsumerGroup('g');
      const env = { topic: () => undefined, maxSize: 10, newMemberId: () => 'm1', resolvedRegexes: new Map([['a.*', new Set<string>()]]) };
      g.heartbeat({ memberId: '', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 1, subscribedTopicNames: [], subscribedTopicRegex: 'a.*', serverAssignor: null, ownedTopicPartitions: [], clientId: '', clientHost: '' }, env);
      expect(regexesToResolve(g, null, 1_000, 5_000, 10_000)).to.equal(null);
      expect(regexesToResolve(g, null, 1_000, 11_000, 10_000)).to.deep.equal(['a.*']);
      expect(regexesToResolve(g, 'b', 1_000, 5_000, 10_000)).to.deep.equal(['a.*', 'b']);
    });
  });

  describe('in the coordinator', function () {
    this.timeout(15_000);
    let h: CoordinatorHarness;
    let topics: ConsumerTopicInfo[];
    let listings: number;

    async function start(args: ConstructorParameters<typeof CoordinatorHarness>[1] = {}): Promise<void> {
      topics = [topic('t', T, 4), topic('orders-eu', EU, 2), topic('__consumer_offsets', SECRET, 50, true), topic('__transaction_state', SECRET, 50)];
      listings = 0;
      h = new CoordinatorHarness(1, {
        consumerTopicMetadata: async (names) => {
          if (names === null) listings++;
          return names === null ? [...topics] : topics.filter((t) => names.includes(t.name));
        },
        ...args,
      });
      h.spawnCoordinator();
      await h.become(0, 0);
    }

    beforeEach(() => start());
    afterEach(async () => {
      await h?.stop();
    });

    const hb = (o: Partial<HB> = {}, to?: ActorRef<CoordinatorMsg>): Promise<ConsumerGroupHeartbeatResponse> => h.ask<ConsumerGroupHeartbeatResponse>(consumerHeartbeat(G, { subscribedTopicRegex: 'orders-.*', ...o }), to);
    const next = (r: ConsumerGroupHeartbeatResponse, owned: { topicId: string; partitions: number[] }[] | null = null): Partial<HB> => ({
      memberId: r.memberId!,
      memberEpoch: r.memberEpoch,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      rebalanceTimeoutMs: -1,
      topicPartitions: owned,
    });
    const byTopic = (r: ConsumerGroupHeartbeatResponse) => Object.fromEntries((r.assignment ?? []).map((t) => [t.topicId, t.partitions]));
    const describe = async (to?: ActorRef<CoordinatorMsg>) => (await h.ask<ConsumerGroupDescribeResponse>({ type: 'ConsumerGroupDescribe', groups: [G] }, to)).groups[0]!;

    it('a member joining with an expression gets the matching topics in its first answer; internal topics are never matched', async () => {
      const r = await hb({ subscribedTopicRegex: '.*' });
      expect(r.errorCode).to.equal(ErrorCode.NONE);
      expect(byTopic(r)).to.deep.equal({ [T]: [0, 1, 2, 3], [EU]: [0, 1] });
      const d = await describe();
      expect(d.members[0]).to.deep.include({ subscribedTopicNames: [], subscribedTopicRegex: '.*' });
      expect(listings).to.equal(1);
    });

    it('a topic created that matches is assigned within the refresh interval; a matching topic deleted leaves with its metadata', async () => {
      const a = await hb();
      expect(byTopic(a)).to.deep.equal({ [EU]: [0, 1] });
      topics.push(topic('orders-us', US, 3));
      // 5 s on: the resolution (10 s) stands
      h.clock.advance(5_000);
      const a2 = await hb(next(a, [{ topicId: EU, partitions: [0, 1] }]));
      expect(a2.memberEpoch).to.equal(1);
      expect(listings).to.equal(1);
      // 10 s on: resolved again, the group epoch bumped, the new topic assigned
      h.clock.advance(5_000);
      const a3 = await hb(next(a2, [{ topicId: EU, partitions: [0, 1] }]));
      expect(listings).to.equal(2);
      expect(a3.memberEpoch).to.equal(2);
      expect(byTopic(a3)).to.deep.equal({ [EU]: [0, 1], [US]: [0, 1, 2] });
      // deleted: gone once the topic metadata (1 s) is read again, whatever the resolution's age
      topics.splice(topics.findIndex((t) => t.name === 'orders-us'), 1);
      h.clock.advance(1_000);
      const a4 = await hb(next(a3, [{ topicId: EU, partitions: [0, 1] }, { topicId: US, partitions: [0, 1, 2] }]));
      expect(a4.memberEpoch).to.equal(2);
      expect(byTopic(a4)).to.deep.equal({ [EU]: [0, 1] });
      const a5 = await hb(next(a4, [{ topicId: EU, partitions: [0, 1] }]));
      expect(a5.memberEpoch).to.equal(3);
      expect((await describe()).groupEpoch).to.equal(3);
    });

    it('a second member with the same expression and one with names share the topics', async () => {
      const a = await hb({ subscribedTopicRegex: 't|orders-eu' });
      const b = await hb({ subscribedTopicRegex: null, subscribedTopicNames: ['t'] });
      expect(b.memberEpoch).to.equal(2);
      const d = await describe();
      expect(d.members.map((m) => [m.subscribedTopicNames, m.subscribedTopicRegex])).to.deep.equal([
        [[], 't|orders-eu'],
        [['t'], null],
      ]);
      expect(d.members.find((m) => m.memberId === a.memberId)!.targetAssignment.find((t) => t.topicName === 'orders-eu')!.partitions).to.deep.equal([0, 1]);
    });

    it('answers an expression RE2J refuses with INVALID_REGULAR_EXPRESSION, and takes a join with an empty list or an empty expression', async () => {
      const bad = await hb({ subscribedTopicRegex: '(?<=x)orders' });
      expect(bad).to.deep.include({ errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, errorMessage: 'SubscribedTopicRegex `(?<=x)orders` is not a valid regular expression: invalid or unsupported Perl syntax.', memberEpoch: -1 });
      expect(listings).to.equal(0);
      expect((await hb({ subscribedTopicRegex: null, subscribedTopicNames: [] })).memberEpoch).to.equal(1);
      expect((await hb({ subscribedTopicRegex: '', subscribedTopicNames: null })).memberEpoch).to.equal(2);
    });

    it('with ACLs, the expression resolves only to the topics the member may DESCRIBE, asked of the listener when it resolves', async () => {
      topics.push(topic('orders-secret', SECRET, 1));
      const listener = h.sys.spawn(fakeListener, { name: 'listener', args: { allow: (t: string) => !t.includes('secret') } });
      const topicAuthorizer = { listener: listener as ActorRef<KafkaListenerMsg>, principal: 'User:alice', host: '10.0.0.1' };
      const a = await hb({ topicAuthorizer });
      expect(byTopic(a)).to.deep.equal({ [EU]: [0, 1] });
      await hb({ ...next(a, [{ topicId: EU, partitions: [0, 1] }]), topicAuthorizer });
      const asked = ((await h.sys.ask(listener, { type: 'Asked' } as never)) as unknown as { asked: string[][] }).asked;
      // asked once, when the heartbeat resolved the expression
      expect(asked).to.deep.equal([['orders-eu', 'orders-secret']]);
    });

    it('a coordinator taking the group over reads the expression from the member records and resolves it again, without a rebalance', async () => {
      const a = await hb();
      h.sys.send(h.coord, { type: 'ResignCoordinator', partition: 0, leaderEpoch: 1 });
      await h.control({ leaderEpoch: 1 });
      const fresh = h.spawnCoordinator();
      await h.become(0, 1, fresh);
      const d = await describe(fresh);
      expect(d.members[0]).to.deep.include({ memberId: a.memberId, subscribedTopicRegex: 'orders-.*', memberEpoch: 1 });
      topics.push(topic('orders-us', US, 1));
      const listed = listings;
      const a2 = await hb(next(a, [{ topicId: EU, partitions: [0, 1] }]), fresh);
      expect(listings).to.equal(listed + 1);
      // the new topic came with the resolution: one rebalance for it, none for the takeover
      expect(a2.memberEpoch).to.equal(2);
      expect(byTopic(a2)).to.deep.equal({ [EU]: [0, 1], [US]: [0] });
    });

    it('a topic list that cannot be read answers COORDINATOR_NOT_AVAILABLE', async () => {
      await h.stop();
      await start({ consumerTopicMetadata: async (names) => (names === null ? null : topics.filter((t) => names.includes(t.name))) });
      expect((await hb()).errorCode).to.equal(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    });
  });
});
