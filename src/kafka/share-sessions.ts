/**
 * Share sessions (KIP-932), a broker's cache of them as Kafka 4.2's ShareSessionCache keeps it.
 * A share consumer's session is keyed by its group and member id: ShareFetch with epoch 0 opens
 * one (taking the place of one the member had, whose records stay acquired until their locks
 * end, as Kafka's), each later ShareFetch or ShareAcknowledge carries the session's next epoch,
 * and epoch -1 closes it. The session holds the partitions the member fetches: a ShareFetch's
 * topics are added, its forgotten topics leave, and an incremental ShareFetch fetches them all.
 *
 * The cache holds at most `maxEntries` sessions (Kafka's group.share.max.share.sessions); when it
 * is full a new session is refused (SHARE_SESSION_LIMIT_REACHED), as Kafka 4.2, which evicts none.
 * A session ends when its member closes it (epoch -1), or when the connection that opened it
 * closes (Kafka's ConnectionDisconnectListener); either way `onGone` is told the member's group
 * and id, for its acquired records to go back to the group. The clock is injected.
 */

/** Kafka's ShareRequestMetadata epochs: 0 opens a session, -1 closes it. */
export const SHARE_INITIAL_EPOCH = 0;
export const SHARE_FINAL_EPOCH = -1;

/** The epoch after `epoch` (wrapping past the largest int32 to 1), as Kafka's ShareRequestMetadata.nextEpoch. */
export function nextShareEpoch(epoch: number): number {
  if (epoch < 0) return SHARE_FINAL_EPOCH;
  return epoch === 2147483647 ? 1 : epoch + 1;
}

/** A partition of a session, named by topic id (Kafka's form) and partition. */
export interface SessionPartition {
  topicId: string;
  partition: number;
}

export interface ShareSession {
  readonly groupId: string;
  readonly memberId: string;
  /** The connection that opened it (its closing ends the session). */
  readonly connectionId: string;
  readonly creationMs: number;
  lastUsedMs: number;
  /** The epoch the next request must carry. */
  epoch: number;
  /** By sessionPartitionKey, in the order they were added. */
  readonly partitions: Map<string, SessionPartition>;
  /** The acquisition lock timeout the member was last told (-1: none yet); ShareAcknowledge v2 tells it again. */
  acquisitionLockTimeoutMs: number;
}

export function sessionPartitionKey(p: SessionPartition): string {
  return `${p.topicId}\u0000${p.partition}`;
}

export interface ShareSessionClock {
  now(): number;
}

/** A member whose session ended, whose acquired records go back. */
export type ShareMemberGoneListener = (groupId: string, memberId: string) => void;

const sessionKey = (groupId: string, memberId: string): string => `${groupId}\u0000${memberId}`;

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();
  /** Connection id -> the keys of the sessions it opened. */
  private readonly byConnection = new Map<string, Set<string>>();
  private on = true;
  /** Sessions made, and ended by their connection closing. */
  created = 0;
  disconnected = 0;

  constructor(
    readonly maxEntries: number,
    private readonly clock: ShareSessionClock,
    private readonly onGone: ShareMemberGoneListener = () => {},
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Partitions held by every session. */
  get totalPartitions(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.partitions.size;
    return n;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(sessionKey(groupId, memberId));
  }

  /**
   * A new session of the member holding `partitions`, opened on `connectionId`, in place of the
   * one it had (ended without telling `onGone`, as Kafka's); null when the cache is full.
   */
  open(groupId: string, memberId: string, partitions: readonly SessionPartition[], connectionId: string): ShareSession | null {
    const key = sessionKey(groupId, memberId);
    const old = this.sessions.get(key);
    if (old) this.drop(key, old);
    if (this.sessions.size >= this.maxEntries) return null;
    const now = this.clock.now();
    const map = new Map<string, SessionPartition>();
    for (const p of partitions) map.set(sessionPartitionKey(p), { topicId: p.topicId, partition: p.partition });
    const session: ShareSession = {
      groupId,
      memberId,
      connectionId,
      creationMs: now,
      lastUsedMs: now,
      epoch: nextShareEpoch(SHARE_INITIAL_EPOCH),
      partitions: map,
      acquisitionLockTimeoutMs: -1,
    };
    this.sessions.set(key, session);
    let keys = this.byConnection.get(connectionId);
    if (!keys) this.byConnection.set(connectionId, (keys = new Set()));
    keys.add(key);
    this.created++;
    return session;
  }

  /**
   * An incremental request's changes (Kafka's ShareSession.update): `added` join the session,
   * `forgotten` leave it; the epoch moves on and the session is marked used.
   */
  update(session: ShareSession, added: readonly SessionPartition[], forgotten: readonly SessionPartition[]): void {
    for (const p of added) {
      const k = sessionPartitionKey(p);
      if (!session.partitions.has(k)) session.partitions.set(k, { topicId: p.topicId, partition: p.partition });
    }
    for (const p of forgotten) session.partitions.delete(sessionPartitionKey(p));
    this.advance(session);
  }

  /** The session's epoch moves on (a ShareAcknowledge, or an incremental ShareFetch) and it is marked used. */
  advance(session: ShareSession): void {
    session.epoch = nextShareEpoch(session.epoch);
    session.lastUsedMs = this.clock.now();
  }

  /** Ends the member's session (epoch -1) and tells `onGone`; false when it had none. */
  close(groupId: string, memberId: string): boolean {
    const key = sessionKey(groupId, memberId);
    const s = this.sessions.get(key);
    if (!s) return false;
    this.drop(key, s);
    this.onGone(groupId, memberId);
    return true;
  }

  /**
   * Whether share groups are on: the cluster's share.version is 1 or more, as the broker last
   * told its listener (on until told otherwise). ShareFetch and ShareAcknowledge are refused while off.
   */
  get enabled(): boolean {
    return this.on;
  }

  /** share.version changed: turned off, every session ends (removeAll); how many ended. */
  setEnabled(on: boolean): number {
    this.on = on;
    return on ? 0 : this.removeAll();
  }

  /**
   * Every session ends, none told to `onGone` (share groups were turned off: the share partition
   * manager dropped what they held); how many there were. Members open new ones with epoch 0.
   */
  removeAll(): number {
    const n = this.sessions.size;
    this.sessions.clear();
    this.byConnection.clear();
    return n;
  }

  /** The connection closed: the sessions it opened (and still holds) end, each told to `onGone`. */
  connectionClosed(connectionId: string): void {
    const keys = this.byConnection.get(connectionId);
    if (!keys) return;
    this.byConnection.delete(connectionId);
    for (const key of keys) {
      const s = this.sessions.get(key);
      if (!s || s.connectionId !== connectionId) continue;
      this.sessions.delete(key);
      this.disconnected++;
      this.onGone(s.groupId, s.memberId);
    }
  }

  /**
   * Tells `onGone` of a member that has no session here (a fetch of its that was waiting when its
   * session ended acquired records no one will acknowledge): they go back too. False (and nothing
   * told) when the member has a session.
   */
  releaseOrphaned(groupId: string, memberId: string): boolean {
    if (this.sessions.has(sessionKey(groupId, memberId))) return false;
    this.onGone(groupId, memberId);
    return true;
  }

  private drop(key: string, s: ShareSession): void {
    this.sessions.delete(key);
    const keys = this.byConnection.get(s.connectionId);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.byConnection.delete(s.connectionId);
  }
}
