/**
 * The greeter: the smallest useful actor, and the README's "write your own actor" example.
 *
 * Owned state: how many greetings it gave and to whom.
 * Handles: Greet (replies Greeting), Stats (replies GreeterStats), GreetVia (asks another
 * greeter, possibly on another node, and relays its answer).
 * Emits: Greeting, GreeterStats; Greet to the `next` greeter for GreetVia.
 */
import { defineActor } from '../../src/runtime/actor-definition.js';
import type { GreeterMsg, GreeterReply } from './messages.js';

export interface GreeterState {
  greeted: number;
  /** the last few names greeted, newest last */
  names: string[];
}

const KEEP_NAMES = 5;

export const greeter = defineActor<GreeterState, GreeterMsg, { greeting?: string } | undefined>({
  kind: 'greeter',
  // clients may greet and look; GreetVia makes the greeter ask whatever ref it is given, so it is the cluster's
  clientMessages: { Greet: true, Stats: true },
  init: () => ({ greeted: 0, names: [] }),
  supervision: 'restart',
  schema: { Greet: { name: 'string' }, GreetVia: { next: 'ref', name: 'string' } },
  handlers: {
    Greet: (state, msg, ctx) => {
      const reply: GreeterReply = { type: 'Greeting', text: `Hello, ${msg.name}!`, by: ctx.nodeId };
      ctx.reply(reply);
      state.names.push(msg.name);
      if (state.names.length > KEEP_NAMES) state.names.shift();
      return { greeted: state.greeted + 1, names: state.names };
    },
    Stats: (state, _msg, ctx) => {
      ctx.reply({ type: 'GreeterStats', greeted: state.greeted, names: state.names } satisfies GreeterReply);
    },
    GreetVia: async (_state, msg, ctx) => {
      const answer = await ctx.ask(msg.next, { type: 'Greet', name: msg.name }, { timeoutMs: 5_000 });
      // errors are data: a Failure (timeout, unreachable node...) carries an errorCode and is relayed as is
      ctx.reply(answer);
    },
  },
});
