/**
 * The client entry point, shaped like KafkaJS's `new Kafka(...)`: one object per cluster that
 * makes producers, consumers and admin clients. Client actors run on `system`, a node that
 * reaches the brokers' nodes (in-process, worker threads or TCP).
 */
import type { ActorSystem } from '../runtime/actor-system.js';
import type { BootstrapBroker } from './metadata-cache.js';
import { Admin } from './admin.js';
import { Consumer } from './consumer.js';
import { Producer } from './producer.js';

export interface SamsaClientConfig {
  clientId?: string;
  /** The node the client's actors run on. */
  system: ActorSystem;
  /** Brokers to ask for metadata first (any subset of the cluster). */
  brokers: BootstrapBroker[];
}

export class SamsaClient {
  readonly clientId: string;
  readonly system: ActorSystem;
  readonly brokers: BootstrapBroker[];

  constructor(config: SamsaClientConfig) {
    if (!config.brokers?.length) throw new Error('SamsaClient: at least one bootstrap broker is required');
    this.clientId = config.clientId ?? 'samsa';
    this.system = config.system;
    this.brokers = config.brokers;
  }

  producer(config: Record<string, unknown> = {}): Producer {
    return new Producer(this, config);
  }

  admin(): Admin {
    return new Admin(this);
  }

  /** A group consumer; `groupId` (or 'group.id') is required, other options use Kafka's names. */
  consumer(config: { groupId?: string } & Record<string, unknown>): Consumer {
    const { groupId, ...rest } = config;
    return new Consumer(this, groupId !== undefined ? { 'group.id': groupId, ...rest } : rest);
  }
}
