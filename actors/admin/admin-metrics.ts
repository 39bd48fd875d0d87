/**
 * The admin client's metrics, named and meant as Kafka 4.2's KafkaAdminClient has them: its
 * metrics are its network client's (a Selector made with the prefix "admin-client"), tagged with
 * the admin's client.id, which is what its telemetry reporter pushes (KIP-714: every metric the
 * admin registers, those the subscription selects), under KIP-714's names
 * org.apache.kafka.admin.client.* and org.apache.kafka.admin.client.node.*:
 *
 * admin-client-metrics:
 *   request-rate / -total: requests the admin sent (to a broker, the controller, a coordinator,
 *     a partition's replica; its telemetry requests too, as Kafka's go through its network client);
 *   response-rate / -total: answers it got (a request that timed out or found no actor has none).
 * admin-client-node-metrics, per node the admin sent to, tagged node-id `node-<node>`:
 *   request-rate / -total, response-rate / -total: as above, of that node;
 *   request-latency-avg / -max: milliseconds from a request to its answer (Kafka's node-<id>.latency
 *     sensor, which its admin records per answer). samsa names the node a request went to (its
 *     messages travel to nodes, one transport endpoint each, as Kafka's travel over one
 *     connection per node), where Kafka names the broker's id.
 *
 * Left out of Kafka's: the byte counts (request-size-avg / -max, outgoing-byte-*, incoming-byte-*,
 * network-io-*): actor messages inside a process are never encoded, so they have no size; the
 * connection and I/O metrics (connection-count, connection-creation-*, connection-close-*,
 * select-*, io-*, successful-authentication-*, ...): the admin has no connections or I/O thread
 * of its own, the node's transport has; app-info (version, commit-id, start-time-ms) and
 * kafka-metrics-count: samsa's clients keep none.
 *
 * Kept in samples (src/client/metrics.ts): averages, maxima and rates cover the last
 * metrics.num.samples x metrics.sample.window.ms; totals cover the admin's life. Pure: the caller
 * passes the time.
 */
import { SampledStat, metricsOf, type ClientMetric, type SampleConfig } from '../../src/client/metrics.js';

const GROUP = 'admin-client-metrics';
const NODE_GROUP = 'admin-client-node-metrics';

/** Requests sent and answers got: their count gives the request metrics, the answers' latencies the response ones. */
class Traffic {
  readonly requests: SampledStat;
  readonly responses: SampledStat;

  constructor(config: SampleConfig, now: number) {
    this.requests = new SampledStat(config, now);
    this.responses = new SampledStat(config, now);
  }
}

export class AdminMetrics {
  private readonly all: Traffic;
  /** By node, from its first request. */
  private readonly nodes = new Map<string, Traffic>();

  constructor(
    private readonly config: SampleConfig,
    now: number,
  ) {
    this.all = new Traffic(config, now);
  }

  private node(node: string, now: number): Traffic {
    let t = this.nodes.get(node);
    if (!t) this.nodes.set(node, (t = new Traffic(this.config, now)));
    return t;
  }

  /** A request went to `node`. */
  requestSent(node: string, now: number): void {
    this.all.requests.record(1, now);
    this.node(node, now).requests.record(1, now);
  }

  /** The answer to a request to `node` came, `latencyMs` after it went. */
  responseReceived(node: string, latencyMs: number, now: number): void {
    this.all.responses.record(latencyMs, now);
    this.node(node, now).responses.record(latencyMs, now);
  }

  /** Every metric now, tagged with the admin's client.id (a node's with its node-id too). */
  snapshot(now: number, clientId: string): ClientMetric[] {
    const out: ClientMetric[] = [];
    for (const [node, t] of [...this.nodes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const n = metricsOf(NODE_GROUP, { 'client-id': clientId, 'node-id': `node-${node}` });
      out.push(
        n('request-latency-avg', 'average milliseconds from a request to the node to its answer', t.responses.avg(now)),
        n('request-latency-max', 'longest wait for the answer to a request to the node, in milliseconds', t.responses.max(now)),
        n('request-rate', 'requests sent to the node per second', t.requests.countRate(now)),
        n('request-total', 'requests sent to the node', t.requests.count),
        n('response-rate', 'answers received from the node per second', t.responses.countRate(now)),
        n('response-total', 'answers received from the node', t.responses.count),
      );
    }
    const m = metricsOf(GROUP, { 'client-id': clientId });
    out.push(
      m('request-rate', 'requests sent per second', this.all.requests.countRate(now)),
      m('request-total', 'requests sent', this.all.requests.count),
      m('response-rate', 'answers received per second', this.all.responses.countRate(now)),
      m('response-total', 'answers received', this.all.responses.count),
    );
    return out;
  }
}
