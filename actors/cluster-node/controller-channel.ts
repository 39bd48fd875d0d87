/**
 * The controller channel: on every node of a topology, at CONTROLLER_CHANNEL_PATH, the one way
 * the node's brokers, replicas, Kafka listeners and metadata proxy reach the active controller
 * (Kafka's NodeToControllerChannelManager). With a quorum of controllers only one is active; the
 * channel sends each request to the one it believes active and follows a NotController answer to
 * the controller it names, so callers never learn which controller that is.
 *
 * Owned state: the controllers it knows, which of them is believed active. It starts with the
 * topology's and learns the others from answers (the quorum's voters change while it runs,
 * KIP-853): a NotController's active controller, a DescribeQuorum's voters and observers.
 * Handles: every controller request (ControllerMsg, but the controller's own timer and quorum
 * messages), forwarded; the answer goes back to the asker.
 * Emits: the request to a controller; the controller's answer (or a Failure) to the asker.
 *
 * Retries: a NotController that names the active controller is followed at once; one that names
 * none (an election is on) and a controller that is unreachable (its node or actor gone) are
 * retried on the next controller after a short pause, for up to RETRY_BUDGET_MS. A request that
 * timed out is answered with the timeout, not retried: it may have been carried out, and only the
 * caller knows whether repeating it is safe. The next request then starts with the next controller.
 */
import { CONTROLLER_PATH } from '../../src/protocol/cluster.js';
import { defineActor, type ActorContext, type Handlers, type ReplyToken } from '../../src/runtime/actor-definition.js';
import type { ActorRef, Failure, FailureReason } from '../../src/runtime/types.js';
import type { ControllerMsg, ControllerReply } from '../controller/messages.js';
import type { QuorumEvent, QuorumVoter } from '../quorum/messages.js';

export const CONTROLLER_CHANNEL_PATH = '/controller-channel';

/** The requests a channel forwards (the controller's own timers and quorum events are not requests). */
export type ControllerRequest = Exclude<ControllerMsg, { type: 'BalanceLeaders' | 'CheckSessions' | 'SweepExpiredTokens' | 'StashExpired' } | QuorumEvent>;

export const CONTROLLER_REQUEST_TYPES = Object.freeze([
  'BrokerRegistration',
  'BrokerHeartbeat',
  'ControlledShutdown',
  'UnregisterBroker',
  'CreateTopics',
  'DeleteTopics',
  'CreatePartitions',
  'AlterPartition',
  'Metadata',
  'AllocateProducerIds',
  'AlterTopicConfigs',
  'AlterBrokerConfigs',
  'AlterGroupConfigs',
  'AlterClientMetrics',
  'AlterClientQuotas',
  'UpdateFeatures',
  'ElectLeaders',
  'AlterPartitionReassignments',
  'ListPartitionReassignments',
  'CreateAcls',
  'DeleteAcls',
  'DescribeAcls',
  'AlterUserScramCredentials',
  'DescribeUserScramCredentials',
  'CreateDelegationToken',
  'RenewDelegationToken',
  'ExpireDelegationToken',
  'DescribeDelegationTokens',
  'WatchMetadata',
  'UnwatchMetadata',
  'DescribeQuorum',
  'AddRaftVoter',
  'RemoveRaftVoter',
] as const satisfies readonly ControllerRequest['type'][]);

/** Compile-time check that the list above names every controller request (a new one must be forwarded too). */
type Unforwarded = Exclude<ControllerRequest['type'], (typeof CONTROLLER_REQUEST_TYPES)[number]>;
const EVERY_REQUEST_FORWARDED: [Unforwarded] extends [never] ? true : Unforwarded = true;
void EVERY_REQUEST_FORWARDED;

/** How long a request keeps looking for the active controller. */
export const RETRY_BUDGET_MS = 15_000;
/** Pause before asking again while no controller is active, or after an unreachable one. */
export const RETRY_PAUSE_MS = 100;
/** One try at one controller. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface ControllerChannelArgs {
  voters: readonly QuorumVoter[];
  /** How long a request keeps looking for the active controller (default RETRY_BUDGET_MS). */
  retryBudgetMs?: number;
}

interface ChannelState {
  /** The controllers known (the topology's first, then those learned), by position. */
  readonly voters: QuorumVoter[];
  readonly retryBudgetMs: number;
  /** Index into voters of the controller believed active. */
  current: number;
}

const UNREACHABLE: ReadonlySet<FailureReason> = new Set(['unknown-node', 'unknown-actor', 'actor-stopped', 'endpoint-closed', 'system-stopping']);

function controllerAt(s: ChannelState, i: number): ActorRef<ControllerMsg> {
  return { node: s.voters[i]!.node, path: CONTROLLER_PATH };
}

/** Where controller `id` is (its position in `voters`), adding it or moving it to `node` as told; -1 without a node. */
function learn(s: ChannelState, ctx: ActorContext<ControllerRequest>, id: number, node: string | null): number {
  const i = s.voters.findIndex((v) => v.id === id);
  if (node === null || (i >= 0 && s.voters[i]!.node === node)) return i;
  if (i >= 0) {
    s.voters[i] = { id, node };
    return i;
  }
  s.voters.push({ id, node });
  ctx.log.info('controller learned', { controllerId: id, node });
  return s.voters.length - 1;
}

/** The controllers a DescribeQuorum answer names (voters and observers). */
function learnFrom(s: ChannelState, ctx: ActorContext<ControllerRequest>, r: ControllerReply | Failure): void {
  if (r.type !== 'DescribeQuorumResponse' || !r.quorum) return;
  for (const v of [...r.quorum.voters, ...r.quorum.observers]) learn(s, ctx, v.id, v.node);
}

function forward(s: ChannelState, m: ControllerRequest, ctx: ActorContext<ControllerRequest>): void {
  const token = ctx.deferReply();
  if (!token) {
    // a tell: no one waits for an answer, so one try at the controller believed active
    ctx.send(controllerAt(s, s.current), m);
    return;
  }
  const deadline = ctx.clock.now() + s.retryBudgetMs;
  attempt(s, m, ctx, token, deadline, s.current, 0);
}

function attempt(s: ChannelState, m: ControllerRequest, ctx: ActorContext<ControllerRequest>, token: ReplyToken, deadline: number, at: number, tries: number): void {
  void ctx.ask<ControllerReply>(controllerAt(s, at), m, { timeoutMs: ATTEMPT_TIMEOUT_MS }).then((r) => {
    const retry = (next: number, pause: number, why: string) => {
      if (ctx.clock.now() + pause >= deadline) {
        ctx.replyTo(token, r);
        ctx.log.warn('no active controller found in time', { request: m.type, lastAnswer: why, tries: tries + 1 });
        return;
      }
      if (pause === 0) return attempt(s, m, ctx, token, deadline, next, tries + 1);
      ctx.clock.setTimeout(() => attempt(s, m, ctx, token, deadline, next, tries + 1), pause);
    };
    if (r.type === 'NotController') {
      const named = r.leaderId === null ? -1 : learn(s, ctx, r.leaderId, r.leaderNode);
      if (named >= 0 && named !== at) {
        s.current = named;
        return retry(named, 0, 'NotController');
      }
      const next = (at + 1) % s.voters.length;
      s.current = next;
      return retry(next, RETRY_PAUSE_MS, 'NotController');
    }
    if (r.type === 'Failure' && UNREACHABLE.has((r as Failure).reason) && s.voters.length > 1) {
      const next = (at + 1) % s.voters.length;
      if (s.current === at) s.current = next;
      return retry(next, RETRY_PAUSE_MS, (r as Failure).reason);
    }
    if (r.type === 'Failure' && s.current === at && s.voters.length > 1) s.current = (at + 1) % s.voters.length; // a timeout: try another next time
    learnFrom(s, ctx, r);
    ctx.replyTo(token, r);
  });
}

const handlers = Object.fromEntries(CONTROLLER_REQUEST_TYPES.map((t) => [t, forward])) as unknown as Handlers<ChannelState, ControllerRequest>;

export const controllerChannel = defineActor<ChannelState, ControllerRequest, ControllerChannelArgs>({
  kind: 'controller-channel',
  // the admin APIs; a broker's registration, heartbeats, ISR changes, producer id blocks and
  // metadata watches are the cluster's
  clientMessages: {
    Metadata: true,
    UnregisterBroker: true,
    CreateTopics: true,
    DeleteTopics: true,
    CreatePartitions: true,
    AlterTopicConfigs: true,
    AlterBrokerConfigs: true,
    AlterGroupConfigs: true,
    AlterClientMetrics: true,
    AlterClientQuotas: true,
    UpdateFeatures: true,
    ElectLeaders: true,
    AlterPartitionReassignments: true,
    ListPartitionReassignments: true,
    CreateAcls: true,
    DeleteAcls: true,
    DescribeAcls: true,
    AlterUserScramCredentials: true,
    DescribeUserScramCredentials: true,
    CreateDelegationToken: true,
    RenewDelegationToken: true,
    ExpireDelegationToken: true,
    DescribeDelegationTokens: true,
    DescribeQuorum: true,
    AddRaftVoter: true,
    RemoveRaftVoter: true,
  },
  supervision: 'resume',
  init: (_ctx, args) => {
    if (!args || !Array.isArray(args.voters) || args.voters.length === 0) throw new Error('the controller channel needs the controllers (voters)');
    return { voters: args.voters.map((v) => ({ id: v.id, node: v.node })), retryBudgetMs: args.retryBudgetMs ?? RETRY_BUDGET_MS, current: 0 };
  },
  handlers,
});

/** The channel on `node`. */
export function controllerChannelRef(node: string): ActorRef<ControllerMsg> {
  return { node, path: CONTROLLER_CHANNEL_PATH };
}
