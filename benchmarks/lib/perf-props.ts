/**
 * Client configs from the perf tools' command line, as kafka-producer-perf-test's
 * `--producer-props acks=all linger.ms=5` and `--producer.config client.properties`: key=value
 * pairs, and a Java .properties file whose keys the pairs override, checked together by the
 * client's own config parser (an unknown key or a bad value is a usage error naming it and where
 * it came from). A key the tool sets from a flag of its own, or that the run depends on, is
 * refused and the error says which flag to use.
 */
import { keyValues } from '../../src/cli/args.js';
import { UsageError } from '../../src/cli/errors.js';
import { readPropertiesFile } from '../../src/cli/properties.js';

/** Where a tool's client configs come from: `--<flag> k=v ...` and `--<fileFlag> <file>` ('' for none). */
export interface ConfigSources {
  flag: string;
  pairs: readonly string[];
  fileFlag?: string;
  file?: string;
}

/**
 * The configs of `--<flag> k=v ...` over those of the file, checked with `check` (which throws
 * on a bad key or value, naming it in its `key`, or a UsageError that is passed on as it is);
 * `owned` maps the keys refused to what to do instead.
 */
export function clientProps(src: ConfigSources, owned: Readonly<Record<string, string>>, check: (config: Record<string, string>) => void): Record<string, string> {
  const fileName = src.file ?? '';
  const fileFlag = src.fileFlag ?? `${src.flag}-file`;
  const fromFile = fileName === '' ? {} : readPropertiesFile(fileFlag, fileName);
  const fromPairs = keyValues(src.flag, src.pairs);
  const blame = (key: string): string => (key in fromPairs || !(key in fromFile) ? `--${src.flag}` : `--${fileFlag} ${fileName}:`);
  for (const key of [...Object.keys(fromFile), ...Object.keys(fromPairs)]) {
    const instead = owned[key];
    if (instead !== undefined) throw new UsageError(`${blame(key)} ${key}: ${instead}`);
  }
  const props = { ...fromFile, ...fromPairs };
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

/** Producer keys perf-produce sets from its own flags. */
export const PRODUCER_KEYS_OWNED: Readonly<Record<string, string>> = {
  acks: 'set it with --acks',
  'batch.size': 'set it with --batch-size',
  'linger.ms': 'set it with --linger-ms',
  'compression.type': 'set it with --compression',
  'partitioner.sticky.bytes': 'set it with --sticky-bytes',
};

/** Consumer keys perf-consume sets from its own flags, or that its count of records relies on. */
export const CONSUMER_KEYS_OWNED: Readonly<Record<string, string>> = {
  'group.id': 'set it with --group (without it each run forms a group of its own)',
  'enable.auto.commit': 'a run commits nothing, so that every run reads the topic from its start (with --group it commits where it stopped)',
  'auto.offset.reset': 'a run reads the topic from its start',
  'max.poll.records': 'set it with --max-poll-records',
  'max.partition.fetch.bytes': 'set it with --max-partition-fetch-bytes',
  'check.crcs': 'set it with --check-crcs',
};
