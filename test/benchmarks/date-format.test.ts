/**
 * benchmarks/lib/date-format.ts: perf-consume --date-format prints times by a
 * java.text.SimpleDateFormat pattern, as kafka-consumer-perf-test does.
 */
import { expect } from 'chai';
import { DateFormatError, KAFKA_DATE_FORMAT, compileDateFormat } from '../../benchmarks/lib/date-format.js';

describe('benchmarks/date-format', () => {
  // a Tuesday afternoon, local time
  const t = new Date(2026, 1, 3, 14, 5, 9, 7).getTime();
  const fmt = (pattern: string, at = t) => compileDateFormat(pattern)(at);

  it("Kafka's default pattern", () => {
    expect(KAFKA_DATE_FORMAT).to.equal('yyyy-MM-dd HH:mm:ss:SSS');
    expect(fmt(KAFKA_DATE_FORMAT)).to.equal('2026-02-03 14:05:09:007');
  });

  it('numbers zero-padded to the letter count, years of two digits with yy', () => {
    expect(fmt('y yy yyyy yyyyy')).to.equal('2026 26 2026 02026');
    expect(fmt('M MM d dd D DDD')).to.equal('2 02 3 03 34 034');
    expect(fmt('H HH m mm s ss S SS SSS')).to.equal('14 14 5 05 9 09 7 07 007');
    expect(fmt('u')).to.equal('2');
    expect(fmt('u', new Date(2026, 1, 1).getTime())).to.equal('7'); // a Sunday
  });

  it('names of months and days, AM/PM and the four hour fields', () => {
    expect(fmt('MMM MMMM LLL E EEE EEEE')).to.equal('Feb February Feb Tue Tue Tuesday');
    expect(fmt('h:mm a, K, k')).to.equal('2:05 PM, 2, 14');
    const midnight = new Date(2026, 1, 3, 0, 30).getTime();
    expect(fmt('hh a K kk HH', midnight)).to.equal('12 AM 0 24 00');
    const noon = new Date(2026, 1, 3, 12, 0).getTime();
    expect(fmt('h a K', noon)).to.equal('12 PM 0');
  });

  it('quoted text as it is, a doubled quote as a quote, other characters copied', () => {
    expect(fmt("yyyy-MM-dd'T'HH:mm")).to.equal('2026-02-03T14:05');
    expect(fmt("'at' H 'o''clock' ''")).to.equal("at 14 o'clock '");
    expect(fmt('[HH.mm] #1')).to.equal('[14.05] #1');
  });

  it("the local offset with Z and X", () => {
    const off = -new Date(t).getTimezoneOffset();
    const sign = off < 0 ? '-' : '+';
    const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
    const mm = String(Math.abs(off) % 60).padStart(2, '0');
    expect(fmt('Z')).to.equal(`${sign}${hh}${mm}`);
    if (off === 0) expect(fmt('X XX XXX')).to.equal('Z Z Z');
    else expect(fmt('X XX XXX')).to.equal(`${sign}${hh} ${sign}${hh}${mm} ${sign}${hh}:${mm}`);
  });

  it('refuses letters it does not print, naming them, and an unterminated quote', () => {
    expect(() => compileDateFormat('yyyy G')).to.throw(DateFormatError, `date format "yyyy G": pattern letter 'G' (era) is not supported`);
    expect(() => compileDateFormat('ww')).to.throw(DateFormatError, /'w' \(week in year\)/);
    expect(() => compileDateFormat('HH z')).to.throw(DateFormatError, /'z' \(time zone name\)/);
    expect(() => compileDateFormat('HH q')).to.throw(DateFormatError, `unknown pattern letter 'q'`);
    expect(() => compileDateFormat('XXXX')).to.throw(DateFormatError, /X repeats at most 3 times, got 4/);
    expect(() => compileDateFormat("HH 'oops")).to.throw(DateFormatError, /unterminated quote at 3/);
  });
});
