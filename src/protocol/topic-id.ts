/**
 * Topic ids (Kafka's KIP-516): every topic gets one when it is created, and a topic deleted and
 * created again under the same name gets a new one, so a client that names a topic by id never
 * reads or deletes its namesake.
 *
 * samsa writes them as Kafka prints a Uuid: 16 random bytes in unpadded base64url (22
 * characters), never the all-zero id (Kafka's "no id") nor the metadata topic's id (1), and never
 * starting with '-' (Kafka's rule, so an id cannot be taken for a command-line option). Metadata
 * written before that holds RFC 4122 text ids; `kafkaTopicId` gives every stored id its Kafka form.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Kafka's Uuid.ZERO_UUID: no topic id. */
export const ZERO_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Kafka's Uuid.METADATA_TOPIC_ID, reserved for __cluster_metadata. */
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

const KAFKA_FORM = /^[A-Za-z0-9_-]{21}[AQgw]$/;
const RFC_FORM = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A new topic id, as Kafka's Uuid.randomUuid makes one. */
export function newTopicId(random: (n: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (id !== ZERO_TOPIC_ID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}

/** Whether `s` is a topic id in Kafka's form. */
export function isKafkaTopicId(s: string): boolean {
  return KAFKA_FORM.test(s);
}

/**
 * A stored topic id in Kafka's form: itself when it is one, an RFC 4122 id's 16 bytes, and for
 * any other text (ids of hand-written metadata) 16 bytes of its SHA-256, so that every topic has
 * one stable Kafka id.
 */
export function kafkaTopicId(id: string): string {
  if (KAFKA_FORM.test(id)) return id;
  const bytes = RFC_FORM.test(id) ? Buffer.from(id.replaceAll('-', ''), 'hex') : createHash('sha256').update(id).digest().subarray(0, 16);
  return bytes.toString('base64url');
}
