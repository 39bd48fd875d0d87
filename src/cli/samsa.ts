#!/usr/bin/env node
/**
 * The samsa command line. Commands grow with the project; today: `demo`.
 */
import { runDemo } from './demo.js';

const USAGE = `usage: samsa <command>

commands:
  demo      run the actor runtime across two worker threads and print what happens
  help      show this text
`;

async function main(argv: string[]): Promise<number> {
  const [cmd] = argv;
  switch (cmd) {
    case 'demo':
      await runDemo((line) => process.stdout.write(`${line}\n`));
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`samsa: unknown command '${cmd}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`samsa: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
