/**
 * The topic mirror, placed by a topology like any user actor: it copies a topic into another
 * and, restarted, resumes from its committed position without skipping anything. Over a topic
 * with transactions it copies committed records only, never a marker, and commits past them.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { topicMirror } from '../../actors/topic-mirror/mirror.js';
import { exampleTopology, loadTopology, startCluster } from '../../src/topology/start-cluster.js';
import type { TopologyConfig } from '../../src/topology/config.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';
import { TxnWriter } from '../helpers/txn-writer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('actors/topic-mirror', function () {
  this.timeout(60_000);

  it('mirrors a topic (keys, values, headers) and resumes from its committed position after a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-mirror-'));
    const base = loadTopology(exampleTopology('in-process.json'));
    const t: TopologyConfig = {
      ...base,
      logLevel: (process.env.SAMSA_LOG_LEVEL as TopologyConfig['logLevel']) ?? 'silent',
      // the restarted mirror's group still lists the member of the mirror before the restart: its
      // new member waits for that one's session to time out (2 s here, at least 6 s by default)
      brokers: base.brokers.map((b) => ({ ...b, config: { ...b.config, 'group.min.session.timeout.ms': 1_000 } })),
      topics: [
        { name: 'src', partitions: 2, replicationFactor: 2 },
        { name: 'dst', partitions: 2, replicationFactor: 2 },
      ],
      actors: [
        {
          name: 'mirror',
          module: path.join(ROOT, 'actors/topic-mirror/mirror.ts'),
          node: 'main',
          config: { source: 'src', target: 'dst', groupId: 'mirror-g', consumer: { 'session.timeout.ms': 2_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 } },
        },
      ],
    };
    const readAll = async (h: Awaited<ReturnType<typeof startCluster>>, group: string, n: number) => {
      const c = h.samsa().consumer({ groupId: group, 'session.timeout.ms': 6_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 });
      await c.connect();
      await c.subscribe({ topic: 'dst', fromBeginning: true });
      const got: { key: string; value: string; h: string }[] = [];
      await c.run({ eachMessage: ({ message }) => void got.push({ key: String(message.key), value: String(message.value), h: String(message.headers.origin) }) });
      await checkFor(() => got.length >= n, 30_000, 50);
      await new Promise((r) => setTimeout(r, 200));
      await c.disconnect();
      return got;
    };
    try {
      let h = await startCluster(t, { baseDir: dir });
      const p = h.samsa().producer({ acks: 'all' });
      await p.connect();
      await p.send({ topic: 'src', messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, headers: { origin: 'test' } })) });
      await p.disconnect();
      const first = await readAll(h, 'check-1', 20);
      expect(first.map((x) => x.value).sort()).to.deep.equal(Array.from({ length: 20 }, (_, i) => `v${i}`).sort());
      expect(first.every((x) => x.h === 'test' && x.key === `k${x.value.slice(1)}`)).to.equal(true);
      await h.stop({ controlled: true });

      h = await startCluster(t, { baseDir: dir });
      const p2 = h.samsa().producer({ acks: 'all' });
      await p2.connect();
      await p2.send({ topic: 'src', messages: [{ key: 'late', value: 'after-restart', headers: { origin: 'test' } }] });
      await p2.disconnect();
      const all = await readAll(h, 'check-2', 21);
      // resumed from the committed position: the new record copied, the old ones not copied again
      expect(all.length).to.equal(21);
      expect(all.map((x) => x.value)).to.include('after-restart');
      // nothing is read after this stop: no need to move leaderships and flush first
      await h.stop();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('copies committed transactions only (read_committed by default), never a marker, and commits past the markers', async () => {
    const c = await TestCluster.start({
      brokers: 1,
      brokerConfig: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 100, 'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 1 },
    });
    try {
      await c.client.createTopic('tsrc', 1, 1);
      await c.client.createTopic('tdst', 1, 1);
      const w = await TxnWriter.to(c, 'tsrc');
      const [a, b] = [await w.producerId(), await w.producerId()];
      await c.client.produce('tsrc', 0, ['p0']); // 0
      await w.produce(a, 'a-aborted'); // 1
      await w.end(a, false); // 2: ABORT
      await w.produce(b, 'b3'); // 3
      await w.end(b, true); // 4: COMMIT
      const sys = c.system();
      const mirror = sys.spawn(topicMirror, {
        name: 'mirror-txn',
        args: { source: 'tsrc', target: 'tdst', groupId: 'mirror-txn', bootstrap: c.bootstrap(), consumer: { 'session.timeout.ms': 2_000, 'heartbeat.interval.ms': 100, 'fetch.max.wait.ms': 100 } },
      });
      const copied = async () => (await c.client.readAll('tdst', 0)).map((r) => String(r.value));
      const committed = async () => {
        const admin = c.samsa().admin();
        await admin.connect();
        try {
          return (await admin.fetchOffsets({ groupId: 'mirror-txn', topics: ['tsrc'] }))[0]?.partitions[0]?.offset;
        } finally {
          await admin.disconnect();
        }
      };
      try {
        await checkFor(async () => (await copied()).length >= 2, 30_000, 50);
        // the commit after b3 (offset 4) goes past the COMMIT marker at 4
        await checkFor(async () => (await committed()) === 5, 10_000, 50);
        expect(await copied()).to.deep.equal(['p0', 'b3']);

        await w.produce(a, 'a-later'); // 5: open
        await new Promise((r) => setTimeout(r, 300));
        expect(await copied(), 'an open transaction is not copied').to.deep.equal(['p0', 'b3']);
        await w.end(a, true); // 6: COMMIT
        await checkFor(async () => (await committed()) === 7, 30_000, 50);
        expect(await copied()).to.deep.equal(['p0', 'b3', 'a-later']);
        const d = await sys.ask<{ type: string; mirrored: number }>(mirror, { type: 'DescribeMirror' }, { timeoutMs: 5_000 });
        expect(d).to.deep.include({ mirrored: 3 });
      } finally {
        await sys.stopActor(mirror);
      }
    } finally {
      await c.stop();
    }
  });
});
