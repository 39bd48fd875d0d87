/**
 * Reads V8 .cpuprofile files (from `node --cpu-prof`) and lists the functions with the most
 * self time, optionally with their top callers. Usable as a library or from the command line:
 *
 *   node --cpu-prof --cpu-prof-dir=.tmp/prof --import tsx benchmarks/runtime.bench.ts
 *   node --import tsx benchmarks/lib/cpuprofile.ts .tmp/prof/*.cpuprofile [--top 30] [--callers]
 *
 * Worker threads write their own profile files, one per thread.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  /** "name (file:line)" */
  where: string;
  selfMs: number;
  selfPct: number;
  /** Callers by self time they account for, most first. */
  callers: { where: string; selfMs: number }[];
}

function describeFrame(f: CallFrame): string {
  const name = f.functionName || '(anonymous)';
  if (!f.url) return name;
  const file = f.url.replace(/^file:\/\//, '').replace(/^.*\/(src|benchmarks|node_modules)\//, '$1/');
  return `${name} (${file}:${f.lineNumber + 1})`;
}

/** Self time per function (frames merged by name and location), highest first. */
export function hotSpots(profile: CpuProfile, top = 25): { totalMs: number; spots: HotSpot[] } {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let totalUs = 0;
  const byWhere = new Map<string, { us: number; callers: Map<string, number> }>();
  for (const [id, us] of selfUs) {
    totalUs += us;
    const node = byId.get(id)!;
    const where = describeFrame(node.callFrame);
    let e = byWhere.get(where);
    if (!e) byWhere.set(where, (e = { us: 0, callers: new Map() }));
    e.us += us;
    const p = parent.get(id);
    const caller = p !== undefined ? describeFrame(byId.get(p)!.callFrame) : '(root)';
    e.callers.set(caller, (e.callers.get(caller) ?? 0) + us);
  }
  const spots = [...byWhere.entries()]
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, top)
    .map(([where, e]) => ({
      where,
      selfMs: e.us / 1000,
      selfPct: totalUs ? (100 * e.us) / totalUs : 0,
      callers: [...e.callers.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([w, us]) => ({ where: w, selfMs: us / 1000 })),
    }));
  return { totalMs: totalUs / 1000, spots };
}

export async function readProfile(file: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
}

async function cli(argv: string[]): Promise<void> {
  let top = 25;
  let callers = false;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--top') top = Number(argv[++i]);
    else if (a === '--callers') callers = true;
    else files.push(a);
  }
  if (!files.length) {
    console.error('usage: cpuprofile.ts <file.cpuprofile>... [--top N] [--callers]');
    process.exitCode = 2;
    return;
  }
  for (const f of files) {
    const { totalMs, spots } = hotSpots(await readProfile(f), top);
    console.log(`\n${f}: ${totalMs.toFixed(0)} ms sampled`);
    for (const s of spots) {
      console.log(`${s.selfPct.toFixed(1).padStart(5)}%  ${s.selfMs.toFixed(0).padStart(6)} ms  ${s.where}`);
      if (callers) for (const c of s.callers) console.log(`                  <- ${c.selfMs.toFixed(0).padStart(5)} ms  ${c.where}`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void cli(process.argv.slice(2));
