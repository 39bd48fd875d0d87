/**
 * Command-line flags for the perf tools, spelled like Kafka's perf tools (`--records 1000000`,
 * `--acks all`, also `--records=1000000`). Pure: parsing returns values or throws FlagError
 * naming the flag, so it is unit-tested (test/benchmarks/perf-helpers.test.ts).
 */

/**
 * What every flag may have: Kafka's spellings of it, accepted as the same flag (`--num-records`
 * for `--records`; older and newer names alike, `--producer.config` and Kafka 4.2's
 * `--command-config`).
 */
interface FlagCommon {
  help: string;
  kafka?: readonly string[];
}

export type FlagSpec = FlagCommon &
  (
    | { type: 'int'; default: number; min?: number }
    | { type: 'number'; default: number; min?: number }
    | { type: 'string'; default: string; choices?: readonly string[] }
    | { type: 'bool'; default: boolean }
    /** Values after the flag up to the next flag (Kafka's `--producer-props a=1 b=2`), or `--flag=v`; repeatable. */
    | { type: 'list'; default: readonly string[] }
  );

export type FlagSpecs = Record<string, FlagSpec>;

export type FlagValues<S extends FlagSpecs> = {
  [K in keyof S]: S[K] extends { type: 'int' | 'number' } ? number : S[K] extends { type: 'bool' } ? boolean : S[K] extends { type: 'list' } ? string[] : string;
};

/** Parsed flags: every flag's value (its default where not given), --help, and which flags were given. */
export type ParsedFlags<S extends FlagSpecs> = FlagValues<S> & { help: boolean; given: ReadonlySet<string> };

export class FlagError extends Error {
  override name = 'FlagError';
}

/** Reads a count like 1000000, 1_000_000, 1e6, 100k or 1M. */
export function parseCount(text: string): number {
  const m = /^\s*(-?[\d_.]+(?:e\d+)?)\s*([kKmMgG]?)\s*$/.exec(text);
  if (!m) return Number.NaN;
  const base = Number(m[1]!.replace(/_/g, ''));
  const mult = { '': 1, k: 1e3, m: 1e6, g: 1e9 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return base * mult;
}

/** Parses argv (without node and script) against specs; `--help` sets help: true. */
export function parseFlags<S extends FlagSpecs>(argv: readonly string[], specs: S): ParsedFlags<S> {
  const given = new Set<string>();
  const listed = new Set<string>();
  const out: Record<string, unknown> = { help: false, given };
  for (const [k, s] of Object.entries(specs)) out[k] = s.type === 'list' ? [...s.default] : s.default;
  // Kafka's spellings: the flag each one is, and which spelling of a flag came first
  const kafkaNames = new Map(Object.entries(specs).flatMap(([k, s]) => (s.kafka ?? []).map((name) => [name, k] as const)));
  const spelled = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      out.help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new FlagError(`unexpected argument '${arg}' (flags look like --records 1000)`);
    const eq = arg.indexOf('=');
    const written = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const name = specs[written] ? written : (kafkaNames.get(written) ?? written);
    const spec = specs[name];
    if (!spec) throw new FlagError(`unknown flag --${written} (known: ${Object.keys(specs).map((k) => `--${k}`).join(', ')})`);
    const before = spelled.get(name);
    if (before !== undefined && before !== written) throw new FlagError(`--${before} and --${written} are the same flag (${(spec.kafka ?? []).map((k) => `--${k}`).join(' and ')} ${spec.kafka?.length === 1 ? 'is' : 'are'} Kafka's name${spec.kafka?.length === 1 ? '' : 's'} for --${name}): give one`);
    spelled.set(name, written);
    given.add(name);
    let value: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (spec.type === 'bool') {
      if (value === undefined && argv[i + 1] !== undefined && /^(true|false)$/.test(argv[i + 1]!)) value = argv[++i];
      if (value !== undefined && value !== 'true' && value !== 'false') throw new FlagError(`--${name} is true or false, got '${value}'`);
      out[name] = value === undefined ? true : value === 'true';
      continue;
    }
    if (spec.type === 'list') {
      // the first occurrence replaces the default, later ones add to it
      if (!listed.has(name)) {
        listed.add(name);
        out[name] = [];
      }
      if (value !== undefined) (out[name] as string[]).push(value);
      else {
        const start = i;
        while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) (out[name] as string[]).push(argv[++i]!);
        if (i === start) throw new FlagError(`--${name} needs a value`);
      }
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new FlagError(`--${name} needs a value`);
      value = argv[++i]!;
    }
    if (spec.type === 'string') {
      if (spec.choices && !spec.choices.includes(value)) throw new FlagError(`--${name} must be one of ${spec.choices.join(', ')}, got '${value}'`);
      out[name] = value;
      continue;
    }
    const v = parseCount(value);
    if (!Number.isFinite(v)) throw new FlagError(`--${name} expects a number, got '${value}'`);
    if (spec.type === 'int' && !Number.isInteger(v)) throw new FlagError(`--${name} expects an integer, got '${value}'`);
    if (spec.min !== undefined && v < spec.min) throw new FlagError(`--${name} must be >= ${spec.min}, got ${v}`);
    out[name] = v;
  }
  return out as ParsedFlags<S>;
}

/** The flags' values alone (for a results file): without --help and the set of flags given. */
export function flagOptions<S extends FlagSpecs>(f: ParsedFlags<S>): FlagValues<S> {
  const { help: _help, given: _given, ...values } = f;
  return values as unknown as FlagValues<S>;
}

/** A usage text listing every flag with its default. */
export function usage(command: string, summary: string, specs: FlagSpecs): string {
  const lines = [`usage: ${command} [flags]`, '', summary, '', 'flags:'];
  const width = Math.max(...Object.keys(specs).map((k) => k.length)) + 2;
  for (const [k, s] of Object.entries(specs)) {
    const choices = s.type === 'string' && s.choices ? ` (${s.choices.join('|')})` : '';
    const dflt = s.type === 'list' ? (s.default.length === 0 ? 'none' : s.default.join(' ')) : s.default === '' ? 'none' : String(s.default);
    const kafka = s.kafka ? ` (also ${s.kafka.map((k) => `--${k}`).join(', ')}: Kafka's name${s.kafka.length === 1 ? '' : 's'})` : '';
    lines.push(`  --${k.padEnd(width)} ${s.help}${choices}${kafka} [default: ${dflt}]`);
  }
  return lines.join('\n');
}

/**
 * Parses flags for a CLI: prints usage and exits 0 on --help, prints the error and exits 2 on a
 * bad flag. `rewrite` turns another form of the command line into flags first (its FlagError
 * exits 2 the same way).
 */
export function cliFlags<S extends FlagSpecs>(command: string, summary: string, specs: S, argv: readonly string[] = process.argv.slice(2), rewrite?: (argv: readonly string[]) => readonly string[]): ParsedFlags<S> {
  try {
    const f = parseFlags(rewrite ? rewrite(argv) : argv, specs);
    if (f.help) {
      console.log(usage(command, summary, specs));
      process.exit(0);
    }
    return f;
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    console.error(`${command}: ${err.message}`);
    process.exit(2);
  }
}

/** Kafka spells acks as 0, 1, -1 or all. */
export function parseAcks(v: string): 0 | 1 | -1 {
  if (v === 'all' || v === '-1') return -1;
  if (v === '0') return 0;
  if (v === '1') return 1;
  throw new FlagError(`--acks must be 0, 1, -1 or all, got '${v}'`);
}
