/**
 * Where a benchmark's CPU went, thread by thread (Linux: /proc/self/task). Two snapshots taken
 * around the measured stretch of a run give each thread's CPU time in between, grouped as
 *   - the main thread (the client: producers, consumers, the benchmark's own loop; with
 *     --transport inproc the brokers as well),
 *   - each worker node's thread (named `samsa-<node id>` by the worker transport),
 *   - everything else (V8's helper threads, which mark and sweep for the collector and compile
 *     optimized code, and libuv's pool),
 * and how long each was ready to run but waiting for a core (schedstat). A main thread near
 * 100% means the client bounds the run; a long wait at a few tenths of the cores busy means the
 * machine's scheduler does: the threads are there to run and no core takes them. The machine's
 * share of CPU time taken by the hypervisor (steal, /proc/stat) is reported beside it: on a
 * shared VM it comes in bursts that stall every thread.
 */
import fs from 'node:fs';
import os from 'node:os';
import { WORKER_THREAD_PREFIX } from '../../src/transport/worker.js';

/** Kernel clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

export interface ThreadSample {
  tid: number;
  name: string;
  /** CPU time so far, nanoseconds (schedstat; else stat's user + system ticks). */
  runNs: number;
  /** Time spent runnable but waiting for a core, nanoseconds (schedstat), or null. */
  waitNs: number | null;
  /** CPU time in the kernel so far, nanoseconds (stat's system ticks: 10 ms steps). */
  sysNs: number;
}

export interface ThreadsSnapshot {
  atMs: number;
  threads: Map<number, ThreadSample>;
  /** The machine's CPU time so far (all cores, /proc/stat ticks), or null. */
  machine: MachineTimes | null;
}

/** /proc/stat's first line: the ticks of all cores together. */
export interface MachineTimes {
  /** Every state summed (user through steal). */
  total: number;
  /** Taken by the hypervisor for other guests. */
  steal: number;
}

/** One thread or group: CPU time and core wait as fractions of the stretch's wall time. */
export interface CpuShare {
  name: string;
  /** CPU time / wall time (1 = one core all the time). */
  cpu: number;
  /** Waiting for a core / wall time, when known. */
  wait: number | null;
  /** Of `cpu`, the time in the kernel / wall time (10 ms steps). */
  sys: number;
}

export interface CpuReport {
  wallMs: number;
  /** Cores of the machine. */
  cores: number;
  main: CpuShare;
  /** Worker node threads, by name. */
  nodes: CpuShare[];
  /** Every other thread, summed. */
  other: CpuShare;
  /** All threads: CPU time / wall time (at most `cores`). */
  total: number;
  /** Share of the machine's CPU time the hypervisor took meanwhile (steal), or null. */
  steal: number | null;
}

/** Name, user and system ticks from a /proc/<pid>/task/<tid>/stat line (the name may hold spaces and parentheses). */
export function parseStat(text: string): { name: string; utime: number; stime: number } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${text.slice(0, 60)}`);
  // after "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
  const rest = text.slice(close + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`no CPU times in stat line: ${text.slice(0, 60)}`);
  return { name: text.slice(open + 1, close), utime, stime };
}

/** Run and wait nanoseconds from a schedstat line ("run wait timeslices"). */
export function parseSchedstat(text: string): { runNs: number; waitNs: number } {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (!Number.isFinite(run) || !Number.isFinite(wait)) throw new Error(`not a schedstat line: ${text.slice(0, 60)}`);
  return { runNs: run!, waitNs: wait! };
}

/** Total and steal ticks from /proc/stat's aggregate "cpu" line. */
export function parseMachineStat(text: string): MachineTimes {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no aggregate cpu line in /proc/stat');
  // user nice system idle iowait irq softirq steal [guest guest_nice, already counted in user]
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 8 || f.some((x) => !Number.isFinite(x))) throw new Error(`unexpected /proc/stat cpu line: ${line}`);
  return { total: f.reduce((a, b) => a + b, 0), steal: f[7]! };
}

function readMachine(): MachineTimes | null {
  try {
    return parseMachineStat(fs.readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

function readThread(dir: string, tid: number): ThreadSample | null {
  let stat: { name: string; utime: number; stime: number };
  try {
    stat = parseStat(fs.readFileSync(`${dir}/stat`, 'utf8'));
  } catch {
    return null; // the thread ended meanwhile
  }
  let sched: { runNs: number; waitNs: number } | null = null;
  try {
    sched = parseSchedstat(fs.readFileSync(`${dir}/schedstat`, 'utf8'));
  } catch {
    // kernels without schedstat: stat's ticks, no wait figure
  }
  return { tid, name: stat.name, runNs: sched ? sched.runNs : ((stat.utime + stat.stime) * 1e9) / USER_HZ, waitNs: sched ? sched.waitNs : null, sysNs: (stat.stime * 1e9) / USER_HZ };
}

/** This thread's CPU time in the kernel so far, in ms (10 ms steps), or null off Linux. */
export function threadSystemMs(): number | null {
  try {
    return (parseStat(fs.readFileSync('/proc/thread-self/stat', 'utf8')).stime * 1000) / USER_HZ;
  } catch {
    return null;
  }
}

/** Every thread of this process now, or null where /proc/self/task is not available. */
export function snapshotThreads(): ThreadsSnapshot | null {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const threads = new Map<number, ThreadSample>();
  for (const t of tids) {
    const s = readThread(`/proc/self/task/${t}`, Number(t));
    if (s) threads.set(s.tid, s);
  }
  return { atMs: performance.now(), threads, machine: readMachine() };
}

/**
 * The CPU between two snapshots. A thread that started in between counts from zero; one that
 * ended in between is left out. `mainTid` is the main thread (the process id).
 */
export function cpuBetween(a: ThreadsSnapshot, b: ThreadsSnapshot, mainTid: number = process.pid, cores: number = os.availableParallelism()): CpuReport {
  const wallMs = Math.max(1e-3, b.atMs - a.atMs);
  const wallNs = wallMs * 1e6;
  const share = (name: string, run: number, wait: number | null, sys: number): CpuShare => ({ name, cpu: run / wallNs, wait: wait === null ? null : wait / wallNs, sys: sys / wallNs });
  let main: CpuShare = share('main', 0, null, 0);
  const nodes: CpuShare[] = [];
  let otherRun = 0;
  let otherWait: number | null = null;
  let otherSys = 0;
  let totalRun = 0;
  for (const [tid, t] of b.threads) {
    const before = a.threads.get(tid);
    const run = Math.max(0, t.runNs - (before?.runNs ?? 0));
    const wait = t.waitNs === null ? null : Math.max(0, t.waitNs - (before?.waitNs ?? 0));
    const sys = Math.max(0, t.sysNs - (before?.sysNs ?? 0));
    totalRun += run;
    if (tid === mainTid) main = share('main', run, wait, sys);
    else if (t.name.startsWith(WORKER_THREAD_PREFIX)) nodes.push(share(t.name.slice(WORKER_THREAD_PREFIX.length), run, wait, sys));
    else {
      otherRun += run;
      otherSys += sys;
      if (wait !== null) otherWait = (otherWait ?? 0) + wait;
    }
  }
  nodes.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  const ticks = a.machine && b.machine ? b.machine.total - a.machine.total : 0;
  const steal = ticks > 0 ? Math.max(0, b.machine!.steal - a.machine!.steal) / ticks : null;
  return { wallMs, cores, main, nodes, other: share('other', otherRun, otherWait, otherSys), total: totalRun / wallNs, steal };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

const stealPct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The node threads' waits for a core as one list ("4/6/5%"), or null where the kernel does not say them. */
function nodeWaits(r: CpuReport): string | null {
  if (r.nodes.length === 0 || r.nodes.some((n) => n.wait === null)) return null;
  return `${r.nodes.map((n) => Math.round(n.wait! * 100)).join('/')}%`;
}

/**
 * One line: "main thread 97% (waiting for a core 21%), node threads b1 31% b2 29% b3 30%
 * (waiting for a core 4/6/5%), other threads 14% (waiting 3%); 1.9 of 2 cores busy; hypervisor
 * steal 2.4%". A wait is the time a thread was ready to run but no core ran it, as a share of
 * the stretch (the other threads' waits summed).
 */
export function formatCpu(r: CpuReport): string {
  const wait = r.main.wait !== null ? ` (waiting for a core ${pct(r.main.wait)})` : '';
  const nw = nodeWaits(r);
  const nodes = r.nodes.length > 0 ? `, node threads ${r.nodes.map((n) => `${n.name} ${pct(n.cpu)}`).join(' ')}${nw ? ` (waiting for a core ${nw})` : ''}` : '';
  const otherWait = r.other.wait !== null ? ` (waiting ${pct(r.other.wait)})` : '';
  const steal = r.steal !== null ? `; hypervisor steal ${stealPct(r.steal)}` : '';
  return `main thread ${pct(r.main.cpu)}${wait}${nodes}, other threads ${pct(r.other.cpu)}${otherWait}; ${r.total.toFixed(1)} of ${r.cores} cores busy${steal}`;
}

/** Compact, for table cells: "main 97% (wait 21%), nodes 31/29/30% (wait 4/6/5%), other 14%, steal 2.4%". */
export function formatCpuShort(r: CpuReport): string {
  const wait = r.main.wait !== null ? ` (wait ${pct(r.main.wait)})` : '';
  const nw = nodeWaits(r);
  const nodes = r.nodes.length > 0 ? `, nodes ${r.nodes.map((n) => Math.round(n.cpu * 100)).join('/')}%${nw ? ` (wait ${nw})` : ''}` : '';
  const steal = r.steal !== null ? `, steal ${stealPct(r.steal)}` : '';
  return `main ${pct(r.main.cpu)}${wait}${nodes}, other ${pct(r.other.cpu)}${steal}`;
}

/**
 * CPU time per `per` records, in microseconds, of the client thread, all node threads together
 * and the other threads, at `recordsPerSec` (the rate of the stretch the report covers): where
 * a load's cost went, comparable between runs at different rates.
 */
export function cpuPerRecords(r: CpuReport, recordsPerSec: number, per = 1000): { main: number; nodes: number; other: number } {
  if (!(recordsPerSec > 0)) throw new RangeError(`recordsPerSec must be positive, got ${recordsPerSec}`);
  const us = (cores: number): number => (cores / recordsPerSec) * per * 1e6;
  return { main: us(r.main.cpu), nodes: us(r.nodes.reduce((sum, n) => sum + n.cpu, 0)), other: us(r.other.cpu) };
}

/**
 * cpuPerRecords as a line: "CPU per 1,000 records: main 190 us, nodes 290 us, other 50 us"
 * (without nodes where the process has no node threads: a client of a cluster elsewhere).
 */
export function formatCpuPerRecords(r: CpuReport, recordsPerSec: number, per = 1000): string {
  const c = cpuPerRecords(r, recordsPerSec, per);
  const f = (v: number): string => `${v >= 100 ? Math.round(v) : v.toFixed(1)} us`;
  const nodes = r.nodes.length > 0 ? `, nodes ${f(c.nodes)}` : '';
  return `CPU per ${per.toLocaleString('en-US')} records: main ${f(c.main)}${nodes}, other ${f(c.other)}`;
}

/** Above this share of the machine taken by the hypervisor, a run's figures say more about the host than about samsa. */
export const STEAL_WARNING = 0.05;

/** A warning naming the steps during which the hypervisor took more than STEAL_WARNING of the machine (none: no lines). */
export function stealNotes(steps: readonly { step: string; report: CpuReport | null }[]): string[] {
  const noisy = steps.filter((c) => c.report !== null && c.report.steal !== null && c.report.steal > STEAL_WARNING);
  if (noisy.length === 0) return [];
  const list = noisy.map((c) => `${c.step} (${stealPct(c.report!.steal!)})`).join(', ');
  return [`the hypervisor gave more than ${STEAL_WARNING * 100}% of this machine to other guests during: ${list}; those figures are the host's as much as samsa's, run again for steadier ones`];
}
