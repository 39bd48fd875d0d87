/**
 * Who a Kafka client is, as Kafka's default principal builder names it: 'User:<name>' after SASL,
 * 'User:<the certificate's subject DN>' for a client that presented a certificate over TLS (in
 * RFC 2253 order, most specific first: 'CN=alice,O=Example,C=US'), 'User:ANONYMOUS' otherwise.
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import type net from 'node:net';
import { ANONYMOUS } from './acl.js';

/** A certificate's subject in RFC 2253 form (Node lists the RDNs in certificate order, one a line). */
export function subjectDn(certificate: Buffer): string | null {
  try {
    const subject = new X509Certificate(certificate).subject;
    return subject === '' ? null : subject.split('\n').reverse().join(',');
  } catch {
    return null;
  }
}

/** The principal of a connection: its SASL user when it authenticated, else its TLS certificate's. */
export function connectionPrincipal(socket: net.Socket, saslUser: string | null): string {
  if (saslUser !== null) return `User:${saslUser}`;
  if (socket instanceof tls.TLSSocket && socket.authorized) {
    const raw = socket.getPeerCertificate()?.raw;
    const dn = raw ? subjectDn(raw) : null;
    if (dn !== null) return `User:${dn}`;
  }
  return ANONYMOUS;
}
