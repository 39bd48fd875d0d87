/**
 * The benchmarks' per-thread CPU report: parsing /proc, grouping threads into the main thread,
 * worker node threads and the rest, and the lines the tools print.
 */
import { expect } from 'chai';
import { STEAL_WARNING, cpuBetween, cpuPerRecords, formatCpu, formatCpuPerRecords, formatCpuShort, parseMachineStat, stealNotes, parseSchedstat, parseStat, snapshotThreads, threadSystemMs, type MachineTimes, type ThreadSample, type ThreadsSnapshot } from '../../benchmarks/lib/thread-cpu.js';

function snap(atMs: number, threads: (Omit<ThreadSample, 'sysNs'> & { sysNs?: number })[], machine: MachineTimes | null = null): ThreadsSnapshot {
  return { atMs, threads: new Map(threads.map((t) => [t.tid, { sysNs: 0, ...t }])), machine };
}

const ms = (x: number) => x * 1e6;

describe('benchmarks/thread-cpu', () => {
  it('parses a stat line whose thread name holds spaces and parentheses', () => {
    const line = '4242 (odd (name) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 731 52 0 0 20 0 9 0 123 456 789';
    expect(parseStat(line)).to.deep.equal({ name: 'odd (name) x', utime: 731, stime: 52 });
    expect(() => parseStat('garbage')).to.throw(/not a \/proc stat line/);
  });

  it("reads this thread's kernel time on Linux (null elsewhere)", () => {
    const t = threadSystemMs();
    if (process.platform === 'linux') expect(t).to.be.a('number').and.at.least(0);
    else expect(t).to.equal(null);
  });

  it('parses schedstat and refuses anything else', () => {
    expect(parseSchedstat('1234567 890 12\n')).to.deep.equal({ runNs: 1234567, waitNs: 890 });
    expect(() => parseSchedstat('x y')).to.throw(/not a schedstat line/);
  });

  it("parses /proc/stat's aggregate line: every state summed, and steal", () => {
    const text = 'cpu  1000 10 200 5000 30 0 15 45 7 0\ncpu0 500 5 100 2500 15 0 7 22 0 0\nintr 1 2 3\n';
    expect(parseMachineStat(text)).to.deep.equal({ total: 6300, steal: 45 });
    expect(() => parseMachineStat('intr 1 2')).to.throw(/no aggregate cpu line/);
    expect(() => parseMachineStat('cpu  1 2 3')).to.throw(/unexpected/);
  });

  it('groups the main thread, node threads by name and the rest, as shares of the wall time', () => {
    const a = snap(1000, [
      { tid: 10, name: 'node', runNs: ms(100), waitNs: ms(5), sysNs: ms(20) },
      { tid: 11, name: 'node', runNs: ms(50), waitNs: ms(1) },
      { tid: 12, name: 'samsa-b2', runNs: ms(10), waitNs: ms(0) },
      { tid: 13, name: 'samsa-b1', runNs: ms(20), waitNs: ms(0) },
      { tid: 14, name: 'node', runNs: ms(7), waitNs: ms(0) }, // ends before the second snapshot
    ]);
    a.machine = { total: 10_000, steal: 100 };
    const b = snap(2000, [
      { tid: 10, name: 'node', runNs: ms(900), waitNs: ms(105), sysNs: ms(320) },
      { tid: 11, name: 'node', runNs: ms(150), waitNs: ms(11) },
      { tid: 12, name: 'samsa-b2', runNs: ms(310), waitNs: ms(20), sysNs: ms(150) },
      { tid: 13, name: 'samsa-b1', runNs: ms(270), waitNs: ms(40) },
      { tid: 15, name: 'node', runNs: ms(100), waitNs: ms(9) }, // started in between: counts from zero
    ], { total: 10_200, steal: 105 });
    const r = cpuBetween(a, b, 10, 2);
    expect(r.wallMs).to.equal(1000);
    expect(r.cores).to.equal(2);
    expect(r.main).to.deep.equal({ name: 'main', cpu: 0.8, wait: 0.1, sys: 0.3 });
    expect(r.nodes.map((n) => n.sys)).to.deep.equal([0, 0.15]); // b1, b2: kernel time as a share of the wall
    expect(r.nodes.map((n) => n.name)).to.deep.equal(['b1', 'b2']);
    expect(r.nodes[0]!.cpu).to.be.closeTo(0.25, 1e-9);
    expect(r.nodes[1]!.cpu).to.be.closeTo(0.3, 1e-9);
    expect(r.other.cpu).to.be.closeTo(0.2, 1e-9);
    expect(r.other.wait).to.be.closeTo(0.019, 1e-9);
    expect(r.total).to.be.closeTo(1.55, 1e-9);
    expect(r.steal).to.be.closeTo(0.025, 1e-9);
    expect(r.nodes.map((n) => n.wait)).to.deep.equal([0.04, 0.02]); // b1, b2
    expect(formatCpu(r)).to.equal('main thread 80% (waiting for a core 10%), node threads b1 25% b2 30% (waiting for a core 4/2%), other threads 20% (waiting 2%); 1.6 of 2 cores busy; hypervisor steal 2.5%');
    expect(formatCpuShort(r)).to.equal('main 80% (wait 10%), nodes 25/30% (wait 4/2%), other 20%, steal 2.5%');
  });

  it('leaves the wait and steal out where the kernel does not say them, and node threads out where there are none', () => {
    const a = snap(0, [{ tid: 1, name: 'node', runNs: 0, waitNs: null }]);
    const b = snap(500, [{ tid: 1, name: 'node', runNs: ms(250), waitNs: null }]);
    const r = cpuBetween(a, b, 1, 4);
    expect(r.main).to.deep.equal({ name: 'main', cpu: 0.5, wait: null, sys: 0 });
    expect(r.steal).to.equal(null);
    expect(formatCpu(r)).to.equal('main thread 50%, other threads 0%; 0.5 of 4 cores busy');
    expect(formatCpuShort(r)).to.equal('main 50%, other 0%');
  });

  it('gives the CPU per 1,000 records of the client, the node threads together and the rest, and refuses a rate of zero', () => {
    const report = { wallMs: 1000, cores: 2, main: { name: 'main', cpu: 0.6, wait: 0.3, sys: 0 }, nodes: [{ name: 'b1', cpu: 0.3, wait: null, sys: 0 }, { name: 'b2', cpu: 0.25, wait: null, sys: 0 }], other: { name: 'other', cpu: 0.15, wait: null, sys: 0 }, total: 1.3, steal: 0 };
    // 3 M records/s: 0.6 of a core is 0.2 us a record, 200 us per 1,000
    const c = cpuPerRecords(report, 3_000_000);
    expect(c.main).to.be.closeTo(200, 1e-9);
    expect(c.nodes).to.be.closeTo(183.333, 1e-3);
    expect(c.other).to.be.closeTo(50, 1e-9);
    expect(cpuPerRecords(report, 3_000_000, 1_000_000).main).to.be.closeTo(200_000, 1e-6);
    expect(formatCpuPerRecords(report, 3_000_000)).to.equal('CPU per 1,000 records: main 200 us, nodes 183 us, other 50.0 us');
    // a process with no node threads (the client of a cluster elsewhere) says nothing of them
    expect(formatCpuPerRecords({ ...report, nodes: [] }, 3_000_000)).to.equal('CPU per 1,000 records: main 200 us, other 50.0 us');
    expect(() => cpuPerRecords(report, 0)).to.throw(RangeError, /positive/);
  });

  it('warns about the steps during which the hypervisor took more than 5% of the machine, and only those', () => {
    const report = (steal: number | null) => ({ wallMs: 1000, cores: 2, main: { name: 'main', cpu: 0.9, wait: 0.1, sys: 0 }, nodes: [], other: { name: 'other', cpu: 0.1, wait: null, sys: 0 }, total: 1, steal });
    expect(STEAL_WARNING).to.equal(0.05);
    expect(stealNotes([{ step: 'a', report: report(0.01) }, { step: 'b', report: null }, { step: 'c', report: report(null) }])).to.deep.equal([]);
    const notes = stealNotes([{ step: 'produce RF 1', report: report(0.187) }, { step: 'e2e', report: report(0.05) }, { step: 'consume', report: report(0.0612) }]);
    expect(notes).to.have.length(1);
    expect(notes[0]).to.contain('during: produce RF 1 (18.7%), consume (6.1%);').and.not.contain('e2e');
  });

  it('reads this process: the main thread is there and its CPU time grows while it works (Linux)', function () {
    const a = snapshotThreads();
    if (a === null) this.skip();
    expect(a.threads.has(process.pid)).to.equal(true);
    const until = performance.now() + 30;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    const b = snapshotThreads()!;
    expect(x).to.be.greaterThan(0);
    const r = cpuBetween(a, b);
    expect(r.main.cpu).to.be.greaterThan(0);
    expect(r.total).to.be.at.least(r.main.cpu);
    if (r.steal !== null) expect(r.steal).to.be.within(0, 1);
  });
});
