/**
 * Broker loggers over the Kafka protocol (BROKER_LOGGER resources, type 8, KIP-412), as
 * `kafka-configs --entity-type broker-loggers` uses them: DescribeConfigs lists root and the
 * named loggers of the broker's node with the level each runs at; IncrementalAlterConfigs sets a
 * level (SET) or takes one away (DELETE), and the broker's logging follows at once; every bad
 * change is refused and none of its request applies; AlterConfigs does not take them; the
 * resource is the broker's own id. With worker-thread brokers each broker's loggers are its own.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import winston from 'winston';
import { ApiKeys } from '../../../src/kafka/protocol/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { rootLogger } from '../../../src/runtime/logger.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../../src/security/acl.js';
import { authorizedKafkaClusterPerSuite } from '../../helpers/authorized-kafka.js';
import { checkFor } from '../../helpers/check-for.js';
import { startKafkaCluster, type KafkaTestCluster } from '../../helpers/kafka-cluster.js';
import { KafkaCaller } from '../../helpers/raw-kafka.js';

const BROKER_LOGGER = 8;
const Op = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 };
/** Kafka's DYNAMIC_BROKER_LOGGER_CONFIG source. */
const LOGGER_SOURCE = 6;

type Described = { errorCode: number; errorMessage: string | null; configs: { name: string; value: string; configSource: number; readOnly: boolean; isSensitive: boolean; configType: number; synonyms: unknown[] }[] };
type Change = { name: string; configOperation: number; value: string | null };

const describeLoggers = async (k: KafkaCaller, broker: string, keys: string[] | null = null, version = 4): Promise<Described> =>
  (await k.call(ApiKeys.DescribeConfigs, version, { resources: [{ resourceType: BROKER_LOGGER, resourceName: broker, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: true })).results[0] as Described;
const levels = async (k: KafkaCaller, broker: string) => Object.fromEntries((await describeLoggers(k, broker)).configs.map((c) => [c.name, c.value]));
const alter = async (k: KafkaCaller, broker: string, configs: Change[], validateOnly = false) => {
  const r = await k.call(ApiKeys.IncrementalAlterConfigs, 1, { resources: [{ resourceType: BROKER_LOGGER, resourceName: broker, configs }], validateOnly });
  const x = r.responses[0] as { errorCode: number; errorMessage: string | null };
  return [x.errorCode, x.errorMessage];
};

/** A transport that keeps the messages of the lines reaching it. */
function captureLines(): { transport: winston.transport; messages: string[] } {
  const messages: string[] = [];
  const stream = new Writable({
    objectMode: true,
    write(info: Record<string, unknown>, _enc, next) {
      messages.push(String(info.message));
      next();
    },
  });
  return { transport: new winston.transports.Stream({ stream }), messages };
}

describe('Kafka API: broker loggers', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;
  let k: KafkaCaller;

  before(async () => {
    c = await startKafkaCluster({ brokers: 1, topics: [{ name: 'bl-topic', partitions: 1, replicationFactor: 1 }] });
    k = await KafkaCaller.connect(c.bootstrap[0]!);
  });
  after(async () => {
    k?.end();
    await c?.stop();
  });

  it("describes root first, then the node's loggers by name, each at the level it runs at, as Kafka lists its log4j loggers", async () => {
    const d = await describeLoggers(k, '1');
    expect(d.errorCode).to.equal(ErrorCode.NONE);
    const names = d.configs.map((x) => x.name);
    expect(names[0]).to.equal('root');
    expect(names.slice(1)).to.deep.equal([...names.slice(1)].sort());
    expect(names).to.include.members(['samsa', 'samsa.broker', 'samsa.broker.log-manager', 'samsa.broker.log-manager.log', 'samsa.partition-replica', 'samsa.kafka-connection', 'samsa.runtime']);
    // the test clusters run silent: OFF everywhere
    expect(new Set(d.configs.map((x) => x.value))).to.deep.equal(new Set(['OFF']));
    expect(d.configs[1]).to.deep.include({ configSource: LOGGER_SOURCE, readOnly: false, isSensitive: false, configType: 0, synonyms: [] });
    const some = await describeLoggers(k, '1', ['root', 'samsa.broker']);
    expect(some.configs.map((x) => x.name)).to.deep.equal(['root', 'samsa.broker']);
    // v0 too
    expect((await describeLoggers(k, '1', ['root'], 0)).configs.map((x) => [x.name, x.value])).to.deep.equal([['root', 'OFF']]);
  });

  it('SET gives a logger its level, its descendants follow, and the broker writes what it now lets through; DELETE takes it away', async () => {
    const capture = captureLines();
    const stderr = rootLogger.transports.find((t) => t instanceof winston.transports.Console);
    const stderrSilent = stderr?.silent;
    if (stderr) stderr.silent = true;
    rootLogger.add(capture.transport);
    try {
      expect(await alter(k, '1', [{ name: 'samsa.kafka-connection', configOperation: Op.SET, value: 'DEBUG' }])).to.deep.equal([ErrorCode.NONE, null]);
      expect(await levels(k, '1')).to.deep.include({ 'samsa.kafka-connection': 'DEBUG', 'samsa.broker': 'OFF', root: 'OFF' });
      const k2 = await KafkaCaller.connect(c.bootstrap[0]!);
      await checkFor(() => capture.messages.includes('Kafka client connected'), 5_000, 10);
      k2.end();
      await checkFor(() => capture.messages.includes('Kafka client disconnected'), 5_000, 10);
      // a level on an ancestor reaches every logger below it without one of its own
      expect(await alter(k, '1', [{ name: 'samsa.broker', configOperation: Op.SET, value: 'info' }])).to.deep.equal([ErrorCode.NONE, null]);
      expect(await levels(k, '1')).to.deep.include({ 'samsa.broker': 'INFO', 'samsa.broker.log-manager': 'INFO', 'samsa.broker.log-manager.log': 'INFO', 'samsa.partition-replica': 'OFF' });
      expect(capture.messages).to.include('Updated the log level of samsa.broker to INFO');
      expect(await alter(k, '1', [{ name: 'samsa.kafka-connection', configOperation: Op.DELETE, value: null }, { name: 'samsa.broker', configOperation: Op.DELETE, value: null }])).to.deep.equal([ErrorCode.NONE, null]);
      expect(await levels(k, '1')).to.deep.include({ 'samsa.kafka-connection': 'OFF', 'samsa.broker': 'OFF' });
      const seen = capture.messages.length;
      const k3 = await KafkaCaller.connect(c.bootstrap[0]!);
      await k3.call(ApiKeys.ApiVersions, 0, {});
      k3.end();
      expect(capture.messages.slice(seen)).to.not.include('Kafka client connected');
      // root takes a level (the node's, over the process's) and its loggers follow
      expect(await alter(k, '1', [{ name: 'root', configOperation: Op.SET, value: 'WARN' }])).to.deep.equal([ErrorCode.NONE, null]);
      expect(await levels(k, '1')).to.deep.include({ root: 'WARN', 'samsa.broker': 'WARN' });
    } finally {
      await alter(k, '1', [{ name: 'root', configOperation: Op.SET, value: 'OFF' }]);
      rootLogger.remove(capture.transport);
      if (stderr) stderr.silent = stderrSilent;
    }
  });

  it('validateOnly checks and changes nothing', async () => {
    expect(await alter(k, '1', [{ name: 'samsa.broker', configOperation: Op.SET, value: 'TRACE' }], true)).to.deep.equal([ErrorCode.NONE, null]);
    expect((await levels(k, '1'))['samsa.broker']).to.equal('OFF');
  });

  it("refuses a bad change with Kafka's error and makes none of the request's changes", async () => {
    const cases: [Change[], number, string][] = [
      [[{ name: 'samsa.nothing', configOperation: Op.SET, value: 'DEBUG' }], ErrorCode.INVALID_CONFIG, 'Logger samsa.nothing does not exist on broker 1'],
      [[{ name: 'samsa.nothing', configOperation: Op.DELETE, value: null }], ErrorCode.INVALID_CONFIG, 'Logger samsa.nothing does not exist on broker 1'],
      [
        [{ name: 'samsa.broker', configOperation: Op.SET, value: 'LOUD' }],
        ErrorCode.INVALID_CONFIG,
        'Cannot set the log level of samsa.broker to LOUD as it is not a supported log level. Valid log levels are ALL, DEBUG, ERROR, FATAL, INFO, OFF, TRACE, WARN',
      ],
      [[{ name: 'samsa.broker', configOperation: Op.SET, value: null }], ErrorCode.INVALID_REQUEST, 'Null value not supported for : samsa.broker'],
      [[{ name: 'root', configOperation: Op.DELETE, value: null }], ErrorCode.INVALID_REQUEST, 'Removing the log level of the root logger is not allowed'],
      [[{ name: 'samsa.broker', configOperation: Op.APPEND, value: 'DEBUG' }], ErrorCode.INVALID_REQUEST, 'APPEND operation is not allowed for the BROKER_LOGGER resource'],
      [[{ name: 'samsa.broker', configOperation: Op.SUBTRACT, value: 'DEBUG' }], ErrorCode.INVALID_REQUEST, 'SUBTRACT operation is not allowed for the BROKER_LOGGER resource'],
      [[{ name: 'samsa.broker', configOperation: 9, value: 'DEBUG' }], ErrorCode.INVALID_REQUEST, 'Unknown operation type 9 is not allowed for the BROKER_LOGGER resource'],
      [
        [
          { name: 'samsa.broker', configOperation: Op.SET, value: 'DEBUG' },
          { name: 'samsa.broker', configOperation: Op.DELETE, value: null },
        ],
        ErrorCode.INVALID_REQUEST,
        'Error due to duplicate config keys: samsa.broker',
      ],
    ];
    for (const [configs, code, message] of cases) {
      // a good change first: it must not be made either
      expect(await alter(k, '1', [{ name: 'samsa.partition-replica', configOperation: Op.SET, value: 'DEBUG' }, ...configs])).to.deep.equal([code, message]);
    }
    expect((await levels(k, '1'))['samsa.partition-replica']).to.equal('OFF');
  });

  it("names the broker by its own id: another broker's, an empty name or a name not a number is INVALID_REQUEST", async () => {
    for (const [name, message] of [
      ['2', 'Unexpected broker id, expected 1 but received 2'],
      ['', 'Broker id must not be empty'],
      ['one', 'Node id must be an integer, but it is: one'],
    ]) {
      const d = await describeLoggers(k, name!);
      expect([d.errorCode, d.errorMessage, d.configs]).to.deep.equal([ErrorCode.INVALID_REQUEST, message, []]);
      expect(await alter(k, name!, [{ name: 'root', configOperation: Op.SET, value: 'INFO' }])).to.deep.equal([ErrorCode.INVALID_REQUEST, message]);
    }
  });

  it('AlterConfigs does not take broker loggers, as Kafka', async () => {
    const r = await k.call(ApiKeys.AlterConfigs, 2, { resources: [{ resourceType: BROKER_LOGGER, resourceName: '1', configs: [{ name: 'root', value: 'INFO' }] }], validateOnly: false });
    expect([r.responses[0].errorCode, r.responses[0].errorMessage]).to.deep.equal([ErrorCode.INVALID_REQUEST, 'AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER']);
    expect((await levels(k, '1')).root).to.equal('OFF');
  });
});

describe('Kafka API: broker loggers of worker-thread brokers', function () {
  this.timeout(60_000);
  let c: KafkaTestCluster;

  before(async () => {
    c = await startKafkaCluster({ brokers: 2, kind: 'worker' });
  });
  after(async () => {
    await c?.stop();
  });

  it("each broker's loggers are its own: a level set on one is not the other's", async () => {
    const [k1, k2] = await Promise.all(c.bootstrap.map((b) => KafkaCaller.connect(b)));
    try {
      expect(await alter(k1!, '1', [{ name: 'samsa.broker', configOperation: Op.SET, value: 'ERROR' }])).to.deep.equal([ErrorCode.NONE, null]);
      expect((await levels(k1!, '1'))['samsa.broker']).to.equal('ERROR');
      expect((await levels(k2!, '2'))['samsa.broker']).to.equal('OFF');
      expect((await describeLoggers(k2!, '1')).errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    } finally {
      k1!.end();
      k2!.end();
    }
  });
});

describe('Kafka API: broker loggers with an authorizer', function () {
  this.timeout(30_000);
  const cluster = authorizedKafkaClusterPerSuite({ alice: 'alice-secret' }, { brokers: 1 });

  it('describing needs DESCRIBE_CONFIGS on the cluster, changing ALTER_CONFIGS: else CLUSTER_AUTHORIZATION_FAILED', async () => {
    const alice = await cluster().login('alice');
    try {
      expect((await describeLoggers(alice, '1')).errorCode).to.equal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      expect((await alter(alice, '1', [{ name: 'root', configOperation: Op.SET, value: 'INFO' }]))[0]).to.equal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      await cluster().allow({ principal: 'User:alice', operation: AclOperation.DESCRIBE_CONFIGS, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
      expect((await describeLoggers(alice, '1')).errorCode).to.equal(ErrorCode.NONE);
      expect((await alter(alice, '1', [{ name: 'root', configOperation: Op.SET, value: 'INFO' }]))[0]).to.equal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      await cluster().allow({ principal: 'User:alice', operation: AclOperation.ALTER_CONFIGS, resourceType: ResourceType.CLUSTER, resourceName: CLUSTER_NAME });
      expect(await alter(alice, '1', [{ name: 'root', configOperation: Op.SET, value: 'OFF' }])).to.deep.equal([ErrorCode.NONE, null]);
    } finally {
      alice.end();
    }
  });
});
