/**
 * One harness per transport for the conformance suite: a local node the test drives and a
 * remote node running the conformance actors, plus a way to take the remote away and back.
 */
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { InProcNetwork } from '../../src/transport/inproc.js';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TcpTransport, type TcpTls } from '../../src/transport/tcp.js';
import { WorkerHub, type WorkerNode } from '../../src/transport/worker.js';
import setupConformance from '../fixtures/conformance-actors.js';

export interface Harness {
  readonly local: ActorSystem;
  readonly remote: string;
  /** Takes the remote node down; asks to it must fail fast until it is back. */
  takeRemoteDown(): Promise<void>;
  /** Brings a fresh remote node up under the same id and waits until the local node reaches it. */
  bringRemoteBack(): Promise<void>;
  dispose(): Promise<void>;
}

export type HarnessFactory = () => Promise<Harness>;

const FIXTURE = new URL('../fixtures/conformance-actors.ts', import.meta.url);

export const inprocHarness: HarnessFactory = async () => {
  const net = new InProcNetwork({ strictSerialization: true });
  const local = new ActorSystem({ nodeId: 'local', strictSerialization: true });
  net.join(local);
  let remote = new ActorSystem({ nodeId: 'remote', strictSerialization: true });
  net.join(remote);
  setupConformance(remote);
  return {
    local,
    remote: 'remote',
    async takeRemoteDown() {
      await remote.stop();
    },
    async bringRemoteBack() {
      remote = new ActorSystem({ nodeId: 'remote', strictSerialization: true });
      net.join(remote);
      setupConformance(remote);
    },
    async dispose() {
      await local.stop();
      await remote.stop();
    },
  };
};

export const workerHarness: HarnessFactory = async () => {
  const local = new ActorSystem({ nodeId: 'local', strictSerialization: true });
  const hub = new WorkerHub(local);
  let node: WorkerNode = await hub.spawn({ nodeId: 'remote', setup: FIXTURE });
  return {
    local,
    remote: 'remote',
    async takeRemoteDown() {
      await node.kill();
    },
    async bringRemoteBack() {
      node = await hub.spawn({ nodeId: 'remote', setup: FIXTURE });
    },
    async dispose() {
      await local.stop();
    },
  };
};

/** Node certificates from one CA (test/fixtures/tls): mutual TLS between the two nodes. */
export function nodeTls(): TcpTls {
  const read = (f: string) => fs.readFileSync(fileURLToPath(new URL(`../fixtures/tls/${f}`, import.meta.url)));
  return { key: read('node.key'), cert: read('node.pem'), ca: read('ca.pem') };
}

export const tcpHarness: HarnessFactory = () => tcpHarnessWith(null);
export const tcpTlsHarness: HarnessFactory = () => tcpHarnessWith(nodeTls());

async function tcpHarnessWith(tls: TcpTls | null): Promise<Harness> {
  const tcpOpts = { clusterId: 'conformance', reconnectInitialMs: 20, reconnectMaxMs: 200, heartbeatIntervalMs: 200, idleTimeoutMs: 2_000, tls };
  const local = new ActorSystem({ nodeId: 'local', strictSerialization: true });
  const localTcp = new TcpTransport(local, tcpOpts);
  const startRemote = async (port: number) => {
    const sys = new ActorSystem({ nodeId: 'remote', strictSerialization: true });
    const tcp = new TcpTransport(sys, tcpOpts);
    const addr = await tcp.listen(port);
    setupConformance(sys);
    return { sys, port: addr.port };
  };
  let remote = await startRemote(0);
  const port = remote.port;
  await localTcp.connect(port);
  return {
    local,
    remote: 'remote',
    async takeRemoteDown() {
      await remote.sys.stop();
    },
    async bringRemoteBack() {
      remote = await startRemote(port);
      const deadline = Date.now() + 5_000;
      while (!local.peers().includes('remote')) {
        if (Date.now() > deadline) throw new Error('local node did not reconnect to the restarted remote');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async dispose() {
      await local.stop();
      await remote.sys.stop();
    },
  };
}
