/**
 * `samsa metadata-quorum`: Kafka's --status lines and --replication table built from a quorum
 * description (three voters, a lagging one, an election with nothing known), the command lines
 * that cannot work (exit 2), and the command as a user runs it against a cluster with one
 * controller: a quorum of one whose high watermark grows as the metadata changes.
 */
import { expect } from 'chai';
import { replicationLines, statusLines } from '../../src/cli/commands/metadata-quorum.js';
import type { MetadataQuorumInfo } from '../../src/client/admin.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

const THREE: MetadataQuorumInfo = {
  clusterId: 'abc',
  leaderId: 2,
  leaderEpoch: 3,
  highWatermark: 42,
  controllerEpoch: 3,
  voters: [
    { id: 1, node: 'c1', logEndOffset: 40, lag: 2, lastContactMs: 12, role: 'Follower' },
    { id: 2, node: 'c2', logEndOffset: 42, lag: 0, lastContactMs: 0, role: 'Leader' },
    { id: 3, node: 'c3', logEndOffset: 42, lag: 0, lastContactMs: 7, role: 'Follower' },
  ],
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
    const one: MetadataQuorumInfo = { leaderId: 1, leaderEpoch: 1, highWatermark: 5, controllerEpoch: 1, voters: [{ id: 1, node: 'controller', logEndOffset: 5, lag: 0, lastContactMs: 0, role: 'Leader' }] };
    const s = statusLines(one);
    expect(s).to.include('ClusterId:              unknown');
    expect(s).to.include('MaxFollowerLag:         0');
    expect(s).to.include('MaxFollowerLagTimeMs:   0');
    const election: MetadataQuorumInfo = {
      leaderId: -1,
      leaderEpoch: 4,
      highWatermark: 42,
      controllerEpoch: 3,
      voters: [1, 2, 3].map((id) => ({ id, node: `c${id}`, logEndOffset: -1, lag: -1, lastContactMs: -1, role: id === 3 ? 'Candidate' : 'Follower' })),
    };
    expect(statusLines(election)).to.include.members(['LeaderId:               -1', 'MaxFollowerLag:         -1', 'MaxFollowerLagTimeMs:   -1']);
    expect(replicationLines(election, 1_000, true).map((l) => l.split(/\s+/))).to.deep.equal([
      ['NodeId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status'],
      ['1', '-1', '-1', 'unknown', 'Follower'],
      ['2', '-1', '-1', 'unknown', 'Follower'],
      ['3', '-1', '-1', 'unknown', 'Candidate'],
    ]);
  });

  it('prints --replication with the leader first, fetch times as epoch ms or "ms ago"', () => {
    expect(replicationLines(THREE, 1_700_000_000_000, false)).to.deep.equal([
      'NodeId  LogEndOffset  Lag  LastFetchTimestamp  Status',
      '2       42            0    1700000000000       Leader',
      '1       40            2    1699999999988       Follower',
      '3       42            0    1699999999993       Follower',
    ]);
    expect(replicationLines(THREE, 0, true)).to.deep.equal([
      'NodeId  LogEndOffset  Lag  LastFetchTimestamp  Status',
      '2       42            0    0 ms ago            Leader',
      '1       40            2    12 ms ago           Follower',
      '3       42            0    7 ms ago            Follower',
    ]);
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /give the subcommand: describe --status or describe --replication/ },
      { argv: ['list'], says: /unknown subcommand 'list'/ },
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
    expect(lines[0]!.split(/\s+/)).to.deep.equal(['NodeId', 'LogEndOffset', 'Lag', 'LastFetchTimestamp', 'Status']);
    expect(lines).to.have.length(2);
    const [id, leo, lag, fetched, status] = lines[1]!.split(/\s+/);
    expect([id, lag, status]).to.deep.equal(['1', '0', 'Leader']);
    expect(Number(leo)).to.be.greaterThan(0);
    expect(Math.abs(Number(fetched) - Date.now())).to.be.below(60_000);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^1\s+\d+\s+0\s+\d+ ms ago\s+Leader$/m);
  });

  it('exits 1 with a clear message when no cluster answers', async () => {
    const r = await runCli(['metadata-quorum', '--bootstrap-server', '127.0.0.1:1', 'describe', '--status']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/samsa metadata-quorum: cannot reach the cluster at 127\.0\.0\.1:1/);
    expect(r.stdout).to.equal('');
  });
});
