/**
 * What one node of a topology runs: the controller channel and the metadata proxy (always), the
 * controller (of the quorum, or an observer) and the brokers placed on it, and the user actors
 * placed on it. Used in-process, as a worker's setup module, and by a TCP node's own process.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { broker } from '../../actors/broker/broker.js';
import { startKafkaListener } from '../../actors/kafka-listener/listener.js';
import { readListenerTls } from './listener-tls.js';
import { METADATA_PROXY_PATH, metadataProxy } from '../../actors/cluster-node/metadata-proxy.js';
import { controller } from '../../actors/controller/controller.js';
import { CONTROLLER_CHANNEL_PATH, controllerChannel, controllerChannelRef } from '../../actors/cluster-node/controller-channel.js';
import { CONTROLLER_PATH, brokerPath } from '../protocol/cluster.js';
import type { ActorDefinition } from '../runtime/actor-definition.js';
import type { ActorSystem } from '../runtime/actor-system.js';
import { configureLoggers, parseLoggerLevel, setLogLevel } from '../runtime/logger.js';
import type { Message } from '../runtime/types.js';
import { allControllers, controllerVoters, type ControllerVoterEntry, type TopologyConfig } from './config.js';

export interface NodeSetupArgs {
  topology: TopologyConfig;
  nodeId: string;
  /** Relative paths in the topology (log dirs, modules) are resolved from here. */
  baseDir: string;
}

function isDefinition(v: unknown): v is ActorDefinition<unknown, Message, unknown> {
  const d = v as ActorDefinition<unknown, Message, unknown>;
  return typeof v === 'object' && v !== null && typeof d.kind === 'string' && typeof d.init === 'function' && typeof d.handlers === 'object';
}

/**
 * Starts `entry`'s controller on `system` (its node): with the topology's initial voters, and the
 * topology's other controllers to ask for the leader should it observe (outside the voter set).
 */
export function startController(system: ActorSystem, topology: TopologyConfig, entry: ControllerVoterEntry, baseDir: string): void {
  const voters = controllerVoters(topology.controller).map((v) => ({ id: v.id, node: v.node }));
  const contacts = allControllers(topology.controller)
    .filter((v) => v.id !== entry.id)
    .map((v) => ({ id: v.id, node: v.node }));
  system.spawn(controller, {
    name: CONTROLLER_PATH.slice(1),
    args: {
      clusterId: topology.clusterId,
      metadataDir: path.resolve(baseDir, entry.metadataDir),
      config: topology.controller.config ?? {},
      quorum: { voterId: entry.id, voters, contacts },
      ...(topology.controller.releaseVersion !== undefined || topology.controller.features !== undefined
        ? { bootstrapFeatures: { releaseVersion: topology.controller.releaseVersion, features: topology.controller.features } }
        : {}),
    },
  });
}

export async function setupNode(system: ActorSystem, args: NodeSetupArgs): Promise<void> {
  const t = args.topology;
  const at = (p: string) => path.resolve(args.baseDir, p);
  if (t.logLevel) setLogLevel(t.logLevel);
  if (t.loggers) configureLoggers(system.nodeId, Object.fromEntries(Object.entries(t.loggers).map(([name, level]) => [name, parseLoggerLevel(level)!])));
  const controllers = allControllers(t.controller);
  // everything on this node reaches the active controller through the node's channel (which
  // learns controllers the topology does not name from their answers)
  system.spawn(controllerChannel, { name: CONTROLLER_CHANNEL_PATH.slice(1), args: { voters: controllers.map((v) => ({ id: v.id, node: v.node })) } });
  const controllerRef = controllerChannelRef(args.nodeId);
  system.spawn(metadataProxy, { name: METADATA_PROXY_PATH.slice(1), args: { controller: controllerRef } });
  const mine = controllers.find((v) => v.node === args.nodeId);
  if (mine) startController(system, t, mine, args.baseDir);
  // a tcp node's own address is where clients reach its brokers directly
  const me = t.nodes.find((n) => n.id === args.nodeId);
  const endpoint = me?.kind === 'tcp' ? `${me.host}:${me.port}` : null;
  for (const b of t.brokers.filter((x) => x.node === args.nodeId)) {
    // the Kafka listener binds first, so the broker registers with the port really bound
    const kafkaEndpoint = b.kafka
      ? await startKafkaListener(system, {
          brokerId: b.id,
          host: b.kafka.host,
          port: b.kafka.port,
          ...(b.kafka.advertisedHost !== undefined ? { advertisedHost: b.kafka.advertisedHost } : {}),
          ...(b.kafka.tls ? { tls: readListenerTls(b.kafka.tls, args.baseDir) } : {}),
          ...(b.kafka.sasl ? { sasl: b.kafka.sasl } : {}),
          controller: controllerRef,
          brokerConfig: b.config ?? {},
        })
      : null;
    system.spawn(broker, {
      name: brokerPath(b.id).slice(1),
      args: { brokerId: b.id, clusterId: t.clusterId, controller: controllerRef, logDirs: (b.logDirs ?? (b.logDir !== undefined ? [b.logDir] : [])).map(at), rack: b.rack ?? null, endpoint, kafkaEndpoint, config: b.config ?? {} },
    });
  }
  for (const a of (t.actors ?? []).filter((x) => x.node === args.nodeId)) {
    const mod = (await import(pathToFileURL(at(a.module)).href)) as { default?: unknown; actor?: unknown };
    const def = isDefinition(mod.default) ? mod.default : isDefinition(mod.actor) ? mod.actor : null;
    if (!def) throw new Error(`actors '${a.name}': module ${a.module} exports no actor definition (as default or 'actor')`);
    system.spawn(def, { name: a.name, args: a.config });
  }
}

/** Worker setup module entry: (system, config) as WorkerHub calls it. */
export default function setup(system: ActorSystem, args: NodeSetupArgs): Promise<void> {
  return setupNode(system, args);
}
