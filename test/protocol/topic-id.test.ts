import { expect } from 'chai';
import { isKafkaTopicId, kafkaTopicId, METADATA_TOPIC_ID, newTopicId, ZERO_TOPIC_ID } from '../../src/protocol/topic-id.js';

describe('protocol/topic-id', () => {
  it('new ids are 16 random bytes in Kafka form, different each time', () => {
    const a = newTopicId();
    const b = newTopicId();
    expect(isKafkaTopicId(a)).to.equal(true);
    expect(Buffer.from(a, 'base64url')).to.have.length(16);
    expect(a).to.not.equal(b);
  });

  it('never the zero id, the metadata topic id, nor one starting with "-" (drawn again)', () => {
    const draws = [Buffer.alloc(16), Buffer.from(METADATA_TOPIC_ID, 'base64url'), Buffer.from('-' + 'A'.repeat(21), 'base64url'), Buffer.alloc(16, 7)];
    let i = 0;
    const id = newTopicId(() => draws[i++]!);
    expect(i).to.equal(4);
    expect(id).to.equal(Buffer.alloc(16, 7).toString('base64url'));
    expect([ZERO_TOPIC_ID, METADATA_TOPIC_ID]).to.not.include(id);
  });

  it('Kafka form: 22 base64url characters whose last leaves the spare bits zero', () => {
    expect(isKafkaTopicId('AAAAAAAAAAAAAAAAAAAAAQ')).to.equal(true);
    expect(isKafkaTopicId('AAAAAAAAAAAAAAAAAAAAAB')).to.equal(false);
    expect(isKafkaTopicId('AAAAAAAAAAAAAAAAAAAAA')).to.equal(false);
    expect(isKafkaTopicId('AAAAAAAAAAAAAAAAAAAA+Q')).to.equal(false);
  });

  it('stored ids in Kafka form: themselves; RFC 4122 text: its bytes; other text: a stable digest', () => {
    const id = newTopicId();
    expect(kafkaTopicId(id)).to.equal(id);
    expect(kafkaTopicId('00112233-4455-6677-8899-aabbccddeeff')).to.equal(Buffer.from('00112233445566778899aabbccddeeff', 'hex').toString('base64url'));
    const odd = kafkaTopicId('id-t');
    expect(isKafkaTopicId(odd)).to.equal(true);
    expect(kafkaTopicId('id-t')).to.equal(odd);
    expect(kafkaTopicId('id-u')).to.not.equal(odd);
  });
});
