/**
 * In-process transport: several nodes (actor systems) in one thread, connected directly.
 * Envelopes are handed over by reference, or encoded and decoded on the way when the
 * network is strict (tests turn that on so nothing that cannot cross a wire slips through).
 */
import { assertPlainData, decodeEnvelope, encodeEnvelope } from '../protocol/codec.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import type { Endpoint, Transport } from '../runtime/endpoint.js';
import type { Envelope, FailureReason } from '../runtime/types.js';

class InProcEndpoint implements Endpoint {
  readonly kind = 'inproc' as const;
  private closed = false;

  constructor(
    private readonly network: InProcNetwork,
    private readonly owner: ActorSystem,
    private readonly target: ActorSystem,
  ) {}

  get peer(): string {
    return this.target.nodeId;
  }

  send(env: Envelope): FailureReason | null {
    if (this.closed) return 'endpoint-closed';
    if (!this.network.strictSerialization) {
      this.target.receive(env, this.owner.nodeId);
      return null;
    }
    assertPlainData(env.msg);
    const res = decodeEnvelope(encodeEnvelope(env));
    if (!res.ok) throw new Error(`strictSerialization: envelope to ${this.peer} does not survive msgpack: ${res.reason}`);
    this.target.receive(res.envelope, this.owner.nodeId);
    return null;
  }

  bufferedBytes(): number {
    return 0;
  }

  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.owner.detachEndpoint(this, reason);
    this.network.leave(this.owner);
  }
}

export interface InProcNetworkOptions {
  /** Encode and decode every envelope crossing between nodes. */
  strictSerialization?: boolean;
}

/** A set of in-process nodes, each able to reach every other. */
export class InProcNetwork {
  readonly strictSerialization: boolean;
  private readonly members = new Map<string, { system: ActorSystem; endpoints: Map<string, InProcEndpoint> }>();

  constructor(opts: InProcNetworkOptions = {}) {
    this.strictSerialization = opts.strictSerialization ?? false;
  }

  /** Connects `system` with every node already in the network. */
  join(system: ActorSystem): void {
    if (this.members.has(system.nodeId)) throw new Error(`node ${system.nodeId} already joined this in-process network`);
    const mine = new Map<string, InProcEndpoint>();
    for (const [peerId, peer] of this.members) {
      const out = new InProcEndpoint(this, system, peer.system);
      const back = new InProcEndpoint(this, peer.system, system);
      mine.set(peerId, out);
      peer.endpoints.set(system.nodeId, back);
      system.attachEndpoint(out);
      peer.system.attachEndpoint(back);
    }
    this.members.set(system.nodeId, { system, endpoints: mine });
    const transport: Transport = { close: async () => this.leave(system) };
    system.addTransport(transport);
  }

  /** Disconnects `system`; its peers fail their asks to it at once. */
  leave(system: ActorSystem): void {
    const me = this.members.get(system.nodeId);
    if (!me || me.system !== system) return;
    this.members.delete(system.nodeId);
    for (const ep of me.endpoints.values()) system.detachEndpoint(ep, 'left the network');
    for (const peer of this.members.values()) {
      const back = peer.endpoints.get(system.nodeId);
      if (back) {
        peer.endpoints.delete(system.nodeId);
        peer.system.detachEndpoint(back, `node ${system.nodeId} left`);
      }
    }
  }

  nodes(): string[] {
    return [...this.members.keys()];
  }
}
