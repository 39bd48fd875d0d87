/**
 * `samsa delete-records`: Kafka's offset JSON and its messages for what is wrong with it, the
 * result lines, the command lines that cannot work (exit 2) or files refused before connecting
 * (exit 1), and the command as a user runs it against a running cluster: log starts moved (to an
 * offset, to the high watermark), a partition refused beside one done (exit 1).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseOffsetJson, resultLines } from '../../src/cli/commands/delete-records.js';
import { CliError } from '../../src/cli/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CliCluster, runCli } from './cli-harness.js';

describe('cli/commands/delete-records: the offset JSON and the output', () => {
  it("reads Kafka's JSON: version 1 (or none), each partition's topic, partition and offset", () => {
    expect(parseOffsetJson('{"partitions":[{"topic":"a","partition":0,"offset":5},{"topic":"b","partition":2,"offset":-1}],"version":1}')).to.deep.equal([
      { topic: 'a', partition: 0, offset: 5 },
      { topic: 'b', partition: 2, offset: -1 },
    ]);
    expect(parseOffsetJson('{"partitions":[]}')).to.deep.equal([]);
  });

  it("refuses a malformed file with Kafka's messages", () => {
    const cases: [string, string][] = [
      ['{"partitions":', 'The input string is not a valid JSON'],
      ['[1]', 'Expected JSON object, received [1]'],
      ['{"version":2,"partitions":[]}', 'Not supported version field value 2'],
      ['{"version":"1","partitions":[]}', 'Expected `Int` value, received "1"'],
      ['{"version":1}', 'Missing partitions field'],
      ['{"partitions":{}}', 'Expected JSON array, received {}'],
      ['{"partitions":[3]}', 'Expected JSON object, received 3'],
      ['{"partitions":[{"partition":0,"offset":1}]}', 'No such field exists: `topic`'],
      ['{"partitions":[{"topic":"a","offset":1}]}', 'No such field exists: `partition`'],
      ['{"partitions":[{"topic":"a","partition":0}]}', 'No such field exists: `offset`'],
      ['{"partitions":[{"topic":1,"partition":0,"offset":1}]}', 'Expected `String` value, received 1'],
      ['{"partitions":[{"topic":"a","partition":"0","offset":1}]}', 'Expected `Int` value, received "0"'],
      ['{"partitions":[{"topic":"a","partition":0,"offset":1.5}]}', 'Expected `Long` value, received 1.5'],
    ];
    for (const [text, message] of cases) expect(() => parseOffsetJson(text), text).to.throw(CliError, message);
  });

  it('refuses a partition named twice, naming every such partition', () => {
    const text = JSON.stringify({
      version: 1,
      partitions: [
        { topic: 'a', partition: 0, offset: 1 },
        { topic: 'b', partition: 1, offset: 1 },
        { topic: 'a', partition: 0, offset: 2 },
        { topic: 'b', partition: 1, offset: 3 },
        { topic: 'a', partition: 1, offset: 3 },
      ],
    });
    expect(() => parseOffsetJson(text)).to.throw(CliError, 'Offset json file contains duplicate topic partitions: a-0,b-1');
  });

  it("prints Kafka's lines: the low watermark, or the error", () => {
    expect(
      resultLines([
        { topic: 'a', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null, lowWatermark: 42 },
        { topic: 'a', partition: 1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, errorMessage: 'cannot delete records before 9: the high watermark is 2', lowWatermark: -1 },
      ]),
    ).to.deep.equal(['partition: a-0\tlow_watermark: 42', 'partition: a-1\terror: OFFSET_OUT_OF_RANGE: cannot delete records before 9: the high watermark is 2']);
  });
});

describe('cli: delete-records', function () {
  this.timeout(60_000);
  let cli: CliCluster;
  let dir: string;

  before(async () => {
    cli = await CliCluster.start(2);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-delete-records-'));
  });
  after(async () => {
    await cli?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  function file(name: string, content: unknown): string {
    const f = path.join(dir, name);
    fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
    return f;
  }

  it('refuses command lines that cannot work (exit 2), and bad files (exit 1), before connecting', async () => {
    // no --bootstrap-server: each is refused before the command would connect
    const usage = await runCli(['delete-records'], { inProcess: true });
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain('--offset-json-file is required');
    const missing = await runCli(['delete-records', '--offset-json-file', path.join(dir, 'nope.json')], { inProcess: true });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('cannot read');
    const twice = file('twice.json', { partitions: [0, 0].map((offset) => ({ topic: 't', partition: 0, offset })) });
    const dup = await runCli(['delete-records', '--offset-json-file', twice], { inProcess: true });
    expect(dup.code).to.equal(1);
    expect(dup.stderr).to.contain('Offset json file contains duplicate topic partitions: t-0');
    expect(dup.stdout).to.equal('');
    const bad = await runCli(['delete-records', '--offset-json-file', file('bad.json', '{')], { inProcess: true });
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.contain('The input string is not a valid JSON');
  });

  it("moves each partition's log start and prints its low watermark", async () => {
    await cli.cluster.client.createTopic('dr', 2, 2);
    await cli.cluster.client.produce('dr', 0, ['a', 'b', 'c', 'd']);
    await cli.cluster.client.produce('dr', 1, ['e', 'f']);
    const f = file('ok.json', {
      partitions: [
        { topic: 'dr', partition: 0, offset: 3 },
        { topic: 'dr', partition: 1, offset: -1 },
      ],
      version: 1,
    });
    const r = await cli.run('delete-records', ['--offset-json-file', f], { inProcess: true });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.split('\n')).to.deep.equal(['Executing records delete operation', 'Records delete operation completed:', 'partition: dr-0\tlow_watermark: 3', 'partition: dr-1\tlow_watermark: 2', '']);
    const admin = cli.cluster.samsa().admin();
    await admin.connect();
    try {
      expect((await admin.fetchTopicOffsets('dr')).map((p) => p.low)).to.deep.equal([3, 2]);
    } finally {
      await admin.disconnect();
    }
  });

  it('prints the error of a partition refused beside the one done, exit 1', async () => {
    await cli.cluster.client.createTopic('dr-mixed', 1, 2);
    await cli.cluster.client.produce('dr-mixed', 0, ['a', 'b']);
    const f = file('mixed.json', {
      partitions: [
        { topic: 'dr-mixed', partition: 0, offset: 9 },
        { topic: 'dr-none', partition: 0, offset: 1 },
        { topic: 'dr', partition: 0, offset: 1 },
      ],
    });
    const r = await cli.run('delete-records', ['--offset-json-file', f], { inProcess: true });
    expect(r.code).to.equal(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).to.deep.equal(['Executing records delete operation', 'Records delete operation completed:']);
    expect(lines[2]).to.match(/^partition: dr-mixed-0\terror: OFFSET_OUT_OF_RANGE: /);
    expect(lines[3]).to.match(/^partition: dr-none-0\terror: UNKNOWN_TOPIC_OR_PARTITION: /);
    // below the log start: nothing deleted, the log start told
    expect(lines[4]).to.equal('partition: dr-0\tlow_watermark: 3');
  });
});
