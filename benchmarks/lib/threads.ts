/**
 * Helper threads for benchmarks: start a worker from a TypeScript (or JavaScript) module and
 * talk to it with a tiny request/response protocol over its parent port.
 *
 * A worker started from a .ts module first registers tsx's loader and then imports the module,
 * because Node 20 does not apply `--import` hooks to a worker's entry file.
 *
 * In the worker: `serveRpc({ cmd: (args) => result })` answers calls; it posts a `ready` note
 * once installed. In the parent: `const w = await RpcWorker.start(url, data)`, then
 * `await w.call('cmd', args, transferList)`, and `await w.terminate()` at the end.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, parentPort, type Transferable } from 'node:worker_threads';

type RpcRequest = { rpc: number; cmd: string; args: unknown };
type RpcReply = { rpc: number; ok: true; value: unknown } | { rpc: number; ok: false; error: string };
type RpcReady = { rpcReady: true };

/**
 * tsx's ESM API as a URL to import: `import.meta.resolve` where this module runs as ESM (the
 * tools); where a loader compiled it to CommonJS (the test runner) `require.resolve` finds the
 * package's CommonJS entry, whose ESM sibling is the one a worker can import.
 */
function tsxApiUrl(): string {
  const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  if (typeof resolve === 'function') return resolve('tsx/esm/api');
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const esm = cjs.replace(/\.cjs$/, '.mjs');
  return pathToFileURL(fs.existsSync(esm) ? esm : cjs).href;
}

/** Starts a worker thread running `entry` (a file URL of a .ts or .js module). */
export function startWorker(entry: URL, workerData?: unknown, transferList: Transferable[] = []): Worker {
  if (/\.[mc]?ts$/.test(entry.pathname)) {
    const code = `import(${JSON.stringify(tsxApiUrl())}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
    return new Worker(code, { eval: true, workerData, transferList });
  }
  return new Worker(entry, { workerData, transferList });
}

/** The parent's handle on a worker that serves RPC calls. */
export class RpcWorker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited = false;
  readonly exit: Promise<number>;

  private constructor(readonly worker: Worker) {
    worker.on('message', (m: RpcReply | RpcReady) => {
      if ('rpcReady' in m) return;
      const p = this.pending.get(m.rpc);
      if (!p) return;
      this.pending.delete(m.rpc);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.error));
    });
    this.exit = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.exited = true;
        for (const p of this.pending.values()) p.reject(new Error(`worker exited with code ${code}`));
        this.pending.clear();
        resolve(code);
      }),
    );
    worker.on('error', (err) => {
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    });
  }

  /** Starts the worker and waits until its RPC handlers are installed. */
  static async start(entry: URL, workerData?: unknown, timeoutMs = 20_000): Promise<RpcWorker> {
    const worker = startWorker(entry, workerData);
    const w = new RpcWorker(worker);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker ${entry.href} did not start within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (m: unknown) => {
        if (typeof m === 'object' && m !== null && 'rpcReady' in m) done();
      };
      const onExit = (code: number) => {
        clearTimeout(timer);
        reject(new Error(`worker ${entry.href} exited with code ${code} while starting`));
      };
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.off('error', onError);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('exit', onExit);
      worker.once('error', onError);
    });
    return w;
  }

  call<T = unknown>(cmd: string, args?: unknown, transferList: Transferable[] = []): Promise<T> {
    if (this.exited) return Promise.reject(new Error('worker has exited'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ rpc: id, cmd, args } satisfies RpcRequest, transferList);
    });
  }

  /** Ends the thread (its handlers get no chance to clean up: close resources with a call first). */
  async terminate(): Promise<void> {
    if (this.exited) return;
    await this.worker.terminate();
    await this.exit;
  }
}

export type RpcHandlers = Record<string, (args: never) => unknown>;

/** In a worker: answers RPC calls from the parent with `handlers`. */
export function serveRpc(handlers: RpcHandlers): void {
  const port = parentPort;
  if (!port) throw new Error('serveRpc must run in a worker thread');
  port.on('message', (m: RpcRequest) => {
    if (typeof m !== 'object' || m === null || typeof m.rpc !== 'number') return;
    const h = handlers[m.cmd];
    if (!h) {
      port.postMessage({ rpc: m.rpc, ok: false, error: `unknown command '${m.cmd}'` } satisfies RpcReply);
      return;
    }
    Promise.resolve()
      .then(() => h(m.args as never))
      .then(
        (value) => port.postMessage({ rpc: m.rpc, ok: true, value } satisfies RpcReply),
        (err: unknown) => port.postMessage({ rpc: m.rpc, ok: false, error: err instanceof Error ? err.stack ?? err.message : String(err) } satisfies RpcReply),
      );
  });
  port.postMessage({ rpcReady: true } satisfies RpcReady);
}
