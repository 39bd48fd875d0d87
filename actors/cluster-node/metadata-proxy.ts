/**
 * The metadata proxy: on every node of a topology, at METADATA_PROXY_PATH, so a client that
 * knows only a node (say, a TCP address) can ask for cluster metadata, or for the coordinator
 * of its group or transactional id, before it knows any broker.
 *
 * Owned state: the controller's ref.
 * Handles: Metadata, FindCoordinator.
 * Emits: Metadata to the controller; FindCoordinator to a live broker; the answers to the asker.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { brokerPath } from '../../src/protocol/cluster.js';
import type { ControllerMsg, ControllerReply } from '../controller/messages.js';

export const METADATA_PROXY_PATH = '/metadata';

export type MetadataProxyMsg = { type: 'Metadata'; topics?: string[] | null } | { type: 'FindCoordinator'; key: string; keyType?: 'group' | 'transaction' };

export const metadataProxy = defineActor<{ controller: ActorRef<ControllerMsg> }, MetadataProxyMsg, { controller: ActorRef<ControllerMsg> }>({
  kind: 'metadata-proxy',
  clientMessages: 'all',
  supervision: 'resume',
  init: (_ctx, args) => ({ controller: args.controller }),
  schema: { Metadata: { topics: 'array?' }, FindCoordinator: { key: 'string', keyType: 'string?' } },
  handlers: {
    Metadata(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const msg: ControllerMsg = m.topics ? { type: 'Metadata', topics: m.topics } : { type: 'Metadata' };
      void ctx.ask(s.controller, msg, { timeoutMs: 10_000 }).then((r) => {
        ctx.replyTo(token, r.type === 'Failure' ? { type: 'MetadataResponse', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'controller unreachable' } : r);
      });
    },

    FindCoordinator(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const keyType = m.keyType ?? 'group';
      if (keyType !== 'group' && keyType !== 'transaction') {
        return ctx.replyTo(token, { type: 'FindCoordinatorResponse', errorCode: ErrorCode.INVALID_REQUEST, brokerId: -1, node: '', errorMessage: `unknown coordinator key type '${String(m.keyType)}'` });
      }
      const unavailable = { type: 'FindCoordinatorResponse', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, brokerId: -1, node: '', errorMessage: 'no live broker known yet' };
      void ctx.ask<ControllerReply>(s.controller, { type: 'Metadata', topics: [] }, { timeoutMs: 10_000 }).then(async (r) => {
        const live = r.type === 'MetadataResponse' ? r.metadata.brokers.filter((b) => !b.fenced) : [];
        const b = live[Math.floor(Math.random() * live.length)];
        if (!b) return ctx.replyTo(token, unavailable);
        const answer = await ctx.ask({ node: b.node, path: brokerPath(b.brokerId) }, { type: 'FindCoordinator', key: m.key, keyType }, { timeoutMs: 10_000 });
        ctx.replyTo(token, answer.type === 'Failure' ? unavailable : answer);
      });
    },
  },
});
