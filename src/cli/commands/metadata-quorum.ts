/**
 * `samsa metadata-quorum`: Kafka's kafka-metadata-quorum tool, through the admin client.
 * `describe --status` prints the quorum of controllers that replicates the cluster metadata
 * (leader, epoch, high watermark, follower lag, voters); `describe --replication` prints a row
 * per voter (log end offset, lag, last fetch, leader or follower). Both are the active
 * controller's view: only the quorum's leader knows how far each voter is.
 */
import type { MetadataQuorumInfo, QuorumVoterInfo } from '../../client/admin.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { out, table } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'status', kind: 'flag', help: 'with describe: the quorum at a glance (leader, epoch, high watermark, follower lag, voters)' },
  { name: 'replication', kind: 'flag', help: "with describe: each voter's log end offset, lag, last fetch and status" },
  { name: 'human-readable', kind: 'flag', modes: ['replication'], help: 'with --replication: LastFetchTimestamp as "N ms ago" instead of epoch milliseconds' },
  HELP_OPTION,
];

const positional: PositionalSpec = { name: 'describe', help: 'the subcommand (the only one, as in Kafka\'s tool): describe the quorum', max: 1 };

/** A voter's status in the replication table: Kafka's Leader / Follower (a candidate is still a voter following no one). */
function status(v: QuorumVoterInfo, info: MetadataQuorumInfo): string {
  return v.id === info.leaderId ? 'Leader' : v.role === 'Candidate' ? 'Candidate' : 'Follower';
}

/** Leader first, then the followers by id (Kafka's order). */
function ordered(info: MetadataQuorumInfo): QuorumVoterInfo[] {
  return [...info.voters].sort((a, b) => Number(b.id === info.leaderId) - Number(a.id === info.leaderId) || a.id - b.id);
}

/** The largest of the known values (-1 unknown); 0 for none at all, -1 when all are unknown. */
function maxKnown(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const known = values.filter((x) => x >= 0);
  return known.length === 0 ? -1 : Math.max(...known);
}

/** Kafka's `describe --status` lines: labels padded to one column. */
export function statusLines(info: MetadataQuorumInfo): string[] {
  const followers = info.voters.filter((v) => v.id !== info.leaderId);
  const rows: [string, string | number][] = [
    ['ClusterId', info.clusterId ?? 'unknown'],
    ['LeaderId', info.leaderId],
    ['LeaderEpoch', info.leaderEpoch],
    ['HighWatermark', info.highWatermark],
    ['MaxFollowerLag', maxKnown(followers.map((v) => v.lag))],
    ['MaxFollowerLagTimeMs', maxKnown(followers.map((v) => v.lastContactMs))],
    ['CurrentVoters', `[${info.voters.map((v) => v.id).sort((a, b) => a - b).join(',')}]`],
    // brokers take the metadata from the active controller, not from the quorum's log: no observers
    ['CurrentObservers', '[]'],
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(24)}${String(v)}`);
}

/**
 * Kafka's `describe --replication` table: LastFetchTimestamp in epoch milliseconds (now minus the
 * time since the leader last heard from the voter), or "N ms ago" when humanReadable; -1 (or
 * "unknown") where the leader does not know.
 */
export function replicationLines(info: MetadataQuorumInfo, now: number, humanReadable: boolean): string[] {
  const fetched = (ms: number) => (ms < 0 ? (humanReadable ? 'unknown' : -1) : humanReadable ? `${ms} ms ago` : now - ms);
  return table(
    ['NodeId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status'],
    ordered(info).map((v) => [v.id, v.logEndOffset, v.lag, fetched(v.lastContactMs), status(v, info)]),
  );
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError('give the subcommand: describe --status or describe --replication');
  if (sub !== 'describe') throw new UsageError(`unknown subcommand '${sub}': the only one is describe (--status or --replication)`);
  const mode = args.mode(['status', 'replication']);
  await withCluster(args, 'samsa-metadata-quorum', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const info = await admin.describeMetadataQuorum();
      const lines = mode === 'status' ? statusLines(info) : replicationLines(info, Date.now(), args.has('human-readable'));
      for (const l of lines) out(l);
    });
  });
  return EXIT_OK;
}

export const metadataQuorumCommand: Command = {
  name: 'metadata-quorum',
  summary: 'describe the quorum of controllers that replicates the cluster metadata (leader, epoch, voters and their lag)',
  usage: ['[--bootstrap-server host:port] describe --status', '[--bootstrap-server host:port] describe --replication [--human-readable]'],
  description:
    "Describes the metadata quorum like Kafka's kafka-metadata-quorum: the controllers that replicate the cluster metadata log by Raft, one of them the leader (the active controller). --status prints the leader, its epoch (the Raft term), the high watermark (the committed entries of the log), the largest follower lag in entries and in milliseconds since the leader last heard from a follower, and the voters. --replication prints each voter's log end offset, its lag behind the leader, when the leader last heard from it, and whether it leads.\n\nA cluster with one controller is a quorum of one. Brokers are not observers here: they take the metadata from the active controller, so CurrentObservers is always empty. While an election is on there is no leader (-1) and the lags are unknown (-1).",
  options,
  positional,
  examples: ['samsa metadata-quorum describe --status', 'samsa metadata-quorum --bootstrap-server 127.0.0.1:9192 describe --replication --human-readable'],
  run,
};
