/**
 * The transport conformance suite: the same behaviour over in-process, worker_threads and TCP.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { defineActor } from '../../src/runtime/actor-definition.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorRef, Failure, Message } from '../../src/runtime/types.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { inprocHarness, tcpHarness, tcpTlsHarness, workerHarness, type Harness, type HarnessFactory } from './harnesses.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Reply = any;
type AnyMsg = Message & Record<string, unknown>;

const transports: [string, HarnessFactory][] = [
  ['in-process', inprocHarness],
  ['worker_threads', workerHarness],
  ['TCP', tcpHarness],
  ['TCP with mutual TLS', tcpTlsHarness],
];

/** A local actor that asks a remote one and keeps what came back, to test reply routing. */
type ProbeMsg = { type: 'Probe'; target: ActorRef; payload: unknown } | { type: 'Result' } | { type: 'Echo'; payload: unknown };
const probe = defineActor<{ replies: unknown[]; told: unknown[] }, ProbeMsg>({
  kind: 'probe',
  init: () => ({ replies: [], told: [] }),
  supervision: 'resume',
  schema: { Probe: { target: 'ref' } },
  handlers: {
    Probe: async (s, m, ctx) => {
      const r = await ctx.ask<Reply>(m.target, { type: 'Echo', payload: m.payload } as never, { timeoutMs: 5_000 });
      s.replies.push(r);
    },
    Echo: (s, m) => {
      s.told.push(m.payload);
    },
    Result: (s, _m, ctx) => ctx.reply({ type: 'Result', replies: s.replies, told: s.told } as never),
  },
});

for (const [name, factory] of transports) {
  describe(`transport conformance: ${name}`, function () {
    this.timeout(30_000);
    let h: Harness;
    const at = (path: string): ActorRef<AnyMsg> => ({ node: h.remote, path });

    before(async () => {
      h = await factory();
    });
    after(async () => {
      await h?.dispose();
    });

    it('delivers tells and answers asks', async () => {
      for (let i = 0; i < 3; i++) h.local.send(at('/resumer'), { type: 'Inc' });
      const r = await h.local.ask<Reply, AnyMsg>(at('/resumer'), { type: 'Count' });
      expect(r).to.deep.equal({ type: 'Count', n: 3 });
    });

    it('counts the sends and receives that cross to the peer (nothing to count in-process)', async () => {
      const ep = h.local.endpointTo(h.remote)!;
      if (name === 'in-process') {
        expect(ep.traffic).to.equal(undefined);
        return;
      }
      const before = ep.traffic!();
      const payload = 'y'.repeat(10_000);
      // ten tells in one synchronous run and an ask: at least one send, at most eleven
      for (let i = 0; i < 10; i++) h.local.send(at('/silent'), { type: 'Ignore', payload });
      await h.local.ask<Reply, AnyMsg>(at('/echo'), { type: 'Echo', payload: 'x' });
      const after = ep.traffic!();
      expect(after.sends - before.sends).to.be.within(1, 11);
      expect(after.sentBytes - before.sentBytes).to.be.greaterThan(100_000);
      expect(after.receives - before.receives).to.be.at.least(1);
      expect(after.receivedBytes - before.receivedBytes).to.be.greaterThan(0);
    });

    it('routes each reply to its own asker', async () => {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) => h.local.ask<Reply, AnyMsg>(at('/echo'), { type: 'Echo', payload: { i } })),
      );
      replies.forEach((r, i) => expect(r).to.deep.include({ type: 'Echoed', payload: { i } }));

      const p = h.local.spawn(probe, { name: `probe-${Date.now()}` });
      h.local.send(p, { type: 'Probe', target: at('/echo'), payload: 'hello' });
      h.local.send(at('/echo'), { type: 'Forward', to: p, payload: 'forwarded' } as never);
      const res = await checkFor(async () => {
        const r = await h.local.ask<Reply>(p, { type: 'Result' });
        const rr = r as unknown as { replies: Reply[]; told: unknown[] };
        return rr.replies.length === 1 && rr.told.length === 1 ? rr : null;
      });
      expect(res.replies[0]).to.deep.include({ type: 'Echoed', payload: 'hello', by: at('/echo') });
      expect(res.told).to.deep.equal(['forwarded']);
    });

    it('settles an unanswered ask with REQUEST_TIMED_OUT', async () => {
      const t0 = Date.now();
      const r = (await h.local.ask(at('/silent'), { type: 'Ignore' }, { timeoutMs: 150 })) as Failure;
      expect(isFailure(r)).to.equal(true);
      expect(r.reason).to.equal('timeout');
      expect(r.errorCode).to.equal(ErrorCode.REQUEST_TIMED_OUT);
      expect(Date.now() - t0).to.be.at.least(140);
    });

    it('fails an ask to an unknown actor at once, as a dead letter', async () => {
      const t0 = Date.now();
      const r = (await h.local.ask(at('/no-such-actor'), { type: 'Echo' }, { timeoutMs: 10_000 })) as Failure;
      expect(r.type).to.equal('Failure');
      expect(r.reason).to.equal('unknown-actor');
      expect(Date.now() - t0).to.be.below(2_000);
    });

    it('fails an ask to an unknown node at once, as a dead letter', async () => {
      const before = h.local.stats().deadLettersByReason['unknown-node'] ?? 0;
      const r = (await h.local.ask({ node: 'nowhere', path: '/echo' } as ActorRef<AnyMsg>, { type: 'Echo' }, { timeoutMs: 10_000 })) as Failure;
      expect(r.reason).to.equal('unknown-node');
      expect(r.errorCode).to.equal(ErrorCode.NETWORK_EXCEPTION);
      h.local.send({ node: 'nowhere', path: '/echo' } as ActorRef<AnyMsg>, { type: 'Echo' });
      expect(h.local.stats().deadLettersByReason['unknown-node']).to.equal(before + 2);
    });

    it('rejects a message type the actor does not handle, with INVALID_REQUEST', async () => {
      const r = (await h.local.ask(at('/echo'), { type: 'Nonsense' })) as Failure;
      expect(r.reason).to.equal('invalid-message');
      expect(r.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
      const r2 = (await h.local.ask(at('/blob'), { type: 'Blob', data: 'not bytes' } as never)) as Failure;
      expect(r2.reason).to.equal('invalid-message');
      expect(r2.message).to.match(/Blob\.data must be bytes/);
    });

    it('keeps per-sender order and loses or duplicates none of 100,000 messages', async () => {
      const N = 100_000;
      for (let i = 0; i < N; i++) h.local.send(at('/seq'), { type: 'Seq', sender: 'main', seq: i } as never);
      const stats = await checkFor(async () => {
        const r = await h.local.ask<Reply, AnyMsg>(at('/seq'), { type: 'SeqStats' }, { timeoutMs: 20_000 });
        return (r.count as number) >= N ? r : null;
      }, 20_000, 20);
      expect(stats).to.deep.equal({ type: 'SeqStats', count: N, outOfOrder: 0, duplicates: 0, distinct: N });
    });

    it('carries an 8 MiB binary payload intact', async () => {
      const data = new Uint8Array(8 * 1024 * 1024);
      for (let i = 0; i < data.length; i++) data[i] = (i * 31 + (i >>> 11)) & 0xff;
      const sha = createHash('sha256').update(data).digest('hex');
      const r = await h.local.ask<Reply, AnyMsg>(at('/blob'), { type: 'Blob', data } as never, { timeoutMs: 20_000 });
      expect(r.length).to.equal(data.length);
      expect(r.sha256).to.equal(sha);
      const back = r.data as Uint8Array;
      expect(createHash('sha256').update(back).digest('hex')).to.equal(sha);
    });

    it('carries a list of batch buffers in order; joined, they are the bytes sent', async () => {
      // batches above the worker ports' attachment threshold (512 B), as a producer's are; over
      // TCP the ones of 4 KiB or more go attached and the others inline, in between
      const parts = [3000, 700, 16_384, 513, 4096, 9000].map((n, k) => {
        const b = new Uint8Array(n);
        for (let i = 0; i < n; i++) b[i] = (i * 7 + k * 13) & 0xff;
        return b;
      });
      const all = Buffer.concat(parts);
      const r = await h.local.ask<Reply, AnyMsg>(at('/blob'), { type: 'Parts', parts } as never, { timeoutMs: 10_000 });
      // (whether the join is a view of the frame is the port endpoint's test: these harnesses
      // serialize strictly, so the handler sees a copy)
      expect(r).to.include({ type: 'PartsInfo', count: 6, length: all.length, sha256: createHash('sha256').update(all).digest('hex') });
    });

    it('applies each actor\'s crash policy: restart, resume, stop', async () => {
      h.local.send(at('/restarter'), { type: 'Inc' });
      h.local.send(at('/restarter'), { type: 'Inc' });
      const crash = (await h.local.ask(at('/restarter'), { type: 'Boom' })) as Failure;
      expect(crash.reason).to.equal('actor-crashed');
      expect(await h.local.ask(at('/restarter'), { type: 'Count' })).to.deep.equal({ type: 'Count', n: 0 });

      const before = ((await h.local.ask<Reply, AnyMsg>(at('/resumer'), { type: 'Count' })).n as number) ?? 0;
      h.local.send(at('/resumer'), { type: 'Inc' });
      expect(((await h.local.ask(at('/resumer'), { type: 'Boom' })) as Failure).reason).to.equal('actor-crashed');
      expect(await h.local.ask(at('/resumer'), { type: 'Count' })).to.deep.equal({ type: 'Count', n: before + 1 });

      expect(((await h.local.ask(at('/stopper'), { type: 'Boom' })) as Failure).reason).to.equal('actor-crashed');
      const gone = await checkFor(async () => {
        const r = await h.local.ask(at('/stopper'), { type: 'Count' });
        return isFailure(r) ? r : null;
      });
      expect(['unknown-actor', 'actor-stopped']).to.include(gone.reason);
    });

    it('fails asks fast while the peer is away and works again when it comes back', async () => {
      await h.takeRemoteDown();
      const r = await checkFor(async () => {
        const x = await h.local.ask(at('/echo'), { type: 'Echo', payload: 1 }, { timeoutMs: 10_000 });
        return isFailure(x) ? x : null;
      });
      expect(['unknown-node', 'endpoint-closed']).to.include(r.reason);
      await h.bringRemoteBack();
      const ok = await h.local.ask<Reply, AnyMsg>(at('/echo'), { type: 'Echo', payload: 'again' }, { timeoutMs: 5_000 });
      expect(ok).to.deep.include({ type: 'Echoed', payload: 'again' });
    });
  });
}
