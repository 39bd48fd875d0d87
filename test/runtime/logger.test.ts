import { Writable } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import {
  childLogger,
  forgetNodeLoggers,
  loggerExists,
  loggerLevels,
  parseLoggerLevel,
  rootLogger,
  setLoggerLevel,
  setLogLevel,
  unsetLoggerLevel,
  type LogLevel,
} from '../../src/runtime/logger.js';

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
    for (const node of ['n1', 'n2', 'named']) forgetNodeLoggers(node);
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

  describe('named loggers (Kafka\'s broker loggers)', () => {
    it('an actor\'s logger is samsa.<kind>, a component\'s its parent\'s name and the component, with their ancestors', () => {
      const node = childLogger({ node: 'named', logger: 'samsa.runtime' });
      const broker = node.child({ actor: '/broker-1', kind: 'broker' });
      broker.child({ component: 'log-manager' }).child({ logDir: '/d' }).child({ component: 'log', topicPartition: 't-0' });
      childLogger({ node: 'named', component: 'topology' });
      expect(loggerLevels('named').map((l) => l.name)).to.deep.equal([
        'root',
        'samsa',
        'samsa.broker',
        'samsa.broker.log-manager',
        'samsa.broker.log-manager.log',
        'samsa.runtime',
        'samsa.topology',
      ]);
      expect(loggerExists('named', 'samsa.broker.log-manager.log')).to.equal(true);
      expect(loggerExists('named', 'samsa.controller')).to.equal(false);
      expect(loggerExists('other-node', 'samsa.broker')).to.equal(false);
      expect(loggerExists('other-node', 'root')).to.equal(true);
    });

    it('the logger field names the logger and is not written with the line', () => {
      setLogLevel('info');
      childLogger({ node: 'n1', logger: 'custom.thing', actor: '/x' }).info('hello');
      expect(capture.lines.map((l) => [l.message, l.actor, 'logger' in l])).to.deep.equal([['hello', '/x', false]]);
      expect(loggerExists('n1', 'custom.thing')).to.equal(true);
      expect(loggerExists('n1', 'custom')).to.equal(true);
    });

    it('a level set on a logger applies to it and its descendants on that node only, below and above the process level', () => {
      setLogLevel('warn');
      const replica = childLogger({ node: 'n1' }).child({ kind: 'partition-replica' });
      const log = replica.child({ component: 'log' });
      const broker = childLogger({ node: 'n1' }).child({ kind: 'broker' });
      const otherNode = childLogger({ node: 'n2' }).child({ kind: 'partition-replica' });
      expect(setLoggerLevel('n1', 'samsa.partition-replica', 'DEBUG')).to.equal(true);
      replica.debug('r');
      log.debug('l');
      broker.debug('b dropped');
      broker.warn('b');
      otherNode.debug('o dropped');
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['r', 'l', 'b']);
      expect(replica.isLevelEnabled('debug')).to.equal(true);
      expect(broker.isLevelEnabled('debug')).to.equal(false);

      capture.lines.length = 0;
      setLoggerLevel('n1', 'samsa.partition-replica.log', 'ERROR');
      log.warn('l dropped');
      log.error('l');
      replica.info('r');
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['l', 'r']);
    });

    it('a node\'s root level applies to its loggers without one of their own, over the process level', () => {
      setLogLevel('warn');
      const a = childLogger({ node: 'n1' }).child({ kind: 'broker' });
      const b = childLogger({ node: 'n2' }).child({ kind: 'broker' });
      setLoggerLevel('n1', 'root', 'INFO');
      a.info('a');
      b.info('b dropped');
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['a']);
      expect(loggerLevels('n1').find((l) => l.name === 'samsa.broker')?.level).to.equal('INFO');
      expect(loggerLevels('n2').find((l) => l.name === 'samsa.broker')?.level).to.equal('WARN');
    });

    it('OFF and FATAL silence a logger, ALL and TRACE let everything through', () => {
      setLogLevel('debug');
      const a = childLogger({ node: 'n1' }).child({ kind: 'a' });
      const b = childLogger({ node: 'n1' }).child({ kind: 'b' });
      setLoggerLevel('n1', 'samsa.a', 'OFF');
      setLoggerLevel('n1', 'samsa.b', 'FATAL');
      a.error('a dropped');
      b.error('b dropped');
      setLoggerLevel('n1', 'samsa.a', 'ALL');
      setLoggerLevel('n1', 'samsa.b', 'TRACE');
      a.silly('a');
      b.debug('b');
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['a', 'b']);
    });

    it('a logger turned up writes even when the process is silent, and nothing else does', () => {
      setLogLevel('silent');
      const replica = childLogger({ node: 'n1' }).child({ kind: 'partition-replica' });
      const broker = childLogger({ node: 'n1' }).child({ kind: 'broker' });
      setLoggerLevel('n1', 'samsa.partition-replica', 'INFO');
      const c = countedMeta();
      broker.error('dropped', c.meta);
      replica.info('kept');
      expect(c.formatted()).to.equal(0);
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['kept']);
      unsetLoggerLevel('n1', 'samsa.partition-replica');
      replica.error('dropped too');
      expect(capture.lines).to.have.length(1);
    });

    it('unsetting a level gives the logger its ancestor\'s again; root and unknown loggers cannot be unset, unknown ones not set', () => {
      setLogLevel('warn');
      const log = childLogger({ node: 'n1' }).child({ kind: 'broker' }).child({ component: 'log-manager' });
      setLoggerLevel('n1', 'samsa.broker', 'INFO');
      setLoggerLevel('n1', 'samsa.broker.log-manager', 'ERROR');
      expect(loggerLevels('n1').find((l) => l.name === 'samsa.broker.log-manager')?.level).to.equal('ERROR');
      expect(unsetLoggerLevel('n1', 'samsa.broker.log-manager')).to.equal(true);
      expect(loggerLevels('n1').find((l) => l.name === 'samsa.broker.log-manager')?.level).to.equal('INFO');
      log.info('now');
      expect(capture.lines.map((l) => l.message)).to.deep.equal(['now']);
      expect(unsetLoggerLevel('n1', 'root')).to.equal(false);
      expect(unsetLoggerLevel('n1', 'samsa.nothing')).to.equal(false);
      expect(setLoggerLevel('n1', 'samsa.nothing', 'DEBUG')).to.equal(false);
      expect(loggerExists('n1', 'samsa.nothing')).to.equal(false);
    });

    it('a node forgotten loses its loggers and their levels', () => {
      setLogLevel('warn');
      childLogger({ node: 'n1' }).child({ kind: 'broker' });
      setLoggerLevel('n1', 'samsa.broker', 'DEBUG');
      forgetNodeLoggers('n1');
      expect(loggerLevels('n1')).to.deep.equal([{ name: 'root', level: 'WARN' }]);
      const again = childLogger({ node: 'n1' }).child({ kind: 'broker' });
      again.debug('dropped');
      expect(capture.lines).to.have.length(0);
    });

    it('parses Kafka\'s level names in any case', () => {
      expect(parseLoggerLevel('debug')).to.equal('DEBUG');
      expect(parseLoggerLevel('Warn')).to.equal('WARN');
      expect(parseLoggerLevel('ALL')).to.equal('ALL');
      expect(parseLoggerLevel('verbose')).to.equal(null);
      expect(parseLoggerLevel('')).to.equal(null);
    });
  });
});
