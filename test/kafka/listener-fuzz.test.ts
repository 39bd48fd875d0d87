/**
 * Random but decodable requests to the Kafka listener, for every API key and version it
 * advertises (test/helpers/kafka-request-fuzz.ts builds them from the schemas with a seeded
 * PRNG), after one with every value at its maximum and one at its minimum. Each must be answered
 * with a response for its correlation id that decodes at its version, with error codes Kafka
 * has, and its connection must keep answering; no request may hang, close its connection, or
 * make the broker log an error (a handler that throws on bad input instead of answering with an
 * error code). Then one request of each version at once, on one connection: answered in the
 * order sent. After each API the broker must still serve a new connection: Metadata lists the
 * health topic, a record produced there is fetched back, the group coordinator and the
 * controller answer.
 *
 * SAMSA_FUZZ_ROUNDS (default 2) requests per API version; SAMSA_FUZZ_SEED (decimal or 0x hex)
 * picks the requests, fixed by default, random when only the rounds are given (`npm run
 * test:fuzz`). The seed is in the suite's title and in every failure, with the request: the
 * same seed and rounds send the same requests again (each API draws from its own PRNG, and from
 * the ids earlier answers handed out).
 */
import { expect } from 'chai';
import { ApiKeys, apiName, decodeResponse, encodeRequest, KafkaCodecError } from '../../src/kafka/protocol/index.js';
import { SUPPORTED_VERSIONS } from '../../src/kafka/api/versions.js';
import { allErrors, ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatches, encodeRecordBatch } from '../../src/protocol/record-batch.js';
import { startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { checkFor } from '../helpers/check-for.js';
import { LogCapture, type LogLine } from '../helpers/log-capture.js';
import { consumerFetchBody, RawKafkaSocket } from '../helpers/raw-kafka.js';
import { describeBody, learnValues, Prng, randomRequestBody, seedFrom, type Edge, type FieldOverrides, type FuzzNames } from '../helpers/kafka-request-fuzz.js';

const ROUNDS = Math.max(1, Math.floor(Number(process.env.SAMSA_FUZZ_ROUNDS)) || 2);
const SEED = seedFrom(process.env.SAMSA_FUZZ_SEED ?? (process.env.SAMSA_FUZZ_ROUNDS ? undefined : '0x5a35a'));
const REQUEST_TIMEOUT_MS = 5_000;

const HEALTH_TOPIC = 'fuzz-health';
const SCRATCH_TOPIC = 'fuzz-scratch';

/**
 * APIs whose connection closes by design after some requests, and why. None of the advertised
 * ones on a plain listener: SaslHandshake and SaslAuthenticate (which end a connection whose
 * authentication failed) are offered only on SASL listeners, and GetTelemetrySubscriptions and
 * PushTelemetry only with a telemetry receiver, so neither is fuzzed here.
 */
const CLOSES_BY_DESIGN: ReadonlyMap<number, string> = new Map();

const KNOWN_ERROR_CODES: ReadonlySet<number> = new Set(allErrors().map((e) => e.code));

/**
 * Fields whose random values would make the broker wait by design (a long-poll fetch, a group
 * rebalance waiting on other members) are kept to values it answers at once; their edges
 * (negative, zero) stay.
 */
const shortWait = (rng: Prng) => rng.pick([-2147483648, -1, 0, 1, 20]);
const OVERRIDES: FieldOverrides = {
  [`${ApiKeys.Fetch}.maxWaitMs`]: shortWait,
  [`${ApiKeys.ShareFetch}.maxWaitMs`]: shortWait,
  // a group of its own for every JoinGroup: no other member to wait for (so a SyncGroup, which
  // waits only for a leader's assignment, never waits either)
  [`${ApiKeys.JoinGroup}.groupId`]: (_rng, names) => names.fresh(),
  // never the cluster's one broker: unregistering it is an admin's act the broker recovers from
  // only at its next heartbeat, which the health check right after does not wait for (that act is
  // tested in test/kafka/api/unregister-broker.test.ts); every other id, and the edges, stay
  [`${ApiKeys.UnregisterBroker}.brokerId`]: (rng) => rng.pick([-2147483648, -1, 0, 2, 1000, 2147483647]),
};

type Outcome = 'answered' | 'unanswered' | 'closed';

describe(`Kafka listener fuzzing (seed ${SEED} = 0x${SEED.toString(16)}, ${ROUNDS} rounds; SAMSA_FUZZ_SEED and SAMSA_FUZZ_ROUNDS)`, function () {
  this.timeout(60_000 + ROUNDS * 5_000);
  let c: KafkaTestCluster;
  let endpoint: string;
  const open: RawKafkaSocket[] = [];
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  // a timer asked for more than 2^31-1 ms: Node fires it after 1 ms instead
  const timerWarnings: string[] = [];
  const onWarning = (w: Error) => {
    if (w.name === 'TimeoutOverflowWarning') timerWarnings.push(`${w.message}\n${w.stack ?? ''}`);
  };
  const capture = new LogCapture();
  const lines = capture.lines;
  let fresh = 0;
  const learned = new Map<string, unknown[]>();
  const names: FuzzNames & { strings: string[]; uuids: string[] } = {
    learned,
    byField: { name: [SCRATCH_TOPIC], topic: [SCRATCH_TOPIC], topicName: [SCRATCH_TOPIC], resourceName: [SCRATCH_TOPIC, '1'], groupId: ['fuzz-group'], transactionalId: ['fuzz-txn'] },
    strings: [SCRATCH_TOPIC, 'fuzz-group', 'fuzz-txn', 'fuzz-share', '1', 'retention.ms', 'cleanup.policy', 'max.message.bytes', 'metadata.version', 'group.version', 'transaction.version', 'consumer', 'classic', 'range', 'User:ANONYMOUS', 'raw-test'],
    uuids: [],
    fresh: () => `fuzz-fresh-${++fresh}`,
  };

  const connect = async () => {
    const s = await RawKafkaSocket.connect(endpoint);
    open.push(s);
    return s;
  };

  before(async () => {
    c = await startKafkaCluster({
      brokers: 1,
      topics: [
        { name: HEALTH_TOPIC, partitions: 1, replicationFactor: 1 },
        { name: SCRATCH_TOPIC, partitions: 2, replicationFactor: 1 },
      ],
    });
    endpoint = c.bootstrap[0]!;
    // the cluster set the process's level from SAMSA_LOG_LEVEL; warnings and errors are kept here, not printed
    capture.start();
    process.on('unhandledRejection', onRejection);
    process.on('warning', onWarning);
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.end();
    // each API's lines are looked at in its own test
    lines.splice(0);
  });
  after(async () => {
    process.off('unhandledRejection', onRejection);
    process.off('warning', onWarning);
    await c?.stop();
    capture.stop();
  });

  /** One request and its answer on `s`: an ApiVersions behind it shows whether a request that got no answer left the connection working. */
  async function exchange(s: RawKafkaSocket, apiKey: number, version: number, correlationId: number, body: object): Promise<{ outcome: Outcome; response?: unknown }> {
    s.request(apiKey, version, correlationId, body);
    s.request(ApiKeys.ApiVersions, 0, correlationId + 1, {});
    const first = await s.frame(REQUEST_TIMEOUT_MS);
    if (first === null) return { outcome: 'closed' };
    const id = first.readInt32BE(0);
    let response: unknown;
    let outcome: Outcome = 'unanswered';
    if (id !== correlationId + 1) {
      expect(id, 'correlation id of the answer').to.equal(correlationId);
      response = decodeResponse(apiKey, version, first).body;
      outcome = 'answered';
      const marker = await s.frame(REQUEST_TIMEOUT_MS);
      expect(marker, 'the connection closed after answering').to.not.equal(null);
      expect(marker!.readInt32BE(0), 'correlation id of the ApiVersions behind it').to.equal(correlationId + 1);
    }
    return { outcome, response };
  }

  /** Every error code in a response is one Kafka has; throttle times are not negative. */
  function checkResponse(x: unknown, path = ''): void {
    if (Array.isArray(x)) return x.forEach((e, i) => checkResponse(e, `${path}[${i}]`));
    if (x === null || typeof x !== 'object' || Buffer.isBuffer(x)) return;
    for (const [k, v] of Object.entries(x)) {
      if (/errorCode$/i.test(k) && typeof v === 'number') expect(KNOWN_ERROR_CODES.has(v), `${path}.${k} = ${v}: an error code Kafka does not have`).to.equal(true);
      if (k === 'throttleTimeMs' && typeof v === 'number') expect(v, `${path}.${k}`).to.be.at.least(0);
      checkResponse(v, `${path}.${k}`);
    }
  }

  /** The scratch topic exists again (a DeleteTopics may have taken it) and the topic ids are known. */
  async function refreshNames(): Promise<void> {
    const s = await connect();
    s.request(ApiKeys.CreateTopics, 7, 1, { topics: [{ name: SCRATCH_TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5_000, validateOnly: false });
    await s.response(ApiKeys.CreateTopics, 7);
    s.request(ApiKeys.Metadata, 12, 2, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const md = (await s.response(ApiKeys.Metadata, 12)).body;
    // not the health topic's, nor the internal topics' (deleting __consumer_offsets is allowed, as
    // in Kafka, and leaves the group coordinator away for seconds until it is made again)
    names.uuids = md.topics.filter((t: { name: string }) => t.name !== HEALTH_TOPIC && !t.name.startsWith('__')).map((t: { topicId: string }) => t.topicId);
    s.end();
  }

  let healthRecords = 0;
  /** A new connection is answered, the health topic is listed, a record round-trips, the coordinator and the controller answer. */
  async function expectHealthy(after: string): Promise<void> {
    const s = await connect();
    const call = async (apiKey: number, version: number, body: object, id: number) => {
      s.request(apiKey, version, id, body);
      const f = await s.frame(REQUEST_TIMEOUT_MS);
      expect(f, `health check after ${after}: ${apiName(apiKey)} answered`).to.not.equal(null);
      return decodeResponse(apiKey, version, f!).body as any;
    };
    const md = await call(ApiKeys.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 1);
    expect(md.topics.map((t: { name: string }) => t.name), `health check after ${after}: Metadata`).to.include(HEALTH_TOPIC);
    const value = Buffer.from(`health ${++healthRecords}`);
    const records = encodeRecordBatch({ records: [{ key: null, value, timestamp: Date.now() }] });
    const produced = await call(ApiKeys.Produce, 9, { transactionalId: null, acks: -1, timeoutMs: 5_000, topicData: [{ name: HEALTH_TOPIC, partitionData: [{ index: 0, records }] }] }, 2);
    const p = produced.responses[0].partitionResponses[0];
    expect(p.errorCode, `health check after ${after}: Produce`).to.equal(ErrorCode.NONE);
    const fetched = await call(ApiKeys.Fetch, 12, consumerFetchBody(HEALTH_TOPIC, 0, p.baseOffset), 3);
    const fp = fetched.responses[0].partitions[0];
    expect(fp.errorCode, `health check after ${after}: Fetch`).to.equal(ErrorCode.NONE);
    const got = decodeRecordBatches(fp.records).flatMap((b) => b.records);
    expect(got[0]?.value?.toString(), `health check after ${after}: the record fetched back`).to.equal(value.toString());
    let id = 4;
    const coordinator = await checkFor(async () => {
      const r = await call(ApiKeys.FindCoordinator, 3, { key: 'fuzz-health-group', keyType: 0 }, id++);
      return r.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE || r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? null : r;
    }, 10_000, 50);
    expect(coordinator.errorCode, `health check after ${after}: FindCoordinator`).to.equal(ErrorCode.NONE);
    const groups = await call(ApiKeys.ListGroups, 4, { statesFilter: [] }, id++);
    expect(groups.errorCode, `health check after ${after}: ListGroups`).to.equal(ErrorCode.NONE);
    const created = await call(ApiKeys.CreateTopics, 7, { topics: [{ name: 'fuzz-health-check', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5_000, validateOnly: true }, id++);
    expect(created.topics[0].errorCode, `health check after ${after}: CreateTopics (validate only)`).to.equal(ErrorCode.NONE);
    s.end();
  }

  /** Lines logged at error level since `from`, and the reasons connections were closed. */
  async function logsSince(from: number, waitMs = 0): Promise<{ errors: LogLine[]; closes: string[] }> {
    // winston hands lines to the stream a tick later
    await new Promise((r) => (waitMs > 0 ? setTimeout(r, waitMs) : setImmediate(r)));
    const since = lines.slice(from);
    return {
      errors: since.filter((l) => l.level === 'error'),
      closes: since.filter((l) => l.message.startsWith('closing the Kafka connection')).map((l) => l.message),
    };
  }

  /** A random body of the request that our codec can encode (null after 10 tries that it cannot). */
  function encodableBody(apiKey: number, version: number, rng: Prng, edge: Edge | null = null): Record<string, unknown> | null {
    for (let tries = 0; tries < (edge ? 1 : 10); tries++) {
      const body = randomRequestBody(apiKey, version, rng, names, OVERRIDES, edge);
      try {
        encodeRequest({ apiKey, apiVersion: version, correlationId: 0, clientId: null } as never, body as never);
        return body;
      } catch (err) {
        if (!(err instanceof KafkaCodecError)) throw err;
      }
    }
    return null;
  }

  it('starts with a healthy broker', async () => {
    await expectHealthy('start');
  });

  for (const [apiKey, range] of SUPPORTED_VERSIONS) {
    const name = apiName(apiKey) ?? `api ${apiKey}`;
    it(`${name} (${apiKey}) v${range.min}-v${range.max}: random requests are answered or refused, never crash or wedge the broker`, async () => {
      await refreshNames();
      const rng = new Prng((SEED ^ Math.imul(apiKey + 1, 0x9e3779b1)) >>> 0);
      let s: RawKafkaSocket | null = null;
      let correlationId = 0;
      const counts: Record<Outcome, number> = { answered: 0, unanswered: 0, closed: 0 };
      const linesFrom = lines.length;
      // first every value at its maximum, then at its minimum, then random ones
      const rounds: (Edge | null)[] = ['max', 'min', ...Array.from({ length: ROUNDS }, () => null)];
      for (const [round, edge] of rounds.entries()) {
        for (let version = range.min; version <= range.max; version++) {
          const body = encodableBody(apiKey, version, rng, edge);
          if (!body) continue;
          s ??= await connect();
          correlationId += 2;
          const logFrom = lines.length;
          const what = () => `seed ${SEED}: ${name} v${version} (${edge ? `every value at its ${edge}` : `round ${round - 2}`}) ${describeBody(body)}`;
          let result: Awaited<ReturnType<typeof exchange>>;
          try {
            result = await exchange(s, apiKey, version, correlationId, body);
          } catch (err) {
            const logs = await logsSince(logFrom);
            throw new Error(`${what()}: ${err instanceof Error ? err.message : String(err)}; logged: ${JSON.stringify(logs.errors)}`);
          }
          counts[result.outcome]++;
          if (result.outcome === 'answered') {
            try {
              checkResponse(result.response);
            } catch (err) {
              throw new Error(`${what()}: ${(err as Error).message}; response ${describeBody(result.response)}`);
            }
            // what an answered request named and was handed (member ids, producer ids...) ties later requests to it
            if ((result.response as { errorCode?: number }).errorCode === ErrorCode.NONE) learnValues(body, learned);
            learnValues(result.response, learned);
          }
          const acksZero = apiKey === ApiKeys.Produce && body.acks === 0;
          if (result.outcome === 'unanswered') expect(acksZero, `${what()}: no answer`).to.equal(true);
          const logs = await logsSince(logFrom);
          expect(logs.errors, `${what()}: errors logged`).to.deep.equal([]);
          // an acks=0 produce that failed closes its connection, as Kafka's does
          if (result.outcome === 'closed') expect(CLOSES_BY_DESIGN.has(apiKey) || acksZero, `${what()}: connection closed (${logs.closes.join('; ')})`).to.equal(true);
          if (result.outcome === 'closed') s = null;
          // ... once the answers before it are out: the next request goes on a connection of its own
          else if (acksZero) {
            s!.end();
            s = null;
          }
        }
      }
      // one of each version again, all sent at once: answered in the order sent, none held up by another
      const burst: { version: number; body: Record<string, unknown>; id: number }[] = [];
      for (let version = range.min; version <= range.max; version++) {
        const body = encodableBody(apiKey, version, rng);
        // acks=0 goes alone (above): a failed one closes the connection, and what follows it unread is never answered
        if (body && apiKey === ApiKeys.Produce && body.acks === 0) body.acks = 1;
        if (body) burst.push({ version, body, id: (correlationId += 2) });
      }
      s ??= await connect();
      const logFrom = lines.length;
      for (const b of burst) s.request(apiKey, b.version, b.id, b.body);
      s.request(ApiKeys.ApiVersions, 0, ++correlationId, {});
      const what = () => `seed ${SEED}: ${name}, sent at once: ${burst.map((b) => `v${b.version} ${describeBody(b.body)}`).join(', ')}`;
      for (const b of burst) {
        const f = await s.frame(REQUEST_TIMEOUT_MS).catch((err: Error) => expect.fail(`${what()}: ${err.message}`));
        if (f === null) {
          const logs = await logsSince(logFrom);
          expect.fail(`${what()}: connection closed (${logs.closes.join('; ')}); logged: ${JSON.stringify(logs.errors)}`);
        }
        expect(f.readInt32BE(0), `${what()}: the answers' order`).to.equal(b.id);
        checkResponse(decodeResponse(apiKey, b.version, f).body);
      }
      const marker = await s.frame(REQUEST_TIMEOUT_MS);
      expect(marker?.readInt32BE(0), `${what()}: the ApiVersions sent after them`).to.equal(correlationId);
      s.end();
      // what an actor logs after its answer went out
      const logs = await logsSince(linesFrom, 20);
      expect(logs.errors, `seed ${SEED}: ${name}: errors logged`).to.deep.equal([]);
      expect(rejections.splice(0).map(String), `seed ${SEED}: ${name}: unhandled rejections`).to.deep.equal([]);
      expect(timerWarnings.splice(0), `seed ${SEED}: ${name}: timers beyond 2^31-1 ms`).to.deep.equal([]);
      expect(counts.answered + counts.unanswered, `${name}: requests answered`).to.be.greaterThan(0);
      await expectHealthy(`${name} (seed ${SEED})`);
    });
  }
});
