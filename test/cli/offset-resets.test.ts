/**
 * What the groups commands' --reset-offsets share (src/cli/offset-resets.ts): Kafka's --topic
 * forms, datetimes and durations; the one target a command line gives; the partitions named,
 * checked against the metadata (Kafka's "do not exist" and "have no leader"); and each target's
 * new offsets from a stand-in admin's earliest, latest and by-time offsets and the committed
 * ones, kept within earliest..latest where Kafka's tool keeps them.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { parseArgs, type OptionSpec } from '../../src/cli/args.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import { checkPartitions, offsetKey, parseDateTime, parseDuration, parseResetPlan, parseTopicArg, partitionsNamed, planResets, RESET_TARGETS, resetPlanCsv, resetTarget, type ResetTarget } from '../../src/cli/offset-resets.js';
import type { ClusterMetadata } from '../../src/protocol/cluster.js';

const md = {
  clusterId: 'c',
  controllerNode: 'n',
  controllerEpoch: 1,
  brokers: [],
  topics: [
    { name: 't', topicId: 'x', internal: false, config: {}, partitions: [0, 1, 2].map((partition) => ({ topic: 't', partition, leader: 1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] })) },
    { name: 'offline', topicId: 'y', internal: false, config: {}, partitions: [{ topic: 'offline', partition: 0, leader: -1, leaderEpoch: 0, partitionEpoch: 0, replicas: [1], isr: [1] }] },
  ],
} as unknown as ClusterMetadata;

const OPTIONS: OptionSpec[] = [
  { name: 'to-earliest', kind: 'flag', help: '' },
  { name: 'to-latest', kind: 'flag', help: '' },
  { name: 'to-current', kind: 'flag', help: '' },
  { name: 'to-offset', kind: 'int', help: '' },
  { name: 'shift-by', kind: 'int', help: '' },
  { name: 'to-datetime', kind: 'string', help: '' },
  { name: 'by-duration', kind: 'string', help: '' },
];

/** An admin whose listOffsets answers from these tables: earliest 10, latest 20 (partition 2: 15), by time the first offset at or after it. */
function fakeAdmin(byTime: (timestamp: number, partition: number) => number): Admin {
  return {
    listOffsets: async (spec: unknown, parts: { topic: string; partition: number }[]) =>
      parts.map((p) => ({
        ...p,
        errorCode: 0,
        timestamp: -1,
        offset: spec === 'earliest' ? 10 : spec === 'latest' ? (p.partition === 2 ? 15 : 20) : byTime((spec as { timestamp: number }).timestamp, p.partition),
      })),
  } as unknown as Admin;
}

describe('cli/offset-resets', () => {
  it("parses --topic, --to-datetime and --by-duration as Kafka's tools do", () => {
    expect(parseTopicArg('orders')).to.deep.equal({ topic: 'orders', partitions: null });
    expect(parseTopicArg('orders:0,2,2')).to.deep.equal({ topic: 'orders', partitions: [0, 2] });
    for (const bad of ['', ':1', 't:', 't:a', 't:1,-2', 'a:b:1']) expect(() => parseTopicArg(bad), bad).to.throw(UsageError);
    expect(parseDateTime('2024-03-01T10:20:30.456Z')).to.equal(Date.UTC(2024, 2, 1, 10, 20, 30, 456));
    expect(parseDateTime('2024-03-01T10:20:30.456+02:00')).to.equal(Date.UTC(2024, 2, 1, 8, 20, 30, 456));
    expect(parseDateTime('2024-03-01T10:20:30.456')).to.equal(new Date(2024, 2, 1, 10, 20, 30, 456).getTime());
    expect(() => parseDateTime('2024-02-30T00:00:00.000')).to.throw(/not a time/);
    expect(parseDuration('PT1H')).to.equal(3_600_000);
    expect(parseDuration('P1DT0.5S')).to.equal(86_400_500);
    expect(() => parseDuration('P')).to.throw(/ISO-8601/);
  });

  it('takes exactly one target among those a command allows, its value checked', () => {
    const target = (...argv: string[]) => resetTarget(parseArgs(argv, OPTIONS), RESET_TARGETS);
    expect(target('--to-earliest')).to.deep.equal({ kind: 'to-earliest' });
    expect(target('--shift-by', '-3')).to.deep.equal({ kind: 'shift-by', by: -3 });
    expect(target('--to-datetime', '2024-03-01T00:00:00.000Z')).to.deep.equal({ kind: 'to-datetime', timestamp: Date.UTC(2024, 2, 1) });
    expect(target('--by-duration', 'PT30M')).to.deep.equal({ kind: 'by-duration', ms: 1_800_000 });
    expect(() => target()).to.throw(UsageError, /exactly one of these options: --to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration, --shift-by, --to-current/);
    expect(() => target('--to-earliest', '--to-latest')).to.throw(UsageError, /exactly one/);
    expect(() => target('--by-duration', 'an hour')).to.throw(UsageError, /ISO-8601/);
    // a command that does not take --shift-by does not count it
    expect(() => resetTarget(parseArgs(['--shift-by', '1'], OPTIONS), ['to-earliest', 'to-latest'])).to.throw(UsageError, /--to-earliest, --to-latest$/);
  });

  it('names every partition of a bare topic, those listed after a colon, each once; refuses what does not exist or has no leader', () => {
    expect(partitionsNamed(md, ['t:2', 't'])).to.deep.equal([2, 0, 1].map((partition) => ({ topic: 't', partition })));
    expect(() => partitionsNamed(md, ['nope'])).to.throw(CliError, /topic 'nope' does not exist/);
    expect(() => partitionsNamed(md, ['t:7'])).to.throw(CliError, /The partitions "t-7" do not exist/);
    expect(() => checkPartitions(md, [{ topic: 'offline', partition: 0 }])).to.throw(CliError, /The partitions "offline-0" have no leader/);
  });

  it('plans each target as Kafka does: clamped to earliest..latest, by time (latest when no record is that late), shifted from and kept at the committed offsets', async () => {
    const parts = [0, 1, 2].map((partition) => ({ topic: 't', partition }));
    const committed = new Map([[offsetKey('t', 0), 12], [offsetKey('t', 1), 19]]);
    const admin = fakeAdmin((ts, p) => (ts <= 1_000 ? 10 + p : -1));
    const warned: string[] = [];
    const plan = async (target: ResetTarget, c: ReadonlyMap<string, number> = committed) => (await planResets(admin, parts, target, c, 5_000, (l) => warned.push(l))).map((x) => x.offset);
    expect(await plan({ kind: 'to-earliest' })).to.deep.equal([10, 10, 10]);
    expect(await plan({ kind: 'to-latest' })).to.deep.equal([20, 20, 15]);
    expect(await plan({ kind: 'to-offset', offset: 17 })).to.deep.equal([17, 17, 15]);
    expect(warned.splice(0)).to.deep.equal(['t-2: offset 17 is past the latest offset 15; using 15']);
    expect(await plan({ kind: 'to-offset', offset: 3 })).to.deep.equal([10, 10, 10]);
    expect(warned.splice(0)).to.have.length(3);
    expect(await plan({ kind: 'to-datetime', timestamp: 500 })).to.deep.equal([10, 11, 12]);
    expect(await plan({ kind: 'to-datetime', timestamp: 9_000 })).to.deep.equal([20, 20, 15]);
    expect(await plan({ kind: 'by-duration', ms: 4_500 })).to.deep.equal([10, 11, 12]); // 5000 - 4500 = 500
    expect(await plan({ kind: 'to-current' })).to.deep.equal([12, 19, 15]);
    const all = new Map([...committed, [offsetKey('t', 2), 14]]);
    expect(await plan({ kind: 'shift-by', by: -1 }, all)).to.deep.equal([11, 18, 13]);
    expect(await plan({ kind: 'shift-by', by: 5 }, all)).to.deep.equal([17, 20, 15]);
    expect(warned.splice(0)).to.deep.equal(['t-1: offset 24 is past the latest offset 20; using 20', 't-2: offset 19 is past the latest offset 15; using 15']);
    let refused: unknown = null;
    await plan({ kind: 'shift-by', by: 1 }).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(CliError);
    expect(String(refused)).to.match(/--shift-by needs a committed offset to shift, and t-2 has none/);
    expect(await planResets(admin, [], { kind: 'to-latest' }, committed, 0, (l) => warned.push(l))).to.deep.equal([]);
    expect(warned).to.deep.equal([]);
  });

  it("reads and writes Kafka's reset plan CSV: topic,partition,offset for one group, group,topic,partition,offset for several", () => {
    expect([...parseResetPlan('t,0,5\n\nt,1,7\r\nu, 0 ,1\n', 'g')]).to.deep.equal([['g', [{ topic: 't', partition: 0, offset: 5 }, { topic: 't', partition: 1, offset: 7 }, { topic: 'u', partition: 0, offset: 1 }]]]);
    expect([...parseResetPlan('a,t,0,5\nb,t,0,6', null)]).to.deep.equal([
      ['a', [{ topic: 't', partition: 0, offset: 5 }]],
      ['b', [{ topic: 't', partition: 0, offset: 6 }]],
    ]);
    expect(() => parseResetPlan('t,0,5', null)).to.throw(UsageError, /line 1: 't,0,5' is not group,topic,partition,offset/);
    expect(() => parseResetPlan('t,0,x', 'g')).to.throw(UsageError, /line 1: 't,0,x' has an empty name or a partition or offset that is not a number/);
    expect(() => parseResetPlan('t,0', 'g')).to.throw(UsageError, /is not topic,partition,offset or group,topic,partition,offset/);
    const plan = [{ topic: 't', partition: 0, offset: 5 }];
    expect(resetPlanCsv('g', plan, false)).to.deep.equal(['t,0,5']);
    expect(resetPlanCsv('g', plan, true)).to.deep.equal(['g,t,0,5']);
    expect([...parseResetPlan(resetPlanCsv('g', plan, true).join('\n'), null)]).to.deep.equal([['g', plan]]);
  });
});
