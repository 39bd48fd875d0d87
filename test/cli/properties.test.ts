/**
 * src/cli/properties.ts: Java .properties files, the format of Kafka's client config files.
 */
import path from 'node:path';
import { expect } from 'chai';
import { parseProperties, readPropertiesFile } from '../../src/cli/properties.js';
import { scratchDir, usageErrorOf } from '../helpers/usage-errors.js';

describe('cli/properties', () => {
  let scratch: ReturnType<typeof scratchDir>;
  before(() => {
    scratch = scratchDir('samsa-props-');
  });
  after(() => scratch.remove());
  const file = (name: string, text: string): string => scratch.file(name, text);

  it('key=value, key: value and key value; blanks around the separator dropped, inside the value kept', () => {
    expect(parseProperties('a=1\nb: 2\nc 3\n  d   =   four and more  \ne=\nf\n')).to.deep.equal({ a: '1', b: '2', c: '3', d: 'four and more  ', e: '', f: '' });
    expect(parseProperties('url=http://h:1/p?x=y')).to.deep.equal({ url: 'http://h:1/p?x=y' });
    expect(parseProperties('a==b\nc=:d')).to.deep.equal({ a: '=b', c: ':d' });
  });

  it('comment lines (# and !) and blank lines are skipped; a # inside a value is kept', () => {
    expect(parseProperties('# acks=0\n  ! linger.ms=9\n\n   \nacks=all # not a comment\r\nlinger.ms=5')).to.deep.equal({ acks: 'all # not a comment', 'linger.ms': '5' });
  });

  it('a line ending in an odd number of backslashes goes on on the next, whose leading blanks go', () => {
    expect(parseProperties('list=a,\\\n    b,\\\n    c\nnext=1')).to.deep.equal({ list: 'a,b,c', next: '1' });
    // an even number: a backslash of the value, no continuation
    expect(parseProperties('path=c:\\\\\nx=1')).to.deep.equal({ path: 'c:\\', x: '1' });
    // a comment line does not continue; a continued line starting with # is not a comment
    expect(parseProperties('# a \\\nb=1\nc=\\\n#2')).to.deep.equal({ b: '1', c: '#2' });
    // a continuation at the end of the file
    expect(parseProperties('a=1\\')).to.deep.equal({ a: '1' });
  });

  it('escapes: \\t \\n \\r \\f \\uXXXX, and a backslash before anything else stands for that character', () => {
    expect(parseProperties('a=x\\ty\\nz\\r\\f\nb=\\u00e9t\\u00C9\nc\\=d=e\nf\\:g\\ h=i\nj=\\q')).to.deep.equal({ a: 'x\ty\nz\r\f', b: 'étÉ', 'c=d': 'e', 'f:g h': 'i', j: 'q' });
    expect(() => parseProperties('ok=1\nbad=\\u12x4')).to.throw("entry 2: malformed \\u escape '\\u12x4'");
  });

  it('a later line with the same key wins', () => {
    expect(parseProperties('a=1\na=2')).to.deep.equal({ a: '2' });
  });

  it('a file that is missing, a directory or malformed is a usage error naming the option and the file', () => {
    expect(readPropertiesFile('producer-config', file('ok.properties', 'acks=all\n'))).to.deep.equal({ acks: 'all' });
    const missing = path.join(scratch.dir, 'none.properties');
    expect(usageErrorOf(() => readPropertiesFile('producer-config', missing)).message).to.equal(`--producer-config ${missing}: no such file`);
    expect(usageErrorOf(() => readPropertiesFile('consumer-config', scratch.dir)).message).to.equal(`--consumer-config ${scratch.dir}: a directory, not a file`);
    const bad = file('bad.properties', 'x=\\uZZZZ');
    expect(usageErrorOf(() => readPropertiesFile('producer-config', bad)).message).to.equal(`--producer-config ${bad}: entry 1: malformed \\u escape '\\uZZZZ'`);
  });
});
