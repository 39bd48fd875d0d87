/**
 * The shape of a samsa command (its options, help text and run function), the options every
 * client command shares, and the help formatter that `--help` prints.
 */
import type { Args, OptionSpec, PositionalSpec } from './args.js';

export interface Command {
  name: string;
  /** One line for `samsa --help`. */
  summary: string;
  /** Usage lines, without the leading `samsa <name>`. */
  usage: readonly string[];
  /** Paragraphs under the usage lines. */
  description: string;
  options: readonly OptionSpec[];
  positional?: PositionalSpec;
  examples?: readonly string[];
  /** Runs the command; resolves with the exit code. Throws UsageError / CliError / SamsaError. */
  run(args: Args): Promise<number>;
  /**
   * A command with flags of its own (the perf tools): takes the argv after its name as is,
   * --help included, instead of `run` with parsed options.
   */
  runArgv?(argv: readonly string[]): Promise<number>;
}

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9192';

export const HELP_OPTION: OptionSpec = { name: 'help', alias: 'h', kind: 'flag', help: 'show this help and exit' };

export const BOOTSTRAP_OPTION: OptionSpec = {
  name: 'bootstrap-server',
  kind: 'string',
  value: 'host:port[,host:port]',
  help: `cluster node(s) to connect to (default ${DEFAULT_BOOTSTRAP}, the listener of the embedded topology that \`npm start\` runs)`,
};

function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : indent + l));
}

export function formatHelp(cmd: Command): string {
  const lines: string[] = [];
  cmd.usage.forEach((u, i) => lines.push(`${i === 0 ? 'usage: ' : '       '}samsa ${cmd.name}${u ? ` ${u}` : ''}`));
  lines.push('');
  for (const para of cmd.description.split('\n\n')) lines.push(...wrap(para, 96, ''), '');
  if (cmd.positional) lines.push('arguments:', `  ${cmd.positional.name.padEnd(36)}${cmd.positional.help}`, '');
  lines.push('options:');
  const valueOf = (o: OptionSpec) => o.value ?? (o.kind === 'int' ? 'n' : 'value');
  const left = (o: OptionSpec) => `${o.alias ? `-${o.alias}, ` : ''}--${o.name}${o.kind === 'flag' ? '' : o.optionalValue ? ` [${valueOf(o)}]` : ` ${valueOf(o)}`}${o.kind === 'list' ? ' ...' : ''}`;
  const width = Math.min(36, Math.max(...cmd.options.map((o) => left(o).length)) + 2);
  for (const o of cmd.options) {
    const l = left(o);
    const help = wrap(o.help, 96 - 2 - width, ' '.repeat(2 + width));
    if (l.length + 2 > width) lines.push(`  ${l}`, `  ${' '.repeat(width)}${help.join('\n')}`);
    else lines.push(`  ${l.padEnd(width)}${help.join('\n')}`);
  }
  if (cmd.examples?.length) {
    lines.push('', 'examples:');
    for (const e of cmd.examples) lines.push(`  ${e}`);
  }
  lines.push('', 'exit codes: 0 ok, 1 failure, 2 usage error. Logs: SAMSA_LOG_LEVEL=error|warn|info|debug|silent.');
  return `${lines.join('\n')}\n`;
}
