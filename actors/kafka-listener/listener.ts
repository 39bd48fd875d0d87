/**
 * A broker's Kafka-protocol listener: existing Kafka clients (KafkaJS, librdkafka/kcat, the Java
 * client) connect here and talk to the broker beside it.
 *
 * Owned state: the listening server (bound before the broker registers, so the broker advertises
 * the real port) and the count of connections accepted.
 * Handles: DescribeKafkaListener (introspection).
 * Emits: nothing itself; each accepted socket gets its own child actor (./connection.ts), which
 * translates requests into the broker's, its coordinator's, its replicas' and the controller's
 * messages.
 */
import net from 'node:net';
import { parseBrokerConfig, type BrokerConfig } from '../broker/broker-config.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import { defineActor } from '../../src/runtime/actor-definition.js';
import { kafkaConnection } from './connection.js';

export type KafkaListenerMsg = { type: 'DescribeKafkaListener' };

export interface KafkaListenerDescription {
  type: 'KafkaListenerDescription';
  host: string;
  port: number;
  accepted: number;
  open: number;
}

export interface KafkaListenerArgs {
  server: net.Server;
  brokerId: number;
  controllerNode: string;
  config: BrokerConfig;
  /** The broker config as written (DescribeConfigs tells set keys from defaults). */
  configInput: Readonly<Record<string, unknown>>;
}

interface ListenerState {
  server: net.Server;
  accepted: number;
  open: number;
}

/** The listener's actor name for broker `brokerId` (a top-level actor on the broker's node). */
export function kafkaListenerName(brokerId: number): string {
  return `kafka-listener-${brokerId}`;
}

/** Binds a server for a broker's Kafka listener; port 0 picks a free port. Rejects when the address is taken. */
export function bindKafkaServer(host: string, port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer({ noDelay: true, pauseOnConnect: false });
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** 'host:port' a bound server listens on. */
export function serverEndpoint(server: net.Server): string {
  const a = server.address() as net.AddressInfo;
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

export interface StartKafkaListenerOptions {
  brokerId: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Advertised instead of the bind host (e.g. when binding 0.0.0.0). */
  advertisedHost?: string;
  controllerNode: string;
  /** The broker's config (Kafka names), for socket.request.max.bytes, auto.create.topics.enable, request.timeout.ms. */
  brokerConfig?: Record<string, unknown>;
}

/**
 * Binds broker `brokerId`'s Kafka listener on `system` (the broker's node) and spawns its actor.
 * Returns the 'host:port' to advertise: start the broker with it as `kafkaEndpoint`.
 */
export async function startKafkaListener(system: ActorSystem, o: StartKafkaListenerOptions): Promise<string> {
  const config = parseBrokerConfig(o.brokerConfig ?? {});
  const server = await bindKafkaServer(o.host, o.port);
  const bound = serverEndpoint(server);
  system.spawn(kafkaListener, { name: kafkaListenerName(o.brokerId), args: { server, brokerId: o.brokerId, controllerNode: o.controllerNode, config, configInput: o.brokerConfig ?? {} } });
  return o.advertisedHost ? `${o.advertisedHost}:${bound.slice(bound.lastIndexOf(':') + 1)}` : bound;
}

export const kafkaListener = defineActor<ListenerState, KafkaListenerMsg, KafkaListenerArgs>({
  kind: 'kafka-listener',
  supervision: 'resume',
  init(ctx, args) {
    const s: ListenerState = { server: args.server, accepted: 0, open: 0 };
    const connArgs = {
      brokerId: args.brokerId,
      controllerNode: args.controllerNode,
      maxRequestBytes: args.config.socketRequestMaxBytes,
      config: args.config,
      configInput: args.configInput,
    };
    args.server.removeAllListeners('connection');
    args.server.on('connection', (socket: net.Socket) => {
      s.accepted++;
      s.open++;
      socket.once('close', () => s.open--);
      try {
        ctx.spawn(kafkaConnection, { name: `conn-${s.accepted}`, args: { socket, ...connArgs } });
      } catch (err) {
        // the node is stopping: nobody is left to serve this client
        ctx.log.debug('refusing a Kafka connection', { reason: (err as Error).message });
        socket.destroy();
      }
    });
    args.server.on('error', (err) => ctx.log.error('Kafka listener error', { error: err.message }));
    ctx.log.info('Kafka listener up', { endpoint: serverEndpoint(args.server), brokerId: args.brokerId });
    return s;
  },
  onStop(s) {
    return new Promise<void>((resolve) => s.server.close(() => resolve()));
  },
  handlers: {
    DescribeKafkaListener(s, _m, ctx) {
      const a = s.server.address() as net.AddressInfo;
      ctx.reply({ type: 'KafkaListenerDescription', host: a.address, port: a.port, accepted: s.accepted, open: s.open } satisfies KafkaListenerDescription);
    },
  },
});
