/**
 * A worker-thread program for raw baselines (lib/raw.ts), started with `RpcWorker.start`.
 * Commands: `portSink {port}` serves a counting sink on a MessagePort; `portSender {name, port}`
 * keeps a port to send on; `runPort {name, mode, spec}` runs a load over it and returns the
 * RunResult measured in this thread; `tcpListen` starts a raw TCP sink and returns its port;
 * `fileSink {port, file}` fs.writeSync's every buffer posted on the port to `file` (appending,
 * positional) and answers each with its length; `echo {port}` posts every message back as it
 * came (round-trip latency); `tcpEcho` listens on loopback and writes every byte a connection
 * sends back to it (round-trip latency over TCP), returning its port;
 * `close` releases everything so the thread can be terminated cleanly.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import { writeFully } from '../../src/storage/segment-scanner.js';
import { runLoad, type LoadSpec } from './load.js';
import { RawPortTarget, listenRawTcpSink, servePortSink, type PortMode } from './raw.js';
import { serveRpc } from './threads.js';

const ports: MessagePort[] = [];
const senders = new Map<string, RawPortTarget>();
const closers: (() => Promise<void>)[] = [];

serveRpc({
  portSink: (args: { port: MessagePort }) => {
    ports.push(args.port);
    servePortSink(args.port);
  },
  portSender: (args: { name: string; port: MessagePort }) => {
    ports.push(args.port);
    senders.set(args.name, new RawPortTarget(args.port));
  },
  runPort: (args: { name: string; mode: PortMode; spec: LoadSpec }) => {
    const t = senders.get(args.name);
    if (!t) throw new Error(`no sender port named ${args.name}`);
    t.mode = args.mode;
    return runLoad(t, args.spec);
  },
  fileSink: (args: { port: MessagePort; file: string }) => {
    ports.push(args.port);
    const fd = fs.openSync(args.file, 'w');
    let pos = 0;
    closers.push(async () => fs.closeSync(fd));
    args.port.on('message', (b: Uint8Array) => {
      writeFully(fd, b, 0, b.length, pos);
      pos += b.length;
      args.port.postMessage(b.length);
    });
  },
  echo: (args: { port: MessagePort }) => {
    ports.push(args.port);
    args.port.on('message', (m: unknown) => args.port.postMessage(m));
  },
  tcpEcho: async () => {
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      socket.on('data', (b) => socket.write(b));
      socket.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { port: (server.address() as net.AddressInfo).port };
  },
  tcpListen: async () => {
    const s = await listenRawTcpSink();
    closers.push(s.close);
    return { port: s.port };
  },
  close: async () => {
    for (const p of ports) p.close();
    await Promise.all(closers.map((c) => c()));
  },
});
