/**
 * A quorum voter's durable election state: its current term and whom it voted for in it, in
 * `quorum-state.json` beside the metadata log. Raft needs both on disk before a vote or a term
 * is announced; a write goes to a temporary file that is fsynced and renamed over the old one,
 * so a crash leaves either the old state or the new, never half of one. The file also names the
 * voter, so a metadata dir moved to another controller id is refused rather than voting twice,
 * and holds the dir's directory id (Kafka's directory.id, KIP-853: which copy of a controller
 * a voter set means), made once when the file is first written.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../src/storage/checkpoint.js';

export const QUORUM_STATE_FILE = 'quorum-state.json';

export interface QuorumElectionState {
  term: number;
  votedFor: number | null;
}

/** What the file holds: the election state and, once written by this version, the directory id. */
export interface QuorumStateFile extends QuorumElectionState {
  directoryId: string | null;
}

export class QuorumStateError extends Error {
  override readonly name = 'QuorumStateError';
}

/** Reads the state (term 0, no vote, no directory id, when there is no file yet). */
export async function readQuorumState(dir: string, voterId: number): Promise<QuorumStateFile> {
  const file = path.join(dir, QUORUM_STATE_FILE);
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { term: 0, votedFor: null, directoryId: null };
    throw err;
  }
  let v: { voterId?: unknown; term?: unknown; votedFor?: unknown; directoryId?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch (err) {
    throw new QuorumStateError(`${file}: not JSON: ${(err as Error).message}`);
  }
  if (!Number.isSafeInteger(v.term) || (v.term as number) < 0 || !(v.votedFor === null || Number.isSafeInteger(v.votedFor)) || !(v.directoryId === undefined || typeof v.directoryId === 'string')) {
    throw new QuorumStateError(`${file}: expected { voterId, term, votedFor, directoryId }`);
  }
  if (v.voterId !== voterId) throw new QuorumStateError(`${file} belongs to controller ${String(v.voterId)}, not ${voterId}`);
  return { term: v.term as number, votedFor: v.votedFor as number | null, directoryId: (v.directoryId as string | undefined) ?? null };
}

/** Writes the state durably (temporary file, fsync, rename, fsync of the directory). */
export async function writeQuorumState(dir: string, voterId: number, state: QuorumElectionState, directoryId: string): Promise<void> {
  await writeFileAtomic(path.join(dir, QUORUM_STATE_FILE), `${JSON.stringify({ voterId, term: state.term, votedFor: state.votedFor, directoryId })}\n`);
}
