/**
 * `samsa log-dirs`: --broker-list and --topic-list read as Kafka's tool reads them, its JSON line,
 * the command lines that cannot work (exit 2), and the command as a user runs it against a
 * three-broker cluster: every live broker or those of --broker-list, a topic filter, sizes that
 * grow with what is produced, and an unknown broker (exit 1).
 */
import path from 'node:path';
import { expect } from 'chai';
import { logDirsJson, parseBrokerIds, parseTopicList } from '../../src/cli/commands/log-dirs.js';
import { UsageError } from '../../src/cli/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

interface Printed {
  version: number;
  brokers: { broker: number; logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[] }[] }[];
}

describe('cli/commands/log-dirs: options and output', () => {
  it("reads --broker-list and --topic-list as Kafka's tool does: empty entries skipped, each once", () => {
    expect(parseBrokerIds('3,1,2')).to.deep.equal([1, 2, 3]);
    expect(parseBrokerIds(' 2 ,,2, 1')).to.deep.equal([1, 2]);
    expect(parseBrokerIds('')).to.deep.equal([]);
    for (const raw of ['a', '1,b', '-1', '1.5']) expect(() => parseBrokerIds(raw), raw).to.throw(UsageError, /--broker-list takes broker ids separated by commas/);
    expect(parseTopicList('a,b,,a, c ')).to.deep.equal(['a', 'b', 'c']);
    expect(parseTopicList('')).to.deep.equal([]);
  });

  it("prints Kafka's JSON: partitions named topic-partition, a dir's error by name or null", () => {
    const json = logDirsJson([
      {
        broker: 1,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        logDirs: [
          {
            logDir: '/data/broker-1',
            errorCode: ErrorCode.NONE,
            errorMessage: null,
            totalBytes: 100,
            usableBytes: 50,
            partitions: [
              { topic: 't', partition: 0, size: 123, offsetLag: 0, isFuture: false },
              { topic: 'u', partition: 2, size: 0, offsetLag: 0, isFuture: false },
            ],
          },
        ],
      },
      { broker: 2, errorCode: ErrorCode.NONE, errorMessage: null, logDirs: [{ logDir: '/data/broker-2', errorCode: ErrorCode.KAFKA_STORAGE_ERROR, errorMessage: 'x', totalBytes: -1, usableBytes: -1, partitions: [] }] },
    ]);
    expect(json).to.equal(
      '{"version":1,"brokers":[{"broker":1,"logDirs":[{"logDir":"/data/broker-1","error":null,"partitions":[{"partition":"t-0","size":123,"offsetLag":0,"isFuture":false},{"partition":"u-2","size":0,"offsetLag":0,"isFuture":false}]}]},' +
        '{"broker":2,"logDirs":[{"logDir":"/data/broker-2","error":"KAFKA_STORAGE_ERROR","partitions":[]}]}]}',
    );
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['log-dirs'], says: /give --describe/ },
      { argv: ['log-dirs', '--broker-list', '1'], says: /give --describe/ },
      { argv: ['log-dirs', '--describe', '--broker-list', 'x'], says: /--broker-list takes broker ids separated by commas, such as 1,2,3; got 'x'/ },
      { argv: ['log-dirs', '--describe', '--topics', 'a'], says: /unknown option --topics/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.argv)));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
      expect(r.stdout).to.equal('');
    });
    const help = await runCli(['log-dirs', '--help']);
    expect(help.code).to.equal(0);
    for (const o of ['--describe', '--broker-list', '--topic-list', '--bootstrap-server']) expect(help.stdout).to.contain(o);
  });
});

describe('cli: log-dirs against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;

  before(async () => {
    c = await CliCluster.start(3);
    await c.cluster.client.createTopics([
      { name: 'ld', assignments: [[1, 2], [2, 3], [3, 1]] },
      { name: 'other', assignments: [[1]] },
    ]);
    await c.cluster.client.waitForLeaders('ld');
    await c.cluster.client.waitForLeaders('other');
  });
  after(async () => {
    await c?.stop();
  });

  /** The three lines of a successful run, the last one parsed. */
  const parse = (stdout: string): { lines: string[]; json: Printed } => {
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).to.have.length(3);
    return { lines, json: JSON.parse(lines[2]!) as Printed };
  };
  const partitionsOf = (json: Printed, broker: number) => json.brokers.find((b) => b.broker === broker)!.logDirs.flatMap((d) => d.partitions);

  it('--describe asks every live broker and prints its log dir with the partitions it holds', async () => {
    const r = await c.run('log-dirs', ['--describe']);
    expect(r.code, r.stderr).to.equal(0);
    const { lines, json } = parse(r.stdout);
    expect(lines[0]).to.equal('Querying brokers for log directories information');
    expect(lines[1]).to.equal('Received log directory information from brokers 1,2,3');
    expect(json.version).to.equal(1);
    expect(json.brokers.map((b) => b.broker)).to.deep.equal([1, 2, 3]);
    for (const b of json.brokers) {
      expect(b.logDirs).to.have.length(1);
      expect(b.logDirs[0]!.logDir).to.equal(path.resolve(c.cluster.logDir(b.broker)));
      expect(b.logDirs[0]!.error).to.equal(null);
      for (const p of b.logDirs[0]!.partitions) expect(p).to.include({ offsetLag: 0, isFuture: false });
    }
    const names = (broker: number) => partitionsOf(json, broker).map((p) => p.partition).filter((n) => n.startsWith('ld-') || n.startsWith('other-'));
    expect(names(1)).to.deep.equal(['ld-0', 'ld-2', 'other-0']);
    expect(names(2)).to.deep.equal(['ld-0', 'ld-1']);
    expect(names(3)).to.deep.equal(['ld-1', 'ld-2']);
  });

  it('--broker-list and --topic-list narrow it down; sizes grow with what is produced', async () => {
    const before = await c.run('log-dirs', ['--describe', '--broker-list', '2,1', '--topic-list', 'ld']);
    expect(before.code, before.stderr).to.equal(0);
    const was = parse(before.stdout);
    expect(was.lines[1]).to.equal('Received log directory information from brokers 1,2');
    expect(was.json.brokers.map((b) => b.broker)).to.deep.equal([1, 2]);
    expect(partitionsOf(was.json, 1).map((p) => p.partition)).to.deep.equal(['ld-0', 'ld-2']);
    expect(partitionsOf(was.json, 2).map((p) => p.partition)).to.deep.equal(['ld-0', 'ld-1']);

    await c.cluster.client.produce('ld', 0, ['one', 'two', 'three']);
    const sizeOf = (json: Printed, broker: number, partition: string) => partitionsOf(json, broker).find((p) => p.partition === partition)!.size;
    // the follower (broker 2) has the records once it fetched them
    const admin = c.cluster.samsa('log-dirs-wait').admin();
    await admin.connect();
    try {
      await checkFor(async () => {
        const [b2] = await admin.describeLogDirs({ brokers: [2], topics: [{ topic: 'ld', partitions: [0] }] });
        return b2!.logDirs[0]!.partitions[0]!.size > sizeOf(was.json, 2, 'ld-0');
      }, 15_000);
    } finally {
      await admin.disconnect();
    }
    const r = await c.run('log-dirs', ['--describe', '--broker-list', '1,2', '--topic-list', 'ld']);
    expect(r.code, r.stderr).to.equal(0);
    const now = parse(r.stdout);
    for (const broker of [1, 2]) expect(sizeOf(now.json, broker, 'ld-0'), `broker ${broker}`).to.be.greaterThan(sizeOf(was.json, broker, 'ld-0'));
    expect(sizeOf(now.json, 1, 'ld-0')).to.equal(sizeOf(now.json, 2, 'ld-0'));
    expect(sizeOf(now.json, 1, 'ld-2')).to.equal(sizeOf(was.json, 1, 'ld-2'));

    const unknownTopic = await c.run('log-dirs', ['--describe', '--broker-list', '3', '--topic-list', 'no-such-topic']);
    expect(unknownTopic.code, unknownTopic.stderr).to.equal(0);
    expect(parse(unknownTopic.stdout).json).to.deep.equal({ version: 1, brokers: [{ broker: 3, logDirs: [{ logDir: path.resolve(c.cluster.logDir(3)), error: null, partitions: [] }] }] });
  });

  it('a broker of --broker-list that is not in the cluster fails with exit 1, naming it', async () => {
    const r = await c.run('log-dirs', ['--describe', '--broker-list', '1,7']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain('the given brokers do not exist from --broker-list: 7. Current existent brokers: 1,2,3');
    expect(r.stdout).to.equal('');
  });
});

describe('cli: log-dirs with two log dirs per broker', function () {
  this.timeout(120_000);
  let c: CliCluster;

  before(async () => {
    c = await CliCluster.start(1, {}, { logDirsPerBroker: 2 });
    await c.cluster.client.createTopic('two', 4, 1);
    await c.cluster.client.waitForLeaders('two');
  });
  after(async () => {
    await c?.stop();
  });

  it('--describe prints both dirs of the broker, each with the partitions in it', async () => {
    const r = await c.run('log-dirs', ['--describe', '--topic-list', 'two']);
    expect(r.code, r.stderr).to.equal(0);
    const json = JSON.parse(r.stdout.split('\n').filter(Boolean)[2]!) as Printed;
    const dirs = json.brokers[0]!.logDirs;
    expect(dirs.map((d) => d.logDir)).to.deep.equal(c.cluster.logDirs(1).map((d) => path.resolve(d)));
    expect(dirs.map((d) => d.partitions.length)).to.deep.equal([2, 2]);
    expect(dirs.flatMap((d) => d.partitions.map((p) => p.partition)).sort()).to.deep.equal(['two-0', 'two-1', 'two-2', 'two-3']);
    for (const d of dirs) expect(d.error).to.equal(null);
  });
});
