/**
 * A samsa cluster with Kafka-protocol listeners, started through the public topology API the way
 * a user's test suite would: N brokers (in this thread or in worker threads), the controller on
 * the main node, every Kafka listener on 127.0.0.1 with a free port.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { KafkaListenerEntry, KafkaListenerTlsEntry, TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';

export interface KafkaClusterOptions {
  brokers?: number;
  /** Where the brokers run: the main thread (default) or one worker thread each. */
  kind?: 'inproc' | 'worker';
  brokerConfig?: Record<string, unknown>;
  controllerConfig?: Record<string, unknown>;
  topics?: TopologyConfig['topics'];
  /** Each broker's rack, by position (broker 1 first). */
  racks?: (string | null)[];
  /** TLS on every broker's Kafka listener (absolute file paths). */
  tls?: KafkaListenerTlsEntry;
  /** SASL on every broker's Kafka listener. */
  sasl?: KafkaListenerEntry['sasl'];
  /** Log dirs per broker (JBOD; default 1): broker-<id>, then broker-<id>-1, broker-<id>-2... */
  logDirsPerBroker?: number;
}

export interface KafkaTestCluster {
  handle: ClusterHandle;
  /** 'host:port' of every broker's Kafka listener. */
  bootstrap: string[];
  dir: string;
  stop(): Promise<void>;
}

export async function startKafkaCluster(opts: KafkaClusterOptions = {}): Promise<KafkaTestCluster> {
  const n = opts.brokers ?? 1;
  const kind = opts.kind ?? 'inproc';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-kafka-'));
  const brokerNodes = Array.from({ length: n }, (_, i) => (kind === 'worker' ? `b${i + 1}` : 'main'));
  const config: TopologyConfig = {
    clusterId: 'kafka-test',
    logLevel: (process.env.SAMSA_LOG_LEVEL as TopologyConfig['logLevel']) ?? 'silent',
    nodes: [{ id: 'main', kind: 'inproc' }, ...(kind === 'worker' ? brokerNodes.map((id) => ({ id, kind: 'worker' as const })) : [])],
    controller: { node: 'main', metadataDir: 'controller', config: { 'default.replication.factor': Math.min(3, n), ...(opts.controllerConfig ?? {}) } },
    brokers: brokerNodes.map((node, i) => ({
      id: i + 1,
      node,
      ...((opts.logDirsPerBroker ?? 1) > 1
        ? { logDirs: Array.from({ length: opts.logDirsPerBroker! }, (_, j) => (j === 0 ? `broker-${i + 1}` : `broker-${i + 1}-${j}`)) }
        : { logDir: `broker-${i + 1}` }),
      kafka: { host: '127.0.0.1', port: 0, ...(opts.tls ? { tls: opts.tls } : {}), ...(opts.sasl ? { sasl: opts.sasl } : {}) },
      ...(opts.racks?.[i] ? { rack: opts.racks[i]! } : {}),
      config: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 5, 'offsets.topic.replication.factor': Math.min(3, n), ...(opts.brokerConfig ?? {}) },
    })),
    topics: opts.topics ?? [],
  };
  const handle = await startCluster(config, { baseDir: dir });
  const bootstrap = await handle.kafkaBrokers();
  return {
    handle,
    bootstrap,
    dir,
    async stop() {
      await handle.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
