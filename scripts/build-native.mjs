#!/usr/bin/env node
/**
 * Builds samsa's optional native addon (src/native: a hardware CRC-32C) with node-gyp, as
 * `npm install` / `npm ci` run it. The addon only makes checksums faster: when it cannot be
 * built (no C compiler, no Node headers, a platform it does not cover) this prints why and
 * exits 0, and samsa uses @node-rs/crc32 or its JavaScript tables instead.
 *
 * SAMSA_SKIP_NATIVE=1 skips the build; SAMSA_NATIVE_BUILD_TIMEOUT_MS bounds it (default 5
 * minutes). Run it again with `npm run build:native`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'native');
/** The longest a build may take (SAMSA_NATIVE_BUILD_TIMEOUT_MS; default 5 minutes). */
const BUILD_TIMEOUT_MS = Number(process.env.SAMSA_NATIVE_BUILD_TIMEOUT_MS) || 300_000;

function say(line) {
  process.stderr.write(`samsa native addon: ${line}\n`);
}

/** node-gyp as npm provides it to install scripts (on PATH), else the copy bundled with npm. */
function nodeGyp() {
  const onPath = spawnSync('node-gyp', ['--version'], { stdio: 'ignore', shell: process.platform === 'win32' });
  if (onPath.status === 0) return { cmd: 'node-gyp', pre: [] };
  const npmDirs = [];
  // npm_execpath: npm's own CLI script, when npm runs this
  if (process.env.npm_execpath) npmDirs.push(join(dirname(process.env.npm_execpath), '..'));
  // npm installed beside node: <prefix>/bin/node and <prefix>/lib/node_modules/npm
  npmDirs.push(join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm'));
  for (const npmDir of npmDirs) {
    const bundled = join(npmDir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
    if (existsSync(bundled)) return { cmd: process.execPath, pre: [bundled] };
  }
  return null;
}

/** node-gyp's output without its progress lines and its generic epilogue: the compiler's errors. */
function reason(output) {
  const generic = /^gyp (info|http|WARN)|^gyp ERR! (System|command|cwd|node -v|node-gyp -v|not ok)/;
  const lines = output.split('\n').filter((l) => l.trim() !== '' && !generic.test(l));
  return lines.slice(-8).join('\n');
}

/**
 * Runs node-gyp in a process group of its own, bounded by BUILD_TIMEOUT_MS (without local
 * headers node-gyp downloads them, and an install must not hang on a network that does not
 * answer). On the timeout, or when this script is interrupted, the whole group goes (gyp's
 * Python, make, the compiler), so nothing goes on writing after the script has answered.
 */
function build(cmd, args) {
  return new Promise((resolve) => {
    const group = process.platform !== 'win32';
    const child = spawn(cmd, args, { cwd: dir, detached: group, shell: !group, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const kill = () => {
      try {
        if (group) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, BUILD_TIMEOUT_MS);
    const interrupted = (signal) => {
      kill();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    const done = (result) => {
      clearTimeout(timer);
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      resolve({ ...result, timedOut, output });
    };
    child.on('error', (error) => done({ status: null, error }));
    child.on('close', (status) => done({ status, error: null }));
  });
}

if (process.env.SAMSA_SKIP_NATIVE === '1') {
  say('skipped (SAMSA_SKIP_NATIVE=1); checksums use @node-rs/crc32 or JavaScript');
} else if (!existsSync(join(dir, 'binding.gyp'))) {
  say('no sources in this copy of samsa; checksums use @node-rs/crc32 or JavaScript');
} else {
  const gyp = nodeGyp();
  if (!gyp) {
    say('node-gyp not found; checksums use @node-rs/crc32 or JavaScript');
  } else {
    const args = [...gyp.pre, 'rebuild'];
    // Node's own headers, when installed beside it (official builds and distribution packages
    // ship them), so node-gyp need not download them; npm passes its own nodedir setting
    const prefix = join(dirname(process.execPath), '..');
    if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
    const r = await build(gyp.cmd, args);
    if (r.status === 0) {
      say('built');
    } else {
      const why = r.timedOut
        ? `gave up after ${BUILD_TIMEOUT_MS} ms (SAMSA_NATIVE_BUILD_TIMEOUT_MS)`
        : r.error
          ? r.error.message
          : reason(r.output) || `exit ${r.status}`;
      say(`not built; checksums use @node-rs/crc32 or JavaScript. node-gyp said:\n${why}`);
    }
  }
}
