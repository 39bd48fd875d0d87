/**
 * A KafkaJS group consumer on a worker thread of its own, for soaks.
 *
 * KafkaJS 2.2's consumer can end up in a loop whose promises settle without I/O: when its runner
 * is stopped while the fetch manager is re-creating fetchers (the broker set changed, as broker
 * restarts make it), the new fetchers ask the stopped runner for more, get nothing at once, and
 * ask again, forever. That loop starves the event loop it runs on. On a thread of its own it
 * starves only the consumer: the member sees the worker's beat stop, ends the worker and starts a
 * new member of the same group in its place, which resumes from the group's committed offsets, as
 * an operator restarting a hung consumer process would. Each replacement is kept with its reason
 * (`replacements`) so a soak can say how often it happened; `disconnect()` ends a worker that
 * does not finish leaving the group in time, and says so.
 *
 * Every value is posted to the main thread as KafkaJS hands it over, before its offset can be
 * committed, so ending a worker never hides a record the group has consumed.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const MEMBER = `
const { parentPort, workerData } = require('node:worker_threads');
const { Kafka, logLevel } = require(workerData.kafkajs);
const kafka = new Kafka({
  clientId: workerData.clientId,
  brokers: workerData.brokers,
  logLevel: workerData.log ? logLevel.INFO : logLevel.NOTHING,
  retry: workerData.retry,
});
const consumer = kafka.consumer(workerData.consumer);
setInterval(() => parentPort.postMessage({ type: 'beat' }), 100);
parentPort.on('message', (m) => {
  if (m.type === 'disconnect') {
    consumer.disconnect().then(
      () => parentPort.postMessage({ type: 'disconnected' }),
      (e) => parentPort.postMessage({ type: 'failed', message: 'disconnect: ' + (e && e.message) }),
    );
  } else if (m.type === 'spin') {
    // a loop of promises that settle at once, as KafkaJS's does
    const spin = () => Promise.resolve().then(spin);
    spin();
  }
});
(async () => {
  await consumer.connect();
  await consumer.subscribe({ topic: workerData.topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      parentPort.postMessage({ type: 'value', value: message.value === null ? null : message.value.toString() });
    },
  });
  parentPort.postMessage({ type: 'running' });
})().catch((e) => parentPort.postMessage({ type: 'failed', message: 'start: ' + ((e && e.stack) || e) }));
`;

type FromMember =
  | { type: 'beat' }
  | { type: 'running' }
  | { type: 'disconnected' }
  | { type: 'value'; value: string | null }
  | { type: 'failed'; message: string };

export interface KafkaJsGroupMemberOptions {
  readonly brokers: string[];
  readonly clientId: string;
  readonly topic: string;
  /** KafkaJS consumer config (groupId, sessionTimeout, ...): plain data, it crosses to the worker. */
  readonly consumer: Record<string, unknown> & { groupId: string };
  readonly retry?: Record<string, number>;
  /** KafkaJS's own log at INFO on the worker's stdout. */
  readonly log?: boolean;
  /** A worker whose beat has been missing this long is replaced (default 10 s). */
  readonly stallMs?: number;
  /** Each record's value, as the group hands it to this member (at least once). */
  readonly onValue: (value: string | null) => void;
}

export interface Replacement {
  readonly atMs: number;
  readonly reason: string;
}

function assertNever(x: never): never {
  throw new Error(`unexpected message from a group member: ${JSON.stringify(x)}`);
}

export class KafkaJsGroupMember {
  /** Workers ended and replaced, and why. */
  readonly replacements: Replacement[] = [];
  /** What went wrong inside a worker (a failed start or leave), in order. */
  readonly failures: string[] = [];
  private worker!: Worker;
  private lastBeat = 0;
  private stopping = false;
  private readonly watch: NodeJS.Timeout;
  private readonly stallMs: number;
  private readonly kafkajs = createRequire(import.meta.url).resolve('kafkajs');
  private running!: Promise<void>;
  private disconnected: (() => void) | null = null;

  private constructor(private readonly opts: KafkaJsGroupMemberOptions) {
    this.stallMs = opts.stallMs ?? 10_000;
    this.spawn();
    this.watch = setInterval(() => {
      if (this.stopping || Date.now() - this.lastBeat < this.stallMs) return;
      this.replace(`its event loop did not turn for ${Date.now() - this.lastBeat} ms`);
    }, 250);
  }

  /** Starts a member and waits until KafkaJS's consumer runs (joined and fetching). */
  static async start(opts: KafkaJsGroupMemberOptions): Promise<KafkaJsGroupMember> {
    const member = new KafkaJsGroupMember(opts);
    await member.running;
    return member;
  }

  /** Makes the worker's event loop spin as KafkaJS's does (for testing the replacement). */
  spinForTest(): void {
    this.worker.postMessage({ type: 'spin' });
  }

  /**
   * Leaves the group: KafkaJS's disconnect(), given `deadlineMs`. A worker that has not finished
   * by then is ended ('ended').
   */
  async disconnect(deadlineMs = 30_000): Promise<'left' | 'ended'> {
    this.stopping = true;
    clearInterval(this.watch);
    const left = new Promise<'left'>((resolve) => (this.disconnected = () => resolve('left')));
    this.worker.postMessage({ type: 'disconnect' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'ended'>((resolve) => (timer = setTimeout(() => resolve('ended'), deadlineMs)));
    const outcome = await Promise.race([left, late]);
    clearTimeout(timer);
    await this.worker.terminate();
    return outcome;
  }

  private spawn(): void {
    const { brokers, clientId, topic, consumer, retry, log } = this.opts;
    // no --import hooks: the member is plain JavaScript and needs none
    const worker = new Worker(MEMBER, { eval: true, execArgv: [], workerData: { kafkajs: this.kafkajs, brokers, clientId, topic, consumer, retry, log: log === true } });
    this.worker = worker;
    this.lastBeat = Date.now();
    this.running = new Promise((resolve, reject) => {
      worker.on('message', (m: FromMember) => {
        // a replaced worker's values still count (it posted them before ending); nothing else does
        if (worker !== this.worker && m.type !== 'value') return;
        switch (m.type) {
          case 'beat':
            this.lastBeat = Date.now();
            return;
          case 'value':
            this.opts.onValue(m.value);
            return;
          case 'running':
            resolve();
            return;
          case 'disconnected':
            this.disconnected?.();
            return;
          case 'failed':
            this.failures.push(m.message);
            if (m.message.startsWith('start:')) reject(new Error(`a KafkaJS group member did not start: ${m.message}`));
            return;
          default:
            assertNever(m);
        }
      });
      worker.on('error', (err) => {
        this.failures.push(`uncaught in the worker: ${err.stack ?? err.message}`);
        reject(err);
      });
    });
    // a replaced member's start is not awaited by anyone: keep its rejection from going unhandled
    this.running.catch(() => undefined);
  }

  private replace(reason: string): void {
    this.replacements.push({ atMs: Date.now(), reason });
    const old = this.worker;
    this.spawn();
    void old.terminate();
  }
}
