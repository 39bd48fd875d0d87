/**
 * `samsa perf-produce` and `samsa perf-consume` as a user runs them (child processes): the same
 * flags and --help as benchmarks/perf-produce.ts and perf-consume.ts, exit 2 on a bad flag, and a
 * small run of each against a throw-away one-broker cluster.
 */
import { expect } from 'chai';
import { usage } from '../../benchmarks/lib/perf-args.js';
import { CONSUME_FLAGS, PERF_CONSUME_SUMMARY } from '../../benchmarks/perf-consume.js';
import { PERF_PRODUCE_SUMMARY, PRODUCE_FLAGS } from '../../benchmarks/perf-produce.js';
import { runCli } from './cli-harness.js';

describe('cli: perf-produce and perf-consume', function () {
  this.timeout(90_000);

  it('list themselves and print the tools\' own --help, exit 0', async () => {
    const top = await runCli(['--help']);
    expect(top.stdout).to.match(/^  perf-produce /m).and.match(/^  perf-consume /m);
    const [p, c] = await Promise.all([runCli(['perf-produce', '--help']), runCli(['perf-consume', '-h'])]);
    expect(p.code).to.equal(0);
    expect(p.stdout.trimEnd()).to.equal(usage('samsa perf-produce', PERF_PRODUCE_SUMMARY, PRODUCE_FLAGS));
    expect(c.code).to.equal(0);
    expect(c.stdout.trimEnd()).to.equal(usage('samsa perf-consume', PERF_CONSUME_SUMMARY, CONSUME_FLAGS));
  });

  it('exit 2 naming the flag for a bad command line', async () => {
    const r = await runCli(['perf-produce', '--acks', '2']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/--acks must be one of 0, 1, -1, all/);
    const u = await runCli(['perf-consume', '--no-such-flag']);
    expect(u.code).to.equal(2);
    expect(u.stderr).to.match(/unknown flag --no-such-flag/);
  });

  it('run the tools with lz4 batches: sent compressed, and the consumer decompresses every record', async () => {
    const common = ['--records', '2000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', '', '--compression', 'lz4'];
    const p = await runCli(['perf-produce', ...common, '--warmup-records', '0', '--send-size', '10']);
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.match(/^2000 records sent/m).and.match(/linger\.ms \d+, lz4, CRC-32C/);
    const c = await runCli(['perf-consume', ...common]);
    expect(c.code, c.stderr).to.equal(0);
    expect(c.stdout).to.match(/^2000 records read by 1 consumer\(s\)/m).and.contain(', lz4, check.crcs true');
  });

  it('run the tools: records sent and read, with a summary table', async () => {
    const common = ['--records', '3000', '--brokers', '1', '--transport', 'inproc', '--partitions', '2', '--raw', 'false', '--json', ''];
    const p = await runCli(['perf-produce', ...common, '--warmup-records', '0', '--send-size', '10']);
    expect(p.code, p.stderr).to.equal(0);
    expect(p.stdout).to.match(/^3000 records sent, [\d.]+ k? ?records\/sec/m).and.contain('perf-produce: 1 brokers (inproc), 2 partitions');
    const c = await runCli(['perf-consume', ...common]);
    expect(c.code, c.stderr).to.equal(0);
    expect(c.stdout).to.match(/^3000 records read by 1 consumer\(s\)/m);
    // which checksum ran, so a figure can be compared with another machine's
    expect(p.stdout).to.match(/CRC-32C (hardware|node-rs|js)\b/);
    expect(c.stdout).to.match(/, none, check\.crcs true, CRC-32C (hardware|node-rs|js)\b/);
    if (process.platform === 'linux') {
      // in-process brokers: all the work is the main thread's, no node threads
      expect(p.stdout).to.match(/CPU while sending\s+main thread \d+%.*other threads \d+%; [\d.]+ of \d+ cores busy/);
      expect(c.stdout).to.match(/CPU while reading\s+main thread \d+%/);
      expect(p.stdout).to.not.contain('node threads');
    }
  });
});
