/**
 * The clean shutdown marker (Kafka's CleanShutdownFileHandler, KIP-966): a broker that shuts down
 * cleanly (controlled shutdown, logs flushed) writes `.kafka_cleanshutdown` holding
 * `{"version":0,"brokerEpoch":N}` in each of its log dirs; the next start reads the epoch, deletes
 * the files, and registers with it as its previousBrokerEpoch. A broker that crashed finds none
 * and registers with -1: the controller then takes it out of every ISR and ELR (with eligible
 * leader replicas on), since it may have lost records it had acknowledged but not flushed.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../src/storage/checkpoint.js';

export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** No clean shutdown known (Kafka's default previousBrokerEpoch). */
export const NO_PREVIOUS_BROKER_EPOCH = -1;

/** Writes the marker with `brokerEpoch` in every log dir (atomically); a dir that cannot take it is skipped. */
export async function writeCleanShutdown(logDirs: readonly string[], brokerEpoch: number): Promise<number> {
  let written = 0;
  for (const dir of logDirs) {
    try {
      await writeFileAtomic(path.join(dir, CLEAN_SHUTDOWN_FILE), JSON.stringify({ version: 0, brokerEpoch }));
      written++;
    } catch {
      // a failed dir: the next start finds no marker there, which only makes it unclean
    }
  }
  return written;
}

/**
 * The broker epoch of the last clean shutdown, from the markers in `logDirs` (all must agree, as
 * every dir must have been shut down cleanly), or -1; the markers are removed either way.
 */
export async function takeCleanShutdown(logDirs: readonly string[]): Promise<number> {
  const epochs: (number | null)[] = [];
  for (const dir of logDirs) {
    const file = path.join(dir, CLEAN_SHUTDOWN_FILE);
    let epoch: number | null = null;
    try {
      const v = JSON.parse(await fsp.readFile(file, 'utf8')) as { version?: unknown; brokerEpoch?: unknown };
      if (v.version === 0 && Number.isSafeInteger(v.brokerEpoch)) epoch = v.brokerEpoch as number;
    } catch {
      epoch = null;
    }
    epochs.push(epoch);
    await fsp.rm(file, { force: true }).catch(() => undefined);
  }
  const first = epochs[0];
  if (first === undefined || first === null || !epochs.every((e) => e === first)) return NO_PREVIOUS_BROKER_EPOCH;
  return first;
}
