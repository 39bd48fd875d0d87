/**
 * SCRAM credentials in the controller (KIP-554: scram-credentials.ts, its
 * AlterUserScramCredentials / DescribeUserScramCredentials handlers and the UserScramCredential
 * records): the stored and server keys derived from the salted password, Kafka's refusals per
 * user (a user's changes go in whole or not at all), describe by user or all, durable across a
 * restart and in a snapshot, and sent to the brokers, never to metadata watchers.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MetadataRecordError, applyRecord, applyRecords, emptyMetadata } from '../../../actors/controller/metadata-state.js';
import { fromImage, toImage } from '../../../actors/controller/metadata-snapshot.js';
import { ScramMechanism, describeScram, scramChanges, scramKey } from '../../../actors/controller/scram-credentials.js';
import { saltedPassword, scramCredential } from '../../../src/kafka/sasl/scram.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ControllerHarness } from './harness.js';

const salt = Buffer.from('0123456789abcdef0123456789abcdef');
const upsert = (user: string, mechanism: number = ScramMechanism.SCRAM_SHA_256, iterations = 4096, password = `${user}-secret`) => ({
  user,
  mechanism,
  iterations,
  salt: salt.toString('base64'),
  saltedPassword: saltedPassword(mechanism === ScramMechanism.SCRAM_SHA_512 ? 'SHA-512' : 'SHA-256', password, salt, iterations).toString('base64'),
});

describe('actors/controller: SCRAM credentials', () => {
  describe('operations (pure)', () => {
    it('keeps the stored and server keys SCRAM derives from the salted password, never the password', () => {
      const { records, results } = scramChanges(emptyMetadata(), [], [upsert('alice', ScramMechanism.SCRAM_SHA_512, 8192)]);
      expect(results).to.deep.equal([{ user: 'alice', errorCode: 0, errorMessage: null }]);
      const expected = scramCredential('SHA-512', 'alice-secret', salt, 8192);
      expect(records).to.deep.equal([
        {
          type: 'UserScramCredential',
          credential: { user: 'alice', mechanism: 2, salt: salt.toString('base64'), storedKey: expected.storedKey.toString('base64'), serverKey: expected.serverKey.toString('base64'), iterations: 8192 },
        },
      ]);
      expect(JSON.stringify(records)).to.not.include('alice-secret');
    });

    it("refuses per user, as Kafka: empty name, unknown mechanism, iterations out of range, twice in one request, deleting what does not exist; a user's other changes are dropped with it", () => {
      const state = applyRecords(emptyMetadata(), scramChanges(emptyMetadata(), [], [upsert('bob')]).records);
      const { records, results } = scramChanges(
        state,
        [{ user: 'carol', mechanism: 1 }, { user: 'bob', mechanism: 1 }],
        [upsert(''), upsert('dan', 3), upsert('erin', 1, 4095), upsert('fay', 1, 16385), upsert('gus'), upsert('gus'), upsert('carol'), upsert('bob', 2)],
      );
      const byUser = Object.fromEntries(results.map((r) => [r.user, r.errorCode]));
      expect(byUser).to.deep.equal({
        carol: ErrorCode.RESOURCE_NOT_FOUND,
        bob: ErrorCode.NONE,
        '': ErrorCode.UNACCEPTABLE_CREDENTIAL,
        dan: ErrorCode.UNSUPPORTED_SASL_MECHANISM,
        erin: ErrorCode.UNACCEPTABLE_CREDENTIAL,
        fay: ErrorCode.UNACCEPTABLE_CREDENTIAL,
        gus: ErrorCode.DUPLICATE_RESOURCE,
      });
      expect(results.find((r) => r.user === 'erin')!.errorMessage).to.match(/Too few iterations/);
      expect(results.find((r) => r.user === 'fay')!.errorMessage).to.match(/Too many iterations/);
      // bob's delete of SHA-256 and upsert of SHA-512 both go; carol's upsert goes down with her failed delete
      expect(records.map((r) => r.type === 'UserScramCredential' ? `+${r.credential.user}/${r.credential.mechanism}` : r.type === 'RemoveUserScramCredential' ? `-${r.user}/${r.mechanism}` : r.type)).to.deep.equal(['-bob/1', '+bob/2']);
    });

    it('describes the named users (a user without credentials is RESOURCE_NOT_FOUND, a name twice DUPLICATE_RESOURCE), or every user', () => {
      const state = applyRecords(emptyMetadata(), scramChanges(emptyMetadata(), [], [upsert('alice', 2, 8192), upsert('alice', 1), upsert('bob')]).records);
      expect(describeScram(state, null).results).to.deep.equal([
        { user: 'alice', errorCode: 0, errorMessage: null, credentials: [{ mechanism: 1, iterations: 4096 }, { mechanism: 2, iterations: 8192 }] },
        { user: 'bob', errorCode: 0, errorMessage: null, credentials: [{ mechanism: 1, iterations: 4096 }] },
      ]);
      const named = describeScram(state, ['bob', 'zed', 'alice', 'alice']).results.map((r) => [r.user, r.errorCode]);
      expect(named).to.deep.equal([
        ['bob', 0],
        ['zed', ErrorCode.RESOURCE_NOT_FOUND],
        ['alice', ErrorCode.DUPLICATE_RESOURCE],
      ]);
    });

    it('records: a removal of a credential that does not exist is refused; a snapshot image keeps the credentials', () => {
      expect(() => applyRecord(emptyMetadata(), { type: 'RemoveUserScramCredential', user: 'x', mechanism: 1 })).to.throw(MetadataRecordError, /no SCRAM-SHA-256 credential/);
      const state = applyRecords(emptyMetadata(), scramChanges(emptyMetadata(), [], [upsert('alice')]).records);
      expect(state.scramCredentials.has(scramKey('alice', 1))).to.equal(true);
      expect(fromImage(JSON.parse(JSON.stringify(toImage(state))))).to.deep.equal(state);
    });
  });

  describe('the controller', () => {
    let h: ControllerHarness;
    let dir: string;
    afterEach(async () => {
      await h?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('alters and describes through its requests, durably, and tells brokers (not watchers) the credentials', async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-scram-'));
      h = await ControllerHarness.start({ brokers: [1], args: { metadataDir: dir } });
      await h.watch();
      h.clearInboxes();
      const r = await h.ask<'AlterUserScramCredentialsResponse'>({ type: 'AlterUserScramCredentials', deletions: [], upsertions: [upsert('alice'), upsert('bad', 1, 1)] });
      expect(r.results.map((x) => [x.user, x.errorCode])).to.deep.equal([
        ['alice', 0],
        ['bad', ErrorCode.UNACCEPTABLE_CREDENTIAL],
      ]);
      await h.settle();
      const toBroker = h.received(1, 'UpdateMetadataRequest').at(-1)!;
      expect(toBroker.scramCredentials!.map((c) => c.user)).to.deep.equal(['alice']);
      expect(h.watcherInbox.filter((m) => m.type === 'UpdateMetadataRequest').every((m) => !('scramCredentials' in m) || m.scramCredentials === undefined)).to.equal(true);
      expect(JSON.stringify(await h.metadata())).to.not.include('storedKey');

      await h.restartController();
      const d = await h.ask<'DescribeUserScramCredentialsResponse'>({ type: 'DescribeUserScramCredentials', users: ['alice'] });
      expect(d.results).to.deep.equal([{ user: 'alice', errorCode: 0, errorMessage: null, credentials: [{ mechanism: 1, iterations: 4096 }] }]);
      const del = await h.ask<'AlterUserScramCredentialsResponse'>({ type: 'AlterUserScramCredentials', deletions: [{ user: 'alice', mechanism: 1 }], upsertions: [] });
      expect(del.results[0]!.errorCode).to.equal(0);
      expect((await h.ask<'DescribeUserScramCredentialsResponse'>({ type: 'DescribeUserScramCredentials', users: null })).results).to.deep.equal([]);
    });
  });
});
