/**
 * The metadata proxy: on every node of a topology, at METADATA_PROXY_PATH, so a client that
 * knows only a node (say, a TCP address) can ask for cluster metadata before it knows any
 * broker.
 *
 * Owned state: the controller's ref.
 * Handles: Metadata.
 * Emits: Metadata to the controller; MetadataResponse (or the controller's Failure) to the asker.
 */
import { ErrorCode } from '../../src/protocol/errors.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { ActorRef } from '../../src/runtime/types.js';
import type { ControllerMsg } from '../controller/messages.js';

export const METADATA_PROXY_PATH = '/metadata';

export type MetadataProxyMsg = { type: 'Metadata'; topics?: string[] | null };

export const metadataProxy = defineActor<{ controller: ActorRef<ControllerMsg> }, MetadataProxyMsg, { controller: ActorRef<ControllerMsg> }>({
  kind: 'metadata-proxy',
  supervision: 'resume',
  init: (_ctx, args) => ({ controller: args.controller }),
  schema: { Metadata: { topics: 'array?' } },
  handlers: {
    Metadata(s, m, ctx) {
      const token = ctx.deferReply();
      if (!token) return;
      const msg: ControllerMsg = m.topics ? { type: 'Metadata', topics: m.topics } : { type: 'Metadata' };
      void ctx.ask(s.controller, msg, { timeoutMs: 10_000 }).then((r) => {
        ctx.replyTo(token, r.type === 'Failure' ? { type: 'MetadataResponse', errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: 'controller unreachable' } : r);
      });
    },
  },
});
