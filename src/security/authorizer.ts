/**
 * Decides whether a principal from a host may perform an operation on a resource, from the
 * cluster's ACLs, as Kafka's StandardAuthorizer does:
 *   - super users may do everything;
 *   - the ACLs that apply to a resource are those bound to its name literally, to the literal
 *     wildcard '*', and to any prefix of its name (PREFIXED); of those, an entry matches when its
 *     principal is the client's or 'User:*', its host the client's or '*', and its operation the
 *     one asked or ALL;
 *   - a matching DENY wins over any ALLOW; an ALLOW of READ, WRITE, DELETE or ALTER also allows
 *     DESCRIBE, and of ALTER_CONFIGS also DESCRIBE_CONFIGS (a DENY implies nothing);
 *   - when no entry matches: allowed if no ACL at all applies to the resource and
 *     allow.everyone.if.no.acl.found is on, denied otherwise.
 * The ACL set is replaced whole (`update`); until the first set arrives the authorizer is not
 * ready and callers wait for it (`whenReady`).
 */
import { AclOperation, AclPermission, PatternType, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding } from './acl.js';

export interface AuthorizerOptions {
  /** Principals allowed everything (Kafka's super.users). */
  superUsers?: readonly string[];
  /** Allow a resource no ACL applies to (Kafka's allow.everyone.if.no.acl.found; default false). */
  allowEveryoneIfNoAclFound?: boolean;
}

/** The bindings of one resource type, indexed for the lookups an authorization makes. */
interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: Map<string, AclBinding[]>;
  /** The distinct prefix lengths bound, so a lookup tries only those. */
  prefixLengths: number[];
  all: AclBinding[];
}

const IMPLIES_DESCRIBE = new Set<number>([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS = new Set<number>([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);

type EntryResult = 'allow' | 'deny' | null;

/** What one binding says about an action whose resource it applies to (null: it does not match). */
function entryResult(b: AclBinding, principal: string, host: string, op: number): EntryResult {
  if (b.principal !== principal && b.principal !== WILDCARD_PRINCIPAL) return null;
  if (b.host !== WILDCARD && b.host !== host) return null;
  const allow = b.permission === AclPermission.ALLOW;
  if (b.operation !== AclOperation.ALL && b.operation !== op) {
    if (!allow) return null;
    if (op === AclOperation.DESCRIBE ? !IMPLIES_DESCRIBE.has(b.operation) : op === AclOperation.DESCRIBE_CONFIGS ? !IMPLIES_DESCRIBE_CONFIGS.has(b.operation) : true) return null;
  }
  return allow ? 'allow' : 'deny';
}

export class AclAuthorizer {
  private readonly superUsers: ReadonlySet<string>;
  private readonly allowIfNoAcl: boolean;
  private byType = new Map<number, TypeIndex>();
  private count = 0;
  private ready = false;
  private waiters: (() => void)[] = [];

  constructor(options: AuthorizerOptions = {}) {
    this.superUsers = new Set(options.superUsers ?? []);
    this.allowIfNoAcl = options.allowEveryoneIfNoAclFound ?? false;
  }

  /** Replaces the ACLs in force (the cluster's whole set). */
  update(acls: readonly AclBinding[]): void {
    const byType = new Map<number, TypeIndex>();
    for (const b of acls) {
      let t = byType.get(b.resourceType);
      if (!t) byType.set(b.resourceType, (t = { literal: new Map(), prefixed: new Map(), prefixLengths: [], all: [] }));
      const index = b.patternType === PatternType.PREFIXED ? t.prefixed : t.literal;
      const list = index.get(b.resourceName);
      if (list) list.push(b);
      else index.set(b.resourceName, [b]);
      t.all.push(b);
    }
    for (const t of byType.values()) t.prefixLengths = [...new Set([...t.prefixed.keys()].map((k) => k.length))].sort((a, b) => a - b);
    this.byType = byType;
    this.count = acls.length;
    if (!this.ready) {
      this.ready = true;
      for (const w of this.waiters.splice(0)) w();
    }
  }

  get isReady(): boolean {
    return this.ready;
  }

  /** How many bindings are in force. */
  get size(): number {
    return this.count;
  }

  /** Resolves once the first ACL set has arrived (false if `timeoutMs` passes first). */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
    });
  }

  isSuperUser(principal: string): boolean {
    return this.superUsers.has(principal);
  }

  /** Whether `principal` connected from `host` may perform `op` on the named resource. */
  authorize(principal: string, host: string, op: number, resourceType: number, resourceName: string): boolean {
    if (this.superUsers.has(principal)) return true;
    if (!this.ready) return false;
    const t = this.byType.get(resourceType);
    if (!t) return this.allowIfNoAcl;
    let found = false;
    let allowed = false;
    const consider = (list: AclBinding[] | undefined): boolean => {
      if (!list) return false;
      found = true;
      for (const b of list) {
        const r = entryResult(b, principal, host, op);
        if (r === 'deny') return true;
        if (r === 'allow') allowed = true;
      }
      return false;
    };
    if (consider(t.literal.get(resourceName))) return false;
    if (resourceName !== WILDCARD && consider(t.literal.get(WILDCARD))) return false;
    for (const n of t.prefixLengths) {
      if (n > resourceName.length) break;
      if (consider(t.prefixed.get(resourceName.slice(0, n)))) return false;
    }
    if (allowed) return true;
    return !found && this.allowIfNoAcl;
  }

  /**
   * Whether `principal` may perform `op` on some resource of the type (Kafka's
   * authorizeByResourceType, e.g. WRITE on any topic for an idempotent producer): some ALLOW
   * binding matches that no DENY covers (a DENY of the wildcard or of the empty prefix covers all).
   */
  authorizeAny(principal: string, host: string, op: number, resourceType: number): boolean {
    if (this.superUsers.has(principal)) return true;
    if (!this.ready) return false;
    const t = this.byType.get(resourceType);
    if (!t) return this.allowIfNoAcl;
    const allowLiteral = new Set<string>();
    const allowPrefixed = new Set<string>();
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    for (const b of t.all) {
      if (b.principal !== principal && b.principal !== WILDCARD_PRINCIPAL) continue;
      if (b.host !== WILDCARD && b.host !== host) continue;
      if (b.operation !== AclOperation.ALL && b.operation !== op) continue;
      const prefixed = b.patternType === PatternType.PREFIXED;
      if (b.permission === AclPermission.DENY) {
        if ((!prefixed && b.resourceName === WILDCARD) || (prefixed && b.resourceName === '')) return false;
        (prefixed ? denyPrefixed : denyLiteral).add(b.resourceName);
      } else {
        (prefixed ? allowPrefixed : allowLiteral).add(b.resourceName);
      }
    }
    if (allowLiteral.has(WILDCARD)) return true;
    const deniedByPrefix = (name: string) => [...denyPrefixed].some((p) => name.startsWith(p));
    for (const p of allowPrefixed) if (!deniedByPrefix(p)) return true;
    for (const l of allowLiteral) if (!denyLiteral.has(l) && !deniedByPrefix(l)) return true;
    return false;
  }
}
