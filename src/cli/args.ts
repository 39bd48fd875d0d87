/**
 * Command-line options for the samsa commands, in the style of Kafka's tools: `--name value` or
 * `--name=value`, boolean flags, repeatable options, and positional arguments for the commands
 * that take them. Every mistake is a UsageError (exit code 2) that names the option.
 */
import { UsageError } from './errors.js';

export type OptionKind = 'flag' | 'string' | 'int' | 'list';

export interface OptionSpec {
  /** Without the leading dashes: 'topic' is `--topic`. */
  name: string;
  kind: OptionKind;
  /** One-letter alias, e.g. 'h' for `-h`. */
  alias?: string;
  /** Placeholder for the value in help texts ('n', 'host:port'). */
  value?: string;
  help: string;
  /** Inclusive bounds for 'int' options. */
  min?: number;
  max?: number;
  /** Allowed values for 'string' options. */
  choices?: readonly string[];
  /** Modes (other flags of the command) the option goes with; checked by Args.checkModes. */
  modes?: readonly string[];
  /** A flag that may be given more than once (Args.sequence tells where each was). */
  repeatable?: boolean;
  /**
   * A 'string' option whose value may be left out (Kafka's withOptionalArg, as
   * kafka-share-groups' `--list --state [states]`): given bare, before another option or at the
   * end, its value is ''.
   */
  optionalValue?: boolean;
}

export interface PositionalSpec {
  name: string;
  help: string;
  /** How many may be given (0 or 1 for every command today). */
  max: number;
}

/** What a command line parsed into; accessors return undefined for options not given. */
export class Args {
  constructor(
    private readonly specs: readonly OptionSpec[],
    private readonly values: ReadonlyMap<string, string[]>,
    readonly positionals: readonly string[],
    private readonly order: readonly { name: string; value: string }[] = [],
  ) {}

  /**
   * Each occurrence of the named options, in command-line order (a flag's value is 'true'): for
   * options that pair up by position, as kafka-configs' --entity-type with --entity-name and
   * --entity-default.
   */
  sequence(names: readonly string[]): { name: string; value: string }[] {
    return this.order.filter((o) => names.includes(o.name)).map((o) => ({ ...o }));
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** Options that were given, in the order of the command's option list. */
  given(): string[] {
    return this.specs.filter((s) => this.values.has(s.name)).map((s) => s.name);
  }

  string(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }

  int(name: string): number | undefined {
    const v = this.values.get(name)?.[0];
    return v === undefined ? undefined : Number(v);
  }

  list(name: string): string[] {
    return [...(this.values.get(name) ?? [])];
  }

  /** The value of a string option that must be given. */
  require(name: string): string {
    const v = this.string(name);
    if (v === undefined) throw new UsageError(`--${name} is required`);
    return v;
  }

  /**
   * Exactly one of `modes` must be given; every other option given must list that mode (or
   * list none). Returns the mode.
   */
  mode(modes: readonly string[]): string {
    const chosen = modes.filter((m) => this.values.has(m));
    const all = modes.map((m) => `--${m}`).join(', ');
    if (chosen.length === 0) throw new UsageError(`give one of ${all}`);
    if (chosen.length > 1) throw new UsageError(`give only one of ${all} (got ${chosen.map((m) => `--${m}`).join(' and ')})`);
    const mode = chosen[0]!;
    for (const spec of this.specs) {
      if (!this.values.has(spec.name) || !spec.modes || spec.modes.includes(mode)) continue;
      throw new UsageError(`--${spec.name} goes with ${spec.modes.map((m) => `--${m}`).join(' or ')}, not with --${mode}`);
    }
    return mode;
  }
}

function closest(name: string, specs: readonly OptionSpec[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const s of specs) {
    const d = editDistance(name, s.name);
    if (d <= Math.max(2, Math.floor(s.name.length / 4)) && (!best || d < best.d)) best = { name: s.name, d };
  }
  if (best) return best.name;
  return specs.find((s) => s.name.startsWith(name) || name.startsWith(s.name))?.name;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

function checkValue(spec: OptionSpec, raw: string): void {
  if (spec.optionalValue && raw === '') return;
  if (spec.kind === 'int') {
    if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`--${spec.name} takes an integer, got '${raw}'`);
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw new UsageError(`--${spec.name} ${raw} is out of range`);
    if (spec.min !== undefined && n < spec.min) throw new UsageError(`--${spec.name} must be at least ${spec.min}, got ${n}`);
    if (spec.max !== undefined && n > spec.max) throw new UsageError(`--${spec.name} must be at most ${spec.max}, got ${n}`);
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw new UsageError(`--${spec.name} must be one of ${spec.choices.join(', ')}; got '${raw}'`);
  }
}

/** Parses argv (without the command name) against a command's options. */
export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], positional?: PositionalSpec): Args {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byAlias = new Map(specs.filter((s) => s.alias).map((s) => [s.alias!, s]));
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  const order: { name: string; value: string }[] = [];
  let onlyPositionals = false;

  const put = (spec: OptionSpec, raw: string) => {
    checkValue(spec, raw);
    const prev = values.get(spec.name);
    if (prev && spec.kind !== 'list') {
      throw new UsageError(`--${spec.name} is given more than once`);
    }
    values.set(spec.name, [...(prev ?? []), raw]);
    order.push({ name: spec.name, value: raw });
  };

  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (onlyPositionals || !tok.startsWith('-') || tok === '-') {
      if (!positional || positionals.length >= positional.max) throw new UsageError(`unexpected argument '${tok}'`);
      positionals.push(tok);
      continue;
    }
    if (tok === '--') {
      onlyPositionals = true;
      continue;
    }
    let spec: OptionSpec | undefined;
    let inline: string | undefined;
    if (tok.startsWith('--')) {
      const eq = tok.indexOf('=');
      const name = eq >= 0 ? tok.slice(2, eq) : tok.slice(2);
      if (eq >= 0) inline = tok.slice(eq + 1);
      spec = byName.get(name);
      if (!spec) {
        const hint = closest(name, specs);
        throw new UsageError(`unknown option --${name}${hint ? ` (did you mean --${hint}?)` : ''}`);
      }
    } else {
      spec = byAlias.get(tok.slice(1));
      if (!spec) throw new UsageError(`unknown option ${tok}`);
    }
    if (spec.kind === 'flag') {
      if (inline !== undefined) throw new UsageError(`--${spec.name} is a flag and takes no value`);
      if (values.has(spec.name) && !spec.repeatable) throw new UsageError(`--${spec.name} is given more than once`);
      values.set(spec.name, [...(values.get(spec.name) ?? []), 'true']);
      order.push({ name: spec.name, value: 'true' });
      continue;
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        if (spec.optionalValue) {
          put(spec, '');
          continue;
        }
        throw new UsageError(`--${spec.name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
      }
      inline = next;
      i++;
    }
    put(spec, inline);
  }
  return new Args(specs, values, positionals, order);
}

/** `k=v` pairs (from --config and friends) as a map; a pair without '=' is a usage error. */
export function keyValues(option: string, pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${option} takes key=value, got '${p}'`);
    const key = p.slice(0, eq).trim();
    if (key in out) throw new UsageError(`--${option} sets ${key} more than once`);
    out[key] = p.slice(eq + 1);
  }
  return out;
}

/**
 * Kafka's --broker-list: broker ids separated by commas (`skipEmpty`: empty entries, as in
 * `1,,2`, are left out rather than refused), in the order given. Anything but ids is a usage
 * error naming the option.
 */
export function brokerIdList(raw: string, skipEmpty: boolean, option = 'broker-list'): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  const ids = skipEmpty ? parts.filter(Boolean) : parts;
  if (ids.some((p) => !/^\d{1,9}$/.test(p))) throw new UsageError(`--${option} takes broker ids separated by commas, such as 1,2,3; got '${raw}'`);
  return ids.map(Number);
}
