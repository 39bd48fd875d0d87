/**
 * Kafka's "authorized operations" bit fields (KIP-430), answered when a Metadata or DescribeGroups
 * request asks for them. samsa has no authorizer, so, as a Kafka broker without one, every
 * operation a resource type supports is allowed. Bits are Kafka's AclOperation codes.
 */
const READ = 3;
const WRITE = 4;
const CREATE = 5;
const DELETE = 6;
const ALTER = 7;
const DESCRIBE = 8;
const CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10;
const ALTER_CONFIGS = 11;
const IDEMPOTENT_WRITE = 12;

/** Kafka's value for "not requested". */
export const OPERATIONS_NOT_REQUESTED = -2147483648;

function bitField(ops: number[]): number {
  return ops.reduce((bits, op) => bits | (1 << op), 0);
}

export const TOPIC_OPERATIONS = bitField([READ, WRITE, CREATE, DESCRIBE, DELETE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS]);
export const GROUP_OPERATIONS = bitField([READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS]);
export const CLUSTER_OPERATIONS = bitField([CREATE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE, ALTER, DESCRIBE]);
