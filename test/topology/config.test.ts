/**
 * Topology validation: every problem is reported with the exact key and the reason.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { allControllers, controllerVoters, validateTopology, type TopologyConfig } from '../../src/topology/config.js';
import { TopologyError, exampleTopology, loadTopology, readNodeSecret, startCluster } from '../../src/topology/start-cluster.js';

const base = () => ({
  clusterId: 'c',
  nodes: [
    { id: 'main', kind: 'inproc' },
    { id: 'b1', kind: 'worker' },
  ],
  controller: { node: 'main', metadataDir: 'meta' },
  brokers: [{ id: 1, node: 'b1', logDir: 'l1' }],
});

const problems = (v: unknown) => validateTopology(v).map((p) => `${p.path}: ${p.message}`);

describe('topology/config', () => {
  it('accepts the shipped examples', () => {
    for (const name of ['embedded.json', 'in-process.json', 'three-process.json', 'mirror.json', 'quorum.json']) {
      const file = exampleTopology(name);
      if (!fs.existsSync(file)) continue;
      expect(validateTopology(JSON.parse(fs.readFileSync(file, 'utf8'))), name).to.deep.equal([]);
    }
    expect(validateTopology(base())).to.deep.equal([]);
  });

  it('names unknown keys at every level', () => {
    const t = { ...base(), colour: 'red', nodes: [{ id: 'main', kind: 'inproc', size: 3 }, { id: 'b1', kind: 'worker' }] };
    expect(problems(t)).to.include.members([
      'colour: unknown key (allowed: $schema, clusterId, logLevel, loggers, runtime, nodeSecretFile, nodes, controller, brokers, listeners, topics, actors)',
      'nodes[0].size: unknown key (allowed: id, kind, host, port, tls)',
    ]);
  });

  it('checks the named loggers: dotted names, Kafka\'s levels in any case', () => {
    expect(validateTopology({ ...base(), loggers: { 'samsa.partition-replica': 'DEBUG', root: 'warn', 'my-app.part_2': 'ALL' } })).to.deep.equal([]);
    expect(problems({ ...base(), loggers: { 'samsa.broker': 'LOUD', 'samsa..x': 'INFO', 'a b': 'INFO', 'samsa.n': 3 } })).to.deep.equal([
      'loggers.samsa.broker: must be one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, got "LOUD"',
      "loggers.samsa..x: a logger name is dot-separated names of letters, digits, '_' and '-' (samsa.partition-replica)",
      "loggers.a b: a logger name is dot-separated names of letters, digits, '_' and '-' (samsa.partition-replica)",
      'loggers.samsa.n: must be one of OFF, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, ALL, got number 3',
    ]);
    expect(problems({ ...base(), loggers: 'DEBUG' })).to.deep.equal(['loggers: must be an object, got "DEBUG"']);
  });

  it('checks the runtime settings', () => {
    expect(validateTopology({ ...base(), runtime: { heapGrowingPercent: 300 } })).to.deep.equal([]);
    expect(validateTopology({ ...base(), runtime: { heapGrowingPercent: 0 } })).to.deep.equal([]);
    expect(validateTopology({ ...base(), runtime: { heapGrowingPercent: 300, allocationSitePretenuring: false } })).to.deep.equal([]);
    expect(problems({ ...base(), runtime: { heapGrowingPercent: 2.5, gc: 'fast' } })).to.deep.equal([
      'runtime.gc: unknown key (allowed: heapGrowingPercent, allocationSitePretenuring)',
      'runtime.heapGrowingPercent: must be an integer in [0, 1000], got number 2.5',
    ]);
    expect(problems({ ...base(), runtime: { allocationSitePretenuring: 'no' } })).to.deep.equal(['runtime.allocationSitePretenuring: must be true or false, got "no"']);
    expect(problems({ ...base(), runtime: { allocationSitePretenuring: 0 } })).to.deep.equal(['runtime.allocationSitePretenuring: must be true or false, got number 0']);
    expect(problems({ ...base(), runtime: { heapGrowingPercent: 5000 } })).to.deep.equal(['runtime.heapGrowingPercent: must be an integer in [0, 1000], got number 5000']);
    expect(problems({ ...base(), runtime: 'big' })).to.deep.equal(['runtime: must be an object, got "big"']);
  });

  it('names wrong types and missing keys', () => {
    const t = { ...base(), clusterId: 5, brokers: [{ id: 'one', node: 'b1' }] };
    expect(problems(t)).to.include.members(['clusterId: must be a non-empty string, got number 5', 'brokers[0].logDir: is required (or logDirs, for one or more dirs)', 'brokers[0].id: must be an integer in [0, 2147483647], got "one"']);
  });

  it('finds duplicate broker ids, undeclared nodes, shared log dirs', () => {
    const t = { ...base(), brokers: [{ id: 1, node: 'b1', logDir: 'l' }, { id: 1, node: 'nowhere', logDir: 'l' }] };
    expect(problems(t)).to.include.members([
      'brokers[1].id: duplicate broker id 1',
      "brokers[1].node: node 'nowhere' is not declared in nodes",
      "brokers[1].logDir: log dir 'l' is used by another broker",
    ]);
  });

  it('takes logDirs (one or more, JBOD) or logDir, not both, each dir used by one broker only', () => {
    const ok = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: ['d1', 'd2'] }] };
    expect(problems(ok)).to.deep.equal([]);
    const one = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: ['d1'] }] };
    expect(problems(one)).to.deep.equal([]);
    const both = { ...base(), brokers: [{ id: 1, node: 'b1', logDir: 'd0', logDirs: ['d1'] }] };
    expect(problems(both)).to.deep.equal(['brokers[0].logDirs: give logDir (one dir) or logDirs (one or more), not both']);
    const empty = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: [] }] };
    expect(problems(empty)).to.deep.equal(['brokers[0].logDirs: must name at least one log dir']);
    const bad = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: ['d1', 7, ''] }] };
    expect(problems(bad)).to.deep.equal(['brokers[0].logDirs[1]: must be a non-empty string, got number 7', 'brokers[0].logDirs[2]: must be a non-empty string, got ""']);
    const notArray = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: 'd1' }] };
    expect(problems(notArray)).to.have.length(1);
    expect(problems(notArray)[0]).to.match(/^brokers\[0\]\.logDirs: must be an array/);
    const twice = { ...base(), brokers: [{ id: 1, node: 'b1', logDirs: ['d1', 'd1/'] }] };
    expect(problems(twice)).to.deep.equal(["brokers[0].logDirs[1]: log dir 'd1/' is listed twice"]);
    const shared = {
      ...base(),
      nodes: [...base().nodes, { id: 'b2', kind: 'inproc' }],
      brokers: [
        { id: 1, node: 'b1', logDirs: ['d1', 'd2'] },
        { id: 2, node: 'b2', logDirs: ['d3', './d2'] },
        { id: 3, node: 'b2', logDir: 'd1' },
      ],
    };
    expect(problems(shared)).to.deep.equal(["brokers[1].logDirs[1]: log dir './d2' is used by another broker", "brokers[2].logDir: log dir 'd1' is used by another broker"]);
  });

  it('checks broker config keys with the broker\'s own parser', () => {
    const t = base();
    (t.brokers[0] as Record<string, unknown>).config = { 'log.retention.ms': 'soon', 'replica.lag.time.max': 5 };
    const ps = problems(t);
    expect(ps.some((p) => p.startsWith('brokers[0].config.'))).to.equal(true);
  });

  it("checks controller config keys and values with the controller's own parser", () => {
    const t = base();
    (t.controller as Record<string, unknown>).config = { 'auto.leader.rebalance.enable': false, 'leader.imbalance.check.interval.seconds': 30, 'unclean.leader.election.enable': 'true' };
    expect(problems(t)).to.deep.equal([]);
    (t.controller as Record<string, unknown>).config = { 'leader.imbalance.per.broker.percentage': 10 };
    expect(problems(t)).to.have.length(1);
    expect(problems(t)[0]).to.match(/^controller\.config\.leader\.imbalance\.per\.broker\.percentage: unknown controller config key \(known: .*auto\.leader\.rebalance\.enable/);
    (t.controller as Record<string, unknown>).config = { 'leader.imbalance.check.interval.seconds': 0 };
    expect(problems(t)[0]).to.match(/^controller\.config\.leader\.imbalance\.check\.interval\.seconds: 0 is not valid/);
  });

  it("checks a new cluster's feature levels (controller.releaseVersion, controller.features) as the controller will take them", () => {
    const t = base();
    const ctl = t.controller as Record<string, unknown>;
    ctl.releaseVersion = '4.0-IV2';
    ctl.features = { 'transaction.version': 0 };
    expect(problems(t)).to.deep.equal([]);
    ctl.releaseVersion = '3.9';
    expect(problems(t)).to.deep.equal(['controller.releaseVersion: metadata.version 3.9-IV0 (21) from release 3.9 is not one samsa implements: 4.0-IV0 (22) to 4.1-IV1 (27)']);
    ctl.releaseVersion = 'soon';
    expect(problems(t)[0]).to.match(/^controller\.releaseVersion: Unknown metadata\.version 'soon'\. Supported metadata\.version are: 3\.3-IV3, /);
    ctl.releaseVersion = 4;
    expect(problems(t)).to.deep.equal(['controller.releaseVersion: must be a non-empty string, got number 4']);
    delete ctl.releaseVersion;
    ctl.features = { 'transaction.version': 3 };
    expect(problems(t)).to.deep.equal(['controller.features.transaction.version: transaction.version 3 is not one samsa implements: 0 to 2']);
    ctl.features = { 'streams.version': 1 };
    expect(problems(t)[0]).to.match(/^controller\.features\.streams\.version: samsa has no feature streams\.version; its features: eligible\.leader\.replicas\.version, /);
    ctl.features = { 'metadata.version': 22 };
    expect(problems(t)).to.deep.equal([
      "controller.features.metadata.version: eligible.leader.replicas.version 1 (samsa's default) needs metadata.version 4.0-IV1 (23) or later; metadata.version is 4.0-IV0 (22)",
    ]);
    ctl.features = { 'metadata.version': 22, 'eligible.leader.replicas.version': 0 };
    expect(problems(t)).to.deep.equal([]);
    ctl.features = [1];
    expect(problems(t)).to.deep.equal(['controller.features: must be an object, got an array']);
  });

  it('takes a quorum of controllers, each with its id, node and metadata dir, and checks it', () => {
    const nodes = [{ id: 'main', kind: 'inproc' }, { id: 'c1', kind: 'inproc' }, { id: 'c2', kind: 'inproc' }, { id: 'c3', kind: 'inproc' }];
    const quorum = [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `meta-${id}` }));
    const t = { ...base(), nodes: [...base().nodes, ...nodes.slice(1)], controller: { quorum, config: { 'controller.quorum.election.timeout.ms': 500 } } };
    expect(problems(t)).to.deep.equal([]);
    expect(controllerVoters(t.controller as TopologyConfig['controller'])).to.deep.equal(quorum);
    expect(controllerVoters(base().controller)).to.deep.equal([{ id: 1, node: 'main', metadataDir: 'meta' }]);
    const bad = {
      ...t,
      controller: {
        node: 'main',
        quorum: [
          { id: 1, node: 'c1', metadataDir: 'same' },
          { id: 1, node: 'c1', metadataDir: 'same' },
          { id: 0, node: 'nowhere', metadataDir: 'x' },
          { id: 4, node: 'c3' },
        ],
      },
    };
    expect(problems(bad)).to.have.members([
      "controller: has both quorum and node/metadataDir: a quorum names each controller's node and metadataDir",
      'controller.quorum[1].id: duplicate controller id 1',
      "controller.quorum[1].node: node 'c1' already hosts a controller of the quorum",
      "controller.quorum[1].metadataDir: 'same' is already another controller's metadataDir",
      'controller.quorum[2].id: must be an integer in [1, 2147483647], got number 0',
      "controller.quorum[2].node: node 'nowhere' is not declared in nodes",
      'controller.quorum[3].metadataDir: is required',
      'controller.quorum: has 4 controllers: an even quorum tolerates no more failures than one smaller; use an odd number',
    ]);
    expect(problems({ ...t, controller: { quorum: [] } })).to.include('controller.quorum: must name at least one controller');
    expect(problems({ ...t, controller: {} })).to.include.members(['controller.node: is required', 'controller.metadataDir: is required']);
  });

  it('takes observers (controllers started outside the voter set), each with its own id, node and metadata dir', () => {
    const nodes = [{ id: 'c1', kind: 'inproc' }, { id: 'c2', kind: 'inproc' }, { id: 'c3', kind: 'inproc' }, { id: 'c4', kind: 'inproc' }];
    const quorum = [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `meta-${id}` }));
    const observers = [{ id: 4, node: 'c4', metadataDir: 'meta-4' }];
    const t = { ...base(), nodes: [...base().nodes, ...nodes], controller: { quorum, observers } };
    expect(problems(t)).to.deep.equal([]);
    expect(allControllers(t.controller as TopologyConfig['controller'])).to.deep.equal([...quorum, ...observers]);
    expect(controllerVoters(t.controller as TopologyConfig['controller'])).to.deep.equal(quorum);
    // beside a single controller (id 1) too; an even number of controllers in all is fine
    expect(problems({ ...t, controller: { node: 'c1', metadataDir: 'meta-1', observers } })).to.deep.equal([]);
    expect(
      problems({
        ...t,
        controller: {
          node: 'c1',
          metadataDir: 'meta-1',
          observers: [
            { id: 1, node: 'c2', metadataDir: 'x' },
            { id: 5, node: 'c1', metadataDir: 'meta-1' },
            { id: 6, node: 'nowhere', metadataDir: 'y', extra: true },
          ],
        },
      }),
    ).to.have.members([
      'controller.observers[0].id: duplicate controller id 1',
      "controller.observers[1].node: node 'c1' already hosts a controller of the quorum",
      "controller.observers[1].metadataDir: 'meta-1' is already another controller's metadataDir",
      "controller.observers[2].node: node 'nowhere' is not declared in nodes",
      "controller.observers[2].extra: unknown key (allowed: id, node, metadataDir)",
    ]);
  });

  it('rejects mixing tcp with in-process nodes, and tcp nodes without an address', () => {
    const t = { ...base(), nodes: [...base().nodes, { id: 'far', kind: 'tcp' }] };
    const ps = problems(t);
    expect(ps).to.include('nodes[2].host: is required for a tcp node');
    expect(ps.some((p) => p.startsWith('nodes: mixes tcp nodes'))).to.equal(true);
  });

  it('takes a node secret file in tcp topologies only, and reads it: trailing whitespace dropped, at least 16 characters', () => {
    const tcp = { clusterId: 'c', nodes: [{ id: 'n1', kind: 'tcp', host: '127.0.0.1', port: 7001 }], controller: { node: 'n1', metadataDir: 'm' }, brokers: [{ id: 1, node: 'n1', logDir: 'l' }] };
    expect(problems({ ...tcp, nodeSecretFile: 'secret' })).to.deep.equal([]);
    expect(problems({ ...tcp, nodeSecretFile: 7 })).to.deep.equal(['nodeSecretFile: must be a non-empty string, got number 7']);
    expect(problems({ ...base(), nodeSecretFile: 'secret' })).to.deep.equal(['nodeSecretFile: only tcp topologies take a node secret (in-process and worker nodes talk inside the process)']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-secret-'));
    try {
      fs.writeFileSync(path.join(dir, 'ok'), '0123456789abcdef0123\n\n');
      fs.writeFileSync(path.join(dir, 'short'), 'tooshort\n');
      expect(readNodeSecret('ok', dir).toString()).to.equal('0123456789abcdef0123');
      expect(() => readNodeSecret('short', dir)).to.throw(TopologyError, /nodeSecretFile: short holds 8 characters: a node secret needs at least 16/);
      expect(() => readNodeSecret('missing', dir)).to.throw(TopologyError, /nodeSecretFile: cannot read missing: ENOENT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks topics: names, partition counts, replication factor against the brokers, config keys', () => {
    const t = { ...base(), topics: [{ name: 'a b', partitions: 0, replicationFactor: 2, config: { 'retention.msec': 1 } }] };
    expect(problems(t)).to.include.members([
      "topics[0].name: 'a b' has characters outside ^[a-zA-Z0-9._-]{1,249}$",
      'topics[0].partitions: must be an integer in [1, 100000], got number 0',
      'topics[0].replicationFactor: 2 is larger than the 1 broker(s) declared',
      'topics[0].config.retention.msec: unknown topic config key',
    ]);
  });

  it('loadTopology reports unreadable and malformed files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-topo-'));
    const bad = path.join(dir, 'bad.json');
    fs.writeFileSync(bad, '{ nope');
    expect(() => loadTopology(bad)).to.throw(TopologyError, /not valid JSON/);
    expect(() => loadTopology(path.join(dir, 'missing.json'))).to.throw(TopologyError, /cannot read the topology file/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start when a listener port is in use, before touching any data', async () => {
    const blocker = net.createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as net.AddressInfo).port)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-topo-'));
    try {
      const t = { ...base(), nodes: [{ id: 'main', kind: 'inproc' as const }, { id: 'b1', kind: 'inproc' as const }], listeners: [{ node: 'main', host: '127.0.0.1', port }] };
      let err: unknown;
      await startCluster(t as never, { baseDir: dir }).catch((e) => (err = e));
      expect(err).to.be.instanceOf(TopologyError);
      expect((err as TopologyError).problems[0]).to.deep.include({ path: 'listeners[0].port' });
      expect((err as TopologyError).problems[0]!.message).to.match(/port in use/);
      expect(fs.readdirSync(dir)).to.deep.equal([]);
    } finally {
      blocker.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("checks brokers' Kafka listeners: keys, types, ports and addresses used twice", () => {
    const t = {
      ...base(),
      brokers: [
        { id: 1, node: 'b1', logDir: 'l1', kafka: { host: '127.0.0.1', port: 9092 } },
        { id: 2, node: 'b1', logDir: 'l2', kafka: { host: '127.0.0.1', port: 9092 } },
        { id: 3, node: 'b1', logDir: 'l3', kafka: { host: '', port: 70000, sasl: true, tls: true, acl: [] } },
        { id: 4, node: 'b1', logDir: 'l4', kafka: { port: 0 } },
        { id: 5, node: 'b1', logDir: 'l5', kafka: { host: '0.0.0.0', port: 0, advertisedHost: 'broker-5.example' } },
      ],
      listeners: [{ node: 'main', host: '127.0.0.1', port: 9092 }],
    };
    expect(problems(t)).to.have.members([
      'brokers[1].kafka.port: 127.0.0.1:9092 is already used',
      'brokers[2].kafka.acl: unknown key (allowed: host, port, advertisedHost, tls, sasl)',
      'brokers[2].kafka.sasl: must be an object, got boolean true',
      'brokers[2].kafka.tls: must be an object, got boolean true',
      'brokers[2].kafka.host: must be a non-empty string, got ""',
      'brokers[2].kafka.port: must be an integer in [0, 65535], got number 70000',
      'brokers[3].kafka.host: is required',
      'listeners[0].port: 127.0.0.1:9092 is already used',
    ]);
  });

  it('refuses to start when a Kafka listener port is in use, before touching any data', async () => {
    const blocker = net.createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as net.AddressInfo).port)));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-topo-'));
    try {
      const t = { ...base(), nodes: [{ id: 'main', kind: 'inproc' as const }], brokers: [{ id: 1, node: 'main', logDir: 'l1', kafka: { host: '127.0.0.1', port } }] };
      let err: unknown;
      await startCluster(t as never, { baseDir: dir }).catch((e) => (err = e));
      expect(err).to.be.instanceOf(TopologyError);
      expect((err as TopologyError).problems[0]).to.deep.include({ path: 'brokers[0].kafka.port' });
      expect((err as TopologyError).problems[0]!.message).to.match(/port in use/);
      expect(fs.readdirSync(dir)).to.deep.equal([]);
    } finally {
      blocker.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
