/**
 * Client quota entities and their rules: Kafka's order of precedence over user / client-id /
 * default entities (with the rate kept per the client's own names under a default), entities
 * from the wire and what is refused, quota keys, and DescribeClientQuotas' filters.
 */
import { expect } from 'chai';
import { entityFromWire, entityKey, entityToWire, filterMatches, filterProblem, ipConnectionRate, quotaProblem, resolveQuota, type ClientQuota, type QuotaEntity } from '../../src/security/client-quotas.js';

function quotas(...list: [QuotaEntity, number][]): Map<string, ClientQuota> {
  return new Map(list.map(([entity, rate]) => [entityKey(entity), { entity, quotas: { producer_byte_rate: rate } }]));
}

describe('security/client-quotas', () => {
  it("applies the most specific quota, in Kafka's order", () => {
    const all = quotas(
      [{ clientId: null }, 8],
      [{ clientId: 'app' }, 7],
      [{ user: null }, 6],
      [{ user: null, clientId: null }, 5],
      [{ user: null, clientId: 'app' }, 4],
      [{ user: 'alice' }, 3],
      [{ user: 'alice', clientId: null }, 2],
      [{ user: 'alice', clientId: 'app' }, 1],
    );
    const order: [QuotaEntity, number, QuotaEntity][] = [
      [{ user: 'alice', clientId: 'app' }, 1, { user: 'alice', clientId: 'app' }],
      [{ user: 'alice', clientId: null }, 2, { user: 'alice', clientId: 'app' }],
      [{ user: 'alice' }, 3, { user: 'alice' }],
      [{ user: null, clientId: 'app' }, 4, { user: 'alice', clientId: 'app' }],
      [{ user: null, clientId: null }, 5, { user: 'alice', clientId: 'app' }],
      [{ user: null }, 6, { user: 'alice' }],
      [{ clientId: 'app' }, 7, { clientId: 'app' }],
      [{ clientId: null }, 8, { clientId: 'app' }],
    ];
    for (const [entity, limit, metricEntity] of order) {
      expect(resolveQuota(all, 'alice', 'app', 'producer_byte_rate'), entityKey(entity)).to.deep.equal({ limit, metricEntity });
      all.delete(entityKey(entity));
    }
    expect(resolveQuota(all, 'alice', 'app', 'producer_byte_rate')).to.equal(null);
  });

  it('a quota of another key does not apply', () => {
    expect(resolveQuota(quotas([{ user: 'alice' }, 10]), 'alice', 'c', 'consumer_byte_rate')).to.equal(null);
    expect(resolveQuota(quotas([{ user: 'alice' }, 10]), 'bob', 'c', 'producer_byte_rate')).to.equal(null);
  });

  it('request_percentage resolves on its own: the most specific entity with that key', () => {
    const m = new Map<string, ClientQuota>([
      [entityKey({ user: 'alice', clientId: 'app' }), { entity: { user: 'alice', clientId: 'app' }, quotas: { producer_byte_rate: 100 } }],
      [entityKey({ user: 'alice' }), { entity: { user: 'alice' }, quotas: { request_percentage: 25 } }],
      [entityKey({ clientId: null }), { entity: { clientId: null }, quotas: { request_percentage: 5 } }],
    ]);
    expect(resolveQuota(m, 'alice', 'app', 'request_percentage')).to.deep.equal({ limit: 25, metricEntity: { user: 'alice' } });
    expect(resolveQuota(m, 'bob', 'app', 'request_percentage')).to.deep.equal({ limit: 5, metricEntity: { clientId: 'app' } });
  });

  it('reads entities from the wire and back (an ip alone, or the default ip); refuses ip with a user or client, a bad address, unknown types, repeats, empty ones', () => {
    expect(entityFromWire([{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: null }])).to.deep.equal({ user: 'alice', clientId: null });
    expect(entityToWire({ user: 'alice', clientId: null })).to.deep.equal([{ entityType: 'user', entityName: 'alice' }, { entityType: 'client-id', entityName: null }]);
    expect(entityFromWire([{ entityType: 'ip', entityName: '1.2.3.4' }])).to.deep.equal({ ip: '1.2.3.4' });
    expect(entityFromWire([{ entityType: 'ip', entityName: null }])).to.deep.equal({ ip: null });
    expect(entityToWire({ ip: '::1' })).to.deep.equal([{ entityType: 'ip', entityName: '::1' }]);
    expect(entityFromWire([{ entityType: 'ip', entityName: 'host.example' }])).to.match(/not an IP address/);
    // kept in the form the listeners match connections in
    expect(entityFromWire([{ entityType: 'ip', entityName: '2001:DB8:0:0:0:0:0:7' }])).to.deep.equal({ ip: '2001:db8::7' });
    expect(entityFromWire([{ entityType: 'ip', entityName: '::ffff:10.0.0.1' }])).to.deep.equal({ ip: '10.0.0.1' });
    expect(entityFromWire([{ entityType: 'user', entityName: 'a' }, { entityType: 'ip', entityName: '1.2.3.4' }])).to.match(/cannot be combined/);
    expect(entityKey({ ip: '1.2.3.4' })).to.not.equal(entityKey({ user: '1.2.3.4' }));
    expect(entityFromWire([{ entityType: 'group', entityName: 'g' }])).to.match(/unknown entity type/);
    expect(entityFromWire([{ entityType: 'user', entityName: 'a' }, { entityType: 'user', entityName: 'b' }])).to.match(/twice/);
    expect(entityFromWire([])).to.match(/empty/);
    expect(entityFromWire([{ entityType: 'user', entityName: '' }])).to.match(/empty/);
  });

  it('takes positive byte rates, request percentages and partition mutation rates of the keys it enforces; refuses other keys and values', () => {
    expect(quotaProblem('producer_byte_rate', 1024)).to.equal(null);
    expect(quotaProblem('consumer_byte_rate', 0.5)).to.equal(null);
    expect(quotaProblem('producer_byte_rate', 0)).to.match(/positive/);
    expect(quotaProblem('producer_byte_rate', Number.NaN)).to.match(/positive/);
    expect(quotaProblem('request_percentage', 50)).to.equal(null);
    expect(quotaProblem('request_percentage', 0.001)).to.equal(null);
    expect(quotaProblem('request_percentage', 800)).to.equal(null);
    expect(quotaProblem('request_percentage', 0)).to.equal("request_percentage must be a positive percentage of a request handler thread's time, got 0");
    expect(quotaProblem('request_percentage', -5)).to.match(/positive percentage .* got -5/);
    expect(quotaProblem('request_percentage', Number.NaN)).to.match(/positive percentage .* got NaN/);
    expect(quotaProblem('request_percentage', Number.POSITIVE_INFINITY)).to.match(/positive percentage/);
    expect(quotaProblem('request_percentage', 10, { ip: null })).to.match(/an ip entity takes only connection_creation_rate/);
    expect(quotaProblem('controller_mutation_rate', 5)).to.equal(null);
    expect(quotaProblem('controller_mutation_rate', 0)).to.match(/positive number of partition mutations per second/);
    expect(quotaProblem('controller_mutation_rate', 5, { ip: '1.2.3.4' })).to.match(/an ip entity takes only connection_creation_rate/);
    expect(quotaProblem('speed', 5)).to.match(/unknown quota key/);
  });

  it('connection_creation_rate: ip entities only, a positive whole number; an ip entity takes nothing else', () => {
    expect(quotaProblem('connection_creation_rate', 10, { ip: '1.2.3.4' })).to.equal(null);
    expect(quotaProblem('connection_creation_rate', 10, { ip: null })).to.equal(null);
    expect(quotaProblem('connection_creation_rate', 1.5, { ip: null })).to.match(/positive whole number/);
    expect(quotaProblem('connection_creation_rate', 0, { ip: null })).to.match(/positive whole number/);
    expect(quotaProblem('connection_creation_rate', 10, { user: 'alice' })).to.match(/ip entities only/);
    expect(quotaProblem('producer_byte_rate', 10, { ip: '1.2.3.4' })).to.match(/an ip entity takes only connection_creation_rate/);
    const ipQuotas = new Map<string, ClientQuota>([
      [entityKey({ ip: '1.2.3.4' }), { entity: { ip: '1.2.3.4' }, quotas: { connection_creation_rate: 2 } }],
      [entityKey({ ip: null }), { entity: { ip: null }, quotas: { connection_creation_rate: 7 } }],
    ]);
    expect(ipConnectionRate(ipQuotas, '1.2.3.4')).to.equal(2);
    expect(ipConnectionRate(ipQuotas, '9.9.9.9')).to.equal(7);
    expect(ipConnectionRate(new Map(), '9.9.9.9')).to.equal(null);
  });

  it('filters: exact name, the default, any name; strict leaves out entities naming other types', () => {
    const alice = { user: 'alice' };
    const aliceApp = { user: 'alice', clientId: 'app' };
    const userDefault = { user: null };
    const exact = [{ entityType: 'user', matchType: 0, match: 'alice' }];
    expect(filterMatches(exact, false, alice)).to.equal(true);
    expect(filterMatches(exact, false, aliceApp)).to.equal(true);
    expect(filterMatches(exact, true, aliceApp)).to.equal(false);
    expect(filterMatches(exact, false, userDefault)).to.equal(false);
    expect(filterMatches([{ entityType: 'user', matchType: 1, match: null }], false, userDefault)).to.equal(true);
    expect(filterMatches([{ entityType: 'user', matchType: 1, match: null }], false, alice)).to.equal(false);
    expect(filterMatches([{ entityType: 'user', matchType: 2, match: null }], false, userDefault)).to.equal(true);
    expect(filterMatches([{ entityType: 'client-id', matchType: 2, match: null }], false, alice)).to.equal(false);
    expect(filterMatches([], false, aliceApp)).to.equal(true);
    expect(filterMatches([], true, aliceApp)).to.equal(false);
    expect(filterProblem([{ entityType: 'ip', matchType: 2, match: null }])).to.equal(null);
    expect(filterProblem([{ entityType: 'group', matchType: 2, match: null }])).to.match(/unknown entity type/);
    expect(filterMatches([{ entityType: 'ip', matchType: 1, match: null }], true, { ip: null })).to.equal(true);
    expect(filterMatches([{ entityType: 'ip', matchType: 0, match: '1.2.3.4' }], true, { ip: '1.2.3.4' })).to.equal(true);
    expect(filterMatches([{ entityType: 'user', matchType: 2, match: null }], false, { ip: '1.2.3.4' })).to.equal(false);
    expect(filterMatches([], true, { ip: '1.2.3.4' })).to.equal(false);
    expect(filterProblem([{ entityType: 'user', matchType: 0, match: null }])).to.match(/needs a name/);
    expect(filterProblem([{ entityType: 'user', matchType: 7, match: null }])).to.match(/match type/);
    expect(filterProblem([{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }])).to.match(/twice/);
  });
});
