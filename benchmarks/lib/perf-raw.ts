/**
 * The machine's own limits for the perf tools, measured in the same run as the figure they are
 * compared with:
 *  - storage: fs.writeSync of `chunkBytes` chunks (the producer's batch size) to a file under
 *    os.tmpdir(), positional, no fsync (samsa does not fsync per write either);
 *  - MessagePort: Blobs of `chunkBytes` main thread -> worker thread, copied and transferred
 *    (lib/raw.ts RawPortTarget, 'object' mode);
 *  - TCP: the same Blobs over a bare loopback socket to a worker thread (lib/raw.ts RawTcpTarget);
 *  - pipeline: a produce with nothing of samsa in it: `chunkBytes` buffers freshly allocated
 *    and filled on the main thread, transferred to a worker thread that fs.writeSync's each
 *    to a file (8 in flight); the page-cache copy runs on a thread whose source memory another
 *    core wrote, as a broker's does. A fresh buffer per post is what samsa's worker ports did
 *    before they reused the buffers their peer gives back, so samsa can now pass this figure.
 * Each is the best of `rounds` runs (a limit is what the platform can do, not its median).
 * For latency, `measurePortRoundTrip`: messages main thread -> worker thread -> back over a bare
 * MessagePort at a given rate, the floor under an end-to-end figure whose records cross two
 * ports (producer -> broker, broker -> consumer).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { MessageChannel, Worker } from 'node:worker_threads';
import { blobPayload, runLoad } from './load.js';
import { RawPortTarget, RawTcpTarget } from './raw.js';
import { LatencyRecorder, type LatencySummary } from './latency.js';
import { RpcWorker } from './threads.js';
import { threadSystemMs } from './thread-cpu.js';
import { nowMs, sleep } from './timing.js';

const MiB = 1024 * 1024;
const RAW_PEER = new URL('./raw-peer.ts', import.meta.url);

export interface RawLimits {
  chunkBytes: number;
  fsWriteMiBs: number;
  portMiBs: number;
  tcpMiBs: number;
  pipelineMiBs: number;
}

/** fs.writeSync bandwidth in MiB/s for `totalBytes` written in `chunkBytes` chunks. */
export function measureFsWrite(chunkBytes: number, totalBytes = 256 * MiB, rounds = 3): number {
  let best = 0;
  for (let r = 0; r < rounds; r++) best = Math.max(best, measureFsWriteOnce(chunkBytes, totalBytes).mibPerSec);
  return best;
}

/**
 * One fs.writeSync run of `totalBytes` to a fresh file (removed after): MiB/s, and the kernel
 * time it took per GiB written (this thread's system time, 10 ms steps; null off Linux). The
 * kernel time is what the page cache cost: on this VM it swings about fivefold with the memory
 * the kernel hands out (benchmarks/FINDINGS.md, findings), and a broker's writes pay the same.
 */
export function measureFsWriteOnce(chunkBytes: number, totalBytes: number): { mibPerSec: number; kernelMsPerGiB: number | null } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-rawfs-'));
  const chunk = Buffer.from(blobPayload(chunkBytes));
  try {
    const file = path.join(dir, 'raw.bin');
    const fd = fs.openSync(file, 'w');
    const sys0 = threadSystemMs();
    const t0 = nowMs();
    let pos = 0;
    while (pos < totalBytes) {
      let done = 0;
      while (done < chunk.length) done += fs.writeSync(fd, chunk, done, chunk.length - done, pos + done);
      pos += chunk.length;
    }
    const ms = nowMs() - t0;
    const sys1 = threadSystemMs();
    fs.closeSync(fd);
    const gib = pos / (1024 * MiB);
    return { mibPerSec: pos / MiB / (ms / 1000), kernelMsPerGiB: sys0 === null || sys1 === null ? null : (sys1 - sys0) / gib };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What two threads spinning on the clock lost to the machine: the cores taken away from them. */
export interface CoreStalls {
  /** Share of the run's time the threads were not running, on average. */
  lostShare: number;
  /** Gaps of 0.5 ms or more per second, per thread. */
  stallsPerSec: number;
  /** The longest gap, ms. */
  longestMs: number;
}

/**
 * `threads` worker threads read the clock in a loop for `ms` each and count the gaps of 0.5 ms
 * or more: time the machine gave their core to something else. With as many threads as cores
 * it shows what a busy moment of a run meets (on this VM: gaps of ~6 ms, tens a second, when
 * both cores are wanted), the floor under a latency percentile that no code of ours can lower.
 */
export async function measureCoreStalls(threads = os.availableParallelism(), ms = 1000): Promise<CoreStalls> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const t0 = performance.now();
    let last = t0, lost = 0, count = 0, longest = 0;
    for (;;) {
      const t = performance.now();
      const gap = t - last;
      if (gap >= 0.5) { lost += gap; count++; if (gap > longest) longest = gap; }
      last = t;
      if (t - t0 >= workerData) break;
    }
    parentPort.postMessage({ lost, count, longest, wall: last - t0 });
  `;
  const results = await Promise.all(
    Array.from({ length: threads }, () => {
      const w = new Worker(code, { eval: true, workerData: ms });
      return new Promise<{ lost: number; count: number; longest: number; wall: number }>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
      }).finally(() => void w.terminate());
    }),
  );
  const wall = results.reduce((a, r) => a + r.wall, 0);
  return {
    lostShare: results.reduce((a, r) => a + r.lost, 0) / wall,
    stallsPerSec: results.reduce((a, r) => a + r.count, 0) / (wall / 1000),
    longestMs: Math.max(...results.map((r) => r.longest)),
  };
}

/** "lost 6.2% of the time in 24 stalls/s (longest 13.2 ms)". */
export function formatCoreStalls(c: CoreStalls): string {
  return `lost ${(c.lostShare * 100).toFixed(1)}% of the time in ${c.stallsPerSec.toFixed(0)} stalls/s (longest ${c.longestMs.toFixed(1)} ms)`;
}

async function bestBlobRun(run: (n: number) => Promise<{ elapsedMs: number; bytes?: number }>, n: number, rounds: number): Promise<number> {
  await run(Math.max(16, n >> 3)); // warm-up
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    const res = await run(n);
    best = Math.max(best, (res.bytes ?? 0) / MiB / (res.elapsedMs / 1000));
  }
  return best;
}

/** MessagePort and TCP loopback bandwidth in MiB/s for `chunkBytes` blobs, main thread -> worker thread. */
export async function measureTransportLimits(chunkBytes: number, totalBytes = 128 * MiB, rounds = 3): Promise<{ portMiBs: number; tcpMiBs: number; pipelineMiBs: number }> {
  const peer = await RpcWorker.start(RAW_PEER);
  const n = Math.max(64, Math.round(totalBytes / chunkBytes));
  const window = Math.max(1, Math.min(256, Math.round((1 * MiB) / chunkBytes)));
  try {
    const ch = new MessageChannel();
    await peer.call('portSink', { port: ch.port2 }, [ch.port2]);
    const port = new RawPortTarget(ch.port1);
    port.mode = 'object';
    const portMiBs = await bestBlobRun((k) => runLoad(port, { op: 'blob', n: k, window, depth: 4, blobBytes: chunkBytes }), n, rounds);
    ch.port1.close();
    const { port: tcpPort } = await peer.call<{ port: number }>('tcpListen');
    const tcp = await RawTcpTarget.connect(tcpPort, { tick: 16, ping: 16 });
    const tcpMiBs = await bestBlobRun((k) => runLoad(tcp, { op: 'blob', n: k, window, depth: 4, blobBytes: chunkBytes }), n, rounds);
    tcp.close();
    const pipelineMiBs = await measurePipeline(peer, chunkBytes, Math.min(totalBytes, 128 * MiB), rounds);
    await peer.call('close');
    return { portMiBs, tcpMiBs, pipelineMiBs };
  } finally {
    await peer.terminate();
  }
}

/** The pipeline limit: fresh filled buffers transferred to `peer`, which fs.writeSync's them. */
async function measurePipeline(peer: RpcWorker, chunkBytes: number, totalBytes: number, rounds: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-rawpipe-'));
  const ch = new MessageChannel();
  try {
    await peer.call('fileSink', { port: ch.port2, file: path.join(dir, 'pipeline.bin') }, [ch.port2]);
    const inFlight = 8;
    const run = (bytes: number): Promise<{ elapsedMs: number; bytes: number }> =>
      new Promise((resolve) => {
        const n = Math.max(1, Math.round(bytes / chunkBytes));
        let sent = 0;
        let acked = 0;
        const t0 = nowMs();
        const pump = (): void => {
          while (sent < n && sent - acked < inFlight) {
            const b = Buffer.allocUnsafeSlow(chunkBytes);
            for (let i = 0; i < b.length; i += 64) b[i] = i & 0xff; // touched, as a producer's batch is
            ch.port1.postMessage(b, [b.buffer as ArrayBuffer]);
            sent++;
          }
        };
        const onAck = (): void => {
          if (++acked === n) {
            ch.port1.off('message', onAck);
            resolve({ elapsedMs: nowMs() - t0, bytes: n * chunkBytes });
          } else pump();
        };
        ch.port1.on('message', onAck);
        pump();
      });
    return await bestBlobRun(run, totalBytes, rounds);
  } finally {
    ch.port1.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Paces round trips: `perSec` messages a second of `bytes` bytes (a send time in the first 8)
 * for `ms` after `warmupMs` left out, like the perf tools' throttle (a sleep of 1 ms, then every
 * message due by then); `echoed` is called by the caller's receive path with each send time.
 * The callers check the rate before they start a peer.
 */
async function paceRoundTrips(perSec: number, bytes: number, ms: number, warmupMs: number, send: (payload: Uint8Array) => void, subscribe: (echoed: (sentAt: number) => void) => void): Promise<LatencySummary> {
  // every measured round trip, sized up front: grown while measuring, it would stall the thread it times
  const lat = new LatencyRecorder(Math.ceil((perSec * ms) / 1000) + 1);
  const t0 = nowMs();
  let outstanding = 0;
  subscribe((sentAt) => {
    outstanding--;
    if (sentAt >= t0 + warmupMs) lat.record(nowMs() - sentAt);
  });
  let sent = 0;
  const payload = new Uint8Array(Math.max(8, bytes));
  const view = new DataView(payload.buffer);
  const end = t0 + warmupMs + ms;
  for (;;) {
    // a thread held up past the end still sends what fell due before it: the run's count does
    // not depend on where the machine stalled it
    const now = Math.min(nowMs(), end);
    const due = Math.floor(((now - t0) * perSec) / 1000);
    for (; sent < due; sent++) {
      view.setFloat64(0, nowMs(), true);
      send(payload);
      outstanding++;
    }
    if (now >= end) break;
    await sleep(1);
  }
  const deadline = nowMs() + 5_000;
  while (outstanding > 0 && nowMs() < deadline) await sleep(5);
  return lat.summary();
}

/**
 * Round-trip latency over a bare MessagePort: main thread -> a worker that posts each message
 * back -> main thread, paced as paceRoundTrips says.
 */
export async function measurePortRoundTrip(perSec: number, bytes = 1024, ms = 2_000, warmupMs = 500): Promise<LatencySummary> {
  if (!(perSec > 0)) throw new RangeError(`a round-trip rate must be positive, got ${perSec}`);
  const peer = await RpcWorker.start(RAW_PEER);
  const ch = new MessageChannel();
  try {
    await peer.call('echo', { port: ch.port2 }, [ch.port2]);
    return await paceRoundTrips(
      perSec,
      bytes,
      ms,
      warmupMs,
      (payload) => ch.port1.postMessage(payload),
      (echoed) => ch.port1.on('message', (m: Uint8Array) => echoed(new DataView(m.buffer, m.byteOffset, 8).getFloat64(0, true))),
    );
  } finally {
    ch.port1.close();
    await peer.call('close').catch(() => undefined);
    await peer.terminate();
  }
}

/**
 * Round-trip latency over a bare TCP socket on loopback (Nagle off): main thread -> a worker
 * that writes every byte back -> main thread, paced as paceRoundTrips says. The limit of a
 * client that reaches its cluster over TCP.
 */
export async function measureTcpRoundTrip(perSec: number, bytes = 1024, ms = 2_000, warmupMs = 500): Promise<LatencySummary> {
  if (!(perSec > 0)) throw new RangeError(`a round-trip rate must be positive, got ${perSec}`);
  const size = Math.max(8, bytes);
  const peer = await RpcWorker.start(RAW_PEER);
  let socket: net.Socket | null = null;
  try {
    const { port } = (await peer.call('tcpEcho')) as { port: number };
    const s = (socket = await new Promise<net.Socket>((resolve, reject) => {
      const c = net.connect(port, '127.0.0.1', () => resolve(c));
      c.once('error', reject);
    }));
    s.setNoDelay(true);
    return await paceRoundTrips(
      perSec,
      size,
      ms,
      warmupMs,
      (payload) => void s.write(Buffer.from(payload)),
      (echoed) => {
        // the stream comes back in arbitrary pieces: whole messages of `size` bytes are cut from it
        let pending: Buffer = Buffer.alloc(0);
        s.on('data', (chunk: Buffer) => {
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          let at = 0;
          for (; at + size <= pending.length; at += size) echoed(pending.readDoubleLE(at));
          pending = pending.subarray(at);
        });
      },
    );
  } finally {
    socket?.destroy();
    await peer.call('close').catch(() => undefined);
    await peer.terminate();
  }
}

export async function measureRawLimits(chunkBytes: number, opts: { fsBytes?: number; transportBytes?: number } = {}): Promise<RawLimits> {
  const fsWriteMiBs = measureFsWrite(chunkBytes, opts.fsBytes);
  const { portMiBs, tcpMiBs, pipelineMiBs } = await measureTransportLimits(chunkBytes, opts.transportBytes);
  return { chunkBytes, fsWriteMiBs, portMiBs, tcpMiBs, pipelineMiBs };
}
