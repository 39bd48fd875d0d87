/**
 * Controllers added and removed while the cluster runs (KIP-853), from a topology with real
 * brokers, in-process and on worker threads: a fourth controller started on a running node
 * observes and is added (admin.addRaftVoter), the active controller is removed
 * (admin.removeRaftVoter) and another takes over, while topics are created all along; then the
 * removed controller's node and the added one's restart, and the voter set holds: the added one
 * is a voter again, the removed one an observer.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Admin, MetadataQuorumInfo } from '../../src/client/admin.js';
import { SamsaError } from '../../src/client/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { NodeKind, TopologyConfig } from '../../src/topology/config.js';
import { startCluster, type ClusterHandle } from '../../src/topology/start-cluster.js';
import { checkFor } from '../helpers/check-for.js';

function topology(kind: NodeKind): TopologyConfig {
  const nodes = [{ id: 'main', kind: 'inproc' as const }, ...['c1', 'c2', 'c3', 'c4', 'b1', 'b2'].map((id) => ({ id, kind }))];
  return {
    clusterId: 'membership',
    logLevel: 'silent',
    nodes,
    controller: {
      quorum: [1, 2, 3].map((id) => ({ id, node: `c${id}`, metadataDir: `controller-${id}` })),
      config: { 'controller.quorum.election.timeout.ms': 300, 'broker.session.timeout.ms': 3_000 },
    },
    brokers: [1, 2].map((id) => ({ id, node: `b${id}`, logDir: `broker-${id}`, config: { 'broker.heartbeat.interval.ms': 200 } })),
  };
}

/** The quorum once a leader is known, as the active controller describes it. */
async function quorum(admin: Admin, ok: (q: MetadataQuorumInfo) => boolean = () => true): Promise<MetadataQuorumInfo> {
  return checkFor(
    async () => {
      const q = await admin.describeMetadataQuorum().catch(() => null);
      return q && q.leaderId > 0 && ok(q) ? q : null;
    },
    20_000,
    50,
  );
}

/** Refusals for now (catching up, another change pending, an election on): the change is tried again. */
const FOR_NOW: ReadonlySet<number> = new Set([ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NOT_CONTROLLER]);

/** Retries a voter change while it is refused for now, as Kafka's tool is retried. */
async function change(fn: () => Promise<void>): Promise<void> {
  await checkFor(
    () =>
      fn().then(
        () => true,
        (err: unknown) => {
          if (err instanceof SamsaError && FOR_NOW.has(err.errorCode)) return false;
          throw err;
        },
      ),
    20_000,
    100,
  );
}

const ids = (replicas: { id: number }[]) => replicas.map((v) => v.id).sort((a, b) => a - b);

for (const kind of ['inproc', 'worker'] as const) {
  describe(`cluster/controller membership (${kind})`, function () {
    this.timeout(120_000);
    let dir: string;
    let h: ClusterHandle | undefined;

    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-membership-'));
    });
    afterEach(async () => {
      await h?.stop();
      h = undefined;
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('grows the quorum by one, removes the active controller, keeps creating topics throughout; restarts keep the voter set', async () => {
      h = await startCluster(topology(kind), { baseDir: dir });
      const admin = h.samsa().admin();
      await admin.connect();
      const creator = h.samsa('creator').admin();
      await creator.connect();

      // topics created all along, one after another, each retried until the controller takes it
      const created: string[] = [];
      let stop = false;
      const creating = (async () => {
        for (let i = 0; !stop; i++) {
          const name = `t-${i}`;
          await checkFor(async () => {
            const made = await creator.createTopics({ topics: [{ topic: name, numPartitions: 1, replicationFactor: 2 }], waitForLeaders: false }).catch(() => null);
            return made !== null || (await creator.listTopics().catch(() => [] as string[])).includes(name);
          }, 30_000, 50);
          created.push(name);
        }
      })();

      const first = await quorum(admin);
      expect(ids(first.voters)).to.deep.equal([1, 2, 3]);

      // a fourth controller on a running node: it observes, then joins
      await h.startController({ id: 4, node: 'c4', metadataDir: 'controller-4' });
      await quorum(admin, (q) => ids(q.observers).includes(4));
      await change(() => admin.addRaftVoter({ voterId: 4 }));
      const four = await quorum(admin, (q) => ids(q.voters).length === 4);
      expect(ids(four.voters)).to.deep.equal([1, 2, 3, 4]);
      expect(four.observers).to.deep.equal([]);
      const before = created.length;
      await checkFor(() => created.length >= before + 3, 20_000, 20);

      // the active controller removes itself: another takes over
      const leader = four.leaderId;
      await change(() => admin.removeRaftVoter({ voterId: leader }));
      const next = await quorum(admin, (q) => q.leaderId !== leader && ids(q.observers).includes(leader));
      const voters = [1, 2, 3, 4].filter((x) => x !== leader);
      expect(ids(next.voters)).to.deep.equal(voters);
      const during = created.length;
      await checkFor(() => created.length >= during + 3, 20_000, 20);

      // the removed controller's node restarts: it observes, never stands
      await h.killNode(`c${leader}`);
      await h.restartNode(`c${leader}`);
      await quorum(admin, (q) => ids(q.observers).includes(leader));
      // the added controller's node restarts: a voter again, from its own log
      if (leader !== 4) {
        await h.killNode('c4');
        await h.restartNode('c4');
      }
      const last = await quorum(admin, (q) => ids(q.voters).length === 3 && q.voters.every((v) => v.lag === 0));
      expect(ids(last.voters)).to.deep.equal(voters);
      expect(last.leaderId).to.not.equal(leader);
      const after = created.length;
      await checkFor(() => created.length >= after + 3, 20_000, 20);

      stop = true;
      await creating;
      const topics = await creator.listTopics();
      expect(created.filter((t) => !topics.includes(t))).to.deep.equal([]);
      expect(created.length).to.be.greaterThan(9);
      await creator.disconnect();
      await admin.disconnect();
    });
  });
}
