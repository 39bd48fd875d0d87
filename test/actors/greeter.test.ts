/**
 * The README's "write your own actor" example, run for real: in-process and across a worker.
 */
import { expect } from 'chai';
import { greeter } from '../../actors/greeter/greeter.js';
import type { GreeterMsg } from '../../actors/greeter/messages.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import type { ActorRef } from '../../src/runtime/types.js';
import { WorkerHub } from '../../src/transport/worker.js';

describe('actors/greeter (the README example)', function () {
  this.timeout(20_000);

  it('greets, counts, and rejects a malformed greeting', async () => {
    const system = new ActorSystem({ nodeId: 'local', strictSerialization: true });
    try {
      const g = system.spawn(greeter, { name: 'greeter' });
      expect(await system.ask(g, { type: 'Greet', name: 'Ada' })).to.deep.equal({ type: 'Greeting', text: 'Hello, Ada!', by: 'local' });
      expect(await system.ask(g, { type: 'Stats' })).to.deep.equal({ type: 'GreeterStats', greeted: 1, names: ['Ada'] });
      const bad = await system.ask(g, { type: 'Greet', name: 42 } as never);
      expect(bad).to.deep.include({ type: 'Failure', reason: 'invalid-message', message: 'Greet.name must be string, got number' });
    } finally {
      await system.stop();
    }
  });

  it('greets through a greeter in a worker thread', async () => {
    const main = new ActorSystem({ nodeId: 'main', strictSerialization: true });
    try {
      const local = main.spawn(greeter, { name: 'greeter' });
      await new WorkerHub(main).spawn({ nodeId: 'w1', setup: new URL('../../actors/greeter/setup.ts', import.meta.url) });
      const remote: ActorRef<GreeterMsg> = { node: 'w1', path: '/greeter' };
      expect(await main.ask(local, { type: 'GreetVia', next: remote, name: 'Gregor' })).to.deep.equal({
        type: 'Greeting',
        text: 'Hello, Gregor!',
        by: 'w1',
      });
      const lost = await main.ask(local, { type: 'GreetVia', next: { node: 'w9', path: '/greeter' }, name: 'x' });
      expect(lost).to.deep.include({ type: 'Failure', reason: 'unknown-node' });
    } finally {
      await main.stop();
    }
  });
});
