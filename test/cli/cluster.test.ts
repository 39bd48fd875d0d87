/**
 * `samsa cluster`: the list-endpoints table built from brokers (sorted, '-' where there is no
 * endpoint or rack), the command lines that cannot work (exit 2), and the command as a user runs
 * it against a cluster: cluster-id, list-endpoints, a broker that died listed fenced with
 * --include-fenced-brokers, then unregistered (Kafka's line) and gone; unregistering it again
 * fails with BROKER_ID_NOT_REGISTERED.
 */
import { expect } from 'chai';
import { endpointLines } from '../../src/cli/commands/cluster.js';
import { checkFor } from '../helpers/check-for.js';
import { cliClusterPerSuite, runCli } from './cli-harness.js';

describe('cli/commands/cluster: output', () => {
  it('list-endpoints: a row per broker by id, its node, endpoints, rack and state; "-" for what it has not', () => {
    expect(
      endpointLines([
        { brokerId: 2, node: 'b2', rack: null, fenced: true, brokerEpoch: 3, endpoint: null, kafkaEndpoint: '127.0.0.1:9093' },
        { brokerId: 1, node: 'b1', rack: 'r1', fenced: false, brokerEpoch: 1, endpoint: '10.0.0.1:9192', kafkaEndpoint: null },
      ]),
    ).to.deep.equal([
      'ID  NODE  ENDPOINT       KAFKA_ENDPOINT  RACK  STATE',
      '1   b1    10.0.0.1:9192  -               r1    unfenced',
      '2   b2    -              127.0.0.1:9093  -     fenced',
    ]);
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: [], says: /give the subcommand: cluster-id, list-endpoints or unregister/ },
      { argv: ['describe'], says: /unknown subcommand 'describe'/ },
      { argv: ['unregister'], says: /unregister needs --id/ },
      { argv: ['unregister', '--id', '-1'], says: /--id must be at least 0/ },
      { argv: ['unregister', '--id', 'x'], says: /--id/ },
      { argv: ['cluster-id', '--id', '1'], says: /--id does not go with cluster-id/ },
      { argv: ['unregister', '--id', '1', '--include-fenced-brokers'], says: /--include-fenced-brokers does not go with unregister/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(['cluster', '--bootstrap-server', '127.0.0.1:1', ...c.argv])));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
    });
  });

  it('shows up in `samsa --help` and has its own help', async () => {
    const [top, own] = await Promise.all([runCli(['--help']), runCli(['cluster', '--help'])]);
    expect(top.stdout).to.match(/^ {2}cluster +print the cluster's id/m);
    expect(own.code).to.equal(0);
    expect(own.stdout).to.match(/unregister --id broker-id/);
    expect(own.stdout).to.include('--include-fenced-brokers');
  });
});

describe('cli/commands/cluster: against a cluster', function () {
  this.timeout(60_000);
  const cluster = cliClusterPerSuite(3);

  it('cluster-id prints the cluster id as Kafka\'s tool does', async () => {
    const c = cluster();
    const r = await c.run('cluster', ['cluster-id']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`Cluster ID: ${(await c.cluster.client.metadata()).clusterId}\n`);
  });

  it('list-endpoints, a broker dying (fenced, listed with --include-fenced-brokers), unregister, gone; a second unregister fails', async () => {
    const c = cluster();
    const listed = async (...extra: string[]) => {
      const r = await c.run('cluster', ['list-endpoints', ...extra]);
      expect(r.code, r.stderr).to.equal(0);
      return r.stdout.trim().split('\n').slice(1).map((l) => { const cols = l.split(/\s+/); return `${cols[0]} ${cols.at(-1)}`; });
    };
    expect(await listed()).to.deep.equal(['1 unfenced', '2 unfenced', '3 unfenced']);
    await c.cluster.killBroker(3);
    await checkFor(async () => JSON.stringify(await listed()) === JSON.stringify(['1 unfenced', '2 unfenced']), 20_000, 100);
    expect(await listed('--include-fenced-brokers')).to.deep.equal(['1 unfenced', '2 unfenced', '3 fenced']);

    const r = await c.run('cluster', ['unregister', '--id', '3']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('Broker 3 is no longer registered.\n');
    expect(await listed('--include-fenced-brokers')).to.deep.equal(['1 unfenced', '2 unfenced']);

    const again = await c.run('cluster', ['unregister', '--id', '3']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/BROKER_ID_NOT_REGISTERED/);
    expect(again.stderr).to.match(/Broker ID 3 is not currently registered/);
    expect(again.stdout).to.equal('');
  });
});
