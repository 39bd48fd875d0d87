/**
 * Plain-text tables for benchmark output: columns sized to their widest cell, numbers
 * right-aligned, an optional title and footnotes.
 */

export type Align = 'left' | 'right';

export interface Column {
  header: string;
  align?: Align;
}

/** Renders rows of cells (already formatted as strings) under the given columns. */
export function renderTable(columns: readonly (Column | string)[], rows: readonly (readonly string[])[]): string {
  const cols: Column[] = columns.map((c) => (typeof c === 'string' ? { header: c } : c));
  const widths = cols.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number): string => {
    const align = cols[i]!.align ?? (i === 0 ? 'left' : 'right');
    return align === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!);
  };
  const line = (cells: readonly string[]): string => cells.map((t, i) => cell(t, i)).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cols.map((c) => c.header)), rule, ...rows.map((r) => line(cols.map((_, i) => r[i] ?? '')))].join('\n');
}

/** Prints a table with an optional title above it and notes below it. */
export function printTable(
  title: string | undefined,
  columns: readonly (Column | string)[],
  rows: readonly (readonly string[])[],
  notes: readonly string[] = [],
): void {
  const out: string[] = [];
  if (title) out.push('', title);
  out.push(renderTable(columns, rows));
  for (const n of notes) out.push(`  ${n}`);
  console.log(out.join('\n'));
}
