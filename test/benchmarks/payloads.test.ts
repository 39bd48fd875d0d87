/**
 * benchmarks/lib/payloads.ts: --payload-file, --payload-delimiter and --payload-monotonic, as
 * kafka-producer-perf-test takes them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MonotonicPayloads, PayloadPicker, parseDelimiter, readPayloadFile, splitPayloads } from '../../benchmarks/lib/payloads.js';

const strings = (bs: Buffer[]) => bs.map((b) => b.toString('utf8'));

describe('benchmarks/payloads', () => {
  it('splits at the delimiter, dropping empty pieces (a trailing newline, blank lines)', () => {
    expect(strings(splitPayloads(Buffer.from('a\nbb\n\nccc\n'), '\n'))).to.deep.equal(['a', 'bb', 'ccc']);
    expect(strings(splitPayloads(Buffer.from('x||y||'), '||'))).to.deep.equal(['x', 'y']);
    expect(strings(splitPayloads(Buffer.from('no delimiter'), '\n'))).to.deep.equal(['no delimiter']);
    expect(splitPayloads(Buffer.alloc(0), '\n')).to.deep.equal([]);
  });

  it('reads the delimiter as typed: \\n, \\r, \\t and \\\\ escapes, anything else as it is', () => {
    expect(parseDelimiter('\\n')).to.equal('\n');
    expect(parseDelimiter('\\r\\n')).to.equal('\r\n');
    expect(parseDelimiter('\\t')).to.equal('\t');
    expect(parseDelimiter('\\\\')).to.equal('\\');
    expect(parseDelimiter('|')).to.equal('|');
    expect(parseDelimiter('\\x')).to.equal('\\x');
    expect(() => parseDelimiter('')).to.throw(/cannot be empty/);
  });

  it('reads a file, and refuses a missing or empty one naming it (usage errors)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-payloads-'));
    try {
      const file = path.join(dir, 'p.txt');
      fs.writeFileSync(file, '{"a":1}\n{"b":2}\n');
      expect(strings(readPayloadFile(file, '\n'))).to.deep.equal(['{"a":1}', '{"b":2}']);
      fs.writeFileSync(file, '\n\n');
      const empty = (() => { try { readPayloadFile(file, '\n'); } catch (e) { return e as Error; } return null; })();
      expect(empty?.name).to.equal('UsageError');
      expect(empty?.message).to.equal(`--payload-file ${file}: no payloads in it (empty, or only delimiters)`);
      expect(() => readPayloadFile(path.join(dir, 'missing.txt'), '\n')).to.throw(/missing\.txt: no such file/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('picks every payload in time and counts the bytes handed out', () => {
    const picker = new PayloadPicker([Buffer.from('a'), Buffer.from('bbb')]);
    expect(picker.meanSize()).to.equal(2);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) seen.add(picker.next().toString());
    expect([...seen].sort()).to.deep.equal(['a', 'bbb']);
    expect(picker.bytes).to.be.within(200, 600);
  });

  it('--payload-monotonic: the numbers from 0 as decimal text, counting on across a reset of the byte count', () => {
    const values = new MonotonicPayloads();
    expect(values.meanSize()).to.equal(1);
    expect(Array.from({ length: 12 }, () => values.next().toString())).to.deep.equal(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(values.bytes).to.equal(14);
    expect(values.meanSize()).to.be.closeTo(14 / 12, 1e-9);
    values.resetCounts();
    expect(values.bytes).to.equal(0);
    expect(values.meanSize()).to.equal(2);
    for (let i = 12; i < 100; i++) expect(values.next().toString()).to.equal(String(i));
    expect(values.next().toString()).to.equal('100');
    expect(values.bytes).to.equal(88 * 2 + 3);
  });

  it('resetCounts starts a picker\'s byte count afresh', () => {
    const picker = new PayloadPicker([Buffer.from('xyz')]);
    picker.next();
    picker.resetCounts();
    expect(picker.bytes).to.equal(0);
    picker.next();
    expect(picker.bytes).to.equal(3);
  });
});
