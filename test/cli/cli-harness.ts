/**
 * Harness for the CLI tests: a TestCluster whose client node also listens on TCP and hosts the
 * metadata proxy, so `samsa` child processes can bootstrap from 127.0.0.1:<port> like they
 * would from a real cluster, and a runner that spawns `node --import tsx src/cli/samsa.ts ...`
 * with piped stdin and collects exit code, stdout and stderr.
 *
 * Brokers run in worker threads: a worker node routes traffic for nodes it has no channel to
 * (here, the CLI's client node) through the main thread, whose TCP connection reaches the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { metadataProxy, METADATA_PROXY_PATH } from '../../actors/cluster-node/metadata-proxy.js';
import { main } from '../../src/cli/main.js';
import { TcpTransport } from '../../src/transport/tcp.js';
import { TestCluster, fastFailover } from '../helpers/cluster.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = 'src/cli/samsa.ts';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Run main() in this process even for a command that otherwise runs as a process (one that
   * refuses its command line before it reads stdin or prints a result); SAMSA_CLI_SPAWN=1 still spawns.
   */
  inProcess?: boolean;
  /** Run as a process even a command that otherwise runs here (what it reports depends on its process). */
  spawn?: boolean;
}

/** Starts `samsa <args>`; the caller may write to stdin, signal it, and await `result`. */
export function startCli(args: readonly string[], opts: RunOptions = {}): { child: ChildProcess; result: Promise<RunResult>; stdout(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, SAMSA_LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.on('error', () => undefined);
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const result = new Promise<RunResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`samsa ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, result, stdout: () => stdout };
}

/**
 * One-shot admin commands that read no stdin run inside the test process (the same `main` the
 * executable runs, its stdout and stderr captured): a process per run costs a TypeScript start-up
 * each. SAMSA_CLI_SPAWN=1 runs every command as a process. The executable itself (exit codes,
 * signals, stdin, environment) is tested through startCli.
 */
const IN_PROCESS = new Set(['topics', 'cluster', 'configs', 'acls', 'reassign-partitions', 'log-dirs', 'leader-election', 'metadata-quorum', 'features', 'groups', 'share-groups', 'share-consume', 'delegation-tokens', 'client-metrics', 'transactions', 'get-offsets', 'delete-records', 'dump-log', 'help', '--help', 'perf-produce', 'perf-consume', 'perf-share-consume', 'perf-e2e']);

function inProcess(args: readonly string[], opts: RunOptions): boolean {
  if (process.env.SAMSA_CLI_SPAWN === '1' || opts.spawn || opts.env !== undefined || (opts.stdin !== undefined && opts.stdin !== '')) return false;
  if (opts.inProcess) return true;
  // acls --remove asks for a confirmation on stdin unless --force
  if (args[0] === 'acls' && args.includes('--remove') && !args.includes('--force')) return false;
  return IN_PROCESS.has(args[0] ?? '');
}

/** In-process runs one at a time: each owns process.stdout and process.stderr while it runs. */
let inProcessQueue: Promise<unknown> = Promise.resolve();

function runInProcess(args: readonly string[]): Promise<RunResult> {
  const run = inProcessQueue.then(() => runCaptured(args));
  inProcessQueue = run.catch(() => undefined);
  return run;
}

/** Runs `main(args)` here with process.stdout and process.stderr captured. */
async function runCaptured(args: readonly string[]): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const capture = (append: (s: string) => void) =>
    function write(chunk: string | Uint8Array, encodingOrCb?: unknown, cb?: unknown): boolean {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = typeof encodingOrCb === 'function' ? encodingOrCb : cb;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    };
  const realOut = process.stdout.write;
  const realErr = process.stderr.write;
  process.stdout.write = capture((x) => (stdout += x)) as typeof process.stdout.write;
  process.stderr.write = capture((x) => (stderr += x)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, signal: null, stdout, stderr };
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  }
}

export function runCli(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  if (inProcess(args, opts)) return runInProcess(args);
  return startCli(args, { stdin: '', ...opts }).result;
}

/**
 * A CliCluster of `brokers` brokers started before the tests of the describe block that calls
 * this and stopped after them; the returned getter is for use inside the tests.
 */
export function cliClusterPerSuite(brokers: number): () => CliCluster {
  let c: CliCluster | undefined;
  before(async () => {
    c = await CliCluster.start(brokers);
  });
  after(async () => {
    await c?.stop();
  });
  return () => {
    if (!c) throw new Error('the CLI cluster is not started (use it inside the tests of the describe block)');
    return c;
  };
}

export class CliCluster {
  private constructor(
    readonly cluster: TestCluster,
    private readonly tcp: TcpTransport,
    readonly bootstrap: string,
  ) {}

  static async start(brokers: number, controllerConfig: Record<string, unknown> = {}, opts: { logDirsPerBroker?: number; brokerConfig?: Record<string, unknown> } = {}): Promise<CliCluster> {
    // fast failover: the leader-election test crashes a broker and waits for the controller to notice
    const cluster = await TestCluster.start({
      brokers,
      transport: 'worker',
      ...fastFailover({ 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 3, ...opts.brokerConfig }, controllerConfig),
      ...(opts.logDirsPerBroker !== undefined ? { logDirsPerBroker: opts.logDirsPerBroker } : {}),
    });
    const tcp = new TcpTransport(cluster.system(), { clusterId: 'test-cluster' });
    const { port } = await tcp.listen(0);
    cluster.system().spawn(metadataProxy, { name: METADATA_PROXY_PATH.slice(1), args: { controller: cluster.client.controller } });
    return new CliCluster(cluster, tcp, `127.0.0.1:${port}`);
  }

  /** Runs `samsa <command> --bootstrap-server <this cluster> <args>`. */
  run(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    return runCli([command, '--bootstrap-server', this.bootstrap, ...args], opts);
  }

  start(command: string, args: readonly string[], opts: RunOptions = {}): ReturnType<typeof startCli> {
    return startCli([command, '--bootstrap-server', this.bootstrap, ...args], opts);
  }

  async stop(): Promise<void> {
    await this.tcp.close();
    await this.cluster.stop();
  }
}
