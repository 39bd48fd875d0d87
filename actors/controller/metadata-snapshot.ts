/**
 * Metadata snapshots: the controller's whole MetadataState at one index of the metadata log, so
 * the log can drop the batches before it (KRaft's snapshots). A snapshot is an image of the state
 * (plain JSON: maps as lists) in `metadata-snapshot.json` beside the log, one line
 * `<crc32c of the JSON, 8 hex digits> <JSON>\n` holding { index, term, image }, written to a
 * temporary file that is fsynced and renamed over the old one. Only the latest is kept.
 *
 * `toImage` and `fromImage` are exact inverses: fromImage(toImage(s)) equals s.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { crc32c } from '../../src/protocol/crc32c.js';
import { writeFileAtomic } from '../../src/storage/checkpoint.js';
import { bindingKey, type AclBinding } from '../../src/security/acl.js';
import { entityKey, type ClientQuota } from '../../src/security/client-quotas.js';
import type { BrokerRecord, MetadataState, PendingDelete, TopicRecord } from './metadata-state.js';
import { scramKey, type ScramCredentialEntry } from './scram-credentials.js';
import type { DelegationTokenEntry } from './delegation-tokens.js';
import type { QuorumVoter } from '../quorum/messages.js';

export const METADATA_SNAPSHOT_FILE = 'metadata-snapshot.json';

/** MetadataState as plain JSON. */
export interface MetadataImage {
  clusterId: string | null;
  controllerEpoch: number;
  brokers: BrokerRecord[];
  topics: TopicRecord[];
  pendingDeletes: [number, PendingDelete[]][];
  /** Unregistered brokers' last epochs; absent in images written before brokers could be unregistered. */
  retiredBrokerEpochs?: [number, number][];
  nextProducerId: number;
  acls: AclBinding[];
  brokerConfigs: [string, Record<string, string>][];
  /** Absent in images written before group configs were kept. */
  groupConfigs?: [string, Record<string, string>][];
  /** Absent in images written before client metrics subscriptions were kept. */
  clientMetrics?: [string, Record<string, string>][];
  clientQuotas: ClientQuota[];
  /** Absent in images written before SCRAM credentials were kept. */
  scramCredentials?: ScramCredentialEntry[];
  /** Absent in images written before delegation tokens were kept. */
  delegationTokens?: DelegationTokenEntry[];
  /** The quorum's voter set (KIP-853); absent or null: never changed, the topology's. */
  quorumVoters?: QuorumVoter[] | null;
  /** The finalized feature levels and their epoch; absent in images written before samsa kept them. */
  features?: Record<string, number>;
  featuresEpoch?: number;
}

export interface MetadataSnapshot {
  /** The last log index (and its term) the image holds. */
  readonly index: number;
  readonly term: number;
  readonly image: MetadataImage;
}

export class MetadataSnapshotError extends Error {
  override readonly name = 'MetadataSnapshotError';
}

export function toImage(s: MetadataState): MetadataImage {
  return {
    clusterId: s.clusterId,
    controllerEpoch: s.controllerEpoch,
    brokers: [...s.brokers.values()],
    topics: [...s.topics.values()],
    pendingDeletes: [...s.pendingDeletes.entries()].map(([id, list]) => [id, [...list]]),
    retiredBrokerEpochs: [...s.retiredBrokerEpochs.entries()],
    nextProducerId: s.nextProducerId,
    acls: [...s.acls.values()],
    brokerConfigs: [...s.brokerConfigs.entries()].map(([k, v]) => [k, { ...v }]),
    groupConfigs: [...s.groupConfigs.entries()].map(([k, v]) => [k, { ...v }]),
    clientMetrics: [...s.clientMetrics.entries()].map(([k, v]) => [k, { ...v }]),
    clientQuotas: [...s.clientQuotas.values()],
    scramCredentials: [...s.scramCredentials.values()],
    delegationTokens: [...s.delegationTokens.values()],
    quorumVoters: s.quorumVoters ? [...s.quorumVoters] : null,
    features: { ...s.features },
    featuresEpoch: s.featuresEpoch,
  };
}

export function fromImage(i: MetadataImage): MetadataState {
  return {
    clusterId: i.clusterId,
    controllerEpoch: i.controllerEpoch,
    brokers: new Map(i.brokers.map((b) => [b.brokerId, b])),
    topics: new Map(i.topics.map((t) => [t.name, t])),
    pendingDeletes: new Map(i.pendingDeletes),
    retiredBrokerEpochs: new Map(i.retiredBrokerEpochs ?? []),
    nextProducerId: i.nextProducerId,
    acls: new Map(i.acls.map((b) => [bindingKey(b), b])),
    brokerConfigs: new Map(i.brokerConfigs),
    groupConfigs: new Map(i.groupConfigs ?? []),
    clientMetrics: new Map(i.clientMetrics ?? []),
    clientQuotas: new Map(i.clientQuotas.map((q) => [entityKey(q.entity), q])),
    scramCredentials: new Map((i.scramCredentials ?? []).map((c) => [scramKey(c.user, c.mechanism), c])),
    delegationTokens: new Map((i.delegationTokens ?? []).map((t) => [t.tokenId, t])),
    quorumVoters: i.quorumVoters ?? null,
    features: { ...(i.features ?? {}) },
    featuresEpoch: i.featuresEpoch ?? 0,
  };
}

/** Whether `v` has the shape of a metadata image (what a snapshot holds). */
export function isImage(v: unknown): v is MetadataImage {
  const i = v as MetadataImage;
  return (
    typeof v === 'object' &&
    v !== null &&
    (i.clusterId === null || typeof i.clusterId === 'string') &&
    Number.isSafeInteger(i.controllerEpoch) &&
    Number.isSafeInteger(i.nextProducerId) &&
    [i.brokers, i.topics, i.pendingDeletes, i.acls, i.brokerConfigs, i.clientQuotas].every(Array.isArray) &&
    (i.retiredBrokerEpochs === undefined || (Array.isArray(i.retiredBrokerEpochs) && i.retiredBrokerEpochs.every((e) => Array.isArray(e) && e.length === 2 && e.every(Number.isSafeInteger)))) &&
    (i.groupConfigs === undefined || Array.isArray(i.groupConfigs)) &&
    (i.clientMetrics === undefined || Array.isArray(i.clientMetrics)) &&
    (i.quorumVoters === undefined || i.quorumVoters === null || Array.isArray(i.quorumVoters)) &&
    (i.features === undefined || (typeof i.features === 'object' && i.features !== null && Object.values(i.features).every(Number.isInteger))) &&
    (i.featuresEpoch === undefined || Number.isSafeInteger(i.featuresEpoch))
  );
}

/** Reads the snapshot in `dir` (null when there is none). Throws MetadataSnapshotError for a damaged one. */
export async function readSnapshot(dir: string): Promise<MetadataSnapshot | null> {
  const file = path.join(dir, METADATA_SNAPSHOT_FILE);
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const m = /^([0-9a-f]{8}) (.*)\n$/s.exec(text);
  if (!m) throw new MetadataSnapshotError(`${file}: not a snapshot line`);
  const body = Buffer.from(m[2]!, 'utf8');
  if ((crc32c(body) >>> 0).toString(16).padStart(8, '0') !== m[1]) throw new MetadataSnapshotError(`${file}: checksum mismatch`);
  const v = JSON.parse(m[2]!) as { index?: unknown; term?: unknown; image?: unknown };
  if (!Number.isSafeInteger(v.index) || !Number.isSafeInteger(v.term) || !isImage(v.image)) throw new MetadataSnapshotError(`${file}: expected { index, term, image }`);
  return { index: v.index as number, term: v.term as number, image: v.image };
}

/** Writes the snapshot durably over the previous one (temporary file, fsync, rename, fsync of the directory). */
export async function writeSnapshot(dir: string, snapshot: MetadataSnapshot): Promise<void> {
  const json = JSON.stringify({ index: snapshot.index, term: snapshot.term, image: snapshot.image });
  const crc = (crc32c(Buffer.from(json, 'utf8')) >>> 0).toString(16).padStart(8, '0');
  await writeFileAtomic(path.join(dir, METADATA_SNAPSHOT_FILE), `${crc} ${json}\n`);
}
