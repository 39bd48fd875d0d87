/**
 * Messages of the metadata quorum: between the quorum actors of the controllers (Raft's votes
 * and appends, an observer's Observe, a resigning leader's EndEpoch), from a controller to its
 * own quorum actor (Append, DescribeQuorum, CheckVoterChange, TakeSnapshot), and the events a
 * quorum actor tells its controller (QuorumCommitted, QuorumLeader, QuorumReady, QuorumSnapshot).
 */
import type { MetadataRecord } from '../controller/metadata-state.js';
import type { MetadataImage } from '../controller/metadata-snapshot.js';
import type { RaftMsg } from './raft-core.js';

/**
 * A controller of the quorum: its id (unique among controllers), the node it runs on, and its
 * metadata dir's directory id (Kafka's ReplicaKey directory id, in Kafka's Uuid form) where
 * known: a controller learns its own at start; the topology's voters have none until one
 * joins a voter set itself.
 */
export interface QuorumVoter {
  readonly id: number;
  readonly node: string;
  readonly directoryId?: string;
}

export type QuorumPeerMsg = RaftMsg<MetadataRecord[], QuorumVoter>;

export type QuorumMsg =
  | QuorumPeerMsg
  | { type: 'ElectionTimeout' }
  | { type: 'QuorumHeartbeat' }
  /**
   * Replicates one batch; answered once it is committed (AppendResult), or with `ack: 'written'`
   * once this leader has written it to its own log (KIP-1186's AddRaftVoter that does not wait
   * for the commit); it commits, or not, as any entry does.
   */
  | { type: 'Append'; records: MetadataRecord[]; ack?: 'committed' | 'written' }
  | { type: 'DescribeQuorum' }
  /**
   * Whether voter `voterId` can be added (an observer this leader follows) or removed now, as
   * Kafka's AddVoterHandler and RemoveVoterHandler check; answered with VoterChangeCheck naming
   * the new voter set. `directoryId`, when given, must be the controller's.
   */
  | { type: 'CheckVoterChange'; change: 'add' | 'remove'; voterId: number; directoryId?: string | null }
  /** The controller's state at `index` (applied up to it): snapshot it and compact the log. */
  | { type: 'TakeSnapshot'; index: number; image: MetadataImage };

export interface CommittedEntry {
  readonly index: number;
  readonly term: number;
  readonly records: MetadataRecord[];
}

export type QuorumEvent =
  /** Entries newly committed, in order. */
  | { type: 'QuorumCommitted'; entries: CommittedEntry[] }
  /** The leader known for `term` (null: an election is on). */
  | { type: 'QuorumLeader'; term: number; leaderId: number | null; leaderNode: string | null }
  /** This controller leads `term` and every entry before the term is committed and told. */
  | { type: 'QuorumReady'; term: number }
  /** The state at `index` (from this controller's snapshot at start, or the leader's): replaces what was applied before it. */
  | { type: 'QuorumSnapshot'; index: number; term: number; image: MetadataImage };

export interface QuorumVoterStatus {
  id: number;
  node: string;
  /** Its directory id where known (Kafka's ReplicaDirectoryId). */
  directoryId: string | null;
  /** Last index known to match the leader's log (-1 where this voter does not lead). */
  logEndIndex: number;
  /** Milliseconds since the leader last heard from it (-1 where unknown). */
  lastContactMs: number;
  /**
   * Kafka's DescribeQuorum times (KIP-836), on the leader's clock: when it last took an append of
   * this leader's term (a Kafka follower's fetch) and when it last held all the leader had; the
   * leader itself: now. -1 where unknown (never yet, or the answer is not the leader's).
   */
  lastFetchTimestamp: number;
  lastCaughtUpTimestamp: number;
}

export type QuorumReply =
  | { type: 'AppendResult'; errorCode: number; errorMessage?: string; index: number; leaderId: number | null }
  /** NONE with the voter set after the change; else why not (NOT_CONTROLLER, REQUEST_TIMED_OUT, DUPLICATE_VOTER, VOTER_NOT_FOUND). */
  | { type: 'VoterChangeCheck'; errorCode: number; errorMessage?: string; voters: QuorumVoter[] }
  | {
      type: 'QuorumDescription';
      errorCode: number;
      voterId: number;
      role: string;
      term: number;
      leaderId: number | null;
      commitIndex: number;
      /**
       * Kafka's high watermark: the commit index, but -1 on a leader that has not yet committed
       * an entry of its own term. Until then it cannot know how far the quorum has committed
       * (what it heard as a follower may be behind), as Kafka's LeaderState reports none.
       */
      highWatermark: number;
      lastIndex: number;
      /** The last index the snapshot holds (0: none); the log starts after it. */
      snapshotIndex: number;
      /** The voter set in force (committed or not). */
      voters: QuorumVoterStatus[];
      /** The controllers outside the set the leader replicates to (on the leader only; else empty). */
      observers: QuorumVoterStatus[];
    };
