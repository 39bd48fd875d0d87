/**
 * A samsa cluster whose Kafka listeners take SASL/PLAIN logins and check ACLs (Kafka's
 * StandardAuthorizer, `User:admin` a super user), for tests of what a client may and may not do:
 * log in as any of `users`, grant ACLs as the admin, and wait until every broker's listener holds
 * them.
 */
import { expect } from 'chai';
import { STANDARD_AUTHORIZER } from '../../actors/broker/broker-config.js';
import { kafkaListenerName, type KafkaListenerDescription } from '../../actors/kafka-listener/listener.js';
import { ApiKeys } from '../../src/kafka/protocol/index.js';
import { AclOperation, AclPermission, PatternType, ResourceType } from '../../src/security/acl.js';
import { checkFor } from './check-for.js';
import { startKafkaCluster, type KafkaClusterOptions, type KafkaTestCluster } from './kafka-cluster.js';
import { KafkaCaller } from './raw-kafka.js';

export interface Grant {
  principal: string;
  operation: number;
  resourceType: number;
  resourceName: string;
  /** LITERAL unless said. */
  patternType?: number;
}

export interface AuthorizedKafkaCluster {
  cluster: KafkaTestCluster;
  /** A connection logged in as `user`, to the first broker unless told. */
  login(user: string, endpoint?: string): Promise<KafkaCaller>;
  /** Creates ALLOW ACLs as the admin; resolves once every broker's listener has them. */
  allow(...grants: Grant[]): Promise<void>;
  /** Deletes every ACL; resolves once every broker's listener has none. */
  revokeAll(): Promise<void>;
  /** Closes the connections made here and stops the cluster. */
  stop(): Promise<void>;
}

export interface AuthorizedKafkaClusterOptions extends Omit<KafkaClusterOptions, 'sasl'> {
  /** The SASL mechanisms the listeners offer, for clients other than `login`'s; ['PLAIN'] unless told (`login` needs PLAIN). */
  saslMechanisms?: NonNullable<NonNullable<KafkaClusterOptions['sasl']>['mechanisms']>;
}

const ADMIN = { admin: 'admin-secret' };

export async function startAuthorizedKafkaCluster(users: Record<string, string>, opts: AuthorizedKafkaClusterOptions = {}): Promise<AuthorizedKafkaCluster> {
  const all = { ...ADMIN, ...users };
  const { saslMechanisms = ['PLAIN'], ...clusterOpts } = opts;
  const cluster = await startKafkaCluster({
    ...clusterOpts,
    sasl: { mechanisms: saslMechanisms, users: all },
    brokerConfig: { 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:admin', ...(opts.brokerConfig ?? {}) },
  });
  const callers: KafkaCaller[] = [];
  const login = async (user: string, endpoint = cluster.bootstrap[0]!) => {
    const password = all[user as keyof typeof all];
    if (password === undefined) throw new Error(`no such user: ${user}`);
    const k = await KafkaCaller.plainLogin(endpoint, user, password);
    callers.push(k);
    return k;
  };
  const admin = await login('admin');
  let acls = 0;
  const settled = () =>
    checkFor(async () => {
      for (let id = 1; id <= (opts.brokers ?? 1); id++) {
        const node = opts.kind === 'worker' ? `b${id}` : 'main';
        const l = await cluster.handle.mainSystem.ask<KafkaListenerDescription>({ node, path: `/${kafkaListenerName(id)}` }, { type: 'DescribeKafkaListener' }, { timeoutMs: 5_000 });
        if ((l as KafkaListenerDescription).authorizer.acls !== acls) return false;
      }
      return true;
    }, 10_000, 10);
  return {
    cluster,
    login,
    async allow(...grants) {
      const r = await admin.call(ApiKeys.CreateAcls, 3, {
        creations: grants.map((g) => ({
          resourceType: g.resourceType,
          resourceName: g.resourceName,
          resourcePatternType: g.patternType ?? PatternType.LITERAL,
          principal: g.principal,
          host: '*',
          operation: g.operation,
          permissionType: AclPermission.ALLOW,
        })),
      });
      expect(r.results.map((x: { errorCode: number }) => x.errorCode)).to.deep.equal(grants.map(() => 0));
      acls += grants.length;
      await settled();
    },
    async revokeAll() {
      await admin.call(ApiKeys.DeleteAcls, 3, {
        filters: [{ resourceTypeFilter: ResourceType.ANY, resourceNameFilter: null, patternTypeFilter: PatternType.ANY, principalFilter: null, hostFilter: null, operation: AclOperation.ANY, permissionType: AclPermission.ANY }],
      });
      acls = 0;
      await settled();
    },
    async stop() {
      for (const k of callers) k.end();
      await cluster.stop();
    },
  };
}

/**
 * The authorized cluster of a mocha `describe` block: started before its tests, stopped (with
 * every connection `login` made) after them. Call it in the block; the getter gives the cluster.
 */
export function authorizedKafkaClusterPerSuite(users: Record<string, string>, opts: AuthorizedKafkaClusterOptions = {}): () => AuthorizedKafkaCluster {
  let a: AuthorizedKafkaCluster | undefined;
  before(async () => {
    a = await startAuthorizedKafkaCluster(users, opts);
  });
  after(async () => {
    await a?.stop();
  });
  return () => {
    if (!a) throw new Error('the authorized cluster is not started (use it inside the tests of the describe block)');
    return a;
  };
}
