/**
 * `samsa reassign-partitions`: Kafka's JSON files read with a clear error for each way they can be
 * wrong, --generate's plan (the controller's placement, each partition keeping its replication
 * factor), the reports that decide the exit codes, and the command as a user runs it against a
 * three-broker cluster: --generate, --execute (with its rollback JSON, run again to roll back),
 * --verify, --list and --cancel around a reassignment held in progress by a stopped broker;
 * --throttle's topic and broker configs, changed with --additional and removed by --verify (or
 * kept with --preserve-throttles) and --cancel; --disallow-replication-factor-change (KIP-860).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { assignReplicasRackAware, assignReplicasRackUnaware, placementForNewTopic, seededRandom } from '../../actors/controller/placement.js';
import {
  listLines,
  mergeThrottledReplicas,
  moveDone,
  parseBrokerList,
  parseReassignmentFile,
  parseTopicsToMoveFile,
  proposeReassignment,
  reassignmentJson,
  replicaMoves,
  verifyMoves,
  reportCancelled,
  reportStarted,
  throttledBrokers,
  throttledMoves,
  throttlesSet,
  topicThrottleChanges,
  verifyReassignments,
  type ReassignmentEntry,
} from '../../src/cli/commands/reassign-partitions.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import type { Admin, DynamicBrokerConfigs } from '../../src/client/admin.js';
import type { ClusterMetadata, PartitionState } from '../../src/protocol/cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { checkFor } from '../helpers/check-for.js';
import { CliCluster, runCli } from './cli-harness.js';

function partitionState(topic: string, partition: number, replicas: number[], extra: Partial<PartitionState> = {}): PartitionState {
  return { topic, partition, replicas, isr: replicas, leader: replicas[0]!, leaderEpoch: 0, partitionEpoch: 0, ...extra };
}

function metadataOf(partitions: PartitionState[]): ClusterMetadata {
  const names = [...new Set(partitions.map((p) => p.topic))];
  return {
    clusterId: 'c',
    controllerNode: 'controller',
    controllerEpoch: 1,
    brokers: [1, 2, 3].map((brokerId) => ({ brokerId, node: `b${brokerId}`, rack: null, fenced: false, brokerEpoch: 1 })),
    topics: names.map((name) => ({ name, topicId: name, internal: false, config: {}, partitions: partitions.filter((p) => p.topic === name) })),
  };
}

describe('cli/commands/reassign-partitions: files, plan and reports', () => {
  it("reads Kafka's reassignment file, with or without version and log_dirs", () => {
    const text = JSON.stringify({
      version: 1,
      partitions: [
        { topic: 'a', partition: 0, replicas: [2, 3] },
        { topic: 'b', partition: 3, replicas: [1], log_dirs: ['any'] },
        { topic: 'b', partition: 1, replicas: [3, 1], log_dirs: ['any', '/data/d2'] },
      ],
    });
    const entries = parseReassignmentFile(text, 'f.json');
    expect(entries).to.deep.equal([
      { topic: 'a', partition: 0, replicas: [2, 3] },
      { topic: 'b', partition: 3, replicas: [1] },
      { topic: 'b', partition: 1, replicas: [3, 1], logDirs: ['any', '/data/d2'] },
    ]);
    // only the replicas given a dir move, on their broker
    expect(replicaMoves(entries)).to.deep.equal([{ topic: 'b', partition: 1, broker: 1, logDir: '/data/d2' }]);
    expect(parseReassignmentFile('{"partitions":[{"topic":"a","partition":1,"replicas":[0]}]}', 'f.json')).to.deep.equal([{ topic: 'a', partition: 1, replicas: [0] }]);
  });

  it('refuses a reassignment file that is not JSON, of the wrong shape, with duplicates or log_dirs other than "any", naming the file', () => {
    const cases: [string, RegExp][] = [
      ['{partitions', /f\.json is not JSON/],
      ['null', /f\.json must hold \{"version":1,"partitions":\[/],
      ['[]', /must hold/],
      ['{"partitions": {}}', /must hold/],
      ['{"version": 2, "partitions": [{"topic":"a","partition":0,"replicas":[1]}]}', /f\.json: version 2 is not supported \(only 1\)/],
      ['{"version": 1, "partitions": []}', /with at least one partition/],
      ['{"partitions": [{"topic": "a", "partition": 0}]}', /partitions\[0\] must be \{"topic": "<name>", "partition": <integer >= 0>, "replicas": \[<broker id>, \.\.\.\]\}/],
      ['{"partitions": [{"topic": "", "partition": 0, "replicas": [1]}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": -1, "replicas": [1]}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1, "2"]}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1.5]}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1]}, null]}', /partitions\[1\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": []}]}', /partitions\[0\]: the replicas of a-0 are empty/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1, 2, 1]}]}', /partitions\[0\]: the replicas of a-0 name a broker twice: \[1,2,1\]/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1]}, {"topic": "a", "partition": 0, "replicas": [2]}]}', /partition a-0 is listed twice/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1, 2], "log_dirs": ["any"]}]}', /log_dirs of a-0 must list one entry per replica \(2\)/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1], "log_dirs": [7]}]}', /log_dirs of a-0 must be log dirs \(absolute paths\) or "any", one per replica \(got \[7\]\)/],
      ['{"partitions": [{"topic": "a", "partition": 0, "replicas": [1], "log_dirs": [""]}]}', /log_dirs of a-0 must be log dirs/],
    ];
    for (const [text, says] of cases) expect(() => parseReassignmentFile(text, 'f.json'), text).to.throw(CliError, says);
  });

  it("tells each log dir move's state with Kafka's lines", () => {
    const dirOf = (logDir: string, parts: [string, number, boolean][]) => ({ logDir, errorCode: 0, errorMessage: null, totalBytes: -1, usableBytes: -1, partitions: parts.map(([topic, partition, isFuture]) => ({ topic, partition, size: 1, offsetLag: 0, isFuture })) });
    const dirs = new Map([
      [1, { broker: 1, errorCode: 0, errorMessage: null, logDirs: [dirOf('/d0', [['t', 0, false], ['t', 1, false], ['t', 2, false]]), dirOf('/d1', [['t', 1, true], ['t', 3, false]])] }],
    ]);
    const moves = [
      { topic: 't', partition: 0, broker: 1, logDir: '/d0' },
      { topic: 't', partition: 1, broker: 1, logDir: '/d1' },
      { topic: 't', partition: 1, broker: 1, logDir: '/d2' },
      { topic: 't', partition: 2, broker: 1, logDir: '/d1' },
      { topic: 't', partition: 9, broker: 1, logDir: '/d1' },
    ];
    const v = verifyMoves(moves, dirs);
    expect(v.states.map((x) => x.state)).to.deep.equal(['complete', 'in-progress', 'elsewhere', 'not-moving', 'missing']);
    // over, as Kafka's tool counts it (the throttles go only once every move is): there, or not moving (cancelled)
    expect(v.states.map((x) => moveDone(x.state))).to.deep.equal([true, false, false, true, false]);
    expect(v.lines).to.deep.equal([
      'Reassignment of replica t-0-1 completed successfully.',
      'Reassignment of replica t-1-1 is still in progress.',
      'Partition t-1 on broker 1 is being moved to log dir /d1 instead of /d2.',
      'Partition t-2 on broker 1 is not being moved from log dir /d0 to /d1.',
      'Partition t-9 cannot be found in any live log directory on broker 1.',
    ]);
  });

  it("reads Kafka's topics-to-move file and refuses a bad one", () => {
    expect(parseTopicsToMoveFile('{"version":1,"topics":[{"topic":"a"},{"topic":"b"}]}', 't.json')).to.deep.equal(['a', 'b']);
    const cases: [string, RegExp][] = [
      ['topics', /t\.json is not JSON/],
      ['{"topic": "a"}', /t\.json must hold \{"version":1,"topics":\[\{"topic":"t"\}, \.\.\.\]\}/],
      ['{"topics": []}', /with at least one topic/],
      ['{"version": "1", "topics": [{"topic": "a"}]}', /version "1" is not supported/],
      ['{"topics": ["a"]}', /topics\[0\] must be \{"topic": "<name>"\}, got "a"/],
      ['{"topics": [{"topic": "a"}, {"topic": "a"}]}', /topic a is listed twice/],
    ];
    for (const [text, says] of cases) expect(() => parseTopicsToMoveFile(text, 't.json'), text).to.throw(CliError, says);
  });

  it('reads --broker-list, refusing anything but distinct ids as a usage error', () => {
    expect(parseBrokerList('1,2,3')).to.deep.equal([1, 2, 3]);
    expect(parseBrokerList(' 3 , 1')).to.deep.equal([3, 1]);
    for (const [raw, says] of [
      ['', /--broker-list takes broker ids separated by commas, such as 1,2,3; got ''/],
      ['1,,2', /got '1,,2'/],
      ['1,b', /got '1,b'/],
      ['-1', /got '-1'/],
      ['1,2,1', /--broker-list names broker 1 twice/],
    ] as const) {
      expect(() => parseBrokerList(raw), raw).to.throw(UsageError, says);
    }
  });

  it("writes Kafka's file format: one line, sorted, log_dirs \"any\", read back as it was", () => {
    const entries: ReassignmentEntry[] = [
      { topic: 'b', partition: 0, replicas: [3] },
      { topic: 'a', partition: 1, replicas: [1, 2] },
      { topic: 'a', partition: 0, replicas: [2, 3] },
    ];
    const json = reassignmentJson(entries);
    expect(json).to.equal(
      '{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[2,3],"log_dirs":["any","any"]},{"topic":"a","partition":1,"replicas":[1,2],"log_dirs":["any","any"]},{"topic":"b","partition":0,"replicas":[3],"log_dirs":["any"]}]}',
    );
    expect(parseReassignmentFile(json, 'x')).to.deep.equal([entries[2], entries[1], entries[0]]);
  });

  it("--generate's plan is the controller's placement on the broker list, each partition keeping its replication factor", () => {
    const current: ReassignmentEntry[] = [
      ...[0, 1, 2, 3, 4].map((partition) => ({ topic: 'a', partition, replicas: partition === 4 ? [1] : [1, 2, 3] })),
      { topic: 'b', partition: 0, replicas: [1, 2] },
      { topic: 'b', partition: 1, replicas: [3, 1] },
    ];
    const brokers = [4, 2, 5, 3];
    const plan = proposeReassignment(
      current,
      brokers.map((id) => ({ id, rack: null })),
      seededRandom(7),
    );
    // the same draws, topic by topic in name order, give the controller's placement
    const random = seededRandom(7);
    const a = assignReplicasRackUnaware(brokers, 5, 3, placementForNewTopic(4, random, null));
    const b = assignReplicasRackUnaware(brokers, 2, 2, placementForNewTopic(4, random, null));
    expect(plan).to.deep.equal([
      ...[0, 1, 2, 3].map((partition) => ({ topic: 'a', partition, replicas: a[partition] })),
      { topic: 'a', partition: 4, replicas: a[4]!.slice(0, 1) },
      { topic: 'b', partition: 0, replicas: b[0] },
      { topic: 'b', partition: 1, replicas: b[1] },
    ]);
    for (const e of plan) {
      expect(e.replicas.length, `${e.topic}-${e.partition}`).to.equal(current.find((c) => c.topic === e.topic && c.partition === e.partition)!.replicas.length);
      expect(new Set(e.replicas).size).to.equal(e.replicas.length);
      for (const r of e.replicas) expect(brokers).to.include(r);
    }
    // leaders spread over the brokers, as the controller places a new topic
    expect(new Set(plan.filter((e) => e.topic === 'a').slice(0, 4).map((e) => e.replicas[0])).size).to.equal(4);
    expect(() => proposeReassignment(current, [1, 2].map((id) => ({ id, rack: null })), seededRandom(1))).to.throw(CliError, /topic a has partitions of 3 replicas, more than the 2 broker\(s\) of --broker-list: name at least 3/);
  });

  it("--generate's plan spreads each partition over the racks of the brokers that have them", () => {
    const current: ReassignmentEntry[] = [0, 1, 2, 3, 4, 5].map((partition) => ({ topic: 'r', partition, replicas: [1, 2] }));
    const brokers = [
      { id: 1, rack: 'a' },
      { id: 2, rack: 'a' },
      { id: 3, rack: 'b' },
      { id: 4, rack: 'b' },
    ];
    const plan = proposeReassignment(current, brokers, seededRandom(3));
    expect(plan.map((e) => e.replicas)).to.deep.equal(assignReplicasRackAware(brokers, 6, 2, placementForNewTopic(4, seededRandom(3), null)));
    const rack = (id: number) => brokers.find((b) => b.id === id)!.rack;
    for (const e of plan) expect(new Set(e.replicas.map(rack)).size, `${e.topic}-${e.partition} on both racks`).to.equal(2);
  });

  it('reports started and failed reassignments, and cancelled, inactive and failed cancellations', () => {
    const started = reportStarted([
      { topic: 't', partition: 1, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: 't', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: 'u', partition: 0, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'broker 9 is not registered' },
    ]);
    expect(started).to.deep.equal({
      failed: 1,
      lines: [
        { stream: 'out', text: 'Successfully started partition reassignments for t-0,t-1' },
        { stream: 'err', text: 'Error reassigning partition(s):' },
        { stream: 'err', text: 'u-0: INVALID_REPLICA_ASSIGNMENT: broker 9 is not registered' },
      ],
    });
    expect(reportStarted([{ topic: 't', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null }]).lines[0]!.text).to.equal('Successfully started partition reassignment for t-0');

    const cancelled = reportCancelled([
      { topic: 't', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: 't', partition: 1, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: 'none' },
      { topic: 'x', partition: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null },
    ]);
    expect(cancelled).to.deep.equal({
      failed: 1,
      lines: [
        { stream: 'out', text: 'Successfully cancelled partition reassignment for: t-0' },
        { stream: 'out', text: 'No reassignment in progress for: t-1' },
        { stream: 'err', text: 'Error cancelling partition reassignment(s):' },
        { stream: 'err', text: 'x-0: UNKNOWN_TOPIC_OR_PARTITION' },
      ],
    });
    expect(reportCancelled([{ topic: 't', partition: 1, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null }])).to.deep.equal({
      failed: 0,
      lines: [{ stream: 'out', text: 'None of the specified partition reassignments are active.' }],
    });
  });

  it('--verify tells complete, in progress, different and missing partitions apart; --list prints what moves', () => {
    const md = metadataOf([
      partitionState('t', 0, [2, 3]),
      partitionState('t', 1, [2, 3, 1], { addingReplicas: [3], removingReplicas: [1] }),
      partitionState('t', 2, [1, 2]),
      partitionState('t', 3, [3, 2]),
    ]);
    const v = verifyReassignments(
      [
        { topic: 't', partition: 3, replicas: [2, 3] },
        { topic: 't', partition: 1, replicas: [2, 3] },
        { topic: 't', partition: 0, replicas: [2, 3] },
        { topic: 't', partition: 2, replicas: [1, 3] },
        { topic: 't', partition: 9, replicas: [1] },
      ],
      md,
      new Set(['t-1']),
    );
    expect(v.lines).to.deep.equal([
      'Status of partition reassignment:',
      'Reassignment of partition t-0 is completed.',
      'Reassignment of partition t-1 is still in progress.',
      'There is no active reassignment of partition t-2, but replica set is 1,2 rather than 1,3.',
      'There is no active reassignment of partition t-3, but replica set is 3,2 rather than 2,3.',
      'Partition t-9 does not exist.',
    ]);
    expect(v.states.map((s) => s.state)).to.deep.equal(['complete', 'in-progress', 'different', 'different', 'missing']);

    expect(listLines([])).to.deep.equal(['No partition reassignments found.']);
    expect(
      listLines([
        {
          topic: 't',
          partitions: [
            { partition: 1, replicas: [2, 3, 1], addingReplicas: [3], removingReplicas: [1] },
            { partition: 0, replicas: [1, 2, 3], addingReplicas: [2, 3], removingReplicas: [] },
          ],
        },
        { topic: 'a', partitions: [{ partition: 0, replicas: [3, 1], addingReplicas: [], removingReplicas: [1] }] },
      ]),
    ).to.deep.equal([
      'Current partition reassignments:',
      'a-0: replicas: 3,1. removing: 1.',
      't-0: replicas: 1,2,3. adding: 2,3.',
      't-1: replicas: 2,3,1. adding: 3. removing: 1.',
    ]);
  });

  it("--throttle's moves, as Kafka's tool: those in progress and the file's, from the replicas each has to those it has not", () => {
    const ongoing = [{ topic: 'o', partitions: [{ partition: 0, replicas: [3, 1, 2], addingReplicas: [3], removingReplicas: [2] }] }];
    const moves = throttledMoves(
      ongoing,
      [
        { topic: 't', partition: 1, replicas: [2, 3] },
        { topic: 't', partition: 0, replicas: [1, 2] },
        { topic: 'o', partition: 0, replicas: [3, 4] },
        { topic: 't', partition: 7, replicas: [1] },
      ],
      [
        { topic: 't', partition: 0, replicas: [1] },
        { topic: 't', partition: 1, replicas: [1, 2] },
        { topic: 'o', partition: 0, replicas: [1, 2] },
      ],
    );
    expect(moves).to.deep.equal([
      // resubmitted while in progress: copied from the replicas it had
      { topic: 'o', partition: 0, sources: [1, 2], destinations: [3, 4] },
      { topic: 't', partition: 0, sources: [1], destinations: [2] },
      { topic: 't', partition: 1, sources: [1, 2], destinations: [3] },
    ]);
    expect(throttledBrokers(moves)).to.deep.equal([1, 2, 3, 4]);
    // a reassignment in progress that the file leaves alone is throttled too
    expect(throttledMoves(ongoing, [{ topic: 't', partition: 0, replicas: [2] }], [{ topic: 't', partition: 0, replicas: [1] }]).map((m) => `${m.topic}-${m.partition}`)).to.deep.equal(['o-0', 't-0']);
  });

  it("--throttle's topic configs: the moving partitions' entries replaced, the others kept, '*' left alone", () => {
    expect(mergeThrottledReplicas(undefined, new Set([0]), [[0, 2], [0, 1]])).to.equal('0:1,0:2');
    expect(mergeThrottledReplicas('1:3, 0:9,10:1', new Set([0]), [[0, 2]])).to.equal('0:2,1:3,10:1');
    expect(mergeThrottledReplicas('*', new Set([0]), [[0, 2]])).to.equal('*');
    expect(mergeThrottledReplicas('0:1', new Set([0]), [])).to.equal('');
    const changes = topicThrottleChanges(
      [
        { topic: 'a', partition: 0, sources: [1], destinations: [2, 3] },
        { topic: 'a', partition: 2, sources: [2, 1], destinations: [] },
        { topic: 'b', partition: 0, sources: [1, 2], destinations: [] },
      ],
      (topic): Record<string, string | number> => (topic === 'a' ? { 'follower.replication.throttled.replicas': '1:3,2:3', 'retention.ms': 1000 } : { 'follower.replication.throttled.replicas': '0:3' }),
    );
    expect(changes).to.deep.equal([
      { topic: 'a', set: { 'leader.replication.throttled.replicas': '0:1,2:1,2:2', 'follower.replication.throttled.replicas': '0:2,0:3,1:3' }, delete: [] },
      // nothing copied to: the entry of the partition goes, and with it the key
      { topic: 'b', set: { 'leader.replication.throttled.replicas': '0:1,0:2' }, delete: ['follower.replication.throttled.replicas'] },
    ]);
    const md = metadataOf([partitionState('a', 0, [1]), partitionState('b', 0, [1]), partitionState('c', 0, [1])]);
    md.topics[0]!.config = { 'leader.replication.throttled.replicas': '0:1' };
    md.topics[2]!.config = { 'follower.replication.throttled.replicas': '*' };
    const brokerConfigs: DynamicBrokerConfigs[] = [
      { broker: null, configs: { 'leader.replication.throttled.rate': '5' } },
      { broker: 1, configs: { 'log.retention.ms': '5' } },
      { broker: 2, configs: { 'follower.replication.throttled.rate': '5' } },
      { broker: 4, configs: { 'leader.replication.throttled.rate': '5' } },
    ];
    expect(throttlesSet(md, brokerConfigs, [1, 2, 3, 2], ['c', 'b', 'a'])).to.deep.equal({ brokers: [2], topics: ['a', 'c'] });
  });

  it('exits 2 for command lines that cannot work', async () => {
    const cases: { argv: string[]; says: RegExp }[] = [
      { argv: ['reassign-partitions'], says: /give one of --generate, --execute, --verify, --cancel, --list/ },
      { argv: ['reassign-partitions', '--execute', '--verify', '--reassignment-json-file', 'f'], says: /give only one of .* \(got --execute and --verify\)/ },
      { argv: ['reassign-partitions', '--execute'], says: /--execute needs --reassignment-json-file file/ },
      { argv: ['reassign-partitions', '--generate', '--broker-list', '1'], says: /--generate needs --topics-to-move-json-file file and --broker-list id,id,\.\.\./ },
      { argv: ['reassign-partitions', '--generate', '--topics-to-move-json-file', 't.json', '--broker-list', 'x'], says: /--broker-list takes broker ids separated by commas/ },
      { argv: ['reassign-partitions', '--list', '--reassignment-json-file', 'f'], says: /--reassignment-json-file goes with --execute or --verify or --cancel, not with --list/ },
      { argv: ['reassign-partitions', '--verify', '--additional', '--reassignment-json-file', 'f'], says: /--additional goes with --execute, not with --verify/ },
      { argv: ['reassign-partitions', '--execute', '--reassignment-json-file', 'f', '--throttle=-1'], says: /--throttle must be at least 0, got -1/ },
      { argv: ['reassign-partitions', '--execute', '--reassignment-json-file', 'f', '--throttle', '10MB'], says: /--throttle takes an integer, got '10MB'/ },
      { argv: ['reassign-partitions', '--verify', '--reassignment-json-file', 'f', '--throttle', '100'], says: /--throttle goes with --execute, not with --verify/ },
      { argv: ['reassign-partitions', '--execute', '--reassignment-json-file', 'f', '--preserve-throttles'], says: /--preserve-throttles goes with --verify or --cancel, not with --execute/ },
      { argv: ['reassign-partitions', '--verify', '--reassignment-json-file', 'f', '--disallow-replication-factor-change'], says: /--disallow-replication-factor-change goes with --execute, not with --verify/ },
    ];
    const results = await Promise.all(cases.map((c) => runCli(c.argv)));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i]!.argv.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(cases[i]!.says);
      expect(r.stdout).to.equal('');
    });
    const help = await runCli(['reassign-partitions', '--help']);
    expect(help.code).to.equal(0);
    for (const o of ['--generate', '--execute', '--verify', '--cancel', '--list', '--reassignment-json-file', '--topics-to-move-json-file', '--broker-list', '--additional', '--disallow-replication-factor-change', '--throttle', '--preserve-throttles', '--bootstrap-server']) {
      expect(help.stdout).to.contain(o);
    }
  });
});

describe('cli: reassign-partitions against a cluster', function () {
  this.timeout(120_000);
  let c: CliCluster;
  let admin: Admin;
  let dir: string;

  const write = (name: string, doc: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return file;
  };
  const partitions = async (topic: string) => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.sort((a, b) => a.partition - b.partition);
  /** The lines of stdout that hold a reassignment file. */
  const jsonLines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{'));

  before(async () => {
    c = await CliCluster.start(3);
    admin = c.cluster.samsa('reassign-test').admin();
    await admin.connect();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cli-rp-'));
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--generate prints the current assignment and a plan on the broker list; unknown topics and brokers fail', async () => {
    await c.cluster.client.createTopics([{ name: 'gen', assignments: [[1, 2], [2, 3], [3, 1]] }]);
    await c.cluster.client.waitForLeaders('gen');
    const topics = write('topics.json', { version: 1, topics: [{ topic: 'gen' }] });
    const r = await c.run('reassign-partitions', ['--generate', '--topics-to-move-json-file', topics, '--broker-list', '2,3']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).to.equal('Current partition replica assignment');
    expect(lines[1]).to.equal(reassignmentJson([
      { topic: 'gen', partition: 0, replicas: [1, 2] },
      { topic: 'gen', partition: 1, replicas: [2, 3] },
      { topic: 'gen', partition: 2, replicas: [3, 1] },
    ]));
    expect(lines[2]).to.equal('');
    expect(lines[3]).to.equal('Proposed partition reassignment configuration');
    const proposed = parseReassignmentFile(lines[4]!, 'stdout');
    expect(proposed.map((e) => e.partition)).to.deep.equal([0, 1, 2]);
    for (const e of proposed) expect([...e.replicas].sort()).to.deep.equal([2, 3]);

    const missing = await c.run('reassign-partitions', ['--generate', '--topics-to-move-json-file', write('none.json', { topics: [{ topic: 'gen' }, { topic: 'no-such' }] }), '--broker-list', '1,2']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('topic(s) no-such of').and.contain('do not exist');
    const unknown = await c.run('reassign-partitions', ['--generate', '--topics-to-move-json-file', topics, '--broker-list', '1,7']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.contain('broker(s) 7 of --broker-list are not registered in the cluster (its brokers: 1,2,3)');
    const few = await c.run('reassign-partitions', ['--generate', '--topics-to-move-json-file', topics, '--broker-list', '3']);
    expect(few.code).to.equal(1);
    expect(few.stderr).to.contain('topic gen has partitions of 2 replicas, more than the 1 broker(s) of --broker-list');
    expect(few.stdout).to.equal('');
  });

  it('--execute moves partitions (printing the rollback file), --verify follows them, and the rollback file moves them back', async () => {
    await c.cluster.client.createTopics([{ name: 'moved', assignments: [[1], [2]] }]);
    await c.cluster.client.waitForLeaders('moved');
    await c.cluster.client.produce('moved', 0, ['a', 'b', 'c']);
    await c.cluster.client.produce('moved', 1, ['d']);
    const plan = write('plan.json', { version: 1, partitions: [{ topic: 'moved', partition: 0, replicas: [2, 3] }, { topic: 'moved', partition: 1, replicas: [3, 1] }] });

    const r = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', plan]);
    expect(r.code, r.stderr).to.equal(0);
    const rollback = reassignmentJson([
      { topic: 'moved', partition: 0, replicas: [1] },
      { topic: 'moved', partition: 1, replicas: [2] },
    ]);
    expect(r.stdout).to.equal(
      ['Current partition replica assignment', '', rollback, '', 'Save this to use as the --reassignment-json-file option during rollback', 'Successfully started partition reassignments for moved-0,moved-1', ''].join('\n'),
    );

    const done = await checkFor(async () => {
      const v = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
      if (v.code !== 0) {
        expect(v.code).to.equal(1);
        expect(v.stderr).to.match(/still in progress/);
        return null;
      }
      return v;
    }, 60_000, 200);
    expect(done.stdout).to.equal(['Status of partition reassignment:', 'Reassignment of partition moved-0 is completed.', 'Reassignment of partition moved-1 is completed.', ''].join('\n'));
    const after = await partitions('moved');
    expect(after.map((p) => p.replicas)).to.deep.equal([[2, 3], [3, 1]]);
    expect(after.map((p) => [...p.isr].sort())).to.deep.equal([[2, 3], [1, 3]]);
    expect(after.map((p) => p.addingReplicas ?? [])).to.deep.equal([[], []]);
    expect((await c.cluster.client.readAll('moved', 0)).map((rec) => String(rec.value))).to.deep.equal(['a', 'b', 'c']);
    expect((await c.run('reassign-partitions', ['--list'])).stdout).to.equal('No partition reassignments found.\n');

    // the printed file is a plan too: it moves everything back
    const back = write('rollback.json', jsonLines(r.stdout)[0]!);
    const rb = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', back]);
    expect(rb.code, rb.stderr).to.equal(0);
    expect(jsonLines(rb.stdout)).to.deep.equal([reassignmentJson([{ topic: 'moved', partition: 0, replicas: [2, 3] }, { topic: 'moved', partition: 1, replicas: [3, 1] }])]);
    await checkFor(async () => (await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', back])).code === 0, 60_000, 200);
    expect((await partitions('moved')).map((p) => p.replicas)).to.deep.equal([[1], [2]]);
    expect((await c.cluster.client.readAll('moved', 1)).map((rec) => String(rec.value))).to.deep.equal(['d']);
    // the plan is no longer what the partitions have
    const stale = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
    expect(stale.code).to.equal(1);
    expect(stale.stdout).to.contain('There is no active reassignment of partition moved-0, but replica set is 1 rather than 2,3.');
    expect(stale.stderr).to.contain('2 of 2 partition reassignment(s) not complete: 2 not as');
  });

  it('--execute reports the partitions the controller refuses and exits 1, starting the others', async () => {
    await c.cluster.client.createTopics([{ name: 'refused', assignments: [[1], [2]] }]);
    await c.cluster.client.waitForLeaders('refused');
    const plan = write('refused.json', {
      partitions: [
        { topic: 'refused', partition: 0, replicas: [1, 9] },
        { topic: 'refused', partition: 1, replicas: [2, 1] },
        { topic: 'refused', partition: 5, replicas: [1] },
        { topic: 'nowhere', partition: 0, replicas: [1] },
      ],
    });
    const r = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', plan]);
    expect(r.code).to.equal(1);
    // only the partitions that exist are in the rollback file
    expect(jsonLines(r.stdout)).to.deep.equal([reassignmentJson([{ topic: 'refused', partition: 0, replicas: [1] }, { topic: 'refused', partition: 1, replicas: [2] }])]);
    expect(r.stdout).to.contain('Successfully started partition reassignment for refused-1\n');
    expect(r.stderr).to.contain('Error reassigning partition(s):\nnowhere-0: UNKNOWN_TOPIC_OR_PARTITION');
    expect(r.stderr).to.match(/\nrefused-0: INVALID_REPLICA_ASSIGNMENT: .*9/);
    expect(r.stderr).to.contain('\nrefused-5: UNKNOWN_TOPIC_OR_PARTITION');
    expect(r.stderr).to.contain('3 partition reassignment(s) of').and.contain('could not be started');
    await checkFor(async () => (await partitions('refused'))[1]!.replicas.join() === '2,1', 60_000, 50);

    // --additional: refused-1's reassignment may still be finishing
    const bad = await c.run('reassign-partitions', ['--execute', '--additional', '--reassignment-json-file', write('bad.json', '{"partitions": [{"topic": "refused", "partition": 0, "replicas": [1], "log_dirs": ["/var/kafka"]}]}')]);
    expect(bad.code).to.equal(1);
    // not a log dir of broker 1
    expect(bad.stderr).to.contain('Failed to alter dir for refused-0-1: LOG_DIR_NOT_FOUND');
    const nofile = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', path.join(dir, 'absent.json')]);
    expect(nofile.code).to.equal(1);
    expect(nofile.stderr).to.contain('cannot read');
    // done (the next test's --execute, without --additional, wants no reassignment in progress)
    await checkFor(async () => (await admin.listPartitionReassignments()).topics.length === 0, 60_000, 50);
  });

  it('--execute --disallow-replication-factor-change refuses the partitions whose replication factor the file changes (exit 1), starting the others', async () => {
    await c.cluster.client.createTopics([{ name: 'kept-rf', assignments: [[1, 2], [1, 2]] }]);
    await c.cluster.client.waitForLeaders('kept-rf');
    const plan = write('kept-rf.json', {
      partitions: [
        { topic: 'kept-rf', partition: 0, replicas: [1, 2, 3] },
        { topic: 'kept-rf', partition: 1, replicas: [2, 3] },
      ],
    });
    const r = await c.run('reassign-partitions', ['--execute', '--disallow-replication-factor-change', '--reassignment-json-file', plan]);
    expect(r.code).to.equal(1);
    expect(r.stdout, r.stderr).to.contain('Successfully started partition reassignment for kept-rf-1\n');
    expect(r.stderr).to.contain('Error reassigning partition(s):\nkept-rf-0: INVALID_REPLICATION_FACTOR: The replication factor is changed from 2 to 3');
    expect(r.stderr).to.contain('1 partition reassignment(s) of').and.contain('could not be started');
    await checkFor(async () => (await partitions('kept-rf'))[1]!.replicas.join() === '2,3', 60_000, 50);
    expect((await partitions('kept-rf'))[0]!.replicas).to.deep.equal([1, 2]);
    // without the flag the same file starts both (kept-rf-1 is already there)
    const again = await c.run('reassign-partitions', ['--execute', '--additional', '--reassignment-json-file', plan]);
    expect(again.code, again.stderr).to.equal(0);
    // done (not only started: the tests after this one want no reassignment in progress)
    await checkFor(async () => (await admin.listPartitionReassignments()).topics.length === 0 && (await partitions('kept-rf'))[0]!.replicas.join() === '1,2,3', 60_000, 50);
  });

  const topicConfig = async (topic: string) => {
    const config = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.config;
    return Object.fromEntries(Object.entries(config).filter(([k]) => k.includes('throttled')));
  };
  const brokerRates = async () =>
    Object.fromEntries((await admin.describeBrokerConfigs()).map((b) => [String(b.broker), Object.fromEntries(Object.entries(b.configs).filter(([k]) => k.includes('throttled')))]).filter(([, c]) => Object.keys(c as object).length > 0));
  const rates = (rate: number) => ({ 'follower.replication.throttled.rate': String(rate), 'leader.replication.throttled.rate': String(rate) });

  it('--execute --throttle throttles the moving replicas on the brokers involved; --additional --throttle changes the rate; --verify removes the throttles once done', async () => {
    await c.cluster.client.createTopics([{ name: 'thr', assignments: [[1], [2]] }]);
    await c.cluster.client.waitForLeaders('thr');
    // more than a new replica's first fetch (replica.fetch.max.bytes, 1 MiB): at 1 byte/s the copy stays in progress
    for (let i = 0; i < 4; i++) await c.cluster.client.produce('thr', 0, Array.from({ length: 600 }, () => 'x'.repeat(1000)));
    await admin.alterTopicConfigs({ topics: [{ topic: 'thr', set: { 'follower.replication.throttled.replicas': '1:3' } }] });
    const plan = write('thr.json', { version: 1, partitions: [{ topic: 'thr', partition: 0, replicas: [2, 3] }] });

    const r = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', plan, '--throttle', '1']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain(
      [
        'Save this to use as the --reassignment-json-file option during rollback',
        'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.',
        'The inter-broker throttle limit was set to 1 B/s',
        'Successfully started partition reassignment for thr-0',
        '',
      ].join('\n'),
    );
    // copied from broker 1, to 2 and 3; the entry of partition 1 stays
    expect(await topicConfig('thr')).to.deep.equal({ 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2,0:3,1:3' });
    expect(await brokerRates()).to.deep.equal({ 1: rates(1), 2: rates(1), 3: rates(1) });

    const inProgress = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
    expect(inProgress.code).to.equal(1);
    expect(inProgress.stdout).to.equal('Status of partition reassignment:\nReassignment of partition thr-0 is still in progress.\n');
    expect(await brokerRates()).to.deep.equal({ 1: rates(1), 2: rates(1), 3: rates(1) });

    const faster = await c.run('reassign-partitions', ['--execute', '--additional', '--reassignment-json-file', plan, '--throttle', '100000000']);
    expect(faster.code, faster.stderr).to.equal(0);
    expect(faster.stdout).to.contain('The inter-broker throttle limit was set to 100000000 B/s\n');
    expect(await brokerRates()).to.deep.equal({ 1: rates(100000000), 2: rates(100000000), 3: rates(100000000) });
    expect(await topicConfig('thr')).to.deep.equal({ 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2,0:3,1:3' });

    const done = await checkFor(async () => {
      const v = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
      return v.code === 0 ? v : null;
    }, 60_000, 200);
    expect(done.stdout).to.equal(
      [
        'Status of partition reassignment:',
        'Reassignment of partition thr-0 is completed.',
        'Clearing broker-level throttles on brokers 1,2,3',
        'Clearing topic-level throttles on topic thr',
        'Throttle was removed.',
        '',
      ].join('\n'),
    );
    expect(await topicConfig('thr')).to.deep.equal({});
    expect(await brokerRates()).to.deep.equal({});
    expect((await partitions('thr'))[0]!.replicas).to.deep.equal([2, 3]);
  });

  it('--verify --preserve-throttles keeps the throttles of a completed reassignment; --cancel removes them', async () => {
    await c.cluster.client.createTopics([{ name: 'kept', assignments: [[1]] }]);
    await c.cluster.client.waitForLeaders('kept');
    await c.cluster.client.produce('kept', 0, ['a']);
    const plan = write('kept.json', { version: 1, partitions: [{ topic: 'kept', partition: 0, replicas: [1, 2] }] });
    const r = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', plan, '--throttle', '5000000']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('The inter-broker throttle limit was set to 5000000 B/s\n');
    const done = await checkFor(async () => {
      const v = await c.run('reassign-partitions', ['--verify', '--preserve-throttles', '--reassignment-json-file', plan]);
      return v.code === 0 ? v : null;
    }, 60_000, 200);
    expect(done.stdout).to.equal('Status of partition reassignment:\nReassignment of partition kept-0 is completed.\n');
    expect(await topicConfig('kept')).to.deep.equal({ 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2' });
    expect(await brokerRates()).to.deep.equal({ 1: rates(5000000), 2: rates(5000000) });

    const cancel = await c.run('reassign-partitions', ['--cancel', '--reassignment-json-file', plan]);
    expect(cancel.code, cancel.stderr).to.equal(0);
    expect(cancel.stdout).to.equal(
      ['None of the specified partition reassignments are active.', 'Clearing broker-level throttles on brokers 1,2', 'Clearing topic-level throttles on topic kept', 'Throttle was removed.', ''].join('\n'),
    );
    expect(await topicConfig('kept')).to.deep.equal({});
    expect(await brokerRates()).to.deep.equal({});
  });

  it('a reassignment held up by a stopped broker: --list and --verify show it, --execute wants --additional, --cancel stops it', async () => {
    await c.cluster.client.createTopics([{ name: 'held', assignments: [[1, 2], [1, 2]] }]);
    await c.cluster.client.waitForLeaders('held');
    await c.cluster.client.produce('held', 0, ['x', 'y']);
    await admin.listPartitionReassignments(); // the admin client knows the controller before a broker goes
    await c.cluster.killBroker(3);
    try {
      // broker 3 stays registered (fenced once its session expires): the reassignment starts, and waits for it
      const started = await admin.alterPartitionReassignments({ topics: [{ topic: 'held', partitionAssignment: [{ partition: 0, replicas: [2, 3] }] }] });
      expect(started).to.deep.equal([{ topic: 'held', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null }]);

      const list = await c.run('reassign-partitions', ['--list']);
      expect(list.code, list.stderr).to.equal(0);
      expect(list.stdout).to.equal('Current partition reassignments:\nheld-0: replicas: 2,3,1. adding: 3. removing: 1.\n');

      const plan = write('held.json', { version: 1, partitions: [{ topic: 'held', partition: 0, replicas: [2, 3] }, { topic: 'held', partition: 1, replicas: [2, 1] }] });
      const verify = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
      expect(verify.code).to.equal(1);
      expect(verify.stdout).to.equal(
        ['Status of partition reassignment:', 'Reassignment of partition held-0 is still in progress.', 'There is no active reassignment of partition held-1, but replica set is 1,2 rather than 2,1.', ''].join('\n'),
      );
      expect(verify.stderr).to.contain('2 of 2 partition reassignment(s) not complete: 1 still in progress, 1 not as');

      const again = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', write('other.json', { partitions: [{ topic: 'held', partition: 1, replicas: [2, 1] }] })]);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.contain('cannot execute while partition reassignments are in progress (held-0): add --additional');
      expect(again.stdout).to.equal('');
      const additional = await c.run('reassign-partitions', ['--execute', '--additional', '--reassignment-json-file', path.join(dir, 'other.json')]);
      expect(additional.code, additional.stderr).to.equal(0);
      expect(additional.stdout).to.contain('Successfully started partition reassignment for held-1');

      const cancel = await c.run('reassign-partitions', ['--cancel', '--reassignment-json-file', plan]);
      expect(cancel.code, cancel.stderr).to.equal(0);
      expect(cancel.stdout).to.equal('Successfully cancelled partition reassignment for: held-0\nNo reassignment in progress for: held-1\n');
      expect((await c.run('reassign-partitions', ['--list'])).stdout).to.equal('No partition reassignments found.\n');
      // back to the replicas it had; as in Kafka, in the order they held during the reassignment
      // (the target's first), so the preferred leader may have changed
      const p0 = (await partitions('held'))[0]!;
      expect([...p0.replicas].sort()).to.deep.equal([1, 2]);
      expect(p0.addingReplicas ?? []).to.deep.equal([]);
      expect(p0.removingReplicas ?? []).to.deep.equal([]);
      const none = await c.run('reassign-partitions', ['--cancel', '--reassignment-json-file', plan]);
      expect(none.code, none.stderr).to.equal(0);
      expect(none.stdout).to.equal('None of the specified partition reassignments are active.\n');
      expect((await c.cluster.client.readAll('held', 0)).map((rec) => String(rec.value))).to.deep.equal(['x', 'y']);

      // --generate plans on running brokers only
      await checkFor(async () => (await c.cluster.client.metadata()).brokers.find((b) => b.brokerId === 3)?.fenced, 15_000, 50);
      const gen = await c.run('reassign-partitions', ['--generate', '--topics-to-move-json-file', write('held-topics.json', { topics: [{ topic: 'held' }] }), '--broker-list', '1,3']);
      expect(gen.code).to.equal(1);
      expect(gen.stderr).to.contain('broker(s) 3 of --broker-list are fenced (not running)');
    } finally {
      await c.cluster.startBroker(3);
    }
  });
});

describe('cli: reassign-partitions log_dirs (two log dirs per broker)', function () {
  this.timeout(120_000);
  let c: CliCluster;
  let dir: string;

  before(async () => {
    c = await CliCluster.start(2, {}, { logDirsPerBroker: 2 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-cli-rp-dirs-'));
  });
  after(async () => {
    await c?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--execute moves each replica given a log dir after the reassignment (--replica-alter-log-dirs-throttle limiting the moves), --verify tells when it is there and removes the throttle', async () => {
    await c.cluster.client.createTopics([{ name: 'dirs', assignments: [[1]] }]);
    await c.cluster.client.waitForLeaders('dirs');
    await c.cluster.client.produce('dirs', 0, ['x', 'y'], -1);
    const [, b1d1] = c.cluster.logDirs(1).map((d) => path.resolve(d)) as [string, string];
    const [b2d0] = c.cluster.logDirs(2).map((d) => path.resolve(d)) as [string, string];
    expect(fs.existsSync(path.join(b1d1, 'dirs-0'))).to.equal(false);
    // broker 1's replica to its second dir, broker 2's (new: retried until it is there) to its first
    const plan = path.join(dir, 'plan.json');
    fs.writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'dirs', partition: 0, replicas: [1, 2], log_dirs: [b1d1, b2d0] }] }));
    // throttled (at a rate these few bytes never reach), as Kafka's tool throttles log dir moves
    const r = await c.run('reassign-partitions', ['--execute', '--reassignment-json-file', plan, '--timeout', '30000', '--replica-alter-log-dirs-throttle', '50000000']);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.contain('Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.\n');
    expect(r.stdout).to.contain('The replica-alter-dir throttle limit was set to 50000000 B/s\n');
    const throttled = await c.run('configs', ['--describe', '--entity-type', 'brokers', '--entity-name', '2']);
    expect(throttled.stdout).to.contain('replica.alter.log.dirs.io.max.bytes.per.second=50000000');
    expect(r.stdout).to.contain('Successfully started partition reassignment for dirs-0\n');
    expect(r.stdout).to.contain(`Successfully started moving log directory to ${b1d1} for replica dirs-0 with broker 1 \n`);
    expect(r.stdout).to.contain(`Successfully started moving log directory to ${b2d0} for replica dirs-0 with broker 2 \n`);

    const verified = await checkFor(async () => {
      const v = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', plan]);
      return v.code === 0 ? v : null;
    }, 30_000, 200);
    expect(verified.stdout).to.contain('Reassignment of partition dirs-0 is completed.');
    expect(verified.stdout).to.contain('Reassignment of replica dirs-0-1 completed successfully.');
    expect(verified.stdout).to.contain('Reassignment of replica dirs-0-2 completed successfully.');
    // every move done: the throttle goes, as with Kafka's tool
    expect(verified.stdout).to.contain('Clearing broker-level throttles on brokers 1,2\n');
    expect(verified.stdout).to.contain('Throttle was removed.');
    expect((await c.run('configs', ['--describe', '--entity-type', 'brokers', '--entity-name', '2'])).stdout).to.not.contain('replica.alter.log.dirs.io.max.bytes.per.second');
    expect(fs.existsSync(path.join(b1d1, 'dirs-0'))).to.equal(true);
    expect(fs.existsSync(path.join(c.cluster.logDirs(1)[0]!, 'dirs-0'))).to.equal(false);
    expect(fs.existsSync(path.join(b2d0, 'dirs-0'))).to.equal(true);

    // a replica in another dir than the file says: --verify exits 1 and says where it is
    const other = path.join(dir, 'other.json');
    fs.writeFileSync(other, JSON.stringify({ version: 1, partitions: [{ topic: 'dirs', partition: 0, replicas: [1, 2], log_dirs: [path.resolve(c.cluster.logDirs(1)[0]!), 'any'] }] }));
    const v = await c.run('reassign-partitions', ['--verify', '--reassignment-json-file', other]);
    expect(v.code).to.equal(1);
    expect(v.stdout).to.contain(`Partition dirs-0 on broker 1 is not being moved from log dir ${b1d1} to ${path.resolve(c.cluster.logDirs(1)[0]!)}.`);
  });
});
