/**
 * perf-share-consume's pure parts, against Kafka's ShareConsumerPerformance: its flags (Kafka's
 * names and defaults, the refusals), the share consumers' configs and client ids, Kafka's output
 * lines, --print-metrics' tables (one per share consumer), what a group has left to read, and the
 * count of distinct offsets read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FlagError, parseFlags } from '../../benchmarks/lib/perf-args.js';
import { OffsetsSeen } from '../../benchmarks/lib/offsets-seen.js';
import { SHARE_SUMMARY_HEADER, shareConsumerLine, shareProgressLine, shareSummaryLine, shareTimeoutWarning } from '../../benchmarks/lib/share-perf-lines.js';
import { KAFKA_DATE_FORMAT } from '../../benchmarks/lib/date-format.js';
import { DEFAULT_SHARE_CLIENT_ID, DEFAULT_SHARE_GROUP, SHARE_CONSUME_FLAGS, recordsLeft, shareClientIds, shareConsumerSettings, shareMetricsText } from '../../benchmarks/perf-share-consume.js';

const parse = (argv: string[]) => parseFlags(argv, SHARE_CONSUME_FLAGS);
const KAFKA_LINE = ['--bootstrap-server', 'localhost:9092', '--topic', 'test'];

describe('benchmarks/perf-share-consume', () => {
  it("takes Kafka's command line, with Kafka's defaults", () => {
    const d = parse(['--topic', 'test']);
    expect(d.group).to.equal(DEFAULT_SHARE_GROUP).and.equal('perf-share-consumer');
    expect(d['share-consumers']).to.equal(1);
    expect(d['fetch-max-bytes']).to.equal(1024 * 1024);
    expect(d['socket-buffer-size']).to.equal(2 * 1024 * 1024);
    expect(d.timeout).to.equal(10_000);
    expect(d['reporting-interval']).to.equal(5_000);
    expect(d['date-format']).to.equal(KAFKA_DATE_FORMAT).and.equal('yyyy-MM-dd HH:mm:ss:SSS');
    // Kafka's tool reads without checking CRCs
    expect(d['check-crcs']).to.equal(false);
    const f = parse([...KAFKA_LINE, '--num-records', '10', '--threads', '3', '--group', 'g', '--fetch-size', '65536', '--socket-buffer-size', '4096', '--print-metrics', '--show-detailed-stats', '--reporting-interval', '100', '--show-consumer-stats', '--hide-header', '--date-format', 'HH:mm', '--timeout', '500']);
    expect([f['bootstrap-server'], f.topic, f.records, f['share-consumers'], f.group, f['fetch-max-bytes']]).to.deep.equal(['localhost:9092', 'test', 10, 3, 'g', 65_536]);
    expect([f['print-metrics'], f['show-detailed-stats'], f['reporting-interval'], f['show-consumer-stats'], f['hide-header'], f['date-format'], f.timeout]).to.deep.equal([true, true, 100, true, true, 'HH:mm', 500]);
    // --messages, deprecated in Kafka 4.2, still reads
    expect(parse([...KAFKA_LINE, '--messages', '10']).records).to.equal(10);
  });

  it("refuses what Kafka's refuses: an unknown flag, a flag given under two names, a count that is not one, a missing --topic", () => {
    expect(() => parse([...KAFKA_LINE, '--num-records', '10', '--new-share-consumer'])).to.throw(FlagError, 'unknown flag --new-share-consumer');
    expect(() => parse([...KAFKA_LINE, '--messages', '10', '--num-records', '20'])).to.throw(FlagError, '--messages and --num-records are the same flag');
    expect(() => parse([...KAFKA_LINE, '--consumer.config', 'a', '--command-config', 'b'])).to.throw(FlagError, '--consumer.config and --command-config are the same flag');
    expect(() => parse([...KAFKA_LINE, '--threads', 'three'])).to.throw(FlagError, "--share-consumers expects a number, got 'three'");
    expect(() => parse([...KAFKA_LINE, '--threads', '0'])).to.throw(FlagError, '--share-consumers must be >= 1');
    expect(() => parse([...KAFKA_LINE, '--reporting-interval', '0'])).to.throw(FlagError, '--reporting-interval must be >= 1');
    expect(() => shareConsumerSettings(parse(['--num-records', '10']))).to.throw('missing --topic');
    expect(() => shareConsumerSettings(parse(['--topic', 't', '--reporting-interval', '100']))).to.throw('--reporting-interval shapes the lines of --show-detailed-stats: add it');
    // implicit acknowledgement is the run's; an unknown key is the share consumer's error
    expect(() => shareConsumerSettings(parse(['--topic', 't', '--command-property', 'share.acknowledgement.mode=explicit']))).to.throw('share.acknowledgement.mode: a run acknowledges implicitly');
    expect(() => shareConsumerSettings(parse(['--topic', 't', '--command-property', 'receive.buffer.bytes=1']))).to.throw('receive.buffer.bytes: unknown share consumer config key');
  });

  it("gives the share consumers Kafka's client ids and the configs of --command-property over --command-config; the keys of flags set them", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-share-perf-'));
    try {
      const file = path.join(dir, 'share.properties');
      fs.writeFileSync(file, 'client.id=consumer-1\nfetch.max.wait.ms=200\n');
      expect(shareConsumerSettings(parse(['--topic', 't'])).clientId).to.equal(DEFAULT_SHARE_CLIENT_ID).and.equal('perf-share-consumer-client');
      expect(shareConsumerSettings(parse(['--topic', 't', '--command-config', file])).clientId).to.equal('consumer-1');
      const s = shareConsumerSettings(parse(['--topic', 't', '--command-property', 'client.id=consumer-2', '--command-config', file, '--command-property', 'max.poll.records=300']));
      expect(s.clientId).to.equal('consumer-2');
      expect(s.config).to.deep.include({ 'client.id': 'consumer-2', 'fetch.max.wait.ms': '200', 'max.poll.records': 300, 'fetch.max.bytes': 1_048_576, 'check.crcs': false, 'share.acknowledgement.mode': 'implicit' });
      expect(s.consumerProps).to.not.have.property('max.poll.records');
      // a key and its flag must agree
      expect(() => shareConsumerSettings(parse(['--topic', 't', '--group', 'a', '--command-property', 'group.id=b']))).to.throw('--consumer-props group.id=b and --group a disagree');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(shareClientIds('perf-share-consumer-client', 1)).to.deep.equal(['perf-share-consumer-client']);
    expect(shareClientIds('c', 3)).to.deep.equal(['c-1', 'c-2', 'c-3']);
  });

  it("prints Kafka's lines: as many fields as the header, MB in MiB, four decimals, the rates over the elapsed time", () => {
    const time = (ms: number) => `t${ms}`;
    const summary = shareSummaryLine({ startMs: 1_000, endMs: 3_000, bytes: 4 * 1024 * 1024, records: 10_000 }, time);
    expect(summary).to.equal('t1000, t3000, 4.0000, 2.0000, 5000.0000, 10000, 2000');
    expect(summary.split(/,\s/)).to.have.length(SHARE_SUMMARY_HEADER.split(/,\s/).length);
    expect(shareConsumerLine(2, 'perf-share-consumer-client-2', { startMs: 1_000, endMs: 3_000, bytes: 1024 * 1024, records: 3 }, time)).to.equal(
      'Share consumer 2 having client id perf-share-consumer-client-2 consumption metrics- t1000, t3000, 1.0000, 0.5000, 1.5000, 3, 2000',
    );
    const progress = shareProgressLine(1, { fromMs: 0, toMs: 1, bytes: 1024 * 1024, lastBytes: 0, records: 1, lastRecords: 0 }, time);
    expect(progress).to.equal('t0, t1, 1.0000, 1000.0000, 1000.0000, 1, 1 for share consumer 1');
    expect(progress.split(/,\s/)).to.have.length(SHARE_SUMMARY_HEADER.split(/,\s/).length);
    expect(shareTimeoutWarning(500)).to.equal('WARNING: Exiting before consuming the expected number of records: timeout (500 ms) exceeded. You can use the --timeout option to increase the timeout.');
  });

  it("--print-metrics: each share consumer's metrics in a table of its own, as Kafka's tool prints them one after another", () => {
    const of = (clientId: string, total: number) => [
      { group: 'consumer-share-fetch-manager-metrics', name: 'records-consumed-total', description: 'd', tags: { 'client-id': clientId }, value: total },
      { group: 'consumer-share-coordinator-metrics', name: 'heartbeat-total', description: 'd', tags: { 'client-id': clientId }, value: 2 },
    ];
    // each table aligned to its own longest key, sorted by key
    const table = (clientId: string, total: number) => {
      const keys = [`consumer-share-coordinator-metrics:heartbeat-total:{client-id=${clientId}}`, `consumer-share-fetch-manager-metrics:records-consumed-total:{client-id=${clientId}}`];
      const w = keys[1]!.length;
      return [`${'Metric Name'.padEnd(w)}   Value`, `${keys[0]!.padEnd(w)} : 2.000`, `${keys[1]} : ${total}.000`];
    };
    expect(shareMetricsText([of('c-1', 7), of('c-2', 3)]).split('\n')).to.deep.equal([...table('c-1', 7), '', ...table('c-2', 3)]);
  });

  it('counts what a share group has left to read: its lag where it has state, else the whole partition from earliest, nothing from latest', () => {
    const offsets = [
      { partition: 0, low: 0, high: 100 },
      { partition: 1, low: 10, high: 50 },
      { partition: 2, low: 0, high: 30 },
    ];
    const states = new Map([[0, { startOffset: 60, lag: 25 }]]);
    expect(recordsLeft(offsets, states, 'earliest')).to.equal(25 + 40 + 30);
    expect(recordsLeft(offsets, states, 'latest')).to.equal(25);
    expect(recordsLeft(offsets, new Map([[1, { startOffset: -1, lag: -1 }]]), 'by_duration:PT1H')).to.equal(0);
    // a lag not known: from the start offset to the end
    expect(recordsLeft(offsets, new Map([[0, { startOffset: 60, lag: -1 }]]), 'latest')).to.equal(40);
  });

  it('tells offsets read for the first time from those read again, across partitions and pages', () => {
    const seen = new OffsetsSeen();
    expect([seen.add('t', 0, 0), seen.add('t', 0, 1), seen.add('t', 1, 0), seen.add('u', 0, 0)]).to.deep.equal([true, true, true, true]);
    expect([seen.add('t', 0, 1), seen.add('t', 1, 0), seen.add('u', 0, 0)]).to.deep.equal([false, false, false]);
    // far apart: pages of their own
    expect([seen.add('t', 0, 65_536), seen.add('t', 0, 1_000_000_007), seen.add('t', 0, 65_536)]).to.deep.equal([true, true, false]);
    expect(seen.size).to.equal(6);
  });
});
