#!/usr/bin/env node
/**
 * The samsa executable (package.json "bin"): `samsa <command> [options]`. start runs a cluster
 * topology; topics, produce, consume, groups, leader-election, reassign-partitions, acls,
 * configs, transactions, cluster, metadata-quorum, features, log-dirs and the perf tools are modelled on Kafka's tools; demo shows
 * the actor runtime. Everything but exiting lives in main.ts.
 */
import { EXIT_FAILURE } from './errors.js';
import { main } from './main.js';
import { err, flushOutput } from './output.js';

// Output piped into a reader that quit (`samsa topics --list | head -1`): stop quietly, unless
// the command handles it itself (consume leaves its group first).
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE' && process.stdout.listenerCount('error') === 1) process.exit(0);
});

main(process.argv.slice(2)).then(
  async (code) => {
    await flushOutput();
    process.exit(code);
  },
  async (e: unknown) => {
    err(`samsa: ${(e as Error)?.stack ?? String(e)}`);
    await flushOutput();
    process.exit(EXIT_FAILURE);
  },
);
