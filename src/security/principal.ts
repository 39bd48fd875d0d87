/**
 * Who a Kafka client is, as Kafka's default principal builder names it: 'User:<name>' after SASL,
 * 'User:<the certificate's subject DN>' for a client that presented a certificate over TLS (in
 * RFC 2253 order, most specific first: 'CN=alice,O=Example,C=US'; ssl.principal.mapping.rules
 * may map it to a shorter name), 'User:ANONYMOUS' otherwise.
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import type net from 'node:net';
import { ANONYMOUS } from './acl.js';
import { SslPrincipalMapper } from './ssl-principal-mapper.js';

/** A certificate's subject in RFC 2253 form (Node lists the RDNs in certificate order, one a line). */
export function subjectDn(certificate: Buffer): string | null {
  try {
    const subject = new X509Certificate(certificate).subject;
    return subject === '' ? null : subject.split('\n').reverse().join(',');
  } catch {
    return null;
  }
}

/**
 * The principal of a connection: its SASL user when it authenticated, else its TLS certificate's
 * subject as ssl.principal.mapping.rules name it (null: no rule applies, and the connection is
 * refused, as in Kafka).
 */
export function connectionPrincipal(socket: net.Socket, saslUser: string | null, mapper: SslPrincipalMapper = DEFAULT_MAPPER): string | null {
  if (saslUser !== null) return `User:${saslUser}`;
  if (socket instanceof tls.TLSSocket && socket.authorized) {
    const raw = socket.getPeerCertificate()?.raw;
    const dn = raw ? subjectDn(raw) : null;
    if (dn !== null) {
      const name = mapper.nameOf(dn);
      return name === null ? null : `User:${name}`;
    }
  }
  return ANONYMOUS;
}

const DEFAULT_MAPPER = SslPrincipalMapper.fromRules('DEFAULT');
