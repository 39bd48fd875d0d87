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
  /**
   * What went across so far, counted from the endpoint's start: absent in-process, where an
   * envelope is handed over by reference and nothing is posted or written.
   */
  traffic?(): EndpointTraffic;
  close(reason: string): void | Promise<void>;
}

/**
 * An endpoint's traffic. A send is one post to a worker thread (which wakes the peer's thread
 * when it sleeps: on a virtual machine the costliest part of a message, ~20 us of the sender's
 * time) or one write to a socket; everything queued in a turn of the event loop, or a
 * synchronous run for TCP, goes in one. A receive is one post from the peer, or one chunk read
 * from the socket.
 */
export interface EndpointTraffic {
  sends: number;
  sentBytes: number;
  receives: number;
  receivedBytes: number;
}

/** A transport owned by a system: closed when the system stops. */
export interface Transport {
  close(): Promise<void>;
}
