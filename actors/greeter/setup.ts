/**
 * Worker/process setup module for the greeter: spawns one greeter at /greeter on the node.
 */
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import { greeter } from './greeter.js';

export default function setup(system: ActorSystem): void {
  system.spawn(greeter, { name: 'greeter' });
}
