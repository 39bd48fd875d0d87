/** Whether a command is on PATH and runs (`cmd args` exits 0): for tests that need a tool. */
import { spawnSync } from 'node:child_process';

export function hasCommand(cmd: string, args: string[] = ['--version']): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}
