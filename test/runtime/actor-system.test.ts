/**
 * The actor runtime on one node: definitions, validation, supervision, timers on a fake clock,
 * ask timeouts, dead letters, children and graceful stop; messages an actor takes only from its
 * own node.
 */
import { expect } from 'chai';
import { defineActor, type ReplyToken } from '../../src/runtime/actor-definition.js';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { FakeClock } from '../../src/runtime/clock.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorRef, Envelope, Failure, Message } from '../../src/runtime/types.js';
import { InProcNetwork } from '../../src/transport/inproc.js';
import { checkFor } from '../helpers/check-for.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Reply = any;

type CounterMsg = { type: 'Add'; n: number } | { type: 'Get' } | { type: 'Fail' } | { type: 'SlowAdd'; n: number; ms: number };
const counter = defineActor<{ total: number }, CounterMsg, { start?: number } | undefined>({
  kind: 'counter',
  init: (_ctx, args) => ({ total: args?.start ?? 0 }),
  supervision: 'restart',
  schema: { Add: { n: 'integer' }, SlowAdd: { n: 'integer', ms: 'number' } },
  handlers: {
    Add: (s, m) => ({ total: s.total + m.n }),
    Get: (s, _m, ctx) => ctx.reply({ type: 'Total', total: s.total } as never),
    Fail: () => {
      throw new Error('deliberate');
    },
    SlowAdd: async (s, m) => {
      await new Promise((r) => setTimeout(r, m.ms));
      return { total: s.total + m.n };
    },
  },
});

/** An endpoint to `peer` that keeps what is sent through it. */
function recordingEndpoint(system: ActorSystem, peer: string): Envelope[] {
  const sent: Envelope[] = [];
  system.attachEndpoint({
    peer,
    kind: 'worker',
    send: (e) => {
      sent.push(e);
      return null;
    },
    bufferedBytes: () => 0,
    close: () => {},
  });
  return sent;
}

describe('runtime/actor-system', () => {
  let sys: ActorSystem;
  let clock: FakeClock;

  beforeEach(() => {
    clock = new FakeClock();
    sys = new ActorSystem({ nodeId: 'n1', clock, strictSerialization: true });
  });
  afterEach(async () => {
    await sys.stop();
  });

  describe('spawning', () => {
    it('names actors by path and passes args to init', async () => {
      const ref = sys.spawn(counter, { name: 'c', args: { start: 40 } });
      expect(ref).to.deep.equal({ node: 'n1', path: '/c' });
      sys.send(ref, { type: 'Add', n: 2 });
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'Total', total: 42 });
    });

    it('refuses duplicate paths and bad names', () => {
      sys.spawn(counter, { name: 'dup' });
      expect(() => sys.spawn(counter, { name: 'dup' })).to.throw(/already exists at n1:\/dup/);
      expect(() => sys.spawn(counter, { name: 'a/b' })).to.throw(/invalid actor name/);
      expect(() => sys.spawn(counter, { name: '$ask' })).to.throw(/invalid actor name/);
    });

    it('generates a unique name from the kind', () => {
      const a = sys.spawn(counter);
      const b = sys.spawn(counter);
      expect(a.path).to.match(/^\/counter-/);
      expect(a.path).to.not.equal(b.path);
    });

    it('supports async init: messages wait for it', async () => {
      const slowInit = defineActor<{ v: string }, { type: 'Read' }>({
        kind: 'slow-init',
        init: async () => {
          await new Promise((r) => setTimeout(r, 20));
          return { v: 'ready' };
        },
        supervision: 'stop',
        handlers: { Read: (s, _m, ctx) => ctx.reply({ type: 'Value', v: s.v } as never) },
      });
      const ref = sys.spawn(slowInit);
      expect(await sys.ask(ref, { type: 'Read' })).to.deep.equal({ type: 'Value', v: 'ready' });
    });
  });

  describe('boundary validation', () => {
    it('rejects unknown message types and bad fields with INVALID_REQUEST and keeps the actor alive', async () => {
      const ref = sys.spawn(counter, { name: 'v' });
      const r1 = (await sys.ask(ref, { type: 'Nope' } as never)) as Failure;
      expect(r1).to.deep.include({ type: 'Failure', errorCode: ErrorCode.INVALID_REQUEST, reason: 'invalid-message' });
      const r2 = (await sys.ask(ref, { type: 'Add', n: 'x' } as never)) as Failure;
      expect(r2.message).to.equal('Add.n must be integer, got string');
      const r3 = (await sys.ask(ref, { type: 'Add' } as never)) as Failure;
      expect(r3.message).to.equal('Add.n is required (integer)');
      const r4 = (await sys.ask(ref, { type: 'Add', n: 1.5 } as never)) as Failure;
      expect(r4.reason).to.equal('invalid-message');
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'Total', total: 0 });
      expect(sys.stats().deadLettersByReason['invalid-message']).to.equal(4);
    });

    it("takes bytes or a non-empty list of bytes as 'batches', and refuses anything else by name", async () => {
      const sink = defineActor<{ parts: number }, { type: 'Put'; records: Uint8Array | readonly Uint8Array[] } | { type: 'Count' }>({
        kind: 'batches-sink',
        init: () => ({ parts: 0 }),
        supervision: 'stop',
        schema: { Put: { records: 'batches' } },
        handlers: {
          Put: (s, m, ctx) => {
            s.parts += m.records instanceof Uint8Array ? 1 : m.records.length;
            ctx.reply({ type: 'Ok' } as never);
          },
          Count: (s, _m, ctx) => ctx.reply({ type: 'Parts', parts: s.parts } as never),
        },
      });
      const ref = sys.spawn(sink, { name: 'batches' });
      expect(await sys.ask(ref, { type: 'Put', records: Buffer.from('a') })).to.deep.equal({ type: 'Ok' });
      expect(await sys.ask(ref, { type: 'Put', records: [Buffer.from('a'), new Uint8Array(3)] })).to.deep.equal({ type: 'Ok' });
      for (const bad of [[], [Buffer.from('a'), 'b'], 'ab', 7]) {
        const r = (await sys.ask(ref, { type: 'Put', records: bad } as never)) as Failure;
        expect(r).to.deep.include({ type: 'Failure', errorCode: ErrorCode.INVALID_REQUEST, reason: 'invalid-message' });
        expect(r.message).to.match(/^Put\.records must be batches, got /);
      }
      expect(await sys.ask(ref, { type: 'Count' })).to.deep.equal({ type: 'Parts', parts: 3 });
    });

    it('with strict serialization, refuses to send what msgpack cannot carry', () => {
      const ref = sys.spawn(counter, { name: 's' });
      expect(() => sys.send(ref, { type: 'Add', n: 1, fn: () => 1 } as never)).to.throw(/strictSerialization/);
    });
  });

  describe('supervision', () => {
    it('restart: rebuilds state, fails the crashing ask, keeps serving', async () => {
      const ref = sys.spawn(counter, { name: 'r', args: { start: 5 } });
      sys.send(ref, { type: 'Add', n: 1 });
      const r = (await sys.ask(ref, { type: 'Fail' })) as Failure;
      expect(r).to.deep.include({ type: 'Failure', reason: 'actor-crashed', errorCode: ErrorCode.UNKNOWN_SERVER_ERROR });
      expect(r.message).to.match(/deliberate/);
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'Total', total: 5 });
    });

    it('restart: ends the old incarnation first (children stopped, onStop with its last state)', async () => {
      const stopped: number[] = [];
      type PMsg = { type: 'Spawn' } | { type: 'Bump' } | { type: 'Crash' } | { type: 'Get' };
      const parentDef = defineActor<{ n: number }, PMsg>({
        kind: 'restart-parent',
        init: () => ({ n: 0 }),
        supervision: 'restart',
        handlers: {
          Spawn: (_s, _m, ctx) => void ctx.spawn(counter, { name: 'kid' }),
          Bump: (st) => ({ n: st.n + 1 }),
          Crash: () => {
            throw new Error('deliberate');
          },
          Get: (st, _m, ctx) => ctx.reply({ type: 'N', n: st.n } as never),
        },
        onStop: (st) => {
          stopped.push(st.n);
        },
      });
      const ref = sys.spawn(parentDef, { name: 'rp' });
      sys.send(ref, { type: 'Spawn' });
      sys.send(ref, { type: 'Bump' });
      sys.send(ref, { type: 'Bump' });
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'N', n: 2 });
      expect(sys.hasActor('/rp/kid')).to.equal(true);
      await sys.ask(ref, { type: 'Crash' });
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'N', n: 0 });
      expect(stopped).to.deep.equal([2]);
      expect(sys.hasActor('/rp/kid')).to.equal(false);
      sys.send(ref, { type: 'Spawn' });
      await checkFor(() => sys.hasActor('/rp/kid'));
    });

    it('resume: keeps the state from before the failed message', async () => {
      const def = { ...counter, kind: 'resumer', supervision: 'resume' as const };
      const ref = sys.spawn(def, { name: 'res' });
      sys.send(ref, { type: 'Add', n: 7 });
      await sys.ask(ref, { type: 'Fail' });
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'Total', total: 7 });
    });

    it('stop: the actor goes away and later messages are dead letters', async () => {
      const def = { ...counter, kind: 'stopper', supervision: 'stop' as const };
      const ref = sys.spawn(def, { name: 'st' });
      await sys.ask(ref, { type: 'Fail' });
      await checkFor(() => !sys.hasActor('/st'));
      const r = (await sys.ask(ref, { type: 'Get' })) as Failure;
      expect(r.reason).to.equal('unknown-actor');
    });

    it('decides per error, and stops when the restart budget is spent', async () => {
      const decided: unknown[] = [];
      const def = {
        ...counter,
        kind: 'budget',
        supervision: {
          decide: (err: unknown) => {
            decided.push((err as Error).message);
            return 'restart' as const;
          },
          maxRestarts: 2,
          withinMs: 1_000,
        },
      };
      const ref = sys.spawn(def, { name: 'b' });
      await sys.ask(ref, { type: 'Fail' });
      await sys.ask(ref, { type: 'Fail' });
      expect(sys.hasActor('/b')).to.equal(true);
      await sys.ask(ref, { type: 'Fail' });
      await checkFor(() => !sys.hasActor('/b'));
      expect(decided).to.deep.equal(['deliberate', 'deliberate', 'deliberate']);
    });

    it('restart budget counts only restarts within the window', async () => {
      const def = { ...counter, kind: 'window', supervision: { maxRestarts: 1, withinMs: 1_000 } };
      const ref = sys.spawn(def, { name: 'w' });
      await sys.ask(ref, { type: 'Fail' });
      clock.advance(2_000);
      await sys.ask(ref, { type: 'Fail' });
      expect(sys.hasActor('/w')).to.equal(true);
      expect(await sys.ask(ref, { type: 'Get' })).to.deep.equal({ type: 'Total', total: 0 });
    });
  });

  describe('asks on a fake clock', () => {
    it('times out exactly when the clock passes the timeout', async () => {
      const silent = defineActor<null, { type: 'Hush' }>({
        kind: 'silent',
        init: () => null,
        supervision: 'resume',
        handlers: { Hush: () => undefined },
      });
      const ref = sys.spawn(silent, { name: 'q' });
      let settled: Message | undefined;
      const p = sys.ask(ref, { type: 'Hush' }, { timeoutMs: 1_000 }).then((m) => (settled = m));
      await new Promise((r) => setImmediate(r));
      clock.advance(999);
      await Promise.resolve();
      expect(settled).to.equal(undefined);
      clock.advance(1);
      await p;
      expect(settled).to.deep.include({ type: 'Failure', reason: 'timeout', errorCode: ErrorCode.REQUEST_TIMED_OUT });
      expect(sys.stats().pendingAsks).to.equal(0);
    });

    it('drops a late reply after the timeout', async () => {
      let token: ReplyToken | undefined;
      const later = defineActor<null, { type: 'Later' } | { type: 'Now' }>({
        kind: 'later',
        init: () => null,
        supervision: 'resume',
        handlers: {
          Later: (_s, _m, ctx) => {
            token = ctx.deferReply();
          },
          Now: (_s, _m, ctx) => ctx.replyTo(token!, { type: 'Late' }),
        },
      });
      const ref = sys.spawn(later, { name: 'late' });
      const p = sys.ask(ref, { type: 'Later' }, { timeoutMs: 10 });
      await checkFor(() => token);
      clock.advance(10);
      expect(await p).to.deep.include({ reason: 'timeout' });
      sys.send(ref, { type: 'Now' });
      await new Promise((r) => setTimeout(r, 5));
      expect(sys.stats().pendingAsks).to.equal(0);
    });

    it('answers a deferred reply from a later message', async () => {
      let token: ReplyToken | undefined;
      const purgatory = defineActor<null, { type: 'Wait' } | { type: 'Release' }>({
        kind: 'purgatory',
        init: () => null,
        supervision: 'resume',
        handlers: {
          Wait: (_s, _m, ctx) => {
            token = ctx.deferReply();
          },
          Release: (_s, _m, ctx) => ctx.replyTo(token!, { type: 'Released' }),
        },
      });
      const ref = sys.spawn(purgatory, { name: 'p' });
      const p = sys.ask(ref, { type: 'Wait' });
      sys.send(ref, { type: 'Release' });
      expect(await p).to.deep.equal({ type: 'Released' });
    });
  });

  describe('timers', () => {
    type TickMsg = { type: 'Arm'; ms: number } | { type: 'Every'; ms: number } | { type: 'Disarm' } | { type: 'Tick' } | { type: 'Count' } | { type: 'Fail' };
    const ticker = defineActor<{ ticks: number }, TickMsg>({
      kind: 'ticker',
      init: () => ({ ticks: 0 }),
      supervision: 'restart',
      handlers: {
        Arm: (_s, m, ctx) => ctx.timers.startSingle('t', m.ms, { type: 'Tick' }),
        Every: (_s, m, ctx) => ctx.timers.startPeriodic('t', m.ms, { type: 'Tick' }),
        Disarm: (_s, _m, ctx) => ctx.timers.cancel('t'),
        Tick: (s) => ({ ticks: s.ticks + 1 }),
        Count: (s, _m, ctx) => ctx.reply({ type: 'Ticks', ticks: s.ticks } as never),
        Fail: () => {
          throw new Error('x');
        },
      },
    });
    const ticks = async (ref: ActorRef) => ((await sys.ask<Reply>(ref, { type: 'Count' })).ticks as number);

    it('single timers deliver once, when the clock says', async () => {
      const ref = sys.spawn(ticker, { name: 't1' });
      sys.send(ref, { type: 'Arm', ms: 100 } as never);
      await ticks(ref);
      clock.advance(99);
      expect(await ticks(ref)).to.equal(0);
      clock.advance(1);
      expect(await ticks(ref)).to.equal(1);
      clock.advance(1_000);
      expect(await ticks(ref)).to.equal(1);
    });

    it('periodic timers repeat until cancelled', async () => {
      const ref = sys.spawn(ticker, { name: 't2' });
      sys.send(ref, { type: 'Every', ms: 10 } as never);
      await ticks(ref);
      clock.advance(35);
      expect(await ticks(ref)).to.equal(3);
      sys.send(ref, { type: 'Disarm' } as never);
      await ticks(ref);
      clock.advance(100);
      expect(await ticks(ref)).to.equal(3);
    });

    it('a restart cancels the actor\'s timers', async () => {
      const ref = sys.spawn(ticker, { name: 't3' });
      sys.send(ref, { type: 'Every', ms: 10 } as never);
      await ticks(ref);
      await sys.ask(ref, { type: 'Fail' } as never);
      clock.advance(100);
      expect(await ticks(ref)).to.equal(0);
      expect(clock.pending()).to.equal(0);
    });
  });

  describe('payload holds', () => {
    type HoldMsg = { type: 'Take'; bytes: Uint8Array } | { type: 'Ignore'; bytes: Uint8Array };
    const taker = defineActor<null, HoldMsg, undefined>({
      kind: 'taker',
      init: () => null,
      supervision: 'resume',
      handlers: {
        Take: (_s, _m, ctx) => {
          ctx.payloadHold()?.release();
          ctx.reply({ type: 'Took', held: ctx.payloadHold() !== null } as never);
        },
        Ignore: (_s, _m, ctx) => ctx.reply({ type: 'Ignored' } as never),
      },
    });

    it("reaches the handler of a message delivered here (through strict serialization too), and only the handler's release counts", async () => {
      const ref = sys.spawn(taker, { name: 'taker' });
      const released: string[] = [];
      const route = sys.route.bind(sys);
      // as a transport would: the envelope arrives with a hold on the buffer it was decoded from
      sys.route = (env) => {
        if (env.to.path === ref.path) env.payloadHold = { release: () => void released.push(env.msg.type) };
        route(env);
      };
      expect(await sys.ask(ref, { type: 'Take', bytes: new Uint8Array(4) })).to.deep.equal({ type: 'Took', held: true });
      expect(await sys.ask(ref, { type: 'Ignore', bytes: new Uint8Array(4) })).to.deep.equal({ type: 'Ignored' });
      expect(released).to.deep.equal(['Take']);
    });

    it('is dropped from an envelope relayed to another node: its bytes are copied on', () => {
      const sent = recordingEndpoint(sys, 'n2');
      const msg = { type: 'Take', bytes: new Uint8Array(4) } as unknown as Message;
      sys.receive({ to: { node: 'n2', path: '/x' }, msg, payloadHold: { release: () => {} } }, 'n3');
      expect(sent).to.have.length(1);
      expect(sent[0]!.payloadHold).to.equal(undefined);
    });

    it('is null for a message sent in-process', async () => {
      const ref = sys.spawn(taker, { name: 'taker2' });
      const r = (await sys.ask(ref, { type: 'Take', bytes: new Uint8Array(4) })) as Reply;
      expect(r).to.deep.equal({ type: 'Took', held: false });
    });
  });

  describe('work accounts', () => {
    // a work clock the handlers move on: each handler "works" as many ms as its message says
    let now = 0;
    let charged: ActorSystem;
    type WorkMsg =
      | { type: 'Work'; ms: number; tellTo?: string; askTo?: string; remote?: string; timerMs?: number; thenMs?: number }
      | { type: 'Tick'; ms: number }
      | { type: 'Done'; ms: number };
    const worker = defineActor<null, WorkMsg, undefined>({
      kind: 'worker',
      init: () => null,
      supervision: 'resume',
      handlers: {
        Work: (_s, m, ctx) => {
          now += m.ms;
          if (m.tellTo) ctx.send({ node: 'n1', path: m.tellTo }, { type: 'Work', ms: m.ms } as never);
          if (m.remote) ctx.send({ node: m.remote, path: '/w' }, { type: 'Work', ms: m.ms } as never);
          if (m.timerMs !== undefined) ctx.timers.startSingle('t', m.timerMs, { type: 'Tick', ms: 100 });
          const asked = m.askTo ? ctx.ask({ node: 'n1', path: m.askTo }, { type: 'Work', ms: 1 } as never) : Promise.resolve(null);
          if (m.thenMs === undefined) return void asked.then(() => ctx.reply({ type: 'Done', ms: now } as never));
          // an async handler: what it does after its first await is not charged
          return asked.then(() => {
            now += m.thenMs!;
            ctx.reply({ type: 'Done', ms: now } as never);
          });
        },
        Tick: (_s, m) => {
          now += m.ms;
        },
        Done: () => undefined,
      },
    });

    beforeEach(() => {
      now = 0;
      charged = new ActorSystem({ nodeId: 'n1', clock, strictSerialization: true, workClock: () => now });
    });
    afterEach(async () => {
      await charged.stop();
    });

    it("charges the asked handler, and the handlers of what it sends on this node, to the ask's account", async () => {
      const a = charged.spawn(worker, { name: 'a' });
      charged.spawn(worker, { name: 'b' });
      charged.spawn(worker, { name: 'c' });
      const account = { ms: 0 };
      // a works 5, tells b (5 more) and asks c (1 more): 11 ms, b's done by the time c answers
      await charged.ask(a, { type: 'Work', ms: 5, tellTo: '/b', askTo: '/c' }, { workAccount: account });
      await checkFor(() => account.ms === 11, 2_000, 5);
      // an ask without an account charges nothing
      await charged.ask(a, { type: 'Work', ms: 7, tellTo: '/b' });
      await checkFor(() => now === 25, 2_000, 5);
      expect(account.ms).to.equal(11);
    });

    it("charges only a handler's synchronous run; a timer it starts and a message leaving the node are not charged", async () => {
      const a = charged.spawn(worker, { name: 'a' });
      charged.spawn(worker, { name: 'c' });
      const sent = recordingEndpoint(charged, 'n2');
      const account = { ms: 0 };
      // 3 ms before the await, then the asked c's 1 ms; the 50 ms after the await are not charged
      const r = (await charged.ask(a, { type: 'Work', ms: 3, askTo: '/c', thenMs: 50, remote: 'n2', timerMs: 10 }, { workAccount: account })) as Reply;
      expect(r).to.deep.equal({ type: 'Done', ms: 54 });
      expect(account.ms).to.equal(4);
      // the message for n2 went without the account
      expect(sent).to.have.length(1);
      expect(sent[0]!.workAccount).to.equal(undefined);
      // the timer's message comes later, charged to nobody
      clock.advance(10);
      await checkFor(() => now === 154, 2_000, 5);
      expect(account.ms).to.equal(4);
    });

    it('charges a handler that crashes for the time it ran, and the next handler runs uncharged', async () => {
      type CrashMsg = { type: 'Crash'; ms: number } | { type: 'Work'; ms: number };
      const crasher = defineActor<null, CrashMsg, undefined>({
        kind: 'crasher',
        init: () => null,
        supervision: 'resume',
        handlers: {
          Crash: (_s, m) => {
            now += m.ms;
            throw new Error('deliberate');
          },
          Work: (_s, m, ctx) => {
            now += m.ms;
            ctx.send({ node: 'n1', path: '/b' }, { type: 'Work', ms: 2 } as never);
            ctx.reply({ type: 'Done', ms: now } as never);
          },
        },
      });
      const x = charged.spawn(crasher, { name: 'x' });
      charged.spawn(worker, { name: 'b' });
      const account = { ms: 0 };
      const failed = (await charged.ask(x, { type: 'Crash', ms: 6 }, { workAccount: account })) as Failure;
      expect(failed.type).to.equal('Failure');
      expect(account.ms).to.equal(6);
      // uncharged: neither it nor what it sends to b adds to the account
      await charged.ask(x, { type: 'Work', ms: 4 });
      await checkFor(() => now === 12, 2_000, 5);
      expect(account.ms).to.equal(6);
    });
  });

  describe('stopping', () => {
    it('ctx.stop() stops the actor after its current message and runs onStop', async () => {
      const stopped: number[] = [];
      const selfStopper = defineActor<{ n: number }, { type: 'Quit' }>({
        kind: 'quitter',
        init: () => ({ n: 41 }),
        supervision: 'stop',
        handlers: {
          Quit: (s, _m, ctx) => {
            ctx.stop();
            ctx.reply({ type: 'Bye' });
            return { n: s.n + 1 };
          },
        },
        onStop: (s) => {
          stopped.push(s.n);
        },
      });
      const ref = sys.spawn(selfStopper, { name: 'q' });
      expect(await sys.ask(ref, { type: 'Quit' })).to.deep.equal({ type: 'Bye' });
      await checkFor(() => stopped.length === 1);
      expect(stopped).to.deep.equal([42]);
      expect(sys.hasActor('/q')).to.equal(false);
    });

    it('stopping a parent stops its children', async () => {
      const parent = defineActor<ActorRef | null, { type: 'Spawn' }>({
        kind: 'parent',
        init: () => null,
        supervision: 'stop',
        handlers: {
          Spawn: (_s, _m, ctx) => {
            const child = ctx.spawn(counter, { name: 'kid' });
            ctx.reply({ type: 'Child', ref: child } as never);
            return child;
          },
        },
      });
      const p = sys.spawn(parent, { name: 'mum' });
      const r = await sys.ask<Reply>(p, { type: 'Spawn' });
      expect(r.ref).to.deep.equal({ node: 'n1', path: '/mum/kid' });
      expect(sys.hasActor('/mum/kid')).to.equal(true);
      await sys.stopActor(p);
      expect(sys.hasActor('/mum/kid')).to.equal(false);
      expect(sys.hasActor('/mum')).to.equal(false);
    });

    it('graceful system stop lets in-flight handlers settle and fails queued asks at once', async () => {
      const real = new ActorSystem({ nodeId: 'n2' });
      const ref = real.spawn(counter, { name: 'slow' });
      const stops: number[] = [];
      const first = real.ask(ref, { type: 'SlowAdd', n: 1, ms: 50 });
      const queued = real.ask(ref, { type: 'Get' }, { timeoutMs: 60_000 });
      await new Promise((r) => setTimeout(r, 10));
      const t0 = Date.now();
      await real.stop().then(() => stops.push(Date.now() - t0));
      const q = (await queued) as Failure;
      expect(q.type).to.equal('Failure');
      expect(['system-stopping', 'actor-stopped']).to.include(q.reason);
      const f = await first;
      expect(f.type).to.not.equal(undefined);
      expect(stops[0]).to.be.below(5_000);
      expect(real.isRunning).to.equal(false);
      const after = (await real.ask(ref, { type: 'Get' })) as Failure;
      expect(after.reason).to.equal('system-stopping');
      expect(() => real.spawn(counter)).to.throw(/cannot spawn/);
    });

    it('mailbox overflow refuses messages beyond the limit', async () => {
      const limited = { ...counter, kind: 'limited', mailboxLimit: 5 };
      const ref = sys.spawn(limited, { name: 'lim' });
      const replies = await Promise.all(Array.from({ length: 12 }, () => sys.ask(ref, { type: 'Get' })));
      const overflow = replies.filter((r) => (r as Failure).reason === 'overflow');
      expect(overflow.length).to.be.greaterThan(0);
      expect((overflow[0] as Failure).errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
      expect(replies.filter((r) => r.type === 'Total').length).to.be.at.least(5);
    });
  });

  describe('stash', () => {
    type GateMsg = { type: 'Open' } | { type: 'Get'; tag: string } | { type: 'Crash' };
    const gate = defineActor<{ open: boolean; seen: string[] }, GateMsg>({
      kind: 'gate',
      init: () => ({ open: false, seen: [] }),
      supervision: 'restart',
      handlers: {
        Open: (s, _m, ctx) => {
          s.open = true;
          ctx.unstashAll();
        },
        Get: (s, m, ctx) => {
          if (!s.open) return ctx.stash();
          s.seen.push(m.tag);
          ctx.reply({ type: 'Got', tag: m.tag, stashed: ctx.stashSize, seen: [...s.seen] } as never);
        },
        Crash: () => {
          throw new Error('deliberate');
        },
      },
    });

    it('answers stashed asks once unstashed, in arrival order and ahead of later messages', async () => {
      const ref = sys.spawn(gate, { name: 'g' });
      const a = sys.ask<Reply>(ref, { type: 'Get', tag: 'a' });
      const b = sys.ask<Reply>(ref, { type: 'Get', tag: 'b' });
      await checkFor(() => sys.cellAt('/g')?.stashSize === 2);
      sys.send(ref, { type: 'Open' });
      const c = sys.ask<Reply>(ref, { type: 'Get', tag: 'c' });
      expect((await a).seen).to.deep.equal(['a']);
      expect((await b).seen).to.deep.equal(['a', 'b']);
      expect(await c).to.deep.include({ tag: 'c', stashed: 0, seen: ['a', 'b', 'c'] });
    });

    it('fails stashed asks when the actor stops', async () => {
      const ref = sys.spawn(gate, { name: 'g' });
      const a = sys.ask<Reply>(ref, { type: 'Get', tag: 'a' }, { timeoutMs: 60_000 });
      await checkFor(() => sys.cellAt('/g')?.stashSize === 1);
      await sys.stopActor(ref);
      const r = (await a) as Failure;
      expect(r.type).to.equal('Failure');
      expect(r.reason).to.equal('actor-stopped');
    });

    it('hands the stash to a restarted incarnation', async () => {
      const ref = sys.spawn(gate, { name: 'g' });
      const a = sys.ask<Reply>(ref, { type: 'Get', tag: 'a' }, { timeoutMs: 60_000 });
      await checkFor(() => sys.cellAt('/g')?.stashSize === 1);
      sys.send(ref, { type: 'Crash' });
      sys.send(ref, { type: 'Open' });
      expect((await a).seen).to.deep.equal(['a']);
    });
  });
});

describe('runtime/actor-system: messages an actor takes only from its own node (localMessages)', () => {
  type Msg = { type: 'Tick' } | { type: 'Ask' } | { type: 'Count' };
  const ticker = defineActor<{ ticks: number }, Msg>({
    kind: 'ticker',
    init: () => ({ ticks: 0 }),
    supervision: 'resume',
    localMessages: ['Tick'],
    handlers: {
      Tick: (s, _m, ctx) => {
        ctx.reply({ type: 'Ticked' } as never);
        return { ticks: s.ticks + 1 };
      },
      Ask: (_s, _m, ctx) => ctx.reply({ type: 'Answer' } as never),
      Count: (s, _m, ctx) => ctx.reply({ type: 'Ticks', n: s.ticks } as never),
    },
  });

  it('takes them from its node, refuses them from another (unauthorized, the handler not run), and takes the rest from anywhere', async () => {
    for (const strictSerialization of [false, true]) {
      const net = new InProcNetwork({ strictSerialization });
      const home = new ActorSystem({ nodeId: 'home' });
      const away = new ActorSystem({ nodeId: 'away' });
      net.join(home);
      net.join(away);
      try {
        const ref = home.spawn(ticker, { name: 'ticker' });
        expect(await home.ask(ref, { type: 'Tick' })).to.deep.equal({ type: 'Ticked' });
        const refused = (await away.ask(ref, { type: 'Tick' })) as Failure;
        expect(refused).to.include({ type: 'Failure', reason: 'unauthorized', errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED });
        expect(refused.message).to.equal("actor kind 'ticker' takes 'Tick' only from its own node");
        expect(await away.ask(ref, { type: 'Ask' })).to.deep.equal({ type: 'Answer' });
        expect(await away.ask(ref, { type: 'Count' })).to.deep.equal({ type: 'Ticks', n: 1 });
        expect(home.stats().deadLettersByReason.unauthorized).to.equal(1);
      } finally {
        await away.stop();
        await home.stop();
      }
    }
  });
});
