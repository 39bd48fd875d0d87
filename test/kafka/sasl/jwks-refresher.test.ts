import { expect } from 'chai';
import crypto from 'node:crypto';
import { JwksRefresher } from '../../../src/kafka/sasl/jwks-refresher.js';
import { oauthBearerSettings, validateToken } from '../../../src/kafka/sasl/oauthbearer.js';
import { captureLogger } from '../../storage/helpers.js';

const jwk = (kid: string) => ({ ...crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid });

describe('kafka/sasl/jwks-refresher', () => {
  function setup(responses: (string | Error)[]) {
    const settings = oauthBearerSettings({ jwks: 'https://idp.example/keys' }, () => '');
    let now = 1_000_000;
    const scheduled: number[] = [];
    const fetched: string[] = [];
    const refresher = new JwksRefresher(
      settings,
      {
        fetchText: async (url) => {
          fetched.push(url);
          const r = responses.shift();
          if (r === undefined || r instanceof Error) throw r ?? new Error('no response');
          return r;
        },
        now: () => now,
        log: captureLogger().logger,
        schedule: (ms) => scheduled.push(ms),
      },
      10_000,
    );
    return { settings, refresher, scheduled, fetched, advance: (ms: number) => (now += ms) };
  }

  it('a URL key set starts empty and takes what the fetch brings', async () => {
    const a = jwk('a');
    const t = setup([JSON.stringify({ keys: [a] })]);
    expect(t.settings).to.deep.include({ jwksUrl: 'https://idp.example/keys', keys: [] });
    await t.refresher.refresh();
    expect(t.settings.keys).to.deep.equal([a]);
    expect(t.fetched).to.deep.equal(['https://idp.example/keys']);
    expect([t.refresher.fetched, t.refresher.failed]).to.deep.equal([1, 0]);
  });

  it('a failed fetch, or one that brings no usable set, keeps the keys in force', async () => {
    const a = jwk('a');
    const t = setup([JSON.stringify({ keys: [a] }), new Error('HTTP 503'), '{"keys":[]}', 'not json']);
    await t.refresher.refresh();
    for (let i = 0; i < 3; i++) await t.refresher.refresh();
    expect(t.settings.keys).to.deep.equal([a]);
    expect([t.refresher.fetched, t.refresher.failed]).to.deep.equal([1, 3]);
  });

  it('fetches asked for at the same time are one', async () => {
    const t = setup([JSON.stringify({ keys: [jwk('a')] })]);
    await Promise.all([t.refresher.refresh(), t.refresher.refresh()]);
    expect(t.fetched).to.have.length(1);
  });

  it('a token naming a key the set lacks asks for a fetch, once, no sooner than the gap after the last', async () => {
    const t = setup([JSON.stringify({ keys: [jwk('a')] })]);
    await t.refresher.refresh();
    t.advance(4_000);
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'b' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'x', iat: 1, exp: 4_000_000_000 })).toString('base64url');
    expect(validateToken(`${header}.${payload}.c2ln`, t.settings, 1_004_000)).to.equal('no key with kid "b"');
    expect(validateToken(`${header}.${payload}.c2ln`, t.settings, 1_004_000)).to.equal('no key with kid "b"');
    expect(t.scheduled).to.deep.equal([6_000]);
    // once it has run, another unknown key may ask again
    await t.refresher.refresh();
    t.settings.onUnknownKey!();
    expect(t.scheduled).to.deep.equal([6_000, 10_000]);
  });
});
