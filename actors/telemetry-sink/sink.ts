/**
 * A broker's telemetry receiver (client metrics, KIP-714), ready to place: name it in a
 * broker's `client.telemetry.receiver` and put it on the broker's node (a topology `actors`
 * entry with this module, or `system.spawn`). It reads each push's OTLP metrics
 * (src/kafka/otlp-metrics.ts) and keeps, per client instance, who the client is and the latest
 * point of each of its metrics (by name and attributes), for DescribeClientTelemetry; the
 * `maxClients` (1,000 by default) seen last are kept, each with at most `maxSeriesPerClient`
 * series (10,000 by default; past it the series longest without a new point go first). A push whose metrics do not decode is
 * refused (INVALID_RECORD: the broker answers the client so).
 *
 * Owned state: the client instances and their latest points.
 * Handles: ClientTelemetryPush (from brokers), DescribeClientTelemetry.
 * Emits: ClientTelemetryTaken to each push, ClientTelemetryDescription.
 */
import type { ClientTelemetryPush } from '../../src/kafka/client-telemetry.js';
import { decodeOtlpMetrics, type OtlpMetric, type OtlpValue } from '../../src/kafka/otlp-metrics.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defineActor } from '../../src/runtime/actor-definition.js';

/** The latest point of one metric series (a metric and one set of attribute values). */
export interface TelemetryPoint {
  name: string;
  kind: OtlpMetric['kind'];
  unit: string;
  attributes: Record<string, OtlpValue>;
  timeMs: number;
  value: number;
  count?: number;
}

export interface TelemetryClient {
  clientInstanceId: string;
  clientId: string | null;
  clientSoftwareName: string | null;
  clientSoftwareVersion: string | null;
  clientSourceAddress: string;
  principal: string;
  /** The OTLP resource's attributes of its last push. */
  resource: Record<string, OtlpValue>;
  /** When its last push came (the sink's clock), and through which broker. */
  lastPushMs: number;
  brokerId: number;
  pushes: number;
  /** Its last push said it was closing. */
  terminated: boolean;
  /** Every series it pushed, its latest point, by name then attributes. */
  points: TelemetryPoint[];
}

export type TelemetrySinkMsg = ClientTelemetryPush | { type: 'DescribeClientTelemetry'; clientInstanceId?: string | null };

export interface TelemetrySinkArgs {
  /** How many client instances to keep, the least recently pushing forgotten first (default 1,000). */
  maxClients?: number;
  /** How many series to keep per client instance, those longest without a point forgotten first (default 10,000). */
  maxSeriesPerClient?: number;
}

interface SinkState {
  maxClients: number;
  maxSeriesPerClient: number;
  clients: Map<string, { client: Omit<TelemetryClient, 'points'>; series: Map<string, TelemetryPoint> }>;
}

const seriesKey = (name: string, attributes: Record<string, OtlpValue>) => `${name}\u0000${JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}`;

export const telemetrySink = defineActor<SinkState, TelemetrySinkMsg, TelemetrySinkArgs | undefined>({
  kind: 'telemetry-sink',
  // pushes come from the brokers, which took them from clients
  clientMessages: { DescribeClientTelemetry: true },
  init: (_ctx, args) => ({ maxClients: args?.maxClients ?? 1000, maxSeriesPerClient: args?.maxSeriesPerClient ?? 10_000, clients: new Map() }),
  supervision: 'resume',
  schema: { ClientTelemetryPush: { clientInstanceId: 'string', metrics: 'bytes' } },
  handlers: {
    ClientTelemetryPush(s, m, ctx) {
      let decoded: ReturnType<typeof decodeOtlpMetrics>;
      try {
        decoded = decodeOtlpMetrics(m.metrics);
      } catch (err) {
        ctx.log.warn('client metrics that do not decode refused', { clientInstanceId: m.clientInstanceId, reason: (err as Error).message });
        return ctx.reply({ type: 'ClientTelemetryTaken', errorCode: ErrorCode.INVALID_RECORD, errorMessage: `the metrics are not OTLP: ${(err as Error).message}` });
      }
      const known = s.clients.get(m.clientInstanceId);
      const series = known?.series ?? new Map<string, TelemetryPoint>();
      let points = 0;
      for (const metric of decoded.metrics) {
        for (const p of metric.points) {
          points++;
          const key = seriesKey(metric.name, p.attributes);
          // the newest point last, so the series longest without one come first when some must go
          series.delete(key);
          series.set(key, { name: metric.name, kind: metric.kind, unit: metric.unit, attributes: p.attributes, timeMs: p.timeMs, value: p.value, ...(p.count !== undefined ? { count: p.count } : {}) });
        }
      }
      while (series.size > s.maxSeriesPerClient) series.delete(series.keys().next().value!);
      s.clients.delete(m.clientInstanceId);
      s.clients.set(m.clientInstanceId, {
        client: {
          clientInstanceId: m.clientInstanceId,
          clientId: m.clientId,
          clientSoftwareName: m.clientSoftwareName,
          clientSoftwareVersion: m.clientSoftwareVersion,
          clientSourceAddress: m.clientSourceAddress,
          principal: m.principal,
          resource: decoded.resource,
          lastPushMs: ctx.clock.now(),
          brokerId: m.brokerId,
          pushes: (known?.client.pushes ?? 0) + 1,
          terminated: m.terminating,
        },
        series,
      });
      while (s.clients.size > s.maxClients) s.clients.delete(s.clients.keys().next().value!);
      ctx.log.debug('client metrics taken', { clientInstanceId: m.clientInstanceId, clientId: m.clientId, metrics: decoded.metrics.length, points });
      ctx.reply({ type: 'ClientTelemetryTaken', errorCode: ErrorCode.NONE });
    },

    DescribeClientTelemetry(s, m, ctx) {
      const wanted = m.clientInstanceId ?? null;
      const clients: TelemetryClient[] = [...s.clients.values()]
        .filter((c) => wanted === null || c.client.clientInstanceId === wanted)
        // by metric name, then attributes
        .map((c) => ({ ...c.client, points: [...c.series].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p) }));
      ctx.reply({ type: 'ClientTelemetryDescription', errorCode: ErrorCode.NONE, clients });
    },
  },
});

export default telemetrySink;
