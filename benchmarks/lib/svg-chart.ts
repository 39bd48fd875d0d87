/**
 * A horizontal bar chart as SVG text, no dependency: one bar per result showing its ratio to
 * its target (100% = the target met), coloured by PASS (green) / MISS (red) / info (grey), with
 * the measured value written beside it. Pure, unit-tested in test/benchmarks/svg-chart.test.ts.
 */

export interface ChartBar {
  label: string;
  /** Fraction of the target reached (1 = exactly met); values above `maxRatio` are clipped. */
  ratio: number;
  status: 'PASS' | 'MISS' | 'info';
  /** Text after the bar, e.g. "473 k records/s (target 1 M)". */
  note: string;
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

export function renderBarChart(title: string, bars: readonly ChartBar[], opts: { subtitle?: string; maxRatio?: number } = {}): string {
  const maxRatio = Math.max(1, opts.maxRatio ?? Math.min(3, Math.max(1.2, ...bars.map((b) => (Number.isFinite(b.ratio) ? b.ratio : 0)))));
  const labelW = 300;
  const barW = 420;
  const noteW = 380;
  const rowH = 28;
  const top = opts.subtitle ? 70 : 52;
  const width = labelW + barW + noteW + 20;
  const height = top + bars.length * rowH + 40;
  const x0 = labelW + 10;
  const scale = barW / maxRatio;
  const colour = { PASS: '#2e9d4f', MISS: '#d0453a', info: '#8a8f98' } as const;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`);
  out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(`<text x="10" y="24" font-size="17" font-weight="bold">${escapeXml(title)}</text>`);
  if (opts.subtitle) out.push(`<text x="10" y="44" fill="#555">${escapeXml(opts.subtitle)}</text>`);
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    const r = Number.isFinite(b.ratio) ? Math.max(0, Math.min(b.ratio, maxRatio)) : 0;
    const w = Math.max(1, r * scale);
    out.push(`<text x="${labelW}" y="${y + 18}" text-anchor="end">${escapeXml(b.label)}</text>`);
    out.push(`<rect x="${x0}" y="${y + 5}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="${colour[b.status]}" rx="2"><title>${escapeXml(`${b.label}: ${b.note} (${b.status})`)}</title></rect>`);
    const pct = Number.isFinite(b.ratio) ? `${Math.round(b.ratio * 100)}%` : '-';
    out.push(`<text x="${x0 + barW + 8}" y="${y + 18}">${escapeXml(`${b.status === 'info' ? '' : b.status + ' '}${pct} · ${b.note}`)}</text>`);
  });
  // the target line (100%)
  const tx = x0 + scale;
  const bottom = top + bars.length * rowH;
  out.push(`<line x1="${tx.toFixed(1)}" y1="${top - 4}" x2="${tx.toFixed(1)}" y2="${bottom + 4}" stroke="#222" stroke-dasharray="4 3"/>`);
  out.push(`<text x="${tx.toFixed(1)}" y="${bottom + 20}" text-anchor="middle" fill="#222">target (100%)</text>`);
  out.push(`<line x1="${x0}" y1="${top - 4}" x2="${x0}" y2="${bottom + 4}" stroke="#999"/>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
