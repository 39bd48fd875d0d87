import { expect } from 'chai';
import type { TopicMetadata } from '../../../src/protocol/cluster.js';
import { kafkaTopicId } from '../../../src/protocol/topic-id.js';
import { TopicIdResolver } from '../../../src/kafka/api/topic-id-resolver.js';

const topic = (name: string, topicId: string): TopicMetadata => ({ name, topicId, internal: false, config: {}, partitions: [] });

describe('kafka/api/topic-id-resolver', () => {
  const a = topic('a', 'AAAAAAAAAAAAAAAAAAAAAw');
  const b = topic('b', 'BBBBBBBBBBBBBBBBBBBBBA');

  it('answers known ids without reading; an unknown one reads every topic once', async () => {
    const r = new TopicIdResolver();
    r.learn([a], false);
    let loads = 0;
    const load = async () => {
      loads++;
      return [a, b];
    };
    expect([...(await r.resolve([a.topicId], load)).entries()]).to.deep.equal([[a.topicId, { name: 'a', storedId: a.topicId, internal: false }]]);
    expect(loads).to.equal(0);
    const got = await r.resolve([a.topicId, b.topicId, 'CCCCCCCCCCCCCCCCCCCCCA'], load);
    expect([...got.keys()]).to.deep.equal([a.topicId, b.topicId]);
    expect(loads).to.equal(1);
    expect(r.reloads).to.equal(1);
  });

  it('lookups waiting at the same time share one read', async () => {
    const r = new TopicIdResolver();
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const load = async () => {
      loads++;
      await gate;
      return [a];
    };
    const both = Promise.all([r.resolve([a.topicId], load), r.resolve([a.topicId], load)]);
    release();
    const [x, y] = await both;
    expect(loads).to.equal(1);
    expect(x.get(a.topicId)?.name).to.equal('a');
    expect(y.get(a.topicId)?.name).to.equal('a');
  });

  it('a complete listing forgets deleted topics; a partial one only adds; ids are kept in Kafka form', async () => {
    const r = new TopicIdResolver();
    const legacy = topic('old', '00112233-4455-6677-8899-aabbccddeeff');
    r.learn([a, legacy], true);
    expect(r.known(kafkaTopicId(legacy.topicId))).to.deep.equal({ name: 'old', storedId: legacy.topicId, internal: false });
    r.learn([b], false);
    expect(r.known(a.topicId)?.name).to.equal('a');
    r.learn([b], true);
    expect(r.known(a.topicId)).to.equal(undefined);
    // the broker not answering: unknown ids stay unknown
    expect((await r.resolve([a.topicId], async () => null)).size).to.equal(0);
  });
});
