/**
 * `samsa configs` and brokers' loggers (kafka-configs' broker-loggers, KIP-412): --entity-type
 * broker-loggers --entity-name id or --broker-logger id, always one broker by its id. Against a
 * two-broker cluster of worker-thread brokers over TCP: the loggers described in kafka-configs'
 * lines, a level set and deleted (the logger below following its ancestor), the broker's other
 * loggers and the other broker untouched; an unknown logger and a bad level refused (exit 2,
 * nothing changed).
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { configsCommand, resolveEntity, type ConfigEntity } from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster, runCli } from './cli-harness.js';

const entity = (...argv: string[]): ConfigEntity => {
  const a = parseArgs(argv, configsCommand.options);
  return resolveEntity(a, a.mode(['describe', 'alter']) as 'describe' | 'alter');
};

describe('cli/commands/configs: broker loggers on the command line', () => {
  it('names a broker\'s loggers with --entity-type broker-loggers --entity-name id, or --broker-logger id', () => {
    expect(entity('--describe', '--entity-type', 'broker-loggers', '--entity-name', '2')).to.deep.equal({ type: 'broker-loggers', name: 2 });
    expect(entity('--alter', '--broker-logger', '1', '--add-config', 'samsa.broker=DEBUG')).to.deep.equal({ type: 'broker-loggers', name: 1 });
    expect(entity('--describe', '--entity-type', 'broker-loggers', '--broker-logger', '3')).to.deep.equal({ type: 'broker-loggers', name: 3 });
  });

  it('refuses what cannot name one broker\'s loggers, as kafka-configs', () => {
    const cases: [string[], RegExp][] = [
      [['--describe', '--entity-type', 'broker-loggers'], /An entity name must be specified with --describe of broker-loggers/],
      [['--alter', '--entity-type', 'broker-loggers', '--add-config', 'root=INFO'], /An entity name must be specified with --alter of broker-loggers/],
      [['--describe', '--entity-type', 'broker-loggers', '--entity-default'], /--entity-default must not be specified with --describe of broker-loggers/],
      [['--describe', '--entity-type', 'broker-loggers', '--entity-name', 'one'], /--entity-name for broker-loggers must be a broker id \(an integer\), got 'one'/],
      [['--describe', '--broker-logger', 'x'], /--broker-logger for broker-loggers must be a broker id/],
      [['--describe', '--broker-logger', '1', '--broker', '1'], /only one of --topic, --broker, --broker-defaults, --broker-logger, --group and --client-metrics/],
      [['--describe', '--entity-type', 'brokers', '--broker-logger', '1'], /--broker-logger names a broker's loggers: it does not go with --entity-type brokers/],
      [['--describe', '--broker-logger', '1', '--user', 'alice'], /--broker-logger does not go with --user/],
    ];
    for (const [argv, says] of cases) expect(() => entity(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it('exits 2 for them before connecting, and --help shows the option', async () => {
    const r = await runCli(['configs', '--describe', '--entity-type', 'broker-loggers']);
    expect([r.code, r.stdout]).to.deep.equal([2, '']);
    expect(r.stderr).to.match(/An entity name must be specified/);
    const help = await runCli(['configs', '--help']);
    expect(help.stdout).to.contain('--broker-logger');
    expect(help.stdout).to.contain('broker-loggers');
  });
});

describe('cli: configs of broker loggers against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);
  const levels = async (broker: number) => {
    const r = await c.run('configs', ['--describe', '--broker-logger', String(broker)]);
    expect(r.code, r.stderr).to.equal(0);
    return Object.fromEntries(lines(r.stdout).slice(1).map((l) => /^ {2}([^=]+)=(\S+) /.exec(l)!.slice(1, 3)));
  };

  before(async () => {
    c = await CliCluster.start(2);
  });
  after(async () => {
    await c?.stop();
  });

  it("--describe prints kafka-configs' lines: a header, then each logger by name with the level it runs at", async () => {
    const r = await c.run('configs', ['--describe', '--entity-type', 'broker-loggers', '--entity-name', '1']);
    expect(r.code, r.stderr).to.equal(0);
    const [header, ...rest] = lines(r.stdout);
    expect(header).to.equal('Dynamic configs for broker-logger 1 are:');
    const names = rest.map((l) => /^ {2}([^=]+)=/.exec(l)![1]!);
    expect(names).to.deep.equal([...names].sort());
    expect(names).to.include.members(['root', 'samsa', 'samsa.broker', 'samsa.broker.log-manager', 'samsa.runtime']);
    expect(rest).to.include('  samsa.broker=OFF sensitive=false synonyms={}');
    const all = await c.run('configs', ['--describe', '--broker-logger', '1', '--all']);
    expect(lines(all.stdout)[0]).to.equal('All configs for broker-logger 1 are:');
    expect(lines(all.stdout).slice(1)).to.deep.equal(rest);
  });

  it("--alter sets a logger's level and the loggers below follow; --delete-config takes it away; the other broker keeps its own", async () => {
    const set = await c.run('configs', ['--alter', '--broker-logger', '1', '--add-config', 'samsa.broker=DEBUG,root=error']);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.equal('Completed updating config for broker-logger 1.\n');
    expect(await levels(1)).to.deep.include({ 'samsa.broker': 'DEBUG', 'samsa.broker.log-manager': 'DEBUG', root: 'ERROR', 'samsa.runtime': 'ERROR' });
    expect(await levels(2)).to.deep.include({ 'samsa.broker': 'OFF', root: 'OFF' });
    const d = await c.run('configs', ['--describe', '--broker-logger', '1']);
    expect(lines(d.stdout)).to.include('  samsa.broker.log-manager=DEBUG sensitive=false synonyms={}');
    const del = await c.run('configs', ['--alter', '--entity-type', 'broker-loggers', '--entity-name', '1', '--delete-config', 'samsa.broker']);
    expect(del.code, del.stderr).to.equal(0);
    expect(await levels(1)).to.deep.include({ 'samsa.broker': 'ERROR', 'samsa.broker.log-manager': 'ERROR', root: 'ERROR' });
    const back = await c.run('configs', ['--alter', '--broker-logger', '1', '--add-config', 'root=OFF']);
    expect(back.code, back.stderr).to.equal(0);
  });

  it('refuses an unknown logger, deleting root and a bad level (exit 2), changing nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['--add-config', 'samsa.broker=INFO,samsa.nothing=DEBUG'], /Invalid broker logger\(s\): samsa\.nothing — broker 1 has no such logger/],
      [['--delete-config', 'samsa.nothing'], /Invalid broker logger\(s\): samsa\.nothing/],
      [['--add-config', 'samsa.broker=LOUD'], /Cannot set the log level of samsa\.broker to LOUD as it is not a supported log level\. Valid log levels are ALL, DEBUG, ERROR, FATAL, INFO, OFF, TRACE, WARN/],
      [['--delete-config', 'root'], /Removing the log level of the root logger is not allowed/],
    ];
    for (const [argv, says] of cases) {
      const r = await c.run('configs', ['--alter', '--broker-logger', '1', ...argv]);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(says);
    }
    expect((await levels(1))['samsa.broker']).to.equal('OFF');
    const gone = await c.run('configs', ['--describe', '--broker-logger', '7']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.match(/broker 7 is not registered in the cluster/);
  });
});
