/**
 * worker_threads transport: a parent node starts nodes in worker threads. Every worker gets a
 * MessageChannel to the parent and one to every other worker of the same parent (a full
 * mesh: worker-to-worker traffic is never relayed through the main thread).
 *
 * A worker node runs `setup(system, config)` from a module the caller names (a path or URL of
 * a module whose default export is that function), so the same actor definitions run in the
 * main thread, in a worker, or in another process.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { isAbsolute } from 'node:path';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { Transport } from '../runtime/endpoint.js';
import { PortEndpoint } from './port-endpoint.js';

export interface WorkerNodeOptions {
  nodeId: string;
  /** Module whose default export is `(system, config) => void | Promise<void>`: a file URL, an absolute path, or a package specifier. */
  setup: string | URL;
  /** Passed to the setup function (must be structured-cloneable). */
  config?: unknown;
  /** Turn on strict serialisation inside the worker's node. */
  strictSerialization?: boolean;
  /** Milliseconds to wait for the worker to start (default 20000). */
  startTimeoutMs?: number;
  resourceLimits?: ConstructorParameters<typeof Worker>[1] extends infer O ? (O extends { resourceLimits?: infer R } ? R : never) : never;
}

/** A worker node's thread is named this followed by its node id (Linux; see thread-name.ts). */
export const WORKER_THREAD_PREFIX = 'samsa-';

/** Control messages between a parent and its workers (never actor traffic). */
export type WorkerControl =
  | { ctl: 'peer'; nodeId: string; port: MessagePort }
  | { ctl: 'ready' }
  | { ctl: 'failed'; error: string }
  | { ctl: 'stop' }
  | { ctl: 'stopped' };

export interface WorkerStartData {
  nodeId: string;
  parentNodeId: string;
  parentPort: MessagePort;
  setup: string;
  config: unknown;
  strictSerialization: boolean;
  logLevel: string | undefined;
}

function setupSpecifier(setup: string | URL): string {
  if (setup instanceof URL) return setup.href;
  if (isAbsolute(setup)) return pathToFileURL(setup).href;
  return setup;
}

/**
 * How to start the worker's program. From compiled JavaScript it is a plain file; from
 * TypeScript sources (tests, tsx users) the worker first registers tsx's loader and then
 * imports the entry, because Node 20 does not apply `--import` hooks to a worker's entry file.
 */
function workerProgram(setup: string): { code: string | URL; eval: boolean } {
  const here = import.meta.url;
  const fromTs = here.endsWith('.ts');
  const entry = new URL(fromTs ? './worker-entry.ts' : './worker-entry.js', here);
  if (!fromTs && !/\.[mc]?ts$/.test(setup)) return { code: entry, eval: false };
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
  return { code, eval: true };
}

/** A worker node as seen from its parent. */
export class WorkerNode {
  private exited = false;
  private stopping?: Promise<void>;
  readonly exit: Promise<number>;

  constructor(
    readonly nodeId: string,
    readonly worker: Worker,
    private readonly hub: WorkerHub,
  ) {
    this.exit = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.exited = true;
        resolve(code);
      }),
    );
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Graceful: the worker's node stops its actors and endpoints, then the thread exits. */
  stop(timeoutMs = 10_000): Promise<void> {
    this.stopping ??= (async () => {
      if (this.exited) return;
      this.worker.postMessage({ ctl: 'stop' } satisfies WorkerControl);
      const timer = setTimeout(() => void this.worker.terminate(), timeoutMs);
      await this.exit;
      clearTimeout(timer);
      this.hub.forget(this);
    })();
    return this.stopping;
  }

  /** Abrupt: kills the thread, like a crashed broker. */
  async kill(): Promise<void> {
    await this.worker.terminate();
    await this.exit;
    this.hub.forget(this);
  }
}

/** Starts and links worker nodes for one parent node. */
export class WorkerHub implements Transport {
  private readonly nodes = new Map<string, { node: WorkerNode; control: Worker }>();

  constructor(private readonly system: ActorSystem) {
    system.addTransport(this);
  }

  async spawn(opts: WorkerNodeOptions): Promise<WorkerNode> {
    if (opts.nodeId === this.system.nodeId || this.nodes.has(opts.nodeId) || this.system.endpointTo(opts.nodeId)) {
      throw new Error(`node id ${opts.nodeId} is already in use`);
    }
    const program = workerProgram(setupSpecifier(opts.setup));
    const toParent = new MessageChannel();
    const data: WorkerStartData = {
      nodeId: opts.nodeId,
      parentNodeId: this.system.nodeId,
      parentPort: toParent.port2,
      setup: setupSpecifier(opts.setup),
      config: opts.config ?? null,
      strictSerialization: opts.strictSerialization ?? this.system.strictSerialization,
      logLevel: process.env.SAMSA_LOG_LEVEL,
    };
    const worker = new Worker(program.code, {
      eval: program.eval,
      workerData: data,
      transferList: [toParent.port2],
      ...(opts.resourceLimits ? { resourceLimits: opts.resourceLimits } : {}),
    });
    const node = new WorkerNode(opts.nodeId, worker, this);
    new PortEndpoint(opts.nodeId, toParent.port1, this.system);
    worker.on('error', (err) => this.system.log.error('worker node failed', { peer: opts.nodeId, error: err.message }));
    worker.once('exit', () => {
      toParent.port1.close();
      this.forget(node);
    });

    // mesh: a direct channel to every worker already running
    for (const [peerId, peer] of this.nodes) {
      const ch = new MessageChannel();
      worker.postMessage({ ctl: 'peer', nodeId: peerId, port: ch.port1 } satisfies WorkerControl, [ch.port1]);
      peer.control.postMessage({ ctl: 'peer', nodeId: opts.nodeId, port: ch.port2 } satisfies WorkerControl, [ch.port2]);
    }
    this.nodes.set(opts.nodeId, { node, control: worker });

    await new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`worker node ${opts.nodeId} did not start within ${opts.startTimeoutMs ?? 20_000} ms`));
      }, opts.startTimeoutMs ?? 20_000);
      const onMessage = (m: WorkerControl) => {
        if (m.ctl === 'ready') {
          clearTimeout(timeout);
          worker.off('message', onMessage);
          resolve();
        } else if (m.ctl === 'failed') {
          clearTimeout(timeout);
          worker.off('message', onMessage);
          void worker.terminate();
          reject(new Error(`worker node ${opts.nodeId} failed to start: ${m.error}`));
        }
      };
      worker.on('message', onMessage);
      worker.once('exit', (code) => {
        clearTimeout(timeout);
        reject(new Error(`worker node ${opts.nodeId} exited with code ${code} while starting`));
      });
    });
    return node;
  }

  /** @internal */
  forget(node: WorkerNode): void {
    if (this.nodes.get(node.nodeId)?.node === node) this.nodes.delete(node.nodeId);
  }

  workers(): WorkerNode[] {
    return [...this.nodes.values()].map((n) => n.node);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.workers().map((n) => n.stop()));
  }
}
