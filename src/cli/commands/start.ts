/**
 * `samsa start [topology.json] [--node id]`: runs a topology in the foreground (by default the
 * embedded one: three brokers in worker threads, the controller in the main thread, a client
 * listener on 127.0.0.1:9192, Kafka listeners on 127.0.0.1:9092-9094). A topology with problems is reported key by key and nothing
 * starts (exit 2). Once up it prints where clients connect and commands to try; Ctrl-C or
 * SIGTERM runs a controlled shutdown and exits 0. `--release-version` and `--feature` set a new
 * cluster's feature levels over the topology's (its controller.releaseVersion and
 * controller.features), as kafka-storage format's flags of those names.
 */
import path from 'node:path';
import { crc32cImplementation } from '../../protocol/crc32c.js';
import { BROKER_HEAP_GROWING_PERCENT } from '../../runtime/heap-growth.js';
import { SAMSA_ALLOCATION_SITE_PRETENURING } from '../../runtime/pretenuring.js';
import type { LogLevel } from '../../runtime/logger.js';
import { exampleTopology, loadTopology, startCluster, type ClusterHandle, type TopologyConfig, type TopologyError } from '../../topology/start-cluster.js';
import type { Args, OptionSpec } from '../args.js';
import { DEFAULT_BOOTSTRAP, HELP_OPTION, type Command } from '../command.js';
import { CliError, EXIT_OK, EXIT_USAGE, UsageError } from '../errors.js';
import { parseFeature } from './features.js';
import { err, out, plural } from '../output.js';

const LOG_LEVELS = ['error', 'warn', 'info', 'debug', 'silent'];

const options: OptionSpec[] = [
  { name: 'node', kind: 'string', value: 'id', help: 'start only this tcp node of a one-process-per-node topology (run one `samsa start topo.json --node <id>` per node)' },
  { name: 'base-dir', kind: 'string', value: 'dir', help: 'where relative log and metadata directories of the topology live (default: the current directory)' },
  {
    name: 'release-version',
    kind: 'string',
    value: 'release',
    help: "a new cluster's metadata.version and feature levels, as that release bootstraps them (kafka-storage format's --release-version; over the topology's controller.releaseVersion); a cluster that has levels keeps its own",
  },
  {
    name: 'feature',
    kind: 'list',
    value: 'name=level',
    help: "a new cluster's level of one feature (repeatable; kafka-storage format's --feature; over the release's and the topology's controller.features)",
  },
  HELP_OPTION,
];

function isTopologyError(e: unknown): e is TopologyError {
  return e instanceof Error && e.name === 'TopologyError' && Array.isArray((e as TopologyError).problems);
}

function problemLines(file: string, e: TopologyError): string[] {
  return [`samsa start: ${file} cannot be started; nothing was started or written:`, ...e.problems.map((p) => `  ${p.path}: ${p.message}`)];
}

/** An address clients on this host can dial (a wildcard listener is reached on loopback). */
function dialable(addr: string): string {
  const m = /^(.*):(\d+)$/.exec(addr);
  if (!m) return addr;
  const host = m[1] === '0.0.0.0' || m[1] === '::' || m[1] === '' ? '127.0.0.1' : m[1]!;
  return `${host.includes(':') ? `[${host}]` : host}:${m[2]}`;
}

/** How each CRC-32C implementation is described at start (the brokers verify every batch). */
const CRC32C_DESCRIPTION = {
  hardware: "hardware (the CPU's instructions, samsa's native addon)",
  'node-rs': '@node-rs/crc32 (`npm run build:native` builds the faster native addon where a C compiler is present)',
  js: 'JavaScript tables, the slowest (`npm run build:native` builds the native addon where a C compiler is present)',
} as const;

async function printReady(config: TopologyConfig, handle: ClusterHandle, node: string | undefined, ms: number): Promise<void> {
  const addresses = handle.addresses().map(dialable);
  // the brokers' Kafka-protocol listeners, once those brokers have registered
  const kafka = (await handle.kafkaBrokers(10_000).catch(() => [] as string[])).map(dialable);
  const brokers = node === undefined ? config.brokers : config.brokers.filter((b) => b.node === node);
  const what = node === undefined ? `cluster '${config.clusterId}'` : `node '${node}' of cluster '${config.clusterId}'`;
  out(`samsa ${what} is running (started in ${ms} ms)`);
  out(`  ${plural(brokers.length, 'broker')}: ${brokers.map((b) => `${b.id} on ${b.node}`).join(', ') || 'none'}; ${config.controller.quorum ? `controller quorum on ${config.controller.quorum.map((v) => `${v.id}@${v.node}`).join(', ')}` : `controller on ${config.controller.node}`}`);
  const growing = config.runtime?.heapGrowingPercent;
  if (growing !== undefined) out(`  V8 heap growing percent: ${growing}${growing === 0 ? " (V8's own)" : ''} (runtime.heapGrowingPercent)`);
  const pretenuring = config.runtime?.allocationSitePretenuring;
  if (pretenuring !== undefined) out(`  V8 allocation-site pretenuring: ${pretenuring ? 'on' : 'off'} (runtime.allocationSitePretenuring)`);
  out(`  CRC-32C: ${CRC32C_DESCRIPTION[crc32cImplementation]}`);
  const { releaseVersion, features } = config.controller;
  if (releaseVersion !== undefined || features !== undefined) {
    const asked = [releaseVersion !== undefined ? `release ${releaseVersion}` : '', ...Object.entries(features ?? {}).map(([name, level]) => `${name}=${level}`)].filter(Boolean).join(', ');
    out(`  feature levels if the cluster is new: ${asked} (a cluster that has levels keeps its own: samsa features describe)`);
  }
  // TLS listeners (Kafka's SSL protocol): clients need security.protocol=ssl and the CA
  const tls = brokers.find((b) => b.kafka?.tls)?.kafka?.tls;
  const sasl = brokers.find((b) => b.kafka?.sasl)?.kafka?.sasl;
  const protocol = tls ? (sasl ? 'sasl_ssl' : 'ssl') : sasl ? 'sasl_plaintext' : null;
  const mechanism = sasl ? (sasl.mechanisms?.[0] ?? 'PLAIN') : null;
  const kcatSecurity =
    (protocol ? ` -X security.protocol=${protocol}` : '') +
    (tls ? ` -X ssl.ca.location=<the CA that signed ${tls.certFile}>` : '') +
    (sasl ? ` -X sasl.mechanisms=${mechanism} -X sasl.username=<user> -X sasl.password=<password>` : '');
  if (kafka.length > 0) out(`  Kafka clients (KafkaJS, kcat, Java) connect to: ${kafka.join(',')}${protocol ? ` (security.protocol=${protocol})` : ''}`);
  if (addresses.length === 0) {
    out('  no client listener: add one under "listeners" to reach this topology with samsa commands');
    return;
  }
  const clientTls = node === undefined ? config.listeners?.some((l) => l.tls) : config.nodes.find((n) => n.id === node)?.tls !== undefined;
  out(`  samsa clients connect to: ${addresses.join(', ')}${clientTls ? ' over TLS (the samsa commands take SAMSA_TLS_CA_FILE, and SAMSA_TLS_CERT_FILE / SAMSA_TLS_KEY_FILE when a certificate is asked for)' : ''}`);
  const server = addresses[0] === DEFAULT_BOOTSTRAP ? '' : ` --bootstrap-server ${addresses[0]}`;
  const topic = config.topics?.[0]?.name;
  out();
  out('try it from another terminal:');
  if (!topic) out(`  npx samsa topics${server} --create --topic demo --partitions 3`);
  const t = topic ?? 'demo';
  out(`  printf 'k1:hello\\nk2:world\\n' | npx samsa produce${server} --topic ${t} --key-separator :`);
  out(`  npx samsa consume${server} --topic ${t} --from-beginning --print-key --max-messages 2`);
  out(`  npx samsa topics${server} --describe --topic ${t}`);
  if (kafka.length > 0) out(`  kcat -b ${kafka.join(',')}${kcatSecurity} -L`);
  out();
  out('Ctrl-C stops it with a controlled shutdown.');
}

async function run(args: Args): Promise<number> {
  const file = args.positionals[0] ?? exampleTopology('embedded.json');
  const node = args.string('node');
  const baseDir = path.resolve(args.string('base-dir') ?? process.cwd());

  let config: TopologyConfig;
  try {
    config = loadTopology(file);
  } catch (e) {
    if (!isTopologyError(e)) throw e;
    for (const l of problemLines(file, e)) err(l);
    return EXIT_USAGE;
  }
  // --release-version and --feature win over the topology's (checked with it, at startCluster)
  const release = args.string('release-version');
  const features = args.list('feature');
  let label = file;
  if (release !== undefined || features.length > 0) {
    const given: Record<string, number> = {};
    for (const spec of features) {
      const [name, level] = parseFeature(spec);
      if (Object.hasOwn(given, name)) throw new UsageError(`Feature ${name} was specified more than once.`);
      given[name] = level;
    }
    const c = config.controller;
    config = {
      ...config,
      controller: { ...c, ...(release !== undefined ? { releaseVersion: release } : {}), ...(features.length > 0 ? { features: { ...c.features, ...given } } : {}) },
    };
    label = `${file} with ${[release !== undefined ? `--release-version ${release}` : '', ...features.map((f) => `--feature ${f}`)].filter(Boolean).join(' ')}`;
  }
  // SAMSA_LOG_LEVEL wins over the topology's logLevel
  const envLevel = process.env.SAMSA_LOG_LEVEL;
  if (envLevel !== undefined && LOG_LEVELS.includes(envLevel)) config = { ...config, logLevel: envLevel as LogLevel };
  // this process runs brokers and nothing else: V8's heap grows for their buffers (heap-growth.ts)
  if (config.runtime?.heapGrowingPercent === undefined) config = { ...config, runtime: { ...config.runtime, heapGrowingPercent: BROKER_HEAP_GROWING_PERCENT } };
  // and no allocation site is tenured for good by one unlucky collection (pretenuring.ts)
  if (config.runtime?.allocationSitePretenuring === undefined) config = { ...config, runtime: { ...config.runtime, allocationSitePretenuring: SAMSA_ALLOCATION_SITE_PRETENURING } };

  const t0 = performance.now();
  let handle: ClusterHandle;
  try {
    handle = await startCluster(config, { ...(node !== undefined ? { node } : {}), baseDir });
  } catch (e) {
    if (isTopologyError(e)) {
      for (const l of problemLines(label, e)) err(l);
      return EXIT_USAGE;
    }
    throw new CliError(`the topology did not start: ${(e as Error).message}`);
  }
  await printReady(config, handle, node, Math.round(performance.now() - t0));

  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        err(`samsa start: ${signal} again: exiting without waiting for the shutdown`);
        process.exit(130);
      }
      stopping = true;
      err(`samsa start: ${signal}: controlled shutdown (leaderships move to other in-sync replicas, logs are flushed)...`);
      handle.stop({ controlled: true }).then(
        () => {
          err('samsa start: stopped');
          resolve();
        },
        (e: unknown) => {
          err(`samsa start: shutdown failed: ${(e as Error).message}`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return EXIT_OK;
}

export const startCommand: Command = {
  name: 'start',
  summary: 'run a cluster topology in the foreground (default: the embedded three-broker one)',
  usage: ['[topology.json] [--node id] [--base-dir dir] [--release-version release] [--feature name=level ...]'],
  description:
    'Starts the nodes of a topology file in this process: the controller, the brokers, the client listeners and the topics it declares. Without a file it runs the embedded default: three brokers in worker threads, the controller in the main thread, logs under ./data, samsa clients on 127.0.0.1:9192 and Kafka clients (KafkaJS, kcat) on 127.0.0.1:9092-9094. A topology of tcp nodes runs one process per node: start each with --node <id>. A file with problems is reported key by key and nothing starts (exit 2). Ctrl-C or SIGTERM runs a controlled shutdown and exits 0; starting again finds every topic, record and committed offset. --release-version and --feature set the feature levels a new cluster starts with, as kafka-storage format does (over the topology\'s controller.releaseVersion and controller.features); a cluster that has levels keeps its own.',
  options,
  positional: { name: 'topology.json', help: 'the topology to start (default: src/topology/examples/embedded.json)', max: 1 },
  examples: ['samsa start', 'samsa start my-topology.json', 'samsa start three-process.json --node n2', 'samsa start --release-version 4.0 --feature transaction.version=0'],
  run,
};
