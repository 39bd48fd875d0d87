/**
 * `samsa metadata-quorum`: Kafka's --status lines and --replication table built from a quorum
 * description (three voters, a lagging one, an election with nothing known, an observer), the
 * command lines that cannot work (exit 2), and the command as a user runs it against a cluster
 * with one controller: a quorum of one whose high watermark grows as the metadata changes; and
 * add-controller / remove-controller against a topology that starts a second controller as an
 * observer: it is added, the first removed, as Kafka's tool prints it.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replicationLines, statusLines } from '../../src/cli/commands/metadata-quorum.js';
import type { MetadataQuorumInfo } from '../../src/client/admin.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

const THREE: MetadataQuorumInfo = {
  clusterId: 'abc',
  leaderId: 2,
  leaderEpoch: 3,
  highWatermark: 42,
  controllerEpoch: 3,
  voters: [
    { id: 1, node: 'c1', logEndOffset: 40, lag: 2, lastContactMs: 12, role: 'Follower' },
    { id: 2, node: 'c2', directoryId: 'Rr9uWrNZSIWWb2cA3g6Hcw', logEndOffset: 42, lag: 0, lastContactMs: 0, role: 'Leader' },
    { id: 3, node: 'c3', logEndOffset: 42, lag: 0, lastContactMs: 7, role: 'Follower' },
  ],
  observers: [],
};

/** The value of a `Label:   value` line of --status. */
function field(stdout: string, label: string): string {
  const m = new RegExp(`^${label}:\\s+(.*)$`, 'm').exec(stdout);
  expect(m, `${label} in\n${stdout}`).to.not.equal(null);
  return m![1]!;
}

describe('cli/commands/metadata-quorum: output', () => {
  it("prints --status as Kafka's tool does: the largest follower lag in entries and in ms", () => {
    expect(statusLines(THREE)).to.deep.equal([
      'ClusterId:              abc',
      'LeaderId:               2',
      'LeaderEpoch:            3',
      'HighWatermark:          42',
      'MaxFollowerLag:         2',
      'MaxFollowerLagTimeMs:   12',
      'CurrentVoters:          [1,2,3]',
      'CurrentObservers:       []',
    ]);
  });

  it('a quorum of one has no follower lag; during an election the lags are unknown (-1)', () => {
    const one: MetadataQuorumInfo = { leaderId: 1, leaderEpoch: 1, highWatermark: 5, controllerEpoch: 1, voters: [{ id: 1, node: 'controller', logEndOffset: 5, lag: 0, lastContactMs: 0, role: 'Leader' }], observers: [] };
    const s = statusLines(one);
    expect(s).to.include('ClusterId:              unknown');
    expect(s).to.include('MaxFollowerLag:         0');
    expect(s).to.include('MaxFollowerLagTimeMs:   0');
    const election: MetadataQuorumInfo = {
      leaderId: -1,
      leaderEpoch: 4,
      highWatermark: 42,
      controllerEpoch: 3,
      voters: [1, 2, 3].map((id) => ({ id, node: `c${id}`, logEndOffset: -1, lag: -1, lastContactMs: -1, role: id === 3 ? 'Candidate' : id === 2 ? 'Prospective' : 'Follower' })),
      observers: [],
    };
    expect(statusLines(election)).to.include.members(['LeaderId:               -1', 'MaxFollowerLag:         -1', 'MaxFollowerLagTimeMs:   -1']);
    expect(replicationLines(election, 1_000, true).map((l) => l.split(/\s+/))).to.deep.equal([
      ['NodeId', 'DirectoryId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status'],
      ['1', ZERO, '-1', '-1', 'unknown', 'Follower'],
      ['2', ZERO, '-1', '-1', 'unknown', 'Prospective'],
      ['3', ZERO, '-1', '-1', 'unknown', 'Candidate'],
    ]);
  });

  it('prints --replication with the leader first, directory ids (the zero uuid where unknown), fetch times as epoch ms or "ms ago"', () => {
    expect(replicationLines(THREE, 1_700_000_000_000, false)).to.deep.equal([
      'NodeId  DirectoryId             LogEndOffset  Lag  LastFetchTimestamp  Status',
      '2       Rr9uWrNZSIWWb2cA3g6Hcw  42            0    1700000000000       Leader',
      '1       AAAAAAAAAAAAAAAAAAAAAA  40            2    1699999999988       Follower',
      '3       AAAAAAAAAAAAAAAAAAAAAA  42            0    1699999999993       Follower',
    ]);
    expect(replicationLines(THREE, 0, true)).to.deep.equal([
      'NodeId  DirectoryId             LogEndOffset  Lag  LastFetchTimestamp  Status',
      '2       Rr9uWrNZSIWWb2cA3g6Hcw  42            0    0 ms ago            Leader',
      '1       AAAAAAAAAAAAAAAAAAAAAA  40            2    12 ms ago           Follower',
      '3       AAAAAAAAAAAAAAAAAAAAAA  42            0    7 ms ago            Follower',
    ]);
  });

  it('lists observers (controllers outside the voter set) after the voters: CurrentObservers, and Observer rows', () => {
    const withObserver: MetadataQuorumInfo = { ...THREE, observers: [{ id: 4, node: 'c4', directoryId: 'p5LbnVf1Ta6MbU9Zh0DpAQ', logEndOffset: 41, lag: 1, lastContactMs: 3, role: 'Observer' }] };
    expect(statusLines(withObserver)).to.include.members(['CurrentVoters:          [1,2,3]', 'CurrentObservers:       [4]']);
    expect(replicationLines(withObserver, 0, true).at(-1)!.split(/\s{2,}/)).to.deep.equal(['4', 'p5LbnVf1Ta6MbU9Zh0DpAQ', '41', '1', '3 ms ago', 'Observer']);
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /give the subcommand: describe --status, describe --replication, add-controller or remove-controller/ },
      { argv: ['list'], says: /unknown subcommand 'list'/ },
      { argv: ['add-controller'], says: /add-controller needs --controller-id/ },
      { argv: ['remove-controller', '--controller-id', '-1'], says: /--controller-id must be at least 0/ },
      { argv: ['remove-controller', '--controller-id', '1', '--controller-directory-id', 'nope'], says: /'nope' is not a directory id/ },
      { argv: ['add-controller', '--controller-id', '4', '--status'], says: /--status does not go with add-controller/ },
      { argv: ['describe', '--status', '--controller-id', '4'], says: /--controller-id does not go with describe/ },
      { argv: ['describe'], says: /give one of --status, --replication/ },
      { argv: ['describe', '--status', '--replication'], says: /give only one of/ },
      { argv: ['describe', '--status', '--human-readable'], says: /--human-readable goes with --replication/ },
      { argv: ['describe', 'describe', '--status'], says: /unexpected argument 'describe'/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['metadata-quorum', '--bootstrap-server', '127.0.0.1:1', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });

  it('shows up in `samsa --help` and has its own help', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['metadata-quorum', '--help'])]);
    expect(top.stdout).to.match(/^ {2}metadata-quorum +describe the quorum of controllers/m);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/usage: samsa metadata-quorum \[--bootstrap-server host:port\] describe --status/);
    expect(own.stdout).to.include('--human-readable');
    expect(own.stdout).to.match(/add-controller --controller-id id/);
    expect(own.stdout).to.match(/remove-controller --controller-id id/);
  });
});

describe('cli/commands/metadata-quorum: against a cluster', function () {
  this.timeout(60_000);
  let c: CliCluster;

  before(async () => {
    c = await CliCluster.start(1);
  });
  after(async () => {
    await c?.stop();
  });

  it('describe --status: a single controller is a quorum of one that leads, its high watermark growing with the metadata', async () => {
    const r = await c.run('metadata-quorum', ['describe', '--status']);
    expect(r.code, r.stderr).to.equal(0);
    const md = await c.cluster.client.metadata();
    expect(field(r.stdout, 'ClusterId')).to.equal(md.clusterId);
    expect(field(r.stdout, 'LeaderId')).to.equal('1');
    expect(Number(field(r.stdout, 'LeaderEpoch'))).to.be.at.least(1);
    const hw = Number(field(r.stdout, 'HighWatermark'));
    expect(hw).to.be.greaterThan(0);
    expect(field(r.stdout, 'MaxFollowerLag')).to.equal('0');
    expect(field(r.stdout, 'MaxFollowerLagTimeMs')).to.equal('0');
    expect(field(r.stdout, 'CurrentVoters')).to.equal('[1]');
    expect(field(r.stdout, 'CurrentObservers')).to.equal('[]');
    expect(r.stdout.trim().split('\n')).to.have.length(8);

    const created = await c.run('topics', ['--create', '--topic', 'quorum-grows', '--partitions', '2', '--replication-factor', '1']);
    expect(created.code, created.stderr).to.equal(0);
    const after = await checkFor(async () => {
      const again = await c.run('metadata-quorum', ['describe', '--status']);
      return again.code === 0 && Number(field(again.stdout, 'HighWatermark')) > hw ? again : null;
    }, 10_000, 100);
    expect(field(after.stdout, 'LeaderId')).to.equal('1');
  });

  it('describe --replication: one row, the leader, caught up', async () => {
    const [raw, human] = await Promise.all([c.run('metadata-quorum', ['describe', '--replication']), c.run('metadata-quorum', ['describe', '--replication', '--human-readable'])]);
    expect(raw.code, raw.stderr).to.equal(0);
    const lines = raw.stdout.trim().split('\n');
    expect(lines[0]!.split(/\s+/)).to.deep.equal(['NodeId', 'DirectoryId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status']);
    expect(lines).to.have.length(2);
    const [id, dirId, leo, lag, fetched, status] = lines[1]!.split(/\s+/);
    expect([id, lag, status]).to.deep.equal(['1', '0', 'Leader']);
    expect(dirId).to.match(/^[A-Za-z0-9_-]{22}$/).and.not.equal(ZERO);
    expect(Number(leo)).to.be.greaterThan(0);
    expect(Math.abs(Number(fetched) - Date.now())).to.be.below(60_000);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^1\s+[A-Za-z0-9_-]{22}\s+\d+\s+0\s+\d+ ms ago\s+Leader$/m);
  });

  it('exits 1 with a clear message when no cluster answers', async () => {
    const r = await runCli(['metadata-quorum', '--bootstrap-server', '127.0.0.1:1', 'describe', '--status']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/samsa metadata-quorum: cannot reach the cluster at 127\.0\.0\.1:1/);
    expect(r.stdout).to.equal('');
  });
});

describe('cli/commands/metadata-quorum: add-controller and remove-controller (KIP-853)', function () {
  this.timeout(60_000);
  let dir: string;
  let h: ClusterHandle | undefined;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cli-quorum-'));
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('adds a controller running as an observer, then removes the first: the voters and observers as describe shows them', async () => {
    const t: TopologyConfig = {
      clusterId: 'cli-quorum',
      logLevel: 'silent',
      nodes: ['main', 'c1', 'c2', 'b1'].map((id) => ({ id, kind: 'inproc' as const })),
      controller: { quorum: [{ id: 1, node: 'c1', metadataDir: 'c1' }], observers: [{ id: 2, node: 'c2', metadataDir: 'c2' }], config: { 'controller.quorum.election.timeout.ms': 300 } },
      brokers: [{ id: 1, node: 'b1', logDir: 'b1', config: { 'broker.heartbeat.interval.ms': 200 } }],
      listeners: [{ node: 'main', host: '127.0.0.1', port: 0 }],
    };
    h = await startCluster(t, { baseDir: dir });
    const bootstrap = h.addresses()[0]!;
    const cli = (...argv: string[]) => runCli(['metadata-quorum', '--bootstrap-server', bootstrap, ...argv]);
    const observing = await checkFor(async () => {
      const r = await cli('describe', '--status');
      return r.code === 0 && field(r.stdout, 'CurrentObservers') === '[2]' ? r : null;
    }, 15_000, 100);
    expect(field(observing.stdout, 'CurrentVoters')).to.equal('[1]');
    const rows = (await cli('describe', '--replication')).stdout.trim().split('\n');
    expect(rows.at(-1)).to.match(/^2\s+[A-Za-z0-9_-]{22}\s+\d+\s+\d+\s+\d+\s+Observer$/);

    const dry = await cli('add-controller', '--controller-id', '2', '--dry-run');
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.match(/^DRY RUN of adding controller 2 with directory id [A-Za-z0-9_-]{22}\n$/);
    expect(field((await cli('describe', '--status')).stdout, 'CurrentVoters')).to.equal('[1]');

    const added = await checkFor(async () => {
      const r = await cli('add-controller', '--controller-id', '2');
      return r.code === 0 ? r : null;
    }, 10_000, 200);
    const dirId = /with directory id ([A-Za-z0-9_-]{22})$/.exec(added.stdout.trim())![1]!;
    expect(added.stdout).to.equal(`Added controller 2 with directory id ${dirId}\n`);
    const both = await cli('describe', '--status');
    expect([field(both.stdout, 'CurrentVoters'), field(both.stdout, 'CurrentObservers')]).to.deep.equal(['[1,2]', '[]']);

    const again = await cli('add-controller', '--controller-id', '2');
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/DUPLICATE_VOTER|already a voter/);

    const wrongDir = await cli('remove-controller', '--controller-id', '2', '--controller-directory-id', 'AAAAAAAAAAAAAAAAAAAAAA');
    expect(wrongDir.code).to.equal(1);
    expect(wrongDir.stderr).to.match(/VOTER_NOT_FOUND|not a voter/);

    const removed = await cli('remove-controller', '--controller-id', '1');
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.match(/^Removed KRaft controller 1 with directory id [A-Za-z0-9_-]{22}\n$/);
    const after = await checkFor(async () => {
      const r = await cli('describe', '--status');
      return r.code === 0 && field(r.stdout, 'LeaderId') === '2' && field(r.stdout, 'CurrentObservers') === '[1]' ? r : null;
    }, 15_000, 100);
    expect(field(after.stdout, 'CurrentVoters')).to.equal('[2]');
  });
});
