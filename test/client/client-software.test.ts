/**
 * src/client/client-software.ts: the name and version samsa's clients give brokers (KIP-714's
 * client_software_name and client_software_version) are the package's.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION } from '../../src/client/client-software.js';

describe('client/client-software', () => {
  it("is package.json's name and version, in the form Kafka's ApiVersions accepts", () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    expect([CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION]).to.deep.equal([pkg.name, pkg.version]);
    for (const v of [CLIENT_SOFTWARE_NAME, CLIENT_SOFTWARE_VERSION]) expect(v).to.match(/^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/);
  });
});
