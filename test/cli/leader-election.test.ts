/**
 * The leader-election command's own logic: Kafka's JSON partitions file, read with a clear error
 * for each way it can be wrong, and the report of an election (elected, already led as asked,
 * failed, nothing to do) that decides the exit code.
 */
import { expect } from 'chai';
import { parseElectionFile, reportElections } from '../../src/cli/commands/leader-election.js';
import { CliError } from '../../src/cli/errors.js';
import { ErrorCode } from '../../src/protocol/errors.js';

describe('cli/commands/leader-election', () => {
  it("reads Kafka's partitions file", () => {
    expect(parseElectionFile('{"partitions": [{"topic": "a", "partition": 0}, {"topic": "b", "partition": 3}]}', 'f.json')).to.deep.equal([
      { topic: 'a', partition: 0 },
      { topic: 'b', partition: 3 },
    ]);
  });

  it('refuses a file that is not JSON, has no partitions, a bad entry, or one twice, naming the file', () => {
    const cases: [string, RegExp][] = [
      ['{partitions', /f\.json is not JSON/],
      ['{}', /f\.json must hold \{"partitions"/],
      ['{"partitions": []}', /at least one partition/],
      ['[]', /must hold/],
      ['null', /must hold/],
      ['{"partitions": [{"topic": "a", "partition": -1}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "", "partition": 0}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 1.5}]}', /partitions\[0\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0}, null]}', /partitions\[1\] must be/],
      ['{"partitions": [{"topic": "a", "partition": 0}, {"topic": "a", "partition": 0}]}', /partition a-0 is listed twice/],
    ];
    for (const [text, says] of cases) {
      expect(() => parseElectionFile(text, 'f.json'), text).to.throw(CliError, says);
    }
  });

  it('reports elected, already led and failed partitions as Kafka\'s tool does, counting only real failures', () => {
    const r = reportElections('PREFERRED', [
      { topic: 't', partition: 0, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: 't', partition: 1, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: 'already' },
      { topic: 't', partition: 2, errorCode: ErrorCode.NONE, errorMessage: null },
      { topic: 'u', partition: 0, errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, errorMessage: 'the preferred replica 3 of u-0 is not in the ISR [1]' },
    ]);
    expect(r.failed).to.equal(1);
    expect(r.lines).to.deep.equal([
      { stream: 'out', text: 'Successfully completed leader election (PREFERRED) for partitions t-0, t-2' },
      { stream: 'out', text: 'Valid replica already elected for partitions t-1' },
      { stream: 'err', text: 'Error completing leader election (PREFERRED) for partitions u-0' },
      { stream: 'err', text: '  u-0: PREFERRED_LEADER_NOT_AVAILABLE: the preferred replica 3 of u-0 is not in the ISR [1]' },
    ]);
    expect(reportElections('UNCLEAN', [])).to.deep.equal({ lines: [{ stream: 'out', text: 'No partition needed an election.' }], failed: 0 });
  });
});
