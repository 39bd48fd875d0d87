/**
 * The program a worker node runs: builds its actor system, links the port to its parent and
 * the ports to sibling workers as they arrive, runs the caller's setup module, and stops
 * gracefully when the parent says so. The thread takes the name `samsa-<node id>` (Linux), so
 * `top -H` and the benchmarks' CPU report show which node is busy.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ActorSystem } from '../runtime/actor-system.js';
import { setLogLevel, type LogLevel } from '../runtime/logger.js';
import { nameThisThread } from '../runtime/thread-name.js';
import { PortEndpoint } from './port-endpoint.js';
import { WORKER_THREAD_PREFIX, type WorkerControl, type WorkerStartData } from './worker.js';

async function main(): Promise<void> {
  const data = workerData as WorkerStartData;
  const control = parentPort!;
  nameThisThread(`${WORKER_THREAD_PREFIX}${data.nodeId}`);
  if (data.logLevel) setLogLevel(data.logLevel as LogLevel);
  const system = new ActorSystem({ nodeId: data.nodeId, strictSerialization: data.strictSerialization });
  new PortEndpoint(data.parentNodeId, data.parentPort, system);
  // nodes this worker has no channel to (other nodes of the parent's process, its clients) are reached through the parent
  system.setDefaultRoute(data.parentNodeId);

  control.on('message', (m: WorkerControl) => {
    switch (m.ctl) {
      case 'peer':
        new PortEndpoint(m.nodeId, m.port, system);
        break;
      case 'stop':
        void system.stop().then(() => process.exit(0));
        break;
      case 'ready':
      case 'failed':
      case 'stopped':
        break;
    }
  });

  try {
    const mod = (await import(data.setup)) as { default?: unknown };
    if (typeof mod.default !== 'function') {
      throw new Error(`setup module ${data.setup} has no default export function (system, config) => void`);
    }
    await (mod.default as (s: ActorSystem, c: unknown) => unknown)(system, data.config);
    control.postMessage({ ctl: 'ready' } satisfies WorkerControl);
  } catch (err) {
    control.postMessage({ ctl: 'failed', error: (err as Error)?.stack ?? String(err) } satisfies WorkerControl);
  }
}

void main();
