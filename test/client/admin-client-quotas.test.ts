/**
 * admin.alterClientQuotas / describeClientQuotas on a real two-broker cluster, in the Java
 * admin's shapes: quotas set, changed and removed per entity (users, client ids, both, the
 * defaults), reaching the brokers' metadata; validateOnly; each entry taken or refused on its own
 * (unknown keys, bad values, empty names: the first refused throws, naming its
 * entity and the controller's reason); malformed entries refused before anything is sent; and
 * DescribeClientQuotas' filters (a name, the default, any; strict or not) in entity order.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { QuotaMatchType } from '../../src/client/admin.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { isFailure } from '../../src/runtime/types.js';
import { checkFor } from '../helpers/check-for.js';
import { TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';

describe('client/admin client quotas', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;

  before(async () => {
    c = await TestCluster.start({ brokers: 2 });
    admin = c.samsa('client-quotas-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('starts without quotas', async () => {
    expect(await admin.describeClientQuotas()).to.deep.equal([]);
  });

  it('sets quotas of users, client ids, both and the defaults; lists them in entity order; brokers get them', async () => {
    await admin.alterClientQuotas([
      { entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: 1024 }] },
      { entity: { user: 'alice', clientId: 'app' }, ops: [{ key: 'producer_byte_rate', value: 4096 }, { key: 'consumer_byte_rate', value: 8192 }] },
      { entity: { clientId: 'app' }, ops: [{ key: 'consumer_byte_rate', value: 2048 }] },
      { entity: { user: null }, ops: [{ key: 'producer_byte_rate', value: 512 }] },
      { entity: { clientId: null }, ops: [{ key: 'consumer_byte_rate', value: 256 }] },
      { entity: { user: 'bob', clientId: null }, ops: [{ key: 'consumer_byte_rate', value: 100.5 }] },
    ]);
    expect(await admin.describeClientQuotas()).to.deep.equal([
      { entity: { clientId: null }, quotas: { consumer_byte_rate: 256 } },
      { entity: { clientId: 'app' }, quotas: { consumer_byte_rate: 2048 } },
      { entity: { user: null }, quotas: { producer_byte_rate: 512 } },
      { entity: { user: 'alice' }, quotas: { producer_byte_rate: 1024 } },
      { entity: { user: 'alice', clientId: 'app' }, quotas: { consumer_byte_rate: 8192, producer_byte_rate: 4096 } },
      { entity: { user: 'bob', clientId: null }, quotas: { consumer_byte_rate: 100.5 } },
    ]);
    const md = await c.client.metadata();
    for (const id of [1, 2]) {
      await checkFor(async () => {
        const r = await c.client.brokerMetadata(id, c.client.nodeOf(md, id));
        return !isFailure(r) && (r.metadata.clientQuotas ?? []).length === 6;
      }, 10_000, 20);
    }
  });

  it("filters as DescribeClientQuotas: a name, the default, any; strict leaves out entities naming other types", async () => {
    const entities = async (components: Parameters<Admin['describeClientQuotas']>[0]) => (await admin.describeClientQuotas(components)).map((q) => q.entity);
    expect(await entities({ components: [{ entityType: 'user', match: 'alice' }] })).to.deep.equal([{ user: 'alice' }, { user: 'alice', clientId: 'app' }]);
    expect(await entities({ components: [{ entityType: 'user', match: 'alice' }], strict: true })).to.deep.equal([{ user: 'alice' }]);
    expect(await entities({ components: [{ entityType: 'user', match: null }] })).to.deep.equal([{ user: null }]);
    expect(await entities({ components: [{ entityType: 'client-id' }], strict: true })).to.deep.equal([{ clientId: null }, { clientId: 'app' }]);
    expect(await entities({ components: [{ entityType: 'user' }, { entityType: 'client-id' }], strict: true })).to.deep.equal([
      { user: 'alice', clientId: 'app' },
      { user: 'bob', clientId: null },
    ]);
    expect(await entities({ components: [{ entityType: 'user', match: 'bob' }, { entityType: 'client-id', match: null }] })).to.deep.equal([{ user: 'bob', clientId: null }]);
    expect(await entities({ components: [{ entityType: 'client-id', matchType: QuotaMatchType.EXACT, match: 'app' }] })).to.deep.equal([{ clientId: 'app' }, { user: 'alice', clientId: 'app' }]);
    expect(await entities({ components: [{ entityType: 'client-id', matchType: QuotaMatchType.DEFAULT }] })).to.deep.equal([{ clientId: null }, { user: 'bob', clientId: null }]);
    expect(await entities({ components: [{ entityType: 'user', matchType: QuotaMatchType.SPECIFIED }], strict: true })).to.deep.equal([{ user: null }, { user: 'alice' }]);
    expect(await entities({ components: [{ entityType: 'user', match: 'nobody' }] })).to.deep.equal([]);
    expect(await entities({ strict: true })).to.deep.equal([]);
  });

  it('changes and removes keys (the others stay); an entity without keys is gone', async () => {
    await admin.alterClientQuotas([
      { entity: { user: 'alice', clientId: 'app' }, ops: [{ key: 'producer_byte_rate', remove: true }, { key: 'consumer_byte_rate', value: 9000 }] },
      { entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: null }] },
      { entity: { user: 'carol' }, ops: [{ key: 'consumer_byte_rate', remove: true }] },
    ]);
    const all = await admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'alice' }] });
    expect(all).to.deep.equal([{ entity: { user: 'alice', clientId: 'app' }, quotas: { consumer_byte_rate: 9000 } }]);
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'carol' }] })).to.deep.equal([]);
  });

  it('request_percentage (KIP-124): set, changed and removed as a percentage, over 100 allowed; brokers get it', async () => {
    await admin.alterClientQuotas([
      { entity: { user: 'pct', clientId: 'app' }, ops: [{ key: 'request_percentage', value: 12.5 }] },
      { entity: { clientId: 'pct-many' }, ops: [{ key: 'request_percentage', value: 250 }, { key: 'producer_byte_rate', value: 1000 }] },
    ]);
    const pct = () => admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'pct' }] });
    expect(await pct()).to.deep.equal([{ entity: { user: 'pct', clientId: 'app' }, quotas: { request_percentage: 12.5 } }]);
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'client-id', match: 'pct-many' }], strict: true })).to.deep.equal([
      { entity: { clientId: 'pct-many' }, quotas: { producer_byte_rate: 1000, request_percentage: 250 } },
    ]);
    const md = await c.client.metadata();
    await checkFor(async () => {
      const r = await c.client.brokerMetadata(1, c.client.nodeOf(md, 1));
      return !isFailure(r) && (r.metadata.clientQuotas ?? []).some((q) => q.entity.user === 'pct' && q.quotas.request_percentage === 12.5);
    }, 10_000, 20);
    await admin.alterClientQuotas([{ entity: { user: 'pct', clientId: 'app' }, ops: [{ key: 'request_percentage', value: 40 }] }]);
    expect(await pct()).to.deep.equal([{ entity: { user: 'pct', clientId: 'app' }, quotas: { request_percentage: 40 } }]);
    await admin.alterClientQuotas([
      { entity: { user: 'pct', clientId: 'app' }, ops: [{ key: 'request_percentage', value: null }] },
      { entity: { clientId: 'pct-many' }, ops: [{ key: 'request_percentage', remove: true }, { key: 'producer_byte_rate', remove: true }] },
    ]);
    expect(await pct()).to.deep.equal([]);
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'client-id', match: 'pct-many' }] })).to.deep.equal([]);
  });

  it('validateOnly checks without changing anything', async () => {
    await admin.alterClientQuotas([{ entity: { user: 'dave' }, ops: [{ key: 'producer_byte_rate', value: 10 }] }], { validateOnly: true });
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'dave' }] })).to.deep.equal([]);
    await admin.alterClientQuotas([{ entity: { user: 'dave' }, ops: [{ key: 'request_percentage', value: 10 }] }], { validateOnly: true });
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'dave' }] })).to.deep.equal([]);
    const e = await refused(admin.alterClientQuotas([{ entity: { user: 'dave' }, ops: [{ key: 'request_percentage', value: -10 }] }], { validateOnly: true }));
    expect(e.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(e.message).to.equal("INVALID_REQUEST: user 'dave': request_percentage must be a positive percentage of a request handler thread's time, got -10");
  });

  it('takes or refuses each entry on its own: the first refused throws, naming its entity and the reason', async () => {
    const e = await refused(
      admin.alterClientQuotas([
        { entity: { user: 'erin' }, ops: [{ key: 'producer_byte_rate', value: 300 }] },
        { entity: { user: null, clientId: 'svc' }, ops: [{ key: 'request_percentage', value: 0 }] },
        { entity: { clientId: 'svc' }, ops: [{ key: 'producer_byte_rate', value: -1 }] },
      ]),
    );
    expect(e.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(e.message).to.equal("INVALID_REQUEST: the default user, client-id 'svc': request_percentage must be a positive percentage of a request handler thread's time, got 0");
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'user', match: 'erin' }] })).to.deep.equal([{ entity: { user: 'erin' }, quotas: { producer_byte_rate: 300 } }]);
    expect(await admin.describeClientQuotas({ components: [{ entityType: 'client-id', match: 'svc' }] })).to.deep.equal([]);

    const cases: [Parameters<Admin['alterClientQuotas']>[0], RegExp][] = [
      [[{ entity: { clientId: 'svc' }, ops: [{ key: 'producer_byte_rate', value: 0 }] }], /client-id 'svc': producer_byte_rate must be a positive number/],
      [[{ entity: { user: 'x' }, ops: [{ key: 'retention.ms', value: 1 }] }], /user 'x': unknown quota key 'retention.ms' \(producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate\)/],
      [[{ entity: { user: '' }, ops: [{ key: 'producer_byte_rate', value: 1 }] }], /user '': an entity name is empty \(null is the default\)/],
      [
        [
          { entity: { user: 'x' }, ops: [{ key: 'producer_byte_rate', value: 1 }] },
          { entity: { user: 'x' }, ops: [{ key: 'consumer_byte_rate', value: 1 }] },
        ],
        /user 'x': the entity is named twice in the request/,
      ],
    ];
    for (const [entries, says] of cases) {
      const r = await refused(admin.alterClientQuotas(entries, { validateOnly: true }));
      expect(r.errorCode, says.source).to.equal(ErrorCode.INVALID_REQUEST);
      expect(r.message).to.match(says);
    }
  });

  it('refuses malformed entries and filters before anything is sent', async () => {
    const before = await admin.describeClientQuotas();
    const bad: [unknown, RegExp][] = [
      [{ entries: 'x' }, /entries must be \[/],
      [[{ entity: { user: 'x' } }], /entries\[0\] must be \{ entity, ops/],
      [[{ entity: {}, ops: [] }], /entries\[0\]: the entity is empty/],
      [[{ entity: { 'client-id': 'x' }, ops: [] }], /names a client id as clientId/],
      [[{ entity: { ip: '1.2.3.4', user: 'x' }, ops: [] }], /an ip entity cannot be combined with a user or a clientId/],
      [[{ entity: { user: 1 }, ops: [] }], /user must be a name, or null for the default/],
      [[{ entity: { user: 'ok' }, ops: [{ key: 'producer_byte_rate', value: 1 }] }, { entity: { user: 'y' }, ops: [{ key: 'producer_byte_rate' }] }], /entries\[1\]\.ops\[0\]: producer_byte_rate needs a value \(bytes per second\), or remove: true/],
      [[{ entity: { user: 'y' }, ops: [{ key: 'producer_byte_rate', value: '1024' }] }], /value must be a number/],
      [[{ entity: { user: 'y' }, ops: [{ key: 'request_percentage', value: '50' }] }], /entries\[0\]\.ops\[0\]: value must be a number \(a percentage of a request handler thread's time\), or null to remove request_percentage/],
      [[{ entity: { user: 'y' }, ops: [{ key: 'producer_byte_rate', value: 5, remove: true }] }], /has a value and remove: true/],
    ];
    for (const [entries, says] of bad) {
      const e = await refused(admin.alterClientQuotas(entries as never));
      expect(e.errorCode, says.source).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(says);
    }
    expect(await admin.describeClientQuotas()).to.deep.equal(before);

    const badFilters: [unknown, RegExp][] = [
      [{ components: [{ entityType: 'clientId' }] }, /entityType must be 'user', 'client-id' or 'ip', got "clientId" \(Kafka's name: 'client-id'\)/],
      [{ components: [{ entityType: 'group' }] }, /entityType must be 'user', 'client-id' or 'ip', got "group"/],
      [{ components: [{ entityType: 'user', matchType: QuotaMatchType.EXACT }] }, /matchType EXACT needs a name/],
      [{ components: [{ entityType: 'user', matchType: QuotaMatchType.DEFAULT, match: 'a' }] }, /matchType DEFAULT takes no name/],
      [{ components: [{ entityType: 'user', matchType: 7 }] }, /unknown matchType 7/],
      [{ components: [{ entityType: 'user' }, { entityType: 'user', match: 'a' }] }, /the filter names user twice/],
    ];
    for (const [filter, says] of badFilters) {
      const e = await refused(admin.describeClientQuotas(filter as never));
      expect(e.errorCode, says.source).to.equal(ErrorCode.INVALID_REQUEST);
      expect(e.message).to.match(says);
    }
  });
});
