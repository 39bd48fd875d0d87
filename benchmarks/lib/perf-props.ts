/**
 * Client configs from the perf tools' command line, as kafka-producer-perf-test's
 * `--producer-props acks=all linger.ms=5` and `--producer.config client.properties`: key=value
 * pairs, and a Java .properties file whose keys the pairs override, checked together by the
 * client's own config parser (an unknown key or a bad value is a usage error naming it and where
 * it came from). A key the tool also has a flag for (`acks` and `--acks`) sets that flag, as
 * Kafka's tools take it (`foldFlagKeys`), unless the flag says otherwise; a key the run depends
 * on is refused and the error says why.
 */
import { keyValues } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/errors.js';
import { readPropertiesFile } from '../../src/cli/properties.js';
import { FlagError, parseFlags, type FlagSpecs, type ParsedFlags } from './perf-args.js';

/** Where a tool's client configs come from: `--<flag> k=v ...` and `--<fileFlag> <file>` ('' for none). */
export interface ConfigSources {
  flag: string;
  pairs: readonly string[];
  fileFlag?: string;
  file?: string;
  /**
   * Only these keys of the file are this client's (a file for two clients, as kafka-e2e-latency
   * takes one): the others are left out here. `unclaimedKeys` finds a key neither client has.
   */
  fileKeys?: readonly string[];
}

/**
 * The configs of `--<flag> k=v ...` over those of the file, checked with `check` (which throws
 * on a bad key or value, naming it in its `key`, or a UsageError that is passed on as it is);
 * `owned` maps the keys refused to what to do instead.
 */
export function clientProps(src: ConfigSources, owned: Readonly<Record<string, string>>, check: (config: Record<string, string>) => void, folded: Readonly<Record<string, string>> = {}): Record<string, string> {
  const { fromFile, fromPairs, blame } = readSources(src);
  for (const key of [...Object.keys(fromFile), ...Object.keys(fromPairs)]) {
    const instead = owned[key];
    if (instead !== undefined) throw new UsageError(`${blame(key)} ${key}: ${instead}`);
  }
  const props: Record<string, string> = { ...fromFile, ...fromPairs };
  // set through their flags (foldFlagKeys): the tool passes the flags' values on itself
  for (const key of Object.keys(folded)) delete props[key];
  try {
    check(props);
  } catch (e) {
    // a usage error of the check's own says what it means as it is
    if (e instanceof UsageError) throw e;
    // the config parsers' errors carry the key (ProducerConfigError, ConsumerConfigError)
    const key = (e as { key?: unknown }).key;
    throw new UsageError(`${blame(typeof key === 'string' ? key : '')} ${(e as Error).message}`);
  }
  return props;
}

/** The file's configs and the pairs', and who to name for a key (the pairs override the file). */
function readSources(src: ConfigSources): { fromFile: Record<string, string>; fromPairs: Record<string, string>; blame: (key: string) => string } {
  const fileName = src.file ?? '';
  const fileFlag = src.fileFlag ?? `${src.flag}-file`;
  const all = fileName === '' ? {} : readPropertiesFile(fileFlag, fileName);
  const keep = src.fileKeys ? new Set(src.fileKeys) : null;
  const fromFile = keep ? Object.fromEntries(Object.entries(all).filter(([k]) => keep.has(k))) : all;
  const fromPairs = keyValues(src.flag, src.pairs);
  const blame = (key: string): string => (key in fromPairs || !(key in fromFile) ? `--${src.flag}` : `--${fileFlag} ${fileName}:`);
  return { fromFile, fromPairs, blame };
}

/**
 * Sets each flag in `keys` (config key -> flag) whose key the configs give, as if the flag had
 * been given with that value (Kafka's tools take `--producer-props acks=all linger.ms=10` as
 * the producer's configs): checked as the flag checks it, and refused when the flag was given
 * too with another value. `same` compares a flag's values (default ===). Pass the same `keys`
 * to clientProps as `folded`, which leaves them out of the configs it returns.
 */
export function foldFlagKeys<S extends FlagSpecs>(f: ParsedFlags<S>, specs: S, src: ConfigSources, keys: Readonly<Record<string, keyof S & string>>, same: (flag: string, a: unknown, b: unknown) => boolean = (_flag, a, b) => a === b): void {
  const { fromFile, fromPairs, blame } = readSources(src);
  const values = f as unknown as Record<string, unknown>;
  for (const [key, flag] of Object.entries(keys)) {
    const given = fromPairs[key] ?? fromFile[key];
    if (given === undefined) continue;
    // a boolean config is true or false in any case, as Kafka's config parser reads it
    const v = specs[flag]!.type === 'bool' ? given.trim().toLowerCase() : given;
    let parsed: unknown;
    try {
      parsed = (parseFlags([`--${flag}=${v}`], { [flag]: specs[flag]! }) as Record<string, unknown>)[flag];
    } catch (e) {
      if (e instanceof FlagError) throw new UsageError(`${blame(key)} ${key}=${given}: ${e.message}`);
      throw e;
    }
    if (f.given.has(flag)) {
      if (!same(flag, values[flag], parsed)) throw new UsageError(`${blame(key)} ${key}=${given} and --${flag} ${String(values[flag])} disagree: give one`);
      continue;
    }
    values[flag] = parsed;
    (f.given as Set<string>).add(flag);
  }
}

/**
 * A file of configs for two clients (kafka-e2e-latency's properties file): refused, naming it,
 * when it has a key that neither client has.
 */
export function refuseUnclaimedKeys(fileFlag: string, file: string, ...clients: (readonly string[])[]): void {
  if (file === '') return;
  const known = new Set(clients.flat());
  const stray = Object.keys(readPropertiesFile(fileFlag, file)).filter((k) => !known.has(k));
  if (stray.length > 0) throw new UsageError(`--${fileFlag} ${file}: ${stray.join(', ')}: ${stray.length === 1 ? 'a key' : 'keys'} neither the producer nor the consumer has`);
}

/** Producer keys perf-produce also has a flag for: set through it (foldFlagKeys). */
export const PRODUCER_KEYS_OF_FLAGS = {
  'bootstrap.servers': 'bootstrap-server',
  acks: 'acks',
  'batch.size': 'batch-size',
  'linger.ms': 'linger-ms',
  'compression.type': 'compression',
  'partitioner.sticky.bytes': 'sticky-bytes',
} as const;

/** Producer keys perf-produce refuses: none (every key it owns has a flag). */
export const PRODUCER_KEYS_OWNED: Readonly<Record<string, string>> = {};

/** Consumer keys perf-consume also has a flag for: set through it (foldFlagKeys). */
export const CONSUMER_KEYS_OF_FLAGS = {
  'bootstrap.servers': 'bootstrap-server',
  'group.id': 'group',
  'max.poll.records': 'max-poll-records',
  'max.partition.fetch.bytes': 'max-partition-fetch-bytes',
  'check.crcs': 'check-crcs',
} as const;

/** Producer keys perf-e2e also has a flag for: set through it (foldFlagKeys). */
export const E2E_PRODUCER_KEYS_OF_FLAGS = {
  'bootstrap.servers': 'bootstrap-server',
  acks: 'acks',
  'linger.ms': 'linger-ms',
} as const;

/** Consumer keys perf-e2e also has a flag for. */
export const E2E_CONSUMER_KEYS_OF_FLAGS = {
  'bootstrap.servers': 'bootstrap-server',
} as const;

/** Consumer keys perf-e2e's run relies on: refused. */
export const E2E_CONSUMER_KEYS_OWNED: Readonly<Record<string, string>> = {
  'group.id': 'a run reads in a group of its own',
  'enable.auto.commit': 'a run commits nothing',
  'auto.offset.reset': 'a run reads a new or empty topic from its start, or one that holds records from its end (--sequential)',
};

/** Consumer keys that perf-consume's count of records relies on: refused. */
export const CONSUMER_KEYS_OWNED: Readonly<Record<string, string>> = {
  'enable.auto.commit': 'a run commits nothing, so that every run reads the topic from its start (with --group it commits where it stopped)',
  'auto.offset.reset': 'a run reads the topic from its start (--from-latest: the records produced while it waits)',
};

/** Share consumer keys perf-share-consume also has a flag for: set through it (foldFlagKeys). */
export const SHARE_CONSUMER_KEYS_OF_FLAGS = {
  'bootstrap.servers': 'bootstrap-server',
  'group.id': 'group',
  'max.poll.records': 'max-poll-records',
  'fetch.max.bytes': 'fetch-max-bytes',
  'check.crcs': 'check-crcs',
} as const;

/** Share consumer keys that perf-share-consume's run relies on: refused. */
export const SHARE_CONSUMER_KEYS_OWNED: Readonly<Record<string, string>> = {
  'share.acknowledgement.mode': "a run acknowledges implicitly, as Kafka's tool: each poll accepts the records the one before returned, and the run's end commits the last",
};
