#!/usr/bin/env node
/**
 * The samsa command line: `samsa <command> [options]`, with commands modelled on Kafka's tools
 * (topics, produce, consume, groups) plus demo. Each command lives in src/cli/commands and is
 * loaded only when it runs. Exit codes: 0 ok, 1 runtime failure, 2 usage error.
 */
import { parseArgs } from './args.js';
import { formatHelp, type Command } from './command.js';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, explain } from './errors.js';
import { err, flushOutput } from './output.js';

interface Entry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

const COMMANDS: Entry[] = [
  { name: 'topics', summary: 'create, list, describe, delete topics and add partitions', load: async () => (await import('./commands/topics.js')).topicsCommand },
  { name: 'produce', summary: 'send lines from stdin as records to a topic', load: async () => (await import('./commands/produce.js')).produceCommand },
  { name: 'consume', summary: 'print the records of a topic, one per line', load: async () => (await import('./commands/consume.js')).consumeCommand },
  { name: 'groups', summary: 'list, describe, delete consumer groups and reset their offsets', load: async () => (await import('./commands/groups.js')).groupsCommand },
  { name: 'demo', summary: 'run the actor runtime across two worker threads and print what happens', load: async () => (await import('./commands/demo.js')).demoCommand },
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'usage: samsa <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Run `samsa <command> --help` for the options of a command.',
    'Client commands connect to --bootstrap-server host:port (default 127.0.0.1:9092).',
    'Exit codes: 0 ok, 1 failure, 2 usage error. Logs: SAMSA_LOG_LEVEL=error|warn|info|debug|silent.',
    '',
  ].join('\n');
}

/** Whether argv asks for help before any `--` that ends the options. */
function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    process.stdout.write(usage());
    return EXIT_OK;
  }
  const wanted = name === 'help' ? rest[0]! : name;
  const entry = COMMANDS.find((c) => c.name === wanted);
  if (!entry) {
    err(`samsa: unknown command '${wanted}'`);
    err();
    process.stderr.write(usage());
    return EXIT_USAGE;
  }
  const cmd = await entry.load();
  if (name === 'help' || wantsHelp(rest)) {
    process.stdout.write(formatHelp(cmd));
    return EXIT_OK;
  }
  try {
    return await cmd.run(parseArgs(rest, cmd.options, cmd.positional));
  } catch (e) {
    if (e instanceof UsageError) {
      err(`samsa ${cmd.name}: ${e.message}`);
      err(`run \`samsa ${cmd.name} --help\` for the options`);
      return EXIT_USAGE;
    }
    err(`samsa ${cmd.name}: ${explain(e)}`);
    return e instanceof CliError ? e.exitCode : EXIT_FAILURE;
  }
}

main(process.argv.slice(2)).then(
  async (code) => {
    await flushOutput();
    process.exit(code);
  },
  async (e: unknown) => {
    err(`samsa: ${(e as Error)?.stack ?? String(e)}`);
    await flushOutput();
    process.exit(EXIT_FAILURE);
  },
);
