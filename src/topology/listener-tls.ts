/**
 * A Kafka listener's TLS material, read from the PEM files a topology names: checked before a
 * topology starts (every file readable, the key matching the certificate, the PEM parseable), each
 * problem reported with its exact key, and read again by the node that binds the listener.
 */
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { KafkaListenerTls } from '../../actors/kafka-listener/listener.js';
import type { KafkaListenerTlsEntry, TopologyConfig, TopologyProblem } from './config.js';

/** Reads the files of `entry` (relative to `baseDir`); throws with the file that could not be read. */
export function readListenerTls(entry: KafkaListenerTlsEntry, baseDir: string): KafkaListenerTls {
  const read = (f: string) => fs.readFileSync(path.resolve(baseDir, f));
  const out: KafkaListenerTls = { key: read(entry.keyFile), cert: read(entry.certFile), clientAuth: entry.clientAuth ?? 'none' };
  if (entry.caFile !== undefined) out.ca = read(entry.caFile);
  return out;
}

/** The problems with the TLS material of the brokers' Kafka listeners on `node` (all nodes without it). */
export function checkListenerTls(t: TopologyConfig, baseDir: string, node?: string): TopologyProblem[] {
  const problems: TopologyProblem[] = [];
  for (const [i, b] of t.brokers.entries()) {
    const entry = b.kafka?.tls;
    if (!entry || (node !== undefined && b.node !== node)) continue;
    const at = `brokers[${i}].kafka.tls`;
    const files: [keyof KafkaListenerTlsEntry, string | undefined][] = [
      ['keyFile', entry.keyFile],
      ['certFile', entry.certFile],
      ['caFile', entry.caFile],
    ];
    let readable = true;
    for (const [key, f] of files) {
      if (f === undefined) continue;
      try {
        fs.accessSync(path.resolve(baseDir, f), fs.constants.R_OK);
      } catch (err) {
        readable = false;
        problems.push({ path: `${at}.${key}`, message: `cannot read ${f}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      }
    }
    if (!readable) continue;
    try {
      const material = readListenerTls(entry, baseDir);
      tls.createSecureContext({ key: material.key, cert: material.cert, ...(material.ca ? { ca: material.ca } : {}) });
    } catch (err) {
      problems.push({ path: at, message: `the key, certificate or CA files are not usable PEM, or the key does not match the certificate: ${(err as Error).message}` });
    }
  }
  return problems;
}
