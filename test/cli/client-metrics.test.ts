/**
 * `samsa client-metrics` (Kafka's kafka-client-metrics, KIP-714): the command line checked as
 * Kafka's tool checks it (exactly one action, --name or --generate-name with --alter, --name with
 * --delete, an integer interval), what --alter sets and removes, describe's keys at their
 * defaults; then against a cluster: a subscription made, listed, described, changed (a key
 * removed with an empty value), refused (an interval out of range: Kafka's error line, exit 1)
 * and deleted, in Kafka's lines.
 */
import { expect } from 'chai';
import { parseArgs } from '../../src/cli/args.js';
import { alterPlan, checkArgs, clientMetricsCommand, describedKeys } from '../../src/cli/commands/client-metrics.js';
import { UsageError } from '../../src/cli/errors.js';
import { CliCluster } from './cli-harness.js';

const check = (...argv: string[]) => checkArgs(parseArgs(argv, clientMetricsCommand.options));

describe('cli/commands/client-metrics: the command line', () => {
  it('takes exactly one action', () => {
    expect(check('--list')).to.equal('list');
    expect(check('--describe')).to.equal('describe');
    expect(check('--describe', '--name', 'a')).to.equal('describe');
    expect(check('--alter', '--name', 'a', '--interval', '1000')).to.equal('alter');
    expect(check('--alter', '--generate-name', '--metrics', 'org.apache.kafka.')).to.equal('alter');
    expect(check('--delete', '--name', 'a')).to.equal('delete');
    for (const argv of [[], ['--list', '--describe'], ['--alter', '--delete', '--name', 'a']]) {
      expect(() => check(...argv), argv.join(' ')).to.throw(UsageError, 'Command must include exactly one action: --alter, --delete, --describe or --list.');
    }
  });

  it("refuses what Kafka's tool refuses", () => {
    const cases: [string[], string | RegExp][] = [
      [['--alter', '--interval', '1000'], 'One of --name or --generate-name must be specified with --alter.'],
      [['--alter', '--name', 'a', '--generate-name'], 'One of --name or --generate-name must be specified with --alter.'],
      [['--delete'], 'A client metrics resource name must be specified with --delete.'],
      [['--list', '--name', 'a'], /--name goes with --alter or --delete or --describe, not with --list/],
      [['--describe', '--metrics', 'x'], /--metrics goes with --alter, not with --describe/],
      [['--delete', '--name', 'a', '--interval', '5'], /--interval goes with --alter, not with --delete/],
      [['--describe', '--name', ' '], /--name needs a client metrics resource name/],
    ];
    for (const [argv, says] of cases) expect(() => check(...argv), argv.join(' ')).to.throw(UsageError, says);
  });

  it('--alter sets the keys given and removes those given empty; the interval must be an integer', () => {
    expect(alterPlan({ interval: '60000', metrics: ['org.apache.kafka.producer.', 'org.apache.kafka.consumer.'], match: ['client_id=app-.*'] })).to.deep.equal({
      set: { 'interval.ms': '60000', metrics: 'org.apache.kafka.producer.,org.apache.kafka.consumer.', match: 'client_id=app-.*' },
      delete: [],
    });
    expect(alterPlan({ interval: '', metrics: [''] })).to.deep.equal({ set: {}, delete: ['interval.ms', 'metrics'] });
    expect(alterPlan({})).to.deep.equal({ set: {}, delete: [] });
    expect(() => alterPlan({ interval: '1m' })).to.throw(UsageError, 'Invalid interval value. Enter an integer, or leave empty to reset.');
  });

  it('describe gives every key, those not set at their defaults', () => {
    expect(describedKeys({ metrics: 'org.apache.kafka.' })).to.deep.equal([
      ['interval.ms', '300000'],
      ['match', ''],
      ['metrics', 'org.apache.kafka.'],
    ]);
  });
});

describe('cli: client-metrics against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  it("makes, lists, describes, changes and deletes a subscription in Kafka's lines", async () => {
    const made = await c.run('client-metrics', ['--alter', '--name', 'producers', '--metrics', 'org.apache.kafka.producer.,org.apache.kafka.consumer.fetch', '--interval', '60000', '--match', 'client_software_name=samsa,client_id=app-.*']);
    expect(made.code, made.stderr).to.equal(0);
    expect(made.stdout).to.equal('Altered client metrics config for producers.\n');

    const generated = await c.run('client-metrics', ['--alter', '--generate-name', '--metrics', '*']);
    expect(generated.code, generated.stderr).to.equal(0);
    const uuid = /^Altered client metrics config for ([0-9a-f-]{36})\.\n$/.exec(generated.stdout)?.[1];
    expect(uuid, generated.stdout).to.be.a('string');

    const listed = await c.run('client-metrics', ['--list']);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout.split('\n').filter(Boolean).sort()).to.deep.equal(['producers', uuid!].sort());

    const described = await c.run('client-metrics', ['--describe', '--name', 'producers']);
    expect(described.code, described.stderr).to.equal(0);
    expect(described.stdout).to.equal(
      'Client metrics configs for producers are:\n  interval.ms=60000\n  match=client_software_name=samsa,client_id=app-.*\n  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.fetch\n',
    );
    const missing = await c.run('client-metrics', ['--describe', '--name', 'nobody']);
    expect(missing.code, missing.stderr).to.equal(0);
    expect(missing.stdout).to.equal("The client metric resource nobody doesn't exist and doesn't have dynamic config.\n");

    // an empty value removes the key: the interval is back at its default
    const reset = await c.run('client-metrics', ['--alter', '--name', 'producers', '--interval', '']);
    expect(reset.code, reset.stderr).to.equal(0);
    expect((await c.run('client-metrics', ['--describe', '--name', 'producers'])).stdout).to.contain('  interval.ms=300000\n');

    const refused = await c.run('client-metrics', ['--alter', '--name', 'producers', '--interval', '5']);
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.match(/^Error while executing client metrics command : .*interval/);
    expect((await c.run('client-metrics', ['--describe', '--name', 'producers'])).stdout).to.contain('  interval.ms=300000\n');

    for (const name of ['producers', uuid!]) {
      const deleted = await c.run('client-metrics', ['--delete', '--name', name]);
      expect(deleted.code, deleted.stderr).to.equal(0);
      expect(deleted.stdout).to.equal(`Deleted client metrics config for ${name}.\n`);
    }
    expect((await c.run('client-metrics', ['--list'])).stdout.trim()).to.equal('');
    // what configs shows is the same subscriptions
    expect((await c.run('configs', ['--describe', '--entity-type', 'client-metrics'])).stdout).to.equal('');
  });
});
