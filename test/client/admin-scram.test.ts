/**
 * admin.alterUserScramCredentials / describeUserScramCredentials (KIP-554) on a real in-process
 * cluster, in the Java admin's shapes: credentials upserted (names or Kafka's codes, default
 * iterations 4096), replaced, described (every user, named users, a user without any left out)
 * and deleted; the password never leaves the client (the admin actor gets a random 32-byte salt
 * and the PBKDF2 salted password); the controller's refusals per user (iterations out of range,
 * deleting a credential that does not exist, a user and mechanism twice in one request, an empty
 * user name) thrown naming the user, the other users' changes taken; malformed alterations and
 * unknown mechanisms refused before anything is sent.
 */
import { expect } from 'chai';
import type { Admin } from '../../src/client/admin.js';
import { ScramMechanism } from '../../src/client/admin.js';
import { saltedPassword } from '../../src/kafka/sasl/scram.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ActorSystem } from '../../src/runtime/actor-system.js';
import { TestCluster } from '../helpers/cluster.js';
import { refused } from '../helpers/samsa-error.js';

type Sent = { type: string; deletions?: unknown[]; upsertions?: { user: string; mechanism: number; iterations: number; salt: string; saltedPassword: string }[] };

describe('client/admin SCRAM credentials', function () {
  this.timeout(60_000);
  let c: TestCluster;
  let admin: Admin;
  /** Every message asked on the client node: the client's to its admin actor, the admin actor's to the controller. */
  const sent: Sent[] = [];

  before(async () => {
    c = await TestCluster.start({ brokers: 1 });
    const system = c.system() as ActorSystem & { ask: ActorSystem['ask'] };
    const ask = system.ask.bind(system);
    system.ask = ((ref, msg, opts) => {
      sent.push(JSON.parse(JSON.stringify(msg)) as Sent);
      return ask(ref, msg, opts);
    }) as ActorSystem['ask'];
    admin = c.samsa('scram-test').admin();
    await admin.connect();
  });
  after(async () => {
    await admin?.disconnect();
    await c?.stop();
  });

  it('starts without credentials', async () => {
    expect(await admin.describeUserScramCredentials()).to.deep.equal([]);
    expect(await admin.describeUserScramCredentials(['alice'])).to.deep.equal([]);
  });

  it('upserts credentials by name or code, salted in the client: the password is never sent', async () => {
    sent.length = 0;
    await admin.alterUserScramCredentials([
      { user: 'alice', mechanism: 'SCRAM-SHA-256', iterations: 8192, password: 'alice-secret' },
      { user: 'alice', mechanism: 'SCRAM-SHA-512', password: 'alice-secret' },
      { user: 'bob', mechanism: ScramMechanism.SCRAM_SHA_256, password: 'bob-secret' },
    ]);
    const msg = sent.find((m) => m.type === 'AlterUserScramCredentials')!;
    expect(JSON.stringify(sent)).to.not.include('-secret');
    expect(msg.deletions).to.deep.equal([]);
    expect(msg.upsertions!.map((u) => [u.user, u.mechanism, u.iterations])).to.deep.equal([
      ['alice', 1, 8192],
      ['alice', 2, 4096],
      ['bob', 1, 4096],
    ]);
    for (const [i, u] of msg.upsertions!.entries()) {
      const salt = Buffer.from(u.salt, 'base64');
      expect(salt.length).to.equal(32);
      const password = u.user === 'alice' ? 'alice-secret' : 'bob-secret';
      expect(u.saltedPassword, `upsertion ${i}`).to.equal(saltedPassword(u.mechanism === 2 ? 'SHA-512' : 'SHA-256', password, salt, u.iterations).toString('base64'));
    }
    expect(new Set(msg.upsertions!.map((u) => u.salt)).size).to.equal(3);

    expect(await admin.describeUserScramCredentials()).to.deep.equal([
      { user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 8192 }, { mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
      { user: 'bob', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }] },
    ]);
    // named users in the order asked; one without credentials left out
    expect(await admin.describeUserScramCredentials(['bob', 'nobody', 'alice'])).to.deep.equal([
      { user: 'bob', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }] },
      { user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 8192 }, { mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
    ]);
  });

  it('replaces a credential and deletes one; a deletion and an upsertion of a user go together', async () => {
    await admin.alterUserScramCredentials([
      { user: 'alice', mechanism: 'SCRAM-SHA-256', iterations: 16384, password: 'new-secret' },
      { user: 'alice', mechanism: 2 },
    ]);
    expect(await admin.describeUserScramCredentials(['alice'])).to.deep.equal([{ user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 16384 }] }]);
    await admin.alterUserScramCredentials([{ user: 'bob', mechanism: 'SCRAM-SHA-256' }]);
    expect(await admin.describeUserScramCredentials()).to.deep.equal([{ user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 16384 }] }]);
    await admin.alterUserScramCredentials([]);
  });

  it("throws the controller's refusal naming the user: iterations out of range, nothing salted for them", async () => {
    sent.length = 0;
    const few = await refused(admin.alterUserScramCredentials([{ user: 'carol', mechanism: 'SCRAM-SHA-256', iterations: 1000, password: 'carol-secret' }]));
    expect(few.errorCode).to.equal(ErrorCode.UNACCEPTABLE_CREDENTIAL);
    expect(few.message).to.match(/user 'carol': Too few iterations: at least 4096/);
    const many = await refused(admin.alterUserScramCredentials([{ user: 'carol', mechanism: 'SCRAM-SHA-512', iterations: 1_000_000_000, password: 'carol-secret' }]));
    expect(many.errorCode).to.equal(ErrorCode.UNACCEPTABLE_CREDENTIAL);
    expect(many.message).to.match(/user 'carol': Too many iterations: at most 16384/);
    // (the admin actor's ask of the controller goes through the same system: both are seen)
    const salted = sent.filter((m) => m.type === 'AlterUserScramCredentials').flatMap((m) => m.upsertions!.map((u) => [u.iterations, u.salt, u.saltedPassword]));
    expect(salted).to.have.length.greaterThan(1);
    for (const [iterations, salt, saltedPw] of salted) expect([salt, saltedPw], String(iterations)).to.deep.equal(['', '']);
    expect(await admin.describeUserScramCredentials(['carol'])).to.deep.equal([]);
  });

  it('deleting a credential that does not exist is RESOURCE_NOT_FOUND; the other users are taken', async () => {
    const e = await refused(
      admin.alterUserScramCredentials([
        { user: 'alice', mechanism: 'SCRAM-SHA-512' },
        { user: 'dave', mechanism: 'SCRAM-SHA-256', password: 'dave-secret' },
      ]),
    );
    expect(e.errorCode).to.equal(ErrorCode.RESOURCE_NOT_FOUND);
    expect(e.message).to.match(/user 'alice': Attempt to delete a user credential that does not exist/);
    expect(await admin.describeUserScramCredentials()).to.deep.equal([
      { user: 'alice', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 16384 }] },
      { user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }] },
    ]);
  });

  it("a user and mechanism twice in one request is DUPLICATE_RESOURCE, and none of that user's changes is taken", async () => {
    const e = await refused(
      admin.alterUserScramCredentials([
        { user: 'erin', mechanism: 'SCRAM-SHA-512', password: 'erin-secret' },
        { user: 'erin', mechanism: 'SCRAM-SHA-256', password: 'erin-secret' },
        { user: 'erin', mechanism: 1, password: 'other-secret' },
      ]),
    );
    expect(e.errorCode).to.equal(ErrorCode.DUPLICATE_RESOURCE);
    expect(e.message).to.match(/user 'erin': A user credential cannot be altered twice in the same request/);
    const del = await refused(admin.alterUserScramCredentials([{ user: 'dave', mechanism: 'SCRAM-SHA-256' }, { user: 'dave', mechanism: 'SCRAM-SHA-256', password: 'dave-secret' }]));
    expect(del.errorCode).to.equal(ErrorCode.DUPLICATE_RESOURCE);
    expect(await admin.describeUserScramCredentials(['erin', 'dave'])).to.deep.equal([{ user: 'dave', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }] }]);
    const twice = await refused(admin.describeUserScramCredentials(['dave', 'dave']));
    expect(twice.errorCode).to.equal(ErrorCode.DUPLICATE_RESOURCE);
    expect(twice.message).to.match(/user 'dave': Cannot describe SCRAM credentials for the same user twice/);
  });

  it('an empty user name is refused by the controller (UNACCEPTABLE_CREDENTIAL)', async () => {
    const e = await refused(admin.alterUserScramCredentials([{ user: '', mechanism: 'SCRAM-SHA-256', password: 'x-secret' }]));
    expect(e.errorCode).to.equal(ErrorCode.UNACCEPTABLE_CREDENTIAL);
    expect(e.message).to.match(/Username must not be empty/);
  });

  it('refuses malformed alterations and unknown mechanisms before anything is sent', async () => {
    sent.length = 0;
    const cases: [unknown, number, RegExp][] = [
      ['alice', ErrorCode.INVALID_REQUEST, /alterations must be/],
      [[null], ErrorCode.INVALID_REQUEST, /alterations\[0\] must be \{ user, mechanism, iterations\?, password \}/],
      [[{ mechanism: 'SCRAM-SHA-256', password: 'p' }], ErrorCode.INVALID_REQUEST, /alterations\[0\]: user must be a user name/],
      [[{ user: 'alice', mechanism: 'SCRAM-SHA-1', password: 'p' }], ErrorCode.UNSUPPORTED_SASL_MECHANISM, /unknown SCRAM mechanism "SCRAM-SHA-1"/],
      [[{ user: 'alice', mechanism: 3 }], ErrorCode.UNSUPPORTED_SASL_MECHANISM, /unknown SCRAM mechanism 3/],
      // a password key left undefined is not read as a deletion
      [[{ user: 'alice', mechanism: 'SCRAM-SHA-256', password: undefined }], ErrorCode.INVALID_REQUEST, /password must be a non-empty string/],
      [[{ user: 'alice', mechanism: 'SCRAM-SHA-256', iterations: 8192 }], ErrorCode.INVALID_REQUEST, /password must be a non-empty string/],
      [[{ user: 'alice', mechanism: 'SCRAM-SHA-256', password: '' }], ErrorCode.INVALID_REQUEST, /password must be a non-empty string/],
      [[{ user: 'alice', mechanism: 'SCRAM-SHA-256', password: 'p', iterations: 4096.5 }], ErrorCode.INVALID_REQUEST, /iterations must be an integer/],
      [[{ user: 'bob', mechanism: 'SCRAM-SHA-256', password: 'p' }, { user: 'alice', mechanism: 'nope' }], ErrorCode.UNSUPPORTED_SASL_MECHANISM, /alterations\[1\] \(user 'alice'\)/],
    ];
    for (const [alterations, code, says] of cases) {
      const e = await refused(admin.alterUserScramCredentials(alterations as never));
      expect(e.errorCode, String(says)).to.equal(code);
      expect(e.message).to.match(says);
    }
    const users = await refused(admin.describeUserScramCredentials([1 as unknown as string]));
    expect(users.errorCode).to.equal(ErrorCode.INVALID_REQUEST);
    expect(sent.filter((m) => m.type === 'AlterUserScramCredentials' || m.type === 'DescribeUserScramCredentials')).to.deep.equal([]);
    expect((await admin.describeUserScramCredentials()).map((d) => d.user)).to.deep.equal(['alice', 'dave']);
  });
});
