/**
 * Keeps the process's log lines at `warn` and above in memory instead of printing them, for a
 * suite that checks what its cluster logged (the fuzz tests): `start()` in `before`, `stop()` in
 * `after` puts the level and the console back.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import { rootLogger, setLogLevel, type LogLevel } from '../../src/runtime/logger.js';

export interface LogLine {
  level: string;
  message: string;
  [k: string]: unknown;
}

export class LogCapture {
  /** Every line logged since `start()` (clear it with `lines.splice(0)`). */
  readonly lines: LogLine[] = [];
  /** The level the process ran at (SAMSA_LOG_LEVEL, else silent): what a cluster the suite starts should use. */
  readonly levelBefore = (process.env.SAMSA_LOG_LEVEL ?? 'silent') as LogLevel;
  private readonly transport = new winston.transports.Stream({
    stream: new Writable({
      objectMode: true,
      write: (info: LogLine, _enc, next) => {
        this.lines.push(info);
        next();
      },
    }),
  });
  private readonly console = rootLogger.transports.find((t) => t instanceof winston.transports.Console);
  private readonly consoleSilent = this.console?.silent;

  start(): void {
    if (this.console) this.console.silent = true;
    rootLogger.add(this.transport);
    setLogLevel('warn');
  }

  stop(): void {
    rootLogger.remove(this.transport);
    if (this.console) this.console.silent = this.consoleSilent;
    setLogLevel(this.levelBefore);
  }
}
