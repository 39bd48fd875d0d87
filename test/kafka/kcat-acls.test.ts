/**
 * ACLs and client quotas seen by librdkafka (kcat, a real process) over SASL SCRAM-SHA-512: a user
 * produces to and reads the topic an ACL lets it, is refused on the one without (librdkafka
 * reports Kafka's "Topic authorization failed" and nothing is written), sees only the topics it
 * may describe, is refused a consumer group it may not read; a client over a producer quota (its
 * responses carrying throttle times, its connection held back) still delivers everything.
 */
import { expect } from 'chai';
import { kafkaListenerName, type KafkaListenerDescription } from '../../actors/kafka-listener/listener.js';
import { AclOperation, ResourceType } from '../../src/security/acl.js';
import { startAuthorizedKafkaCluster, type AuthorizedKafkaCluster } from '../helpers/authorized-kafka.js';
import { checkFor } from '../helpers/check-for.js';
import { hasCommand } from '../helpers/has-command.js';
import type { KafkaTestCluster } from '../helpers/kafka-cluster.js';
import { runKcat, type KcatRun } from '../helpers/kcat.js';

const USERS = { admin: 'admin-secret', alice: 'alice-secret' };

describe('kcat against samsa with ACLs and quotas', function () {
  this.timeout(60_000);
  let a: AuthorizedKafkaCluster;
  let c: KafkaTestCluster;

  /** Runs kcat as `user` over SASL SCRAM-SHA-512. */
  function kcat(user: keyof typeof USERS, args: string[], input?: string, timeoutMs = 20_000): Promise<KcatRun> {
    const sasl = ['-X', 'security.protocol=sasl_plaintext', '-X', 'sasl.mechanisms=SCRAM-SHA-512', '-X', `sasl.username=${user}`, '-X', `sasl.password=${USERS[user]}`];
    // a consumer run with -e ends on a fetch that finds nothing new: not after librdkafka's default 500 ms wait
    const quickEnd = args[0] === '-C' || args[0] === '-G' ? ['-X', 'fetch.wait.max.ms=20'] : [];
    return runKcat(['-b', c.bootstrap[0]!, ...sasl, ...quickEnd, ...args], input, timeoutMs);
  }

  before(async function () {
    if (!hasCommand('kcat', ['-V'])) {
      if (process.env.SAMSA_SKIP_KCAT === '1') this.skip();
      throw new Error('kcat is not installed (Debian: apt-get install kcat; .ci/run installs it). Set SAMSA_SKIP_KCAT=1 to skip these tests.');
    }
    a = await startAuthorizedKafkaCluster(
      USERS,
      {
        brokers: 1,
        saslMechanisms: ['SCRAM-SHA-512', 'PLAIN'],
        topics: [
          { name: 'granted', partitions: 1, replicationFactor: 1 },
          { name: 'secret', partitions: 1, replicationFactor: 1 },
        ],
      },
    );
    c = a.cluster;
    await a.allow(
      { principal: 'User:alice', operation: AclOperation.WRITE, resourceType: ResourceType.TOPIC, resourceName: 'granted' },
      { principal: 'User:alice', operation: AclOperation.READ, resourceType: ResourceType.TOPIC, resourceName: 'granted' },
    );
  });
  after(async () => {
    await a?.stop();
  });

  it('produces to and reads the topic its ACLs allow', async () => {
    const p = await kcat('alice', ['-P', '-t', 'granted'], 'one\ntwo\n');
    expect(p.code, p.err).to.equal(0);
    const r = await kcat('alice', ['-C', '-t', 'granted', '-o', 'beginning', '-e', '-q']);
    expect(r.code, r.err).to.equal(0);
    expect(r.out.trim().split('\n')).to.deep.equal(['one', 'two']);
  });

  it('is refused a topic without an ACL: Topic authorization failed, nothing written', async () => {
    const p = await kcat('alice', ['-P', '-t', 'secret'], 'nope\n');
    expect(p.err).to.match(/Topic authorization failed|TOPIC_AUTHORIZATION_FAILED/i);
    const r = await kcat('admin', ['-C', '-t', 'secret', '-o', 'beginning', '-e', '-q']);
    expect(r.code, r.err).to.equal(0);
    expect(r.out.trim()).to.equal('');
  });

  it('lists only the topics it may describe', async () => {
    const mine = await kcat('alice', ['-L', '-J']);
    expect(mine.code, mine.err).to.equal(0);
    expect((JSON.parse(mine.out) as { topics: { topic: string }[] }).topics.map((t) => t.topic)).to.deep.equal(['granted']);
    const all = await kcat('admin', ['-L', '-J']);
    expect((JSON.parse(all.out) as { topics: { topic: string }[] }).topics.map((t) => t.topic).sort()).to.include.members(['granted', 'secret']);
  });

  it('is refused a consumer group it may not read', async () => {
    const r = await kcat('alice', ['-G', 'alices-group', '-o', 'beginning', '-e', 'granted'], undefined, 10_000);
    expect(r.err).to.match(/Group authorization failed|GROUP_AUTHORIZATION_FAILED/i);
  });

  it('over a producer quota (throttle times in its responses), librdkafka still delivers everything', async () => {
    const quotas = await c.handle.mainSystem.ask({ node: 'main', path: '/controller' }, { type: 'AlterClientQuotas', entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 20_000, remove: false }] }] }, { timeoutMs: 5_000 });
    expect(quotas).to.deep.include({ type: 'AlterClientQuotasResponse' });
    await checkFor(async () => ((await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription).clientQuotas === 1, 10_000, 20);
    const lines = Array.from({ length: 40 }, (_, i) => `${i}-${'x'.repeat(1000)}`);
    const p = await kcat('alice', ['-P', '-t', 'granted', '-X', 'linger.ms=0', '-X', 'batch.num.messages=1'], `${lines.join('\n')}\n`, 40_000);
    expect(p.code, p.err).to.equal(0);
    const r = await kcat('admin', ['-C', '-t', 'granted', '-o', 'beginning', '-e', '-q']);
    expect(r.out.trim().split('\n').slice(2)).to.deep.equal(lines);
    const described = (await c.handle.mainSystem.ask<KafkaListenerDescription>({ node: 'main', path: `/${kafkaListenerName(1)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 })) as KafkaListenerDescription;
    expect(described.throttledRequests, 'requests answered with a throttle time').to.be.greaterThan(0);
  });
});
