/**
 * scripts/build-native.mjs, npm's install script for the optional CRC-32C addon: it builds the
 * addon where it can and, where it cannot, says why and exits 0 so that the install goes on.
 * Each case runs a copy of the script and the addon's sources in a scratch directory (a
 * rebuild starts by removing the previous build, which the rest of the suite loads).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasCommand } from '../helpers/has-command.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function scratchCopy(withSources = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-native-'));
  cpSync(join(ROOT, 'scripts', 'build-native.mjs'), join(dir, 'scripts', 'build-native.mjs'));
  if (withSources) {
    for (const f of ['crc32c.c', 'binding.gyp']) cpSync(join(ROOT, 'src', 'native', f), join(dir, 'src', 'native', f));
  }
  return dir;
}

const addon = (dir: string) => join(dir, 'src', 'native', 'build', 'Release', 'samsa_native.node');

describe('scripts/build-native', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Runs the script in a fresh scratch copy; its exit code must be 0 whatever happens. */
  function runCopy(env: Record<string, string> = {}, withSources = true): { dir: string; stderr: string } {
    const dir = scratchCopy(withSources);
    dirs.push(dir);
    const r = spawnSync(process.execPath, [join(dir, 'scripts', 'build-native.mjs')], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
    expect(r.status, r.stderr).to.equal(0);
    return { dir, stderr: r.stderr };
  }

  it('skips the build when SAMSA_SKIP_NATIVE=1', () => {
    const { dir, stderr } = runCopy({ SAMSA_SKIP_NATIVE: '1' });
    expect(stderr).to.contain('skipped (SAMSA_SKIP_NATIVE=1)');
    expect(existsSync(addon(dir))).to.equal(false);
  });

  it('says there is nothing to build in a copy without the sources', () => {
    expect(runCopy({}, false).stderr).to.contain('no sources in this copy');
  });

  it('exits 0 and says why when the compiler fails', () => {
    const { dir, stderr } = runCopy({ CC: '/bin/false', CXX: '/bin/false' });
    expect(stderr).to.match(/not built; checksums use @node-rs\/crc32 or JavaScript/);
    expect(existsSync(addon(dir))).to.equal(false);
  });

  it('gives up after SAMSA_NATIVE_BUILD_TIMEOUT_MS (an install never hangs on a build), exiting 0', () => {
    expect(runCopy({ SAMSA_NATIVE_BUILD_TIMEOUT_MS: '50' }).stderr).to.contain('gave up after 50 ms');
  });

  it('leaves nothing running when it gives up mid-build (the whole process group goes)', async function () {
    if (process.platform !== 'linux') this.skip();
    // 400 ms: node-gyp has started gyp's Python by then, and is far from done
    const { dir, stderr } = runCopy({ SAMSA_NATIVE_BUILD_TIMEOUT_MS: '400' });
    if (stderr.includes('samsa native addon: built')) this.skip(); // a machine that builds it in 400 ms
    expect(stderr).to.contain('gave up after 400 ms');
    await new Promise((r) => setTimeout(r, 50));
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps.stdout.split('\n').filter((l) => l.includes(dir))).to.deep.equal([]);
  });

  it('builds an addon that loads and gives the check value, where a C compiler is present', function () {
    if (!hasCommand('cc')) this.skip();
    const { dir, stderr } = runCopy();
    expect(stderr).to.contain('samsa native addon: built');
    // it loads anywhere, and exports the function only where the CPU has a CRC-32C instruction
    const m = createRequire(import.meta.url)(addon(dir)) as { crc32cUpdate?: (b: Uint8Array, c: number, s: number, e: number) => number };
    if (m.crc32cUpdate) expect(m.crc32cUpdate(Buffer.from('123456789'), 0, 0, 9)).to.equal(0xe3069283);
  });
});
