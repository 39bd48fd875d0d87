/**
 * KafkaJS's producer against samsa's Kafka listeners: 3 worker-thread brokers, one topic, batches
 * of 1,000 x 100-byte records sent with `producer.send` (several in flight). The baseline in the
 * same run is samsa's own producer sending the same batches over the worker transport, so the
 * ratio shows what the Kafka protocol path (TCP, Kafka framing, KafkaJS's encoder) costs.
 *
 *   npm run bench:kafkajs -- [--batches 200] [--batch-records 1000] [--record-size 100]
 *                            [--partitions 6] [--acks 1|-1] [--in-flight 4]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import type { TopologyConfig } from '../src/topology/config.js';
import { startCluster } from '../src/topology/start-cluster.js';
import { quietLogs } from './lib/perf-cluster.js';
import { benchEnvironment, writeResults } from './lib/results.js';
import { printTable } from './lib/table.js';

const { values: a } = parseArgs({
  options: {
    batches: { type: 'string', default: '200' },
    'batch-records': { type: 'string', default: '1000' },
    'record-size': { type: 'string', default: '100' },
    partitions: { type: 'string', default: '6' },
    acks: { type: 'string', default: '1' },
    'in-flight': { type: 'string', default: '4' },
    help: { type: 'boolean', default: false },
  },
});
if (a.help) {
  process.stdout.write('npm run bench:kafkajs -- [--batches 200] [--batch-records 1000] [--record-size 100] [--partitions 6] [--acks 1|-1] [--in-flight 4]\n');
  process.exit(0);
}
const batches = Number(a.batches);
const perBatch = Number(a['batch-records']);
const size = Number(a['record-size']);
const partitions = Number(a.partitions);
const acks = Number(a.acks);
const inFlight = Number(a['in-flight']);
for (const [k, v] of Object.entries({ batches, perBatch, size, partitions, inFlight })) {
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${k} must be a positive integer`);
}
if (acks !== 1 && acks !== -1) throw new Error('--acks must be 1 or -1');

quietLogs();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-kafkajs-bench-'));
const ids = [1, 2, 3];
const topology: TopologyConfig = {
  clusterId: 'kafkajs-bench',
  logLevel: 'error',
  nodes: [{ id: 'main', kind: 'inproc' }, ...ids.map((i) => ({ id: `b${i}`, kind: 'worker' as const }))],
  controller: { node: 'main', metadataDir: 'controller' },
  brokers: ids.map((i) => ({ id: i, node: `b${i}`, logDir: `broker-${i}`, kafka: { host: '127.0.0.1', port: 0 } })),
  topics: [
    { name: 'kafkajs', partitions, replicationFactor: acks === -1 ? 3 : 1 },
    { name: 'native', partitions, replicationFactor: acks === -1 ? 3 : 1 },
  ],
};
const cluster = await startCluster(topology, { baseDir: dir });
const value = Buffer.alloc(size, 0x61);
const messages = Array.from({ length: perBatch }, () => ({ value }));

async function timed(sendBatch: () => Promise<unknown>): Promise<number> {
  // warm up (metadata, connections, JIT) before timing
  for (let i = 0; i < 5; i++) await sendBatch();
  const t0 = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < batches) await sendBatch();
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

try {
  const kafka = new Kafka({ clientId: 'bench', brokers: await cluster.kafkaBrokers(), logLevel: logLevel.NOTHING });
  const kp = kafka.producer({ allowAutoTopicCreation: false });
  await kp.connect();
  const kafkajsSec = await timed(() => kp.send({ topic: 'kafkajs', acks, messages }));
  await kp.disconnect();

  const samsa = cluster.samsa('bench');
  const sp = samsa.producer({ acks: acks === -1 ? 'all' : 1 });
  await sp.connect();
  const nativeSec = await timed(() => sp.send({ topic: 'native', messages }));
  await sp.disconnect();
  await samsa.close();

  const records = batches * perBatch;
  const rate = (sec: number) => records / sec;
  const mib = (sec: number) => (records * size) / sec / (1024 * 1024);
  printTable(
    `KafkaJS producer vs samsa's own, ${batches} sends of ${perBatch} x ${size} B, ${partitions} partitions, acks=${acks}, ${inFlight} in flight, 3 worker brokers`,
    ['client', 'records/s', 'MiB/s', 'ratio'],
    [
      ['samsa producer (baseline)', rate(nativeSec).toFixed(0), mib(nativeSec).toFixed(1), '1.00'],
      ['KafkaJS over the Kafka protocol', rate(kafkajsSec).toFixed(0), mib(kafkajsSec).toFixed(1), (nativeSec / kafkajsSec).toFixed(2)],
    ],
  );
  const file = await writeResults('kafkajs-produce', benchEnvironment(1), {
    params: { batches, perBatch, size, partitions, acks, inFlight },
    results: {
      kafkajs: { seconds: kafkajsSec, recordsPerSec: rate(kafkajsSec), mibPerSec: mib(kafkajsSec) },
      samsa: { seconds: nativeSec, recordsPerSec: rate(nativeSec), mibPerSec: mib(nativeSec) },
      ratio: nativeSec / kafkajsSec,
    },
  });
  console.log(`results: ${file}`);
} finally {
  await cluster.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
