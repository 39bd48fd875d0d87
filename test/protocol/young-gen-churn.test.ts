/**
 * Per-batch hot paths must leave nothing behind for the young generation: on Node 20 an object
 * built as `{ ...x, more }` once per batch kept megabytes of dropped results alive through every
 * scavenge (they were promoted and freed only by the next full collection). The fixture calls a
 * path in a loop under --trace-gc-nvp and this test adds up what the scavenges promoted.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../fixtures/young-gen-churn.ts', import.meta.url));

/** Bytes promoted by the scavenges of a run of the fixture on `path` (after its warm-up), and how many ran. */
async function promotedBy(path: string): Promise<{ promoted: number; scavenges: number }> {
  const { stdout } = await run(process.execPath, ['--trace-gc-nvp', '--import', 'tsx', FIXTURE, path, '1500'], { maxBuffer: 64 << 20 });
  expect(stdout).to.match(/^done \d+$/m);
  let promoted = 0;
  let scavenges = 0;
  const lines = stdout.split('\n');
  const from = lines.indexOf('measuring');
  expect(from).to.be.at.least(0);
  for (const line of lines.slice(from)) {
    if (!/\bgc=s\b/.test(line)) continue;
    scavenges++;
    promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { promoted, scavenges };
}

describe('protocol: per-batch paths and the young generation', function () {
  this.timeout(30_000);

  // with the spread the decode loop promoted ~2 MB per scavenge; without it, bytes
  for (const path of ['decode', 'appended']) {
    it(`${path}: what a loop drops at once is not promoted`, async () => {
      const r = await promotedBy(path);
      expect(r.scavenges).to.be.greaterThan(3);
      expect(r.promoted / r.scavenges).to.be.below(64 * 1024);
    });
  }
});
