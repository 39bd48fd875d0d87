/**
 * `samsa perf-produce`, `samsa perf-consume`, `samsa perf-share-consume` and `samsa perf-e2e`: the
 * perf tools of benchmarks/ (perf-produce.ts, perf-consume.ts, perf-share-consume.ts,
 * perf-e2e.ts) under the samsa command, with the same flags (Kafka's spelling: `--records
 * 1000000`, `--acks all`, `--threads 3`; perf-e2e also kafka-e2e-latency's positional form) and
 * the same --help. The flags are the tools' own, so these commands
 * take their argv as is instead of going through the samsa option parser. A flag that cannot work
 * with the others (a throw-away cluster's --brokers beside --bootstrap-server, say) is a
 * UsageError from the tool: exit code 2, as for a bad flag.
 */
import { FlagError, parseFlags, usage, type FlagSpecs, type ParsedFlags } from '../../../benchmarks/lib/perf-args.js';
import type { Command } from '../command.js';
import { EXIT_OK, EXIT_USAGE } from '../errors.js';
import { err, out } from '../output.js';

function perfCommand<S extends FlagSpecs>(
  name: string,
  summary: string,
  load: () => Promise<{ specs: S; summary: string; run: (f: ParsedFlags<S>) => Promise<void>; argv?: (argv: readonly string[]) => readonly string[] }>,
): Command {
  return {
    name,
    summary,
    usage: ['[flags]'],
    description: summary,
    options: [],
    async run() {
      throw new Error(`${name} takes its argv as is (runArgv)`);
    },
    async runArgv(argv) {
      const tool = await load();
      let f: ParsedFlags<S>;
      try {
        f = parseFlags(tool.argv ? tool.argv(argv) : argv, tool.specs);
      } catch (e) {
        if (!(e instanceof FlagError)) throw e;
        err(`samsa ${name}: ${e.message}`);
        err(`run \`samsa ${name} --help\` for the flags`);
        return EXIT_USAGE;
      }
      if (f.help) {
        out(usage(`samsa ${name}`, tool.summary, tool.specs));
        return EXIT_OK;
      }
      await tool.run(f);
      return EXIT_OK;
    },
  };
}

export const perfProduceCommand = perfCommand('perf-produce', 'producer throughput and latency against a running cluster or a throw-away one (like kafka-producer-perf-test)', async () => {
  const m = await import('../../../benchmarks/perf-produce.js');
  return { specs: m.PRODUCE_FLAGS, summary: m.PERF_PRODUCE_SUMMARY, run: m.perfProduceWithFlags };
});

export const perfConsumeCommand = perfCommand('perf-consume', 'consumer throughput reading a topic, alone or in a group, on a running cluster or a throw-away one (like kafka-consumer-perf-test)', async () => {
  const m = await import('../../../benchmarks/perf-consume.js');
  return { specs: m.CONSUME_FLAGS, summary: m.PERF_CONSUME_SUMMARY, run: m.perfConsumeWithFlags };
});

export const perfShareConsumeCommand = perfCommand('perf-share-consume', "share consumer throughput: share consumers of one share group (KIP-932) reading a topic, on a running cluster or a throw-away one (like kafka-share-consumer-perf-test)", async () => {
  const m = await import('../../../benchmarks/perf-share-consume.js');
  return { specs: m.SHARE_CONSUME_FLAGS, summary: m.PERF_SHARE_CONSUME_SUMMARY, run: m.perfShareConsumeWithFlags };
});

export const perfE2eCommand = perfCommand('perf-e2e', 'end-to-end latency at a fixed produce rate, or one record at a time as kafka-e2e-latency measures it (--sequential), on a running cluster or a throw-away one', async () => {
  const m = await import('../../../benchmarks/perf-e2e.js');
  return { specs: m.E2E_FLAGS, summary: m.PERF_E2E_SUMMARY, run: m.perfE2eWithFlags, argv: m.kafkaE2eArgv };
});
