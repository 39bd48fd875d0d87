import { Writable } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import { childLogger, rootLogger, setLogLevel, type LogLevel } from '../../src/runtime/logger.js';

/** A transport that keeps what reaches it (an object-mode stream gets each line's info object). */
function captureTransport(): { transport: winston.transport; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _enc, next) {
      lines.push(info);
      next();
    },
  });
  return { transport: new winston.transports.Stream({ stream }), lines };
}

/** Meta whose formatting is counted: the JSON format calls toJSON on every object it writes. */
function countedMeta(): { meta: { detail: { toJSON(): string } }; formatted: () => number } {
  let n = 0;
  return {
    meta: { detail: { toJSON: () => `formatted ${++n}` } },
    formatted: () => n,
  };
}

describe('runtime/logger', () => {
  const before = (process.env.SAMSA_LOG_LEVEL ?? 'silent') as LogLevel;
  let capture: ReturnType<typeof captureTransport>;
  let consoleSilent: boolean | undefined;

  beforeEach(() => {
    capture = captureTransport();
    rootLogger.add(capture.transport);
    const console = rootLogger.transports.find((t) => t instanceof winston.transports.Console);
    consoleSilent = console?.silent;
    if (console) console.silent = true;
  });

  afterEach(() => {
    rootLogger.remove(capture.transport);
    const console = rootLogger.transports.find((t) => t instanceof winston.transports.Console);
    if (console) console.silent = consoleSilent;
    setLogLevel(before);
  });

  it('a call below the level is not formatted at all', () => {
    setLogLevel('warn');
    const log = childLogger({ node: 'n1', actor: '/a' });
    const c = countedMeta();
    log.debug('not wanted', c.meta);
    log.info('not wanted either', c.meta);
    expect(c.formatted()).to.equal(0);
    expect(capture.lines).to.have.length(0);
  });

  it('a call at or above the level is formatted and written with its fields', () => {
    setLogLevel('info');
    const log = childLogger({ node: 'n1', actor: '/a' });
    const c = countedMeta();
    log.info('wanted', c.meta);
    log.error('also wanted', { code: 7 });
    expect(c.formatted()).to.equal(1);
    expect(capture.lines.map((l) => [l.level, l.message, l.node, l.actor])).to.deep.equal([
      ['info', 'wanted', 'n1', '/a'],
      ['error', 'also wanted', 'n1', '/a'],
    ]);
    expect(capture.lines[1]!.code).to.equal(7);
  });

  it('silent writes nothing, and a level set later takes effect at once', () => {
    const log = childLogger({ node: 'n1' });
    setLogLevel('silent');
    const c = countedMeta();
    log.error('dropped', c.meta);
    expect(c.formatted()).to.equal(0);
    setLogLevel('debug');
    log.debug('kept', c.meta);
    expect(c.formatted()).to.equal(1);
    expect(capture.lines.map((l) => l.message)).to.deep.equal(['kept']);
  });
});
