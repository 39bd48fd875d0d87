/**
 * The soak watchdog (loop-watchdog.ts), in child processes: a main thread that spins is ended with
 * a message on stderr; one whose loop turns is left alone and exits on its own.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const WATCHDOG = fileURLToPath(new URL('./loop-watchdog.ts', import.meta.url));

function runChild(body: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const script = `import { startLoopWatchdog } from ${JSON.stringify(WATCHDOG)};\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe('test helpers: loop watchdog', function () {
  this.timeout(30_000);

  it('ends a process whose main thread spins without yielding, saying so', async () => {
    const r = await runChild(`startLoopWatchdog(500, 'a spinning test'); setTimeout(() => { for (;;) {} }, 300);`);
    expect(r.signal).to.equal('SIGKILL');
    expect(r.stderr).to.match(/\[watchdog\] the main thread has not turned its event loop for \d+ ms during a spinning test/);
  });

  it('leaves a process whose loop turns alone, busy or idle', async () => {
    const r = await runChild(`const w = startLoopWatchdog(500, 'a fine test');
      const until = Date.now() + 1500;
      // busy in short stretches (each 100 ms, under the limit), then idle, then done
      const tick = () => { const t = Date.now() + 100; while (Date.now() < t) {} if (Date.now() < until) setImmediate(tick); else setTimeout(() => w.stop().then(() => process.exit(0)), 700); };
      tick();`);
    expect(r.stderr).to.not.contain('[watchdog]');
    expect(r.code).to.equal(0);
  });
});
