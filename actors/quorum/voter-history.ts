/**
 * The voter sets a Raft log names, for membership changes one server at a time (Raft thesis
 * §4.1, as KRaft does with its VotersRecord). The set in force is the one named by the latest
 * voters entry in the log, committed or not; with none in the log, the one the snapshot holds;
 * with neither, the initial set (the topology's). Each voters entry is kept with its index, so a
 * truncation of the log (a follower overwriting entries that never committed) goes back to the
 * set before them, and a compaction hands the set at its index to the snapshot.
 *
 * Pure bookkeeping, no I/O: the Raft core (raft-core.ts) tells it of every change to its log.
 */

/** A member of the quorum as the core knows it: an id, and whatever the caller keeps with it. */
export interface RaftMember {
  readonly id: number;
}

export class VoterHistory<V extends RaftMember> {
  /** Voters entries after the snapshot, by ascending index. */
  private inLog: { index: number; voters: readonly V[] }[] = [];

  constructor(
    /** The set before any voters entry: the initial quorum. */
    readonly initial: readonly V[],
    /** The set the snapshot holds (null: none named up to it; the initial set stands). */
    private snapshotSet: readonly V[] | null = null,
  ) {}

  /** The set in force. */
  get current(): readonly V[] {
    return this.inLog.at(-1)?.voters ?? this.snapshotSet ?? this.initial;
  }

  /** The set the snapshot holds (null: none, the initial set stands). */
  get snapshotVoters(): readonly V[] | null {
    return this.snapshotSet;
  }

  /** Index of the latest voters entry in the log (0 when the set in force comes from the snapshot or the topology). */
  get latestIndex(): number {
    return this.inLog.at(-1)?.index ?? 0;
  }

  includes(id: number): boolean {
    return this.current.some((v) => v.id === id);
  }

  /** The set in force once the entries up to `index` are in the log. */
  at(index: number): readonly V[] {
    for (let i = this.inLog.length - 1; i >= 0; i--) if (this.inLog[i]!.index <= index) return this.inLog[i]!.voters;
    return this.snapshotSet ?? this.initial;
  }

  /** Every member any set here names (for finding a member's address). */
  *members(): Iterable<V> {
    yield* this.initial;
    if (this.snapshotSet) yield* this.snapshotSet;
    for (const e of this.inLog) yield* e.voters;
  }

  /** The entry at `index` names `voters`. */
  appended(index: number, voters: readonly V[]): void {
    this.inLog.push({ index, voters: [...voters] });
  }

  /** The entries after `index` are gone. */
  truncatedAfter(index: number): void {
    while ((this.inLog.at(-1)?.index ?? 0) > index) this.inLog.pop();
  }

  /** The entries up to `index` went into the snapshot: it holds the set in force there. */
  compactedTo(index: number): void {
    const set = this.at(index);
    this.inLog = this.inLog.filter((e) => e.index > index);
    if (set !== this.initial) this.snapshotSet = set;
  }

  /**
   * The leader's snapshot up to `index` replaced the log up to it (`logKept`: the entries after
   * it stay; else the whole log is gone); it holds `voters` (null: none named, the initial set).
   */
  installed(index: number, voters: readonly V[] | null, logKept: boolean): void {
    this.inLog = logKept ? this.inLog.filter((e) => e.index > index) : [];
    this.snapshotSet = voters ? [...voters] : null;
  }
}
