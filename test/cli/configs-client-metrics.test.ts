/**
 * `samsa configs` and client metrics subscriptions (kafka-configs' client-metrics, KIP-714):
 * --entity-type client-metrics with --entity-name, or --client-metrics; no default entity.
 * Against a cluster of worker-thread brokers over TCP: a subscription made with kafka-configs'
 * syntax (square brackets around lists), described in its lines, every subscription listed
 * without a name, a key deleted, the subscription gone with its last key; an unknown key, an
 * interval out of range, a bad pattern and a delete of a key not set refused (exit 2).
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { configsCommand, resolveEntity, type ConfigEntity } from '../../src/cli/commands/configs.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster } from './cli-harness.js';

const entity = (...argv: string[]): ConfigEntity => {
  const a = parseArgs(argv, configsCommand.options);
  return resolveEntity(a, a.mode(['describe', 'alter']) as 'describe' | 'alter');
};

describe('cli/commands/configs: client metrics on the command line', () => {
  it('names a subscription with --entity-type client-metrics --entity-name, or --client-metrics; every one without a name', () => {
    expect(entity('--describe', '--entity-type', 'client-metrics', '--entity-name', 'subs')).to.deep.equal({ type: 'client-metrics', name: 'subs' });
    expect(entity('--describe', '--entity-type', 'client-metrics')).to.deep.equal({ type: 'client-metrics', name: null });
    expect(entity('--alter', '--client-metrics', 'subs', '--add-config', 'interval.ms=1000')).to.deep.equal({ type: 'client-metrics', name: 'subs' });
  });

  it('refuses what cannot name a subscription', () => {
    const cases: [string[], RegExp][] = [
      [['--alter', '--entity-type', 'client-metrics', '--add-config', 'interval.ms=1000'], /--alter needs the subscription: --entity-name name \(or --client-metrics name\)/],
      [['--describe', '--entity-type', 'client-metrics', '--entity-default'], /client metrics subscriptions have no default entity/],
      [['--describe', '--client-metrics', ''], /--client-metrics needs a subscription name/],
      [['--describe', '--client-metrics', 'a', '--group', 'g'], /only one of --topic, --broker, --broker-defaults, --broker-logger, --group and --client-metrics/],
      [['--describe', '--entity-type', 'topics', '--client-metrics', 'a'], /--client-metrics names a client metrics subscription: it does not go with --entity-type topics/],
    ];
    for (const [argv, says] of cases) expect(() => entity(...argv), argv.join(' ')).to.throw(UsageError, says);
  });
});

describe('cli: configs of client metrics against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;
  const lines = (stdout: string) => stdout.split('\n').filter(Boolean);

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  it("makes, lists, changes and removes subscriptions in kafka-configs' syntax and lines", async () => {
    const made = await c.run('configs', [
      '--alter',
      '--client-metrics',
      'java',
      '--add-config',
      'metrics=[org.apache.kafka.producer.,org.apache.kafka.consumer.fetch],interval.ms=60000,match=[client_software_name=apache-kafka-java,client_id=app-.*]',
    ]);
    expect(made.code, made.stderr).to.equal(0);
    expect(made.stdout).to.equal('Completed updating config for client-metric java.\n');
    const other = await c.run('configs', ['--alter', '--entity-type', 'client-metrics', '--entity-name', 'all-of-it', '--add-config', 'metrics=*']);
    expect(other.code, other.stderr).to.equal(0);
    const one = await c.run('configs', ['--describe', '--client-metrics', 'java']);
    expect(lines(one.stdout)).to.deep.equal([
      'Dynamic configs for client-metric java are:',
      '  interval.ms=60000 sensitive=false synonyms={}',
      '  match=client_software_name=apache-kafka-java,client_id=app-.* sensitive=false synonyms={}',
      '  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.fetch sensitive=false synonyms={}',
    ]);
    const every = await c.run('configs', ['--describe', '--entity-type', 'client-metrics']);
    expect(lines(every.stdout).filter((l) => !l.startsWith('  '))).to.deep.equal(['Dynamic configs for client-metric all-of-it are:', 'Dynamic configs for client-metric java are:']);
    const del = await c.run('configs', ['--alter', '--client-metrics', 'java', '--delete-config', 'match']);
    expect(del.code, del.stderr).to.equal(0);
    expect(lines((await c.run('configs', ['--describe', '--client-metrics', 'java'])).stdout).map((l) => l.split('=')[0]!.trim())).to.deep.equal(['Dynamic configs for client-metric java are:', 'interval.ms', 'metrics']);
    const gone = await c.run('configs', ['--alter', '--client-metrics', 'all-of-it', '--delete-config', 'metrics']);
    expect(gone.code, gone.stderr).to.equal(0);
    expect(lines((await c.run('configs', ['--describe', '--entity-type', 'client-metrics'])).stdout).filter((l) => !l.startsWith('  '))).to.deep.equal(['Dynamic configs for client-metric java are:']);
  });

  it("refuses what Kafka refuses, with the controller's reason (exit 2), changing nothing", async () => {
    const cases: [string[], RegExp][] = [
      [['--add-config', 'interval.ms=10'], /Invalid value 10 for interval\.ms, interval must be between 100 and 3600000/],
      [['--add-config', 'colour=red'], /Unknown client metrics configuration: colour/],
      [['--add-config', 'match=[client_colour=red]'], /Illegal client matching pattern: client_colour=red/],
      [['--delete-config', 'match'], /Invalid config\(s\): match — not set for client-metric java/],
    ];
    for (const [argv, says] of cases) {
      const r = await c.run('configs', ['--alter', '--client-metrics', 'java', ...argv]);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(says);
    }
    expect(lines((await c.run('configs', ['--describe', '--client-metrics', 'java'])).stdout)).to.include('  interval.ms=60000 sensitive=false synonyms={}');
  });
});
