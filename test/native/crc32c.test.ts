/**
 * src/native/crc32c.c without Node: test/native/crc32c-harness.c checks its hardware CRC-32C
 * against a bitwise reference, built for this machine with the C compiler npm's build uses (with
 * and without the x86-64 folding path) and,
 * where an AArch64 cross compiler and QEMU's user-mode emulator are installed, for AArch64 (the
 * ARMv8 CRC32 path that x86-64 CI machines cannot run natively). Skipped where the tools are
 * missing. The addon as Node loads it is tested in test/protocol/crc32c.test.ts.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasCommand } from '../helpers/has-command.js';

/** x86-64 Linux with the flags the addon's folding path needs, as /proc/cpuinfo lists them. */
function cpuHasFolding(): boolean {
  if (process.arch !== 'x64' || !existsSync('/proc/cpuinfo')) return false;
  const flags = new Set((/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '').trim().split(/\s+/));
  return ['pclmulqdq', 'avx512f', 'avx512vl', 'vpclmulqdq'].every((f) => flags.has(f));
}

const HARNESS = fileURLToPath(new URL('./crc32c-harness.c', import.meta.url));
const FLAGS = ['-O2', '-Wall', '-Wextra', '-Werror', '-std=gnu11'];

describe('native/crc32c (C harness)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'samsa-crc-harness-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function check(run: { status: number | null; stdout: string; stderr: string }, ctx: Mocha.Context): void {
    // exit 2: no CRC instructions on this target or CPU, nothing to check
    if (run.status === 2) ctx.skip();
    expect(run.status, `${run.stdout}${run.stderr}`).to.equal(0);
    expect(run.stdout).to.match(/^ok \d{3,}/);
  }

  it('agrees with the bitwise reference on this machine', function () {
    if (!hasCommand('cc')) this.skip();
    const exe = join(dir, 'host');
    const build = spawnSync('cc', [...FLAGS, '-o', exe, HARNESS, '-lpthread'], { encoding: 'utf8' });
    expect(build.status, build.stderr).to.equal(0);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    check(run, this);
    // where the CPU has AVX-512 and VPCLMULQDQ, the folding path must have been taken and checked
    if (cpuHasFolding()) expect(run.stdout).to.contain('folding and CRC instruction');
  });

  it('agrees with the bitwise reference built without the folding path (as by compilers that lack it)', function () {
    if (!hasCommand('cc')) this.skip();
    const exe = join(dir, 'host-narrow');
    const build = spawnSync('cc', [...FLAGS, '-DSAMSA_CRC32C_NO_WIDE', '-o', exe, HARNESS, '-lpthread'], { encoding: 'utf8' });
    expect(build.status, build.stderr).to.equal(0);
    const run = spawnSync(exe, [], { encoding: 'utf8' });
    check(run, this);
    expect(run.stdout).to.contain('(CRC instruction)');
  });

  it('agrees with the bitwise reference on AArch64 (cross-compiled, run under QEMU)', function () {
    if (!hasCommand('aarch64-linux-gnu-gcc') || !hasCommand('qemu-aarch64', ['-version'])) this.skip();
    const exe = join(dir, 'aarch64');
    const build = spawnSync('aarch64-linux-gnu-gcc', [...FLAGS, '-static', '-o', exe, HARNESS, '-lpthread'], { encoding: 'utf8' });
    expect(build.status, build.stderr).to.equal(0);
    check(spawnSync('qemu-aarch64', [exe], { encoding: 'utf8' }), this);
  });
});
