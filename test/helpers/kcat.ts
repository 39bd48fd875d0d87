/**
 * kcat (librdkafka's command-line client) as a real process, run asynchronously: the cluster
 * under test lives in the test's own process, so a blocking spawn would freeze it.
 */
import { spawn } from 'node:child_process';

export interface KcatRun {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `kcat <args>` with `input` on its stdin (empty when absent); killed after `timeoutMs`. */
export function runKcat(args: readonly string[], input?: string, timeoutMs = 30_000): Promise<KcatRun> {
  return new Promise((resolve) => {
    const p = spawn('kcat', [...args]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
    p.stdin.end(input ?? '');
  });
}
