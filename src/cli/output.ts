/**
 * Output for the samsa commands: results go to stdout, one line at a time; progress, summaries
 * and errors go to stderr so that stdout stays clean for pipes. Tables are padded columns with
 * a header row, as Kafka's tools print them.
 */

export function out(line = ''): boolean {
  return process.stdout.write(`${line}\n`);
}

export function err(line = ''): void {
  process.stderr.write(`${line}\n`);
}

/** Rows as aligned columns (two spaces apart); the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string[] {
  const cells = [header, ...rows].map((r) => r.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Resolves once everything written to stdout and stderr so far has been handed to the OS. */
export async function flushOutput(): Promise<void> {
  const drain = (s: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (s.destroyed || !s.writable) return resolve();
      s.write('', () => resolve());
    });
  await Promise.all([drain(process.stdout), drain(process.stderr)]);
}

/** "1 record" / "2 records". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
