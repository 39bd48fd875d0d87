/**
 * Thread names: what the kernel keeps of a name, and a worker node's thread showing up as
 * `samsa-<node id>` beside the main thread (Linux).
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { ActorSystem } from '../../src/runtime/actor-system.js';
import { THREAD_NAME_MAX, nameThisThread, thisThreadName, threadNameFor } from '../../src/runtime/thread-name.js';
import { WORKER_THREAD_PREFIX, WorkerHub } from '../../src/transport/worker.js';
import { checkFor } from '../helpers/check-for.js';

const FIXTURE = new URL('../fixtures/conformance-actors.ts', import.meta.url);
const linux = process.platform === 'linux' && fs.existsSync('/proc/thread-self/comm');

function threadNames(): string[] {
  return fs.readdirSync('/proc/self/task').map((t) => {
    try {
      return fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trimEnd();
    } catch {
      return '';
    }
  });
}

describe('runtime/thread-name', () => {
  it('keeps at most 15 printable ASCII bytes of a name and refuses an empty one', () => {
    expect(THREAD_NAME_MAX).to.equal(15);
    expect(threadNameFor('samsa-b1')).to.equal('samsa-b1');
    expect(threadNameFor('samsa-broker-number-one')).to.equal('samsa-broker-nu');
    expect(threadNameFor('samsa-\u00e9\n1')).to.equal('samsa-__1');
    expect(() => threadNameFor('')).to.throw(RangeError, /empty/);
  });

  it('names the calling thread and reads the name back (Linux)', function () {
    if (!linux) this.skip();
    const before = thisThreadName()!;
    try {
      expect(nameThisThread('samsa-test-thread-name')).to.equal('samsa-test-thre');
      expect(thisThreadName()).to.equal('samsa-test-thre');
    } finally {
      nameThisThread(before);
    }
    expect(thisThreadName()).to.equal(before);
  });

  it('gives a worker node thread the name samsa-<node id>, and takes it away with the worker (Linux)', async function () {
    if (!linux) this.skip();
    const local = new ActorSystem({ nodeId: 'local' });
    const hub = new WorkerHub(local);
    try {
      const node = await hub.spawn({ nodeId: 'tn1', setup: FIXTURE });
      expect(threadNames()).to.include(`${WORKER_THREAD_PREFIX}tn1`);
      // the main thread keeps its own name
      expect(fs.readFileSync(`/proc/self/task/${process.pid}/comm`, 'utf8').trimEnd()).to.not.match(/^samsa-/);
      await node.kill();
      await checkFor(() => !threadNames().includes(`${WORKER_THREAD_PREFIX}tn1`));
    } finally {
      await local.stop();
    }
  });
});
