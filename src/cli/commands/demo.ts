/**
 * `samsa demo` (`npm run demo`): the bare actor runtime across worker threads. Starts two
 * worker nodes, each hosting a greeter, has one greet through the other, then shows tell
 * throughput across the worker boundary and stops everything.
 */
import { ActorSystem } from '../../runtime/actor-system.js';
import type { ActorRef } from '../../runtime/types.js';
import { WorkerHub } from '../../transport/worker.js';
import type { GreeterMsg } from '../../../actors/greeter/messages.js';
import { HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK } from '../errors.js';
import { out } from '../output.js';

export async function runDemo(out: (line: string) => void): Promise<void> {
  const main = new ActorSystem({ nodeId: 'main' });
  const hub = new WorkerHub(main);
  const setup = new URL(import.meta.url.endsWith('.ts') ? '../../../actors/greeter/setup.ts' : '../../../actors/greeter/setup.js', import.meta.url);
  const t0 = performance.now();
  await Promise.all([hub.spawn({ nodeId: 'w1', setup }), hub.spawn({ nodeId: 'w2', setup })]);
  out(`started worker nodes w1 and w2 in ${(performance.now() - t0).toFixed(0)} ms`);

  const g1: ActorRef<GreeterMsg> = { node: 'w1', path: '/greeter' };
  const g2: ActorRef<GreeterMsg> = { node: 'w2', path: '/greeter' };
  out(`main -> w1: ${JSON.stringify(await main.ask(g1, { type: 'Greet', name: 'samsa' }))}`);
  out(`main -> w1 -> w2: ${JSON.stringify(await main.ask(g1, { type: 'GreetVia', next: g2, name: 'Gregor' }))}`);
  out(`main -> nowhere: ${JSON.stringify(await main.ask({ node: 'w9', path: '/greeter' } as ActorRef<GreeterMsg>, { type: 'Greet', name: 'x' }))}`);

  const n = 100_000;
  const t1 = performance.now();
  for (let i = 0; i < n; i++) main.send(g2, { type: 'Greet', name: `n${i}` });
  const stats = await main.ask(g2, { type: 'Stats' }, { timeoutMs: 60_000 });
  const ms = performance.now() - t1;
  const greeted = (stats as { greeted?: number }).greeted ?? 0;
  out(`${n.toLocaleString()} tells main -> w2 in ${ms.toFixed(0)} ms (${Math.round((n / ms) * 1000).toLocaleString()} msg/s); w2 greeted ${greeted.toLocaleString()}`);
  await main.stop();
  out('stopped');
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the actor runtime across two worker threads and print what happens',
  usage: [''],
  description: 'Starts two worker-thread nodes that each host a greeter, has one greet through the other, measures tell throughput across the worker boundary, and stops.',
  options: [HELP_OPTION],
  async run() {
    await runDemo((line) => out(line));
    return EXIT_OK;
  },
};
