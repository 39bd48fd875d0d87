/**
 * Deterministic, log-like text for codec tests: compressible the way record values are (repeated
 * field names, varying numbers), and the same bytes on every run, so fixtures made by other
 * implementations from it can be checked byte for byte.
 */
const WORDS = ['produce', 'fetch', 'commit', 'rebalance', 'heartbeat', 'append', 'replicate', 'truncate'];

export function sampleText(length: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < length; i++) {
    const line = `2026-12-05T06:${String(i % 60).padStart(2, '0')}:00.${String((i * 37) % 1000).padStart(3, '0')}Z INFO partition-${i % 7} offset=${i * 37} key=user-${(i * 7919) % 1000} op=${WORDS[(i * 5) % WORDS.length]}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join('').slice(0, length), 'latin1');
}
