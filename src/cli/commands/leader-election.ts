/**
 * `samsa leader-election`: leader elections like Kafka's kafka-leader-election tool, through the
 * admin client. PREFERRED moves partitions back to their preferred replica (the first assigned)
 * when it is live and in sync; UNCLEAN elects a leader for partitions that have none, out of
 * sync if it must. Partitions: one (--topic, --partition), every partition of a topic (--topic),
 * a JSON file of them (Kafka's {"partitions": [{"topic": "t", "partition": 0}]}), or all.
 */
import fs from 'node:fs';
import type { ElectionResult } from '../../client/admin.js';
import { errorName, ErrorCode } from '../../protocol/errors.js';
import type { Args, OptionSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, UsageError } from '../errors.js';
import { err, out } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'election-type', kind: 'string', value: 'preferred|unclean', help: 'the election: the preferred replica, or any live replica of a partition without a leader (may lose records)' },
  { name: 'topic', kind: 'string', value: 't', help: 'the topic whose partitions to elect (all of them, or the one given by --partition)' },
  { name: 'partition', kind: 'int', value: 'n', min: 0, help: 'with --topic: only this partition' },
  { name: 'path-to-json-file', kind: 'string', value: 'file', help: 'the partitions, as Kafka\'s tool takes them: {"partitions": [{"topic": "t", "partition": 0}, ...]}' },
  { name: 'all-topic-partitions', kind: 'flag', help: 'every partition of every topic (only those that needed an election are reported)' },
  HELP_OPTION,
];

type Partitions = { topic: string; partition: number }[];

/** The partitions of Kafka's JSON file format, or a CliError saying what is wrong with it. */
export function parseElectionFile(text: string, file: string): Partitions {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${file} is not JSON: ${(e as Error).message}`);
  }
  const list = (doc as { partitions?: unknown } | null)?.partitions;
  if (!Array.isArray(list) || list.length === 0) throw new CliError(`${file} must hold {"partitions": [{"topic": "t", "partition": 0}, ...]} with at least one partition`);
  const seen = new Set<string>();
  return list.map((e, i) => {
    const { topic, partition } = (e ?? {}) as { topic?: unknown; partition?: unknown };
    if (typeof topic !== 'string' || topic === '' || !Number.isSafeInteger(partition) || (partition as number) < 0) {
      throw new CliError(`${file}: partitions[${i}] must be {"topic": "<name>", "partition": <integer >= 0>}, got ${JSON.stringify(e)}`);
    }
    const key = `${topic}-${String(partition)}`;
    if (seen.has(key)) throw new CliError(`${file}: partition ${key} is listed twice`);
    seen.add(key);
    return { topic, partition: partition as number };
  });
}

/** Kafka's tool's report: elected, already led as asked, and failures (which fail the command). */
export function reportElections(type: string, results: readonly ElectionResult[]): { lines: { stream: 'out' | 'err'; text: string }[]; failed: number } {
  const name = (r: ElectionResult) => `${r.topic}-${r.partition}`;
  const elected = results.filter((r) => r.errorCode === ErrorCode.NONE);
  const noop = results.filter((r) => r.errorCode === ErrorCode.ELECTION_NOT_NEEDED);
  const failed = results.filter((r) => r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED);
  const lines: { stream: 'out' | 'err'; text: string }[] = [];
  if (elected.length > 0) lines.push({ stream: 'out', text: `Successfully completed leader election (${type}) for partitions ${elected.map(name).join(', ')}` });
  if (noop.length > 0) lines.push({ stream: 'out', text: `Valid replica already elected for partitions ${noop.map(name).join(', ')}` });
  if (failed.length > 0) {
    lines.push({ stream: 'err', text: `Error completing leader election (${type}) for partitions ${failed.map(name).join(', ')}` });
    for (const r of failed) lines.push({ stream: 'err', text: `  ${name(r)}: ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}` });
  }
  if (results.length === 0) lines.push({ stream: 'out', text: 'No partition needed an election.' });
  return { lines, failed: failed.length };
}

async function run(args: Args): Promise<number> {
  const typeArg = args.string('election-type');
  if (typeArg === undefined) throw new UsageError('give --election-type preferred or --election-type unclean');
  const electionType = typeArg.toLowerCase();
  if (electionType !== 'preferred' && electionType !== 'unclean') throw new UsageError(`--election-type must be preferred or unclean, got '${typeArg}'`);
  const sources = ['topic', 'path-to-json-file', 'all-topic-partitions'].filter((o) => args.has(o));
  if (sources.length !== 1) throw new UsageError('give exactly one of --topic t [--partition n], --path-to-json-file file, --all-topic-partitions');
  if (args.has('partition') && !args.has('topic')) throw new UsageError('--partition goes with --topic');

  let partitions: Partitions | null = null;
  const file = args.string('path-to-json-file');
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
    }
    partitions = parseElectionFile(text, file);
  }

  let failed = 0;
  await withCluster(args, 'samsa-leader-election', async (conn) => {
    const topic = args.string('topic');
    if (topic !== undefined) {
      const t = (await conn.metadata()).topics.find((x) => x.name === topic);
      if (!t) throw new CliError(`topic '${topic}' does not exist — list the topics with \`samsa topics --list\``);
      const wanted = args.int('partition');
      partitions = t.partitions.filter((p) => wanted === undefined || p.partition === wanted).map((p) => ({ topic, partition: p.partition }));
      if (partitions.length === 0) throw new CliError(`topic '${topic}' has no partition ${wanted} (it has ${t.partitions.length})`);
    }
    await withAdmin(conn, async (admin) => {
      const results = await admin.electLeaders({ electionType, partitions });
      const report = reportElections(electionType.toUpperCase(), results);
      for (const l of report.lines) (l.stream === 'out' ? out : err)(l.text);
      failed = report.failed;
    });
  });
  if (failed > 0) throw new CliError(`${failed} replica(s) could not be elected`);
  return EXIT_OK;
}

export const leaderElectionCommand: Command = {
  name: 'leader-election',
  summary: 'move partition leadership to preferred replicas, or elect leaders for partitions without one',
  usage: [
    '[--bootstrap-server host:port] --election-type preferred|unclean --topic t [--partition n]',
    '[--bootstrap-server host:port] --election-type preferred|unclean --path-to-json-file file',
    '[--bootstrap-server host:port] --election-type preferred|unclean --all-topic-partitions',
  ],
  description:
    "Runs leader elections like Kafka's kafka-leader-election. preferred gives each partition back to its preferred replica (the first of its replicas) when that replica is live and in the ISR; the controller also does this by itself every leader.imbalance.check.interval.seconds unless auto.leader.rebalance.enable is false. unclean elects a leader for a partition that has none, from its ISR if a member is live, else any live replica: records that replica never got are lost.\n\nExits 1 when some partition could not be elected; a partition already led as asked is not a failure.",
  options,
  examples: [
    'samsa leader-election --election-type preferred --all-topic-partitions',
    'samsa leader-election --election-type preferred --topic orders --partition 0',
    'samsa leader-election --election-type unclean --path-to-json-file partitions.json',
  ],
  run,
};
