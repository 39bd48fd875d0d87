/**
 * The perf tools' helpers: flag parsing (Kafka-style names and counts), latency percentiles,
 * the SVG summary chart, and the progress bar.
 */
import { expect } from 'chai';
import { FlagError, flagOptions, parseAcks, parseCount, parseFlags, usage } from '../../benchmarks/lib/perf-args.js';
import { LatencyRecorder, percentile, summarize } from '../../benchmarks/lib/latency.js';
import { escapeXml, renderBarChart } from '../../benchmarks/lib/svg-chart.js';
import { progress, progressBar } from '../../benchmarks/lib/perf-common.js';
import { checkFor } from '../helpers/check-for.js';
import { E2E_FLAGS, e2eProgressLine, kafkaE2eArgv } from '../../benchmarks/perf-e2e.js';
import { benchHeapGrowingPercent, perfTopology } from '../../benchmarks/lib/perf-cluster.js';
import { BROKER_HEAP_GROWING_PERCENT, V8_DEFAULT_HEAP_GROWING } from '../../src/runtime/heap-growth.js';
import { benchWarmupMs, envNumber, medianBy } from '../../benchmarks/lib/timing.js';
import { MIN_BYTES_PER_GIB_FIGURE, brokerKernelMsPerGiB } from '../../benchmarks/perf-produce.js';
import type { CpuReport } from '../../benchmarks/lib/thread-cpu.js';

const specs = {
  records: { type: 'int', default: 10, min: 1, help: 'n' },
  throughput: { type: 'number', default: -1, help: 'rate' },
  acks: { type: 'string', default: '1', choices: ['0', '1', '-1', 'all'], help: 'acks' },
  raw: { type: 'bool', default: true, help: 'raw' },
} as const;

describe('benchmarks/perf helpers', () => {
  it("perf-e2e's running line says it is warming up until measured records arrive (no NaN figures)", () => {
    const lat = new LatencyRecorder();
    const warming = e2eProgressLine(1_000, 400_000, 200_000, lat);
    expect(warming).to.equal('1000 of 400000 records received; warming up (the first 200000 are not measured)');
    expect(e2eProgressLine(200_000, 400_000, 200_000, lat)).to.contain('warming up');
    lat.record(1.5);
    lat.record(2.5);
    const measuring = e2eProgressLine(200_002, 400_000, 200_000, lat);
    expect(measuring).to.match(/^200002 of 400000 records received; avg 2\.00 ms, p50 /);
    expect(measuring).not.to.contain('NaN');
  });

  it("runs the brokers' heap growth (samsa start's) unless SAMSA_HEAP_GROWING_PERCENT says otherwise, and refuses a bad value", () => {
    const saved = process.env.SAMSA_HEAP_GROWING_PERCENT;
    try {
      delete process.env.SAMSA_HEAP_GROWING_PERCENT;
      expect(benchHeapGrowingPercent()).to.equal(BROKER_HEAP_GROWING_PERCENT);
      expect(perfTopology({}, 'data').runtime?.heapGrowingPercent).to.equal(BROKER_HEAP_GROWING_PERCENT);
      expect(perfTopology({ heapGrowingPercent: 150 }, 'data').runtime?.heapGrowingPercent).to.equal(150);
      process.env.SAMSA_HEAP_GROWING_PERCENT = 'v8';
      expect(benchHeapGrowingPercent()).to.equal(V8_DEFAULT_HEAP_GROWING);
      process.env.SAMSA_HEAP_GROWING_PERCENT = '120';
      expect(perfTopology({}, 'data').runtime?.heapGrowingPercent).to.equal(120);
      for (const bad of ['lots', '-5', '1.5']) {
        process.env.SAMSA_HEAP_GROWING_PERCENT = bad;
        expect(() => benchHeapGrowingPercent(), bad).to.throw(/SAMSA_HEAP_GROWING_PERCENT/);
      }
    } finally {
      if (saved === undefined) delete process.env.SAMSA_HEAP_GROWING_PERCENT;
      else process.env.SAMSA_HEAP_GROWING_PERCENT = saved;
    }
  });

  it("warms the suite up for 6 s unless SAMSA_BENCH_WARMUP_MS says otherwise, and refuses a bad value", () => {
    expect(benchWarmupMs(undefined)).to.equal(6_000);
    expect(benchWarmupMs('')).to.equal(6_000);
    expect(benchWarmupMs('0')).to.equal(0);
    expect(benchWarmupMs('2500')).to.equal(2_500);
    for (const bad of ['-1', 'soon', 'NaN', 'Infinity']) expect(() => benchWarmupMs(bad)).to.throw(/SAMSA_BENCH_WARMUP_MS expects/);
  });

  it('reads a numeric benchmark setting: its fallback when unset, its bounds and integrality enforced by name', () => {
    const entries = { fallback: 6, min: 1, integer: true, expects: 'a positive integer' };
    expect(envNumber('SAMSA_BENCH_ENTRIES', undefined, entries)).to.equal(6);
    expect(envNumber('SAMSA_BENCH_ENTRIES', '', entries)).to.equal(6);
    expect(envNumber('SAMSA_BENCH_ENTRIES', '20', entries)).to.equal(20);
    for (const bad of ['0', '2.5', '-3', 'many']) expect(() => envNumber('SAMSA_BENCH_ENTRIES', bad, entries)).to.throw(`SAMSA_BENCH_ENTRIES expects a positive integer, got '${bad}'`);
  });

  it('finds the run behind a median: the middle one by key, the lower middle for an even count', () => {
    const runs = [{ id: 'a', v: 5 }, { id: 'b', v: 1 }, { id: 'c', v: 9 }, { id: 'd', v: 3 }, { id: 'e', v: 7 }];
    expect(medianBy(runs, (r) => r.v)?.id).to.equal('a');
    expect(medianBy(runs.slice(0, 4), (r) => r.v)?.id).to.equal('d');
    expect(medianBy([], (r: { v: number }) => r.v)).to.equal(undefined);
    expect(runs.map((r) => r.id).join('')).to.equal('abcde');
  });

  it('parses flags with spaces or =, counts with suffixes, and defaults', () => {
    const f = parseFlags(['--records', '2M', '--throughput=50k', '--acks', 'all', '--raw', 'false'], specs);
    expect(f).to.include({ records: 2_000_000, throughput: 50_000, acks: 'all', raw: false, help: false });
    expect(parseFlags([], specs)).to.include({ records: 10, throughput: -1, acks: '1', raw: true });
    expect(parseFlags(['--raw'], specs).raw).to.equal(true);
    expect(parseFlags(['--help'], specs).help).to.equal(true);
    expect(parseCount('1_000_000')).to.equal(1_000_000);
    expect(parseCount('1e6')).to.equal(1_000_000);
    expect(parseAcks('all')).to.equal(-1);
  });

  it("takes list flags as Kafka's perf tools do: the values up to the next flag, or one with =, repeatable", () => {
    const lists = { props: { type: 'list', default: [], help: 'p' }, n: { type: 'int', default: 1, help: 'n' }, d: { type: 'list', default: ['x=1'], help: 'd' } } as const;
    expect(parseFlags(['--props', 'a=1', 'b=2', '--n', '3'], lists)).to.deep.include({ props: ['a=1', 'b=2'], n: 3, d: ['x=1'] });
    expect(parseFlags(['--props=a=1', '--props', 'b=2'], lists).props).to.deep.equal(['a=1', 'b=2']);
    // given, a list replaces its default
    expect(parseFlags(['--d', 'y=2'], lists).d).to.deep.equal(['y=2']);
    expect(parseFlags([], lists).props).to.deep.equal([]);
    expect(() => parseFlags(['--props'], lists)).to.throw(FlagError, /--props needs a value/);
    expect(() => parseFlags(['--props', '--n', '1'], lists)).to.throw(FlagError, /--props needs a value/);
    expect(usage('t', 's', lists)).to.contain('--props   p [default: none]').and.contain('[default: x=1]');
  });

  it('says which flags were given, a default taken or not', () => {
    expect([...parseFlags(['--records', '10', '--raw=false'], specs).given].sort()).to.deep.equal(['raw', 'records']);
    expect(parseFlags([], specs).given.size).to.equal(0);
    // a results file gets the values alone
    const values = flagOptions(parseFlags(['--records', '10'], specs));
    expect(values).to.include({ records: 10, throughput: -1, acks: '1', raw: true });
    expect(values).to.not.have.any.keys('help', 'given');
    // an empty string default reads as none in the usage
    expect(usage('t', 's', { where: { type: 'string', default: '', help: 'h' } })).to.contain('--where   h [default: none]');
  });

  it('rejects unknown flags, bad values and missing values, naming the flag', () => {
    expect(() => parseFlags(['--nope', '1'], specs)).to.throw(FlagError, /--nope/);
    expect(() => parseFlags(['--records', 'x'], specs)).to.throw(FlagError, /--records/);
    expect(() => parseFlags(['--records', '0'], specs)).to.throw(FlagError, />= 1/);
    expect(() => parseFlags(['--records', '1.5'], specs)).to.throw(FlagError, /integer/);
    expect(() => parseFlags(['--acks', '2'], specs)).to.throw(FlagError, /one of/);
    expect(() => parseFlags(['--records'], specs)).to.throw(FlagError, /needs a value/);
    expect(() => parseFlags(['records'], specs)).to.throw(FlagError, /unexpected/);
  });

  it("takes Kafka's spelling of a flag as the flag itself, once, and says so in the usage", () => {
    const kafka = { records: { type: 'int', default: 10, min: 1, kafka: ['num-records'], help: 'r' }, config: { type: 'string', default: '', kafka: ['producer.config', 'command-config'], help: 'c' } } as const;
    const f = parseFlags(['--num-records', '2k', '--producer.config=p.properties'], kafka);
    expect(f).to.include({ records: 2000, config: 'p.properties' });
    expect([...f.given].sort()).to.deep.equal(['config', 'records']);
    // Kafka 4.2's newer name too
    expect(parseFlags(['--command-config', 'q.properties'], kafka).config).to.equal('q.properties');
    // one spelling twice: the last wins, as for any flag; two spellings: refused
    expect(parseFlags(['--num-records', '1', '--num-records', '3'], kafka).records).to.equal(3);
    expect(() => parseFlags(['--records', '1', '--num-records', '3'], kafka)).to.throw(FlagError, "--records and --num-records are the same flag (--num-records is Kafka's name for --records): give one");
    expect(() => parseFlags(['--producer.config', 'a', '--command-config', 'b'], kafka)).to.throw(FlagError, "--producer.config and --command-config are the same flag (--producer.config and --command-config are Kafka's names for --config): give one");
    expect(() => parseFlags(['--num-records', '0'], kafka)).to.throw(FlagError, '--records must be >= 1, got 0');
    expect(usage('t', 's', kafka)).to.contain("--records   r (also --num-records: Kafka's name) [default: 10]").and.contain("(also --producer.config, --command-config: Kafka's names)");
  });

  it("reads kafka-e2e-latency's positional command line as perf-e2e's flags, flags after it kept", () => {
    expect(kafkaE2eArgv(['h:1', 't', '500', 'all', '64', '--raw', 'false'])).to.deep.equal(['--sequential', '--bootstrap-server', 'h:1', '--topic', 't', '--records', '500', '--acks', 'all', '--record-size', '64', '--warmup-fraction', '0', '--raw', 'false']);
    expect(kafkaE2eArgv(['--records', '5'])).to.deep.equal(['--records', '5']);
    expect(kafkaE2eArgv([])).to.deep.equal([]);
    expect(() => kafkaE2eArgv(['h:1', 't'])).to.throw(FlagError, 'got 2 arguments before the flags');
    expect(() => kafkaE2eArgv(['h:1', 't', '1', 'all', '64', 'p.properties', 'x'])).to.throw(FlagError, 'got 7 arguments before the flags');
    // Kafka's sixth, a properties file for both clients, is --client-config
    expect(kafkaE2eArgv(['h:1', 't', '1', 'all', '64', 'p.properties', '--raw', 'false']).slice(-4)).to.deep.equal(['--client-config', 'p.properties', '--raw', 'false']);
    // a value it takes is checked as the flag checks it
    expect(() => parseFlags(kafkaE2eArgv(['h:1', 't', '500', 'most', '64']), E2E_FLAGS)).to.throw(FlagError, "--acks must be one of 0, 1, -1, all, got 'most'");
  });

  it('takes a true/false flag bare, followed by true or false, or with =true / =false, and nothing else', () => {
    expect(parseFlags(['--raw=false'], specs).raw).to.equal(false);
    expect(parseFlags(['--raw', 'true'], specs).raw).to.equal(true);
    expect(() => parseFlags(['--raw=no'], specs)).to.throw(FlagError, "--raw is true or false, got 'no'");
  });

  it('computes nearest-rank percentiles', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => 1000 - i); // 1..1000 reversed
    const s = summarize(xs);
    expect(s).to.include({ count: 1000, p50: 500, p95: 950, p99: 990, p999: 999, max: 1000 });
    expect(s.avg).to.equal(500.5);
    expect(percentile([], 0.5)).to.be.NaN;
  });

  it('keeps every sample whatever capacity it was sized for (past it, it grows)', () => {
    for (const capacity of [1, 10, 1000, 5000]) {
      const rec = new LatencyRecorder(capacity);
      for (let i = 1000; i >= 1; i--) rec.record(i);
      expect(rec.summary(), `capacity ${capacity}`).to.include({ count: 1000, p50: 500, p99: 990, max: 1000 });
    }
  });

  it('approximates percentiles from its histogram to within 1% (progress lines do not sort)', () => {
    const rec = new LatencyRecorder();
    expect(rec.approximate().p50).to.be.NaN;
    for (let i = 1; i <= 10_000; i++) rec.record(i / 100); // 0.01 .. 100 ms
    const exact = rec.summary();
    const approx = rec.approximate();
    expect(approx.count).to.equal(10_000);
    expect(approx.max).to.equal(exact.max);
    expect(approx.avg).to.be.closeTo(exact.avg, 1e-9);
    for (const k of ['p50', 'p95', 'p99', 'p999'] as const) {
      expect(approx[k], k).to.be.at.least(exact[k] * 0.99).and.at.most(exact[k] * 1.0101);
    }
    const tiny = new LatencyRecorder();
    tiny.record(0);
    tiny.record(0.0001);
    expect(tiny.approximate().p99).to.be.at.most(0.0001);
  });

  it('renders a well-formed SVG bar chart with escaped labels and statuses', () => {
    const svg = renderBarChart('t <1>', [
      { label: 'a & b', ratio: 0.5, status: 'MISS', note: '500 k' },
      { label: 'c', ratio: 2, status: 'PASS', note: '2 M' },
      { label: 'd', ratio: Number.NaN, status: 'info', note: '-' },
    ]);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).to.equal(true);
    expect(svg.trimEnd().endsWith('</svg>')).to.equal(true);
    expect(svg).to.include('t &lt;1&gt;').and.include('a &amp; b').and.include('MISS 50%').and.include('PASS 200%');
    expect(svg).to.not.include('NaN');
    expect((svg.match(/<rect /g) ?? []).length).to.equal(4); // background + 3 bars
    expect(escapeXml(`"'`)).to.equal('&quot;&apos;');
  });

  it('draws a progress bar of fixed width, clamped to 0-100%', () => {
    expect(progressBar(0, 10)).to.equal('[..........]   0%');
    expect(progressBar(0.47, 10)).to.equal('[#####.....]  47%');
    expect(progressBar(1, 10)).to.equal('[##########] 100%');
    expect(progressBar(1.7, 10)).to.equal('[##########] 100%');
    expect(progressBar(-1, 10)).to.equal('[..........]   0%');
    expect(progressBar(Number.NaN, 4)).to.equal('[....]   0%');
    expect(progressBar(0.5)).to.have.length(24 + 2 + 5);
  });

  it('on a terminal redraws one line in place and erases it when stopped; elsewhere prints lines', async () => {
    let done = 0;
    const tty: string[] = [];
    const stopTty = progress('p', () => `${done} done`, { fraction: () => done / 4, out: { write: (t) => tty.push(t), isTTY: true }, everyMs: 5 });
    await checkFor(() => tty.length >= 1, 5_000, 5);
    done = 2;
    await checkFor(() => tty.some((t) => t.includes('2 done')), 5_000, 5);
    stopTty();
    const drawn = tty.slice(0, -1);
    expect(drawn.every((t) => t.startsWith('\r\x1b[2K[p] [') && !t.includes('\n'))).to.equal(true);
    expect(drawn.find((t) => t.includes('2 done'))).to.contain(`${progressBar(0.5)} 2 done`);
    expect(tty[tty.length - 1]).to.equal('\r\x1b[2K');
    const count = tty.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(tty.length).to.equal(count);

    const log: string[] = [];
    const stopLog = progress('q', () => 'working', { out: { write: (t) => log.push(t) }, everyMs: 5 });
    await checkFor(() => log.length >= 2, 5_000, 5);
    stopLog();
    expect(log.every((t) => t === '[q] working\n')).to.equal(true);
  });

  it("the brokers' kernel time per GiB: their kernel shares times the wall time over the GiB sent; none for a run of few bytes", () => {
    const share = (name: string, sys: number) => ({ name, cpu: sys * 2, wait: 0, sys });
    const cpu: CpuReport = { wallMs: 1_000, cores: 2, main: share('main', 0), nodes: [share('b1', 0.1), share('b2', 0.2)], other: share('other', 0), total: 1, steal: null };
    // 0.3 of a core over 1 s = 300 ms, for half a GiB: 600 ms per GiB
    expect(brokerKernelMsPerGiB({ cpu, bytes: 512 * 1024 * 1024 })).to.be.closeTo(600, 1e-9);
    expect(brokerKernelMsPerGiB({ cpu, bytes: MIN_BYTES_PER_GIB_FIGURE - 1 })).to.equal(null);
    expect(brokerKernelMsPerGiB({ cpu: null, bytes: 512 * 1024 * 1024 })).to.equal(null);
    expect(brokerKernelMsPerGiB({ cpu: { ...cpu, nodes: [] }, bytes: 512 * 1024 * 1024 })).to.equal(null);
  });
});
