/**
 * `samsa metadata-quorum`: Kafka's kafka-metadata-quorum tool, through the admin client.
 * `describe --status` prints the quorum of controllers that replicates the cluster metadata
 * (leader, epoch, high watermark, follower lag, voters, observers); `describe --replication`
 * prints a row per voter and observer (log end offset, lag, last fetch, leader, follower or
 * observer). Both are the active controller's view: only the quorum's leader knows how far each
 * voter is. `add-controller` and `remove-controller` change the voters (KIP-853).
 */
import type { Admin, MetadataQuorumInfo, QuorumVoterInfo } from '../../client/admin.js';
import { isKafkaTopicId } from '../../protocol/topic-id.js';
import type { Args, OptionSpec, PositionalSpec } from '../args.js';
import { withAdmin, withCluster } from '../cluster.js';
import { BOOTSTRAP_OPTION, HELP_OPTION, type Command } from '../command.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { out, table } from '../output.js';

const options: OptionSpec[] = [
  BOOTSTRAP_OPTION,
  { name: 'status', kind: 'flag', help: 'with describe: the quorum at a glance (leader, epoch, high watermark, follower lag, voters)' },
  { name: 'replication', kind: 'flag', help: "with describe: each voter's (and observer's) directory id, log end offset, lag, last fetch and status" },
  { name: 'human-readable', kind: 'flag', modes: ['replication'], help: 'with --replication: LastFetchTimestamp as "N ms ago" instead of epoch milliseconds' },
  { name: 'controller-id', alias: 'i', kind: 'int', value: 'id', min: 0, help: 'with add-controller and remove-controller: the controller to add to (or remove from) the voters' },
  { name: 'controller-directory-id', alias: 'd', kind: 'string', value: 'uuid', help: "with add-controller and remove-controller: the controller's metadata dir id (as describe --replication shows it); when given it must match" },
  { name: 'dry-run', kind: 'flag', help: 'with add-controller and remove-controller: print what would be done, without doing it' },
  HELP_OPTION,
];

const SUBCOMMANDS = ['describe', 'add-controller', 'remove-controller'] as const;
const DESCRIBE_OPTIONS = ['status', 'replication', 'human-readable'];
const CHANGE_OPTIONS = ['controller-id', 'controller-directory-id', 'dry-run'];

const positional: PositionalSpec = { name: 'describe|add-controller|remove-controller', help: 'the subcommand: describe the quorum, or add a controller to its voters, or remove one', max: 1 };

/** A replica's status in the replication table: Kafka's Leader / Follower / Observer, or a voter following no one while it stands (Candidate) or asks for pre-votes (Prospective). */
function status(v: QuorumVoterInfo, info: MetadataQuorumInfo): string {
  if (v.role === 'Observer') return 'Observer';
  if (v.id === info.leaderId) return 'Leader';
  return v.role === 'Candidate' || v.role === 'Prospective' ? v.role : 'Follower';
}

/** Leader first, then the followers by id, then the observers by id (Kafka's order). */
function ordered(info: MetadataQuorumInfo): QuorumVoterInfo[] {
  const voters = [...info.voters].sort((a, b) => Number(b.id === info.leaderId) - Number(a.id === info.leaderId) || a.id - b.id);
  return [...voters, ...[...(info.observers ?? [])].sort((a, b) => a.id - b.id)];
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
    // controllers outside the voter set; brokers take the metadata from the active controller,
    // not from the quorum's log, so they are none of them
    ['CurrentObservers', `[${(info.observers ?? []).map((v) => v.id).sort((a, b) => a - b).join(',')}]`],
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(24)}${String(v)}`);
}

/** Kafka's zero uuid: a directory id not known (a voter of the topology that has not told it). */
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/**
 * Kafka's `describe --replication` table (with its DirectoryId column): LastFetchTimestamp in epoch milliseconds (now minus the
 * time since the leader last heard from the voter), or "N ms ago" when humanReadable; -1 (or
 * "unknown") where the leader does not know.
 */
export function replicationLines(info: MetadataQuorumInfo, now: number, humanReadable: boolean): string[] {
  const fetched = (ms: number) => (ms < 0 ? (humanReadable ? 'unknown' : -1) : humanReadable ? `${ms} ms ago` : now - ms);
  return table(
    ['NodeId', 'DirectoryId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status'],
    ordered(info).map((v) => [v.id, v.directoryId ?? ZERO_UUID, v.logEndOffset, v.lag, fetched(v.lastContactMs), status(v, info)]),
  );
}

/** Options given that belong to another subcommand: a UsageError naming the first. */
function refuseOthers(args: Args, sub: string, allowed: readonly string[]): void {
  for (const name of [...DESCRIBE_OPTIONS, ...CHANGE_OPTIONS]) {
    if (args.has(name) && !allowed.includes(name)) throw new UsageError(`--${name} does not go with ${sub}`);
  }
}

/** The controller's directory id as the leader knows it (a voter's, or an observer's), if any. */
async function directoryIdOf(admin: Admin, id: number): Promise<string | undefined> {
  const info = await admin.describeMetadataQuorum();
  return [...info.voters, ...info.observers].find((v) => v.id === id)?.directoryId;
}

/**
 * add-controller / remove-controller, as Kafka's tool prints them: "Added controller 4 with
 * directory id ..." or "Removed KRaft controller 1 with directory id ..." ("DRY RUN of ..." and
 * nothing changed with --dry-run).
 */
async function change(args: Args, sub: 'add-controller' | 'remove-controller'): Promise<void> {
  refuseOthers(args, sub, CHANGE_OPTIONS);
  const id = args.int('controller-id');
  if (id === undefined) throw new UsageError(`${sub} needs --controller-id`);
  const given = args.string('controller-directory-id');
  if (given !== undefined && !isKafkaTopicId(given)) throw new UsageError(`--controller-directory-id '${given}' is not a directory id (22 characters of base64url, as describe --replication shows)`);
  const dryRun = args.has('dry-run');
  await withCluster(args, 'samsa-metadata-quorum', async (conn) => {
    await withAdmin(conn, async (admin) => {
      const dir = given ?? (await directoryIdOf(admin, id));
      const opts = given === undefined ? { voterId: id } : { voterId: id, voterDirectoryId: given };
      if (!dryRun) await (sub === 'add-controller' ? admin.addRaftVoter(opts) : admin.removeRaftVoter(opts));
      const withDir = dir === undefined ? '' : ` with directory id ${dir}`;
      if (sub === 'add-controller') out(`${dryRun ? 'DRY RUN of adding' : 'Added'} controller ${id}${withDir}`);
      else out(`${dryRun ? 'DRY RUN of removing' : 'Removed'} KRaft controller ${id}${withDir}`);
    });
  });
}

async function run(args: Args): Promise<number> {
  const sub = args.positionals[0];
  if (sub === undefined) throw new UsageError('give the subcommand: describe --status, describe --replication, add-controller or remove-controller');
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand '${sub}': give describe (--status or --replication), add-controller or remove-controller`);
  if (sub === 'add-controller' || sub === 'remove-controller') {
    await change(args, sub);
    return EXIT_OK;
  }
  refuseOthers(args, sub, DESCRIBE_OPTIONS);
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
  summary: 'describe the quorum of controllers that replicates the cluster metadata (leader, epoch, voters and their lag); add or remove a controller',
  usage: [
    '[--bootstrap-server host:port] describe --status',
    '[--bootstrap-server host:port] describe --replication [--human-readable]',
    '[--bootstrap-server host:port] add-controller --controller-id id [--controller-directory-id uuid] [--dry-run]',
    '[--bootstrap-server host:port] remove-controller --controller-id id [--controller-directory-id uuid] [--dry-run]',
  ],
  description:
    "Describes the metadata quorum like Kafka's kafka-metadata-quorum: the controllers that replicate the cluster metadata log by Raft, one of them the leader (the active controller). --status prints the leader, its epoch (the Raft term), the high watermark (the committed entries of the log), the largest follower lag in entries and in milliseconds since the leader last heard from a follower, and the voters. --replication prints each voter's (and observer's) directory id, log end offset, its lag behind the leader, when the leader last heard from it, and whether it leads, follows or observes.\n\nadd-controller makes a controller a voter (KIP-853): it must run already, outside the voter set, following the quorum as an observer (a topology's controller.observers, or ClusterHandle.startController), and be caught up; it is answered once the new voter set is committed. remove-controller takes a voter out; the active controller may remove itself, and another takes over. One change at a time: a second one while the first is not committed is refused (REQUEST_TIMED_OUT), as Kafka does. --controller-directory-id, optional here, must match the controller's when given.\n\nA cluster with one controller is a quorum of one. Brokers are not observers here: they take the metadata from the active controller, so CurrentObservers lists controllers only. While an election is on there is no leader (-1) and the lags are unknown (-1).",
  options,
  positional,
  examples: [
    'samsa metadata-quorum describe --status',
    'samsa metadata-quorum --bootstrap-server 127.0.0.1:9192 describe --replication --human-readable',
    'samsa metadata-quorum add-controller --controller-id 4',
    'samsa metadata-quorum remove-controller --controller-id 1 --controller-directory-id p5LbnVf1Ta6MbU9Zh0DpAQ',
  ],
  run,
};
