/**
 * Kafka's access control lists: the binding of a resource pattern to an access control entry, the
 * filters that select bindings (DescribeAcls, DeleteAcls), and the checks a binding must pass to
 * be created. Codes and names are Kafka's (ResourceType, PatternType, AclOperation,
 * AclPermissionType), so bindings travel unchanged between the Kafka protocol, the controller's
 * metadata and the authorizer (./authorizer.ts).
 */

export const ResourceType = Object.freeze({ UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const);
export const PatternType = Object.freeze({ UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const);
export const AclOperation = Object.freeze({
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const);
export const AclPermission = Object.freeze({ UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const);

export type ResourceTypeCode = (typeof ResourceType)[keyof typeof ResourceType];
export type OperationCode = (typeof AclOperation)[keyof typeof AclOperation];

/** The operations each resource type has (Kafka's AclEntry.supportedOperations; ALL besides). */
export const SUPPORTED_OPERATIONS: ReadonlyMap<number, readonly number[]> = new Map([
  [ResourceType.TOPIC, [AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]],
  [ResourceType.GROUP, [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]],
  [
    ResourceType.CLUSTER,
    [AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE],
  ],
  [ResourceType.TRANSACTIONAL_ID, [AclOperation.DESCRIBE, AclOperation.WRITE]],
]);

/** The one name a cluster resource has. */
export const CLUSTER_NAME = 'kafka-cluster';
/** A literal resource name, principal or host matching every one. */
export const WILDCARD = '*';
export const WILDCARD_PRINCIPAL = 'User:*';
/** The principal of a client that did not authenticate (a plain or server-only TLS listener). */
export const ANONYMOUS = 'User:ANONYMOUS';

/** A resource pattern bound to an access control entry (Kafka's AclBinding). */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  /** 'User:<name>', or 'User:*' for everyone. */
  principal: string;
  /** A client address, or '*' for every one. */
  host: string;
  operation: number;
  permission: number;
}

/**
 * Selects bindings (Kafka's AclBindingFilter): ANY (and null names, principals, hosts) match
 * everything; pattern type MATCH selects the bindings that would apply to the named resource
 * (that name literally, the wildcard, and prefixes of it).
 */
export interface AclBindingFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permission: number;
}

function nameOf(table: Readonly<Record<string, number>>, code: number): string {
  return Object.entries(table).find(([, c]) => c === code)?.[0] ?? `UNKNOWN(${code})`;
}

export const resourceTypeName = (code: number): string => nameOf(ResourceType, code);
export const patternTypeName = (code: number): string => nameOf(PatternType, code);
export const operationName = (code: number): string => nameOf(AclOperation, code);
export const permissionName = (code: number): string => nameOf(AclPermission, code);

/** 'Type:name' with a non-empty type and name. */
export function isPrincipal(s: string): boolean {
  const i = s.indexOf(':');
  return i > 0 && i < s.length - 1;
}

/**
 * The binding's or filter's codes that are not integers (a message from the network may carry
 * anything there), or null: checked first, so the messages below can print the codes.
 */
function codeFieldProblem(x: Pick<AclBinding, 'resourceType' | 'patternType' | 'operation' | 'permission'>): string | null {
  for (const field of ['resourceType', 'patternType', 'operation', 'permission'] as const) {
    if (!Number.isInteger(x[field])) return `${field} must be an integer code`;
  }
  return null;
}

/** Why a binding cannot be created, or null when it can (Kafka's checks at CreateAcls). */
export function bindingProblem(b: AclBinding): string | null {
  const notCode = codeFieldProblem(b);
  if (notCode) return notCode;
  if (!Object.values(ResourceType).includes(b.resourceType as ResourceTypeCode) || b.resourceType === ResourceType.ANY || b.resourceType === ResourceType.UNKNOWN) {
    return `resource type ${b.resourceType} is not a resource (TOPIC 2, GROUP 3, CLUSTER 4, TRANSACTIONAL_ID 5, DELEGATION_TOKEN 6, USER 7)`;
  }
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) return `pattern type ${patternTypeName(b.patternType)} cannot be bound: LITERAL (3) or PREFIXED (4)`;
  if (typeof b.resourceName !== 'string' || b.resourceName === '') return 'the resource name is empty';
  if (b.patternType === PatternType.PREFIXED && b.resourceName === WILDCARD) return "'*' cannot be a prefix: bind the LITERAL wildcard '*' instead";
  if (b.resourceType === ResourceType.CLUSTER && (b.resourceName !== CLUSTER_NAME || b.patternType !== PatternType.LITERAL)) {
    return `the cluster resource is the LITERAL name '${CLUSTER_NAME}'`;
  }
  if (typeof b.principal !== 'string') return 'the principal must be a string of the form Type:name (User:alice)';
  if (!isPrincipal(b.principal)) return `principal '${b.principal}' is not of the form Type:name (User:alice)`;
  if (typeof b.host !== 'string' || b.host === '') return "the host is empty ('*' allows every host)";
  if (!Object.values(AclOperation).includes(b.operation as OperationCode) || b.operation === AclOperation.ANY || b.operation === AclOperation.UNKNOWN) {
    return `operation ${b.operation} cannot be bound`;
  }
  if (b.permission !== AclPermission.ALLOW && b.permission !== AclPermission.DENY) return `permission ${b.permission} cannot be bound: DENY (2) or ALLOW (3)`;
  return null;
}

/** Why a filter cannot be used, or null (UNKNOWN codes select nothing in Kafka: refused here). */
export function filterProblem(f: AclBindingFilter): string | null {
  const notCode = codeFieldProblem(f);
  if (notCode) return notCode;
  if (!Object.values(ResourceType).includes(f.resourceType as ResourceTypeCode) || f.resourceType === ResourceType.UNKNOWN) return `resource type filter ${f.resourceType} is unknown`;
  if (!Object.values(PatternType).includes(f.patternType as (typeof PatternType)[keyof typeof PatternType]) || f.patternType === PatternType.UNKNOWN) return `pattern type filter ${f.patternType} is unknown`;
  if (!Object.values(AclOperation).includes(f.operation as OperationCode) || f.operation === AclOperation.UNKNOWN) return `operation filter ${f.operation} is unknown`;
  if (!Object.values(AclPermission).includes(f.permission as (typeof AclPermission)[keyof typeof AclPermission]) || f.permission === AclPermission.UNKNOWN) return `permission filter ${f.permission} is unknown`;
  return null;
}

/** Whether a binding's resource pattern is selected by the filter's resource part. */
function patternMatches(b: AclBinding, f: AclBindingFilter): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType === PatternType.MATCH) {
    if (f.resourceName === null) return true;
    if (b.patternType === PatternType.LITERAL) return b.resourceName === f.resourceName || b.resourceName === WILDCARD;
    return f.resourceName.startsWith(b.resourceName);
  }
  if (f.patternType !== PatternType.ANY && f.patternType !== b.patternType) return false;
  return f.resourceName === null || f.resourceName === b.resourceName;
}

/** Whether the filter selects the binding. */
export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  return (
    patternMatches(b, f) &&
    (f.principal === null || f.principal === b.principal) &&
    (f.host === null || f.host === b.host) &&
    (f.operation === AclOperation.ANY || f.operation === b.operation) &&
    (f.permission === AclPermission.ANY || f.permission === b.permission)
  );
}

/** A stable key: bindings equal in every field are one binding. */
export function bindingKey(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission]);
}

/** Orders bindings by resource, then principal, host, operation, permission (listings). */
export function compareBindings(a: AclBinding, b: AclBinding): number {
  return (
    a.resourceType - b.resourceType ||
    (a.resourceName < b.resourceName ? -1 : a.resourceName > b.resourceName ? 1 : 0) ||
    a.patternType - b.patternType ||
    (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : 0) ||
    (a.host < b.host ? -1 : a.host > b.host ? 1 : 0) ||
    a.operation - b.operation ||
    a.permission - b.permission
  );
}

/** One line for logs and the CLI: `User:alice has ALLOW permission for operations: READ from hosts: *`. */
export function describeBinding(b: AclBinding): string {
  return `(principal=${b.principal}, host=${b.host}, operation=${operationName(b.operation)}, permissionType=${permissionName(b.permission)}) on ${resourceTypeName(b.resourceType)}:${patternTypeName(b.patternType)}:${b.resourceName}`;
}
