/**
 * KIP-848 topic regular expressions (topic-regex.ts): RE2J's syntax matched against whole topic
 * names on the linear-time engine, the constructs RE2J refuses refused with its descriptions, and
 * Kafka's message for them.
 */
import { expect } from 'chai';
import { compileTopicRegex, invalidRegexMessage } from '../../../actors/group-coordinator/topic-regex.js';

describe('actors/group-coordinator topic-regex', () => {
  function matcher(regex: string): (topic: string) => boolean {
    const c = compileTopicRegex(regex);
    if (!c.ok) throw new Error(`${regex}: ${c.description}`);
    return (t) => c.matches(t);
  }
  const refusal = (regex: string) => {
    const c = compileTopicRegex(regex);
    return c.ok ? null : c.description;
  };
  const matching = (regex: string, topics: string[]) => topics.filter(matcher(regex));

  it('matches the whole topic name, as RE2J matches() does', () => {
    expect(matching('orders', ['orders', 'orders-v2', 'reorders'])).to.deep.equal(['orders']);
    expect(matching('orders.*', ['orders', 'orders-v2', 'reorders'])).to.deep.equal(['orders', 'orders-v2']);
    expect(matching('.*orders', ['orders', 'orders-v2', 'reorders'])).to.deep.equal(['orders', 'reorders']);
    expect(matching('^a|b$', ['a', 'b', 'ab'])).to.deep.equal(['a', 'b']);
    expect(matching('\\Aab\\z', ['ab', 'abc'])).to.deep.equal(['ab']);
  });

  it("takes RE2J's syntax: classes, POSIX classes, counted repeats, named groups, \\Q...\\E, hex escapes", () => {
    expect(matching('[a-c]+[0-9]', ['ab1', 'ad1', 'b'])).to.deep.equal(['ab1']);
    expect(matching('[^-.]+', ['a_b', 'a-b', 'a.b'])).to.deep.equal(['a_b']);
    expect(matching('[]x]+', [']x', 'y'])).to.deep.equal([']x']);
    expect(matching('[[:digit:]]+', ['123', '12a'])).to.deep.equal(['123']);
    expect(matching('[[:^digit:]]+', ['abc', 'a1'])).to.deep.equal(['abc']);
    expect(matching('x{2,3}', ['x', 'xx', 'xxx', 'xxxx'])).to.deep.equal(['xx', 'xxx']);
    expect(matching('a{,2}', ['a{,2}', 'aa'])).to.deep.equal(['a{,2}']);
    expect(matching('(?P<env>prod|test)-(?<app>\\w+)', ['prod-a', 'dev-a'])).to.deep.equal(['prod-a']);
    expect(matching('\\Qa.b\\E', ['a.b', 'axb'])).to.deep.equal(['a.b']);
    expect(matching('\\x{41}\\x42\\.', ['AB.', 'AB_'])).to.deep.equal(['AB.']);
  });

  it('folds ASCII case under (?i), for the whole expression or a group', () => {
    expect(matching('(?i)ORDERS-[a-c]+', ['orders-ab', 'ORDERS-AB', 'Orders-d'])).to.deep.equal(['orders-ab', 'ORDERS-AB']);
    expect(matching('a(?i:b)c', ['abc', 'aBc', 'ABC'])).to.deep.equal(['abc', 'aBc']);
    expect(matching('a(?i)b(?-i)c', ['aBc', 'aBC'])).to.deep.equal(['aBc']);
    expect(matching('(?s)a.b', ['a_b'])).to.deep.equal(['a_b']);
  });

  it('refuses backreferences, lookahead and lookbehind with RE2J\'s descriptions', () => {
    expect(refusal('(a)\\1')).to.equal('invalid escape sequence');
    expect(refusal('(?<n>a)\\k<n>')).to.equal('invalid escape sequence');
    expect(refusal('a(?=b)')).to.equal('invalid or unsupported Perl syntax');
    expect(refusal('a(?!b)')).to.equal('invalid or unsupported Perl syntax');
    expect(refusal('(?<=a)b')).to.equal('invalid or unsupported Perl syntax');
    expect(refusal('(?<!a)b')).to.equal('invalid or unsupported Perl syntax');
    expect(refusal('(?P<x>a)(?P=x)')).to.equal('invalid or unsupported Perl syntax');
  });

  it('refuses malformed expressions as RE2J does', () => {
    expect(refusal('(')).to.equal('missing closing )');
    expect(refusal('a)')).to.equal('unexpected )');
    expect(refusal('[a')).to.equal('missing closing ]');
    expect(refusal('*a')).to.equal('missing argument to repetition operator');
    expect(refusal('a{2,1}')).to.equal('invalid repeat count');
    expect(refusal('a{1001}')).to.equal('invalid repeat count');
    expect(refusal('[z-a]')).to.equal('invalid character class range');
    expect(refusal('[[:nope:]]')).to.equal('invalid character class range');
    expect(refusal('a\\')).to.equal('trailing backslash at end of expression');
    expect(refusal('\\e')).to.equal('invalid escape sequence');
    expect(refusal('(?<n>a)(?<n>b)')).to.equal('duplicate capture group name');
    expect(refusal('\\pL')).to.equal('Unicode character classes are not supported');
  });

  it('matches in linear time: an expression that would backtrack for ever answers at once', () => {
    const started = Date.now();
    expect(matcher('(a+)+b')('a'.repeat(249))).to.equal(false);
    expect(matcher('(a|aa)*c')('a'.repeat(249))).to.equal(false);
    expect(Date.now() - started).to.be.lessThan(1_000);
  });

  it("words the refusal as Kafka's coordinator does", () => {
    expect(invalidRegexMessage('(', 'missing closing )')).to.equal('SubscribedTopicRegex `(` is not a valid regular expression: missing closing ).');
  });
});
