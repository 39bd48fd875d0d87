/**
 * Messages of the greeter example actor (the README's "write your own actor").
 */
import type { ActorRef } from '../../src/runtime/types.js';

export type GreeterMsg =
  | { type: 'Greet'; name: string }
  | { type: 'Stats' }
  | { type: 'GreetVia'; next: ActorRef<GreeterMsg>; name: string };

export type GreeterReply =
  | { type: 'Greeting'; text: string; by: string }
  | { type: 'GreeterStats'; greeted: number; names: string[] };
