/**
 * TLS material a topology names as PEM files, for Kafka listeners (`brokers[].kafka.tls`), tcp
 * nodes (`nodes[].tls`) and client listeners (`listeners[].tls`): checked before a topology
 * starts (every file readable, the key matching the certificate, the PEM parseable), each problem
 * reported with its exact key, and read again where the listener is bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { KafkaListenerTls } from '../../actors/kafka-listener/listener.js';
import type { TcpTls } from '../transport/tcp.js';
import type { KafkaListenerTlsEntry, TopologyConfig, TopologyProblem, TransportTlsEntry } from './config.js';

/** Reads the files of `entry` (relative to `baseDir`); throws with the file that could not be read. */
export function readListenerTls(entry: KafkaListenerTlsEntry, baseDir: string): KafkaListenerTls {
  const read = (f: string) => fs.readFileSync(path.resolve(baseDir, f));
  const out: KafkaListenerTls = { key: read(entry.keyFile), cert: read(entry.certFile), clientAuth: entry.clientAuth ?? 'none' };
  if (entry.caFile !== undefined) out.ca = read(entry.caFile);
  return out;
}

/**
 * TLS for samsa's own TCP connections (TcpTransport) from a topology entry; `clientAuth` defaults
 * to `defaultClientAuth` ('required' for tcp nodes, 'none' for client listeners).
 */
export function readTransportTls(entry: TransportTlsEntry, baseDir: string, defaultClientAuth: 'none' | 'required'): TcpTls {
  const read = (f: string) => fs.readFileSync(path.resolve(baseDir, f));
  return { key: read(entry.keyFile), cert: read(entry.certFile), ca: read(entry.caFile), requireClientCert: (entry.clientAuth ?? defaultClientAuth) === 'required' };
}

/**
 * The problems with the TLS material of the Kafka listeners, tcp nodes and client listeners on
 * `node` (all nodes without it).
 */
export function checkTlsFiles(t: TopologyConfig, baseDir: string, node?: string): TopologyProblem[] {
  const problems: TopologyProblem[] = [];
  const entries: { at: string; entry: KafkaListenerTlsEntry | TransportTlsEntry }[] = [];
  for (const [i, b] of t.brokers.entries()) if (b.kafka?.tls && (node === undefined || b.node === node)) entries.push({ at: `brokers[${i}].kafka.tls`, entry: b.kafka.tls });
  for (const [i, n] of t.nodes.entries()) if (n.tls && (node === undefined || n.id === node)) entries.push({ at: `nodes[${i}].tls`, entry: n.tls });
  for (const [i, l] of (t.listeners ?? []).entries()) if (l.tls && (node === undefined || l.node === node)) entries.push({ at: `listeners[${i}].tls`, entry: l.tls });
  for (const { at, entry } of entries) {
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
      // a transport entry reads the same files; the clientAuth mode does not matter here
      const material = readListenerTls({ keyFile: entry.keyFile, certFile: entry.certFile, ...(entry.caFile !== undefined ? { caFile: entry.caFile } : {}) }, baseDir);
      tls.createSecureContext({ key: material.key, cert: material.cert, ...(material.ca ? { ca: material.ca } : {}) });
    } catch (err) {
      problems.push({ path: at, message: `the key, certificate or CA files are not usable PEM, or the key does not match the certificate: ${(err as Error).message}` });
    }
  }
  return problems;
}
