/**
 * metadata.version levels (src/protocol/metadata-version.ts), as Kafka 4.2's MetadataVersion:
 * names by level, releases parsed as kafka-features' fromVersionString (unstable levels allowed,
 * a bare release meaning its latest production level, samsa's production line ending at
 * 4.0-IV0), Kafka's message for an unknown one, and which downgrades cross a level that changed
 * the metadata.
 */
import { expect } from 'chai';
import {
  FETCH_HIGH_WATERMARK_METADATA_VERSION,
  LATEST_PRODUCTION_METADATA_VERSION,
  METADATA_VERSIONS,
  metadataChangedBetween,
  metadataVersionLevel,
  metadataVersionName,
  MINIMUM_METADATA_VERSION,
  unknownMetadataVersionMessage,
} from '../../src/protocol/metadata-version.js';

describe('protocol/metadata-version', () => {
  it("Kafka 4.2's levels: 3.3-IV3 (7) to 4.2-IV1 (29), one after another; samsa's latest is 4.1-IV1 (27), Kafka 4.2's LATEST_PRODUCTION", () => {
    expect(METADATA_VERSIONS.map((v) => v.level)).to.deep.equal(Array.from({ length: 23 }, (_, i) => i + 7));
    expect(MINIMUM_METADATA_VERSION).to.equal(7);
    expect(LATEST_PRODUCTION_METADATA_VERSION).to.equal(27);
    expect(FETCH_HIGH_WATERMARK_METADATA_VERSION).to.equal(27);
    expect(metadataVersionName(7)).to.equal('3.3-IV3');
    expect(metadataVersionName(21)).to.equal('3.9-IV0');
    expect(metadataVersionName(22)).to.equal('4.0-IV0');
    expect(metadataVersionName(24)).to.equal('4.0-IV2');
    expect(metadataVersionName(27)).to.equal('4.1-IV1');
    expect(metadataVersionName(29)).to.equal('4.2-IV1');
    expect(metadataVersionName(6)).to.equal(undefined);
    expect(metadataVersionName(30)).to.equal(undefined);
  });

  it('parses a level name, a bare release (its latest production level) and a release with a patch part', () => {
    expect(metadataVersionLevel('4.0-IV0')).to.equal(22);
    expect(metadataVersionLevel('3.3-IV3')).to.equal(7);
    expect(metadataVersionLevel('3.7')).to.equal(19);
    expect(metadataVersionLevel('3.5')).to.equal(11);
    expect(metadataVersionLevel('3.9')).to.equal(21);
    expect(metadataVersionLevel('3.9.1')).to.equal(21);
    expect(metadataVersionLevel('3.8.x')).to.equal(20);
    // 4.0's latest level is 4.0-IV3 now that samsa takes it
    expect(metadataVersionLevel('4.0')).to.equal(25);
    expect(metadataVersionLevel('4.0.0')).to.equal(25);
    // as Kafka 4.2: 4.1's latest production level is 4.1-IV1
    expect(metadataVersionLevel('4.1')).to.equal(27);
    expect(metadataVersionLevel('4.1.0')).to.equal(27);
  });

  it('levels after samsa\'s latest parse by name only (Kafka allows unstable levels in kafka-features); a bare 4.2 names none', () => {
    expect(metadataVersionLevel('4.0-IV3')).to.equal(25);
    expect(metadataVersionLevel('4.1-IV1')).to.equal(27);
    expect(metadataVersionLevel('4.2-IV0')).to.equal(28);
    expect(metadataVersionLevel('4.2-IV1')).to.equal(29);
    expect(metadataVersionLevel('4.2')).to.equal(undefined);
  });

  it('unknown: levels Kafka 4.x dropped, other releases, garbage', () => {
    for (const text of ['3.3-IV0', '3.3-IV2', '2.8', '2.9-IV2', '4.3', '4.0-IV9', 'foo', '', '4', '4.0-iv0']) {
      expect(metadataVersionLevel(text), text).to.equal(undefined);
    }
  });

  it("Kafka's message for an unknown release lists every level it knows", () => {
    const msg = unknownMetadataVersionMessage('2.9-IV2');
    expect(msg).to.match(/^Unknown metadata\.version '2\.9-IV2'\. Supported metadata\.version are: 3\.3-IV3, 3\.4-IV0, 3\.5-IV0, /);
    expect(msg).to.match(/, 4\.0-IV0, 4\.0-IV1, .*, 4\.2-IV0, 4\.2-IV1$/);
    expect(msg.split(', ')).to.have.length(23);
  });

  it('which moves cross a level that changed the metadata (Kafka\'s checkIfMetadataChanged)', () => {
    expect(metadataChangedBetween(22, 22)).to.equal(false);
    expect(metadataChangedBetween(25, 23)).to.equal(false); // 24 and 25 changed nothing
    expect(metadataChangedBetween(25, 22)).to.equal(true); // 23 (ELR records) did
    expect(metadataChangedBetween(23, 22)).to.equal(true);
    expect(metadataChangedBetween(22, 17)).to.equal(false); // 18 to 22 changed nothing
    expect(metadataChangedBetween(22, 16)).to.equal(true); // 17 (JBOD) did
    expect(metadataChangedBetween(8, 7)).to.equal(true);
    expect(metadataChangedBetween(16, 22)).to.equal(true); // either order
    expect(metadataChangedBetween(27, 23)).to.equal(false); // 4.1-IV1 (KIP-1166's fetch) changed nothing either
  });
});
