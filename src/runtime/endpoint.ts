/**
 * What a transport gives the actor system for each peer node: a way to send envelopes there.
 * The system keeps one endpoint per peer node id and routes every non-local envelope through it.
 */
import type { Envelope, FailureReason } from './types.js';

export interface Endpoint {
  /** The node id of the peer this endpoint reaches. */
  readonly peer: string;
  /** The transport kind, for logs and stats. */
  readonly kind: 'inproc' | 'worker' | 'tcp';
  /** Queues the envelope for the peer. Returns null when accepted, or why it was refused. */
  send(env: Envelope): FailureReason | null;
  /** Bytes accepted but not yet handed to the OS or the peer (0 for in-process). */
  bufferedBytes(): number;
  close(reason: string): void | Promise<void>;
}

/** A transport owned by a system: closed when the system stops. */
export interface Transport {
  close(): Promise<void>;
}
