/**
 * Loading a coordinator's internal-topic partition (partition-load.ts), one read at a time: the
 * target is the log end at the first read; a log start moved past the position (retention, or
 * OFFSET_OUT_OF_RANGE) is skipped to; records are replayed and the position moves past them; a
 * failed read or a corrupt batch is read again after a backoff, as is a read that found nothing
 * new before the target; the load finishes once the target is reached; a partition with no
 * replica on the broker is given up.
 */
import { expect } from 'chai';
import { takeLoadRead, type LoadPosition, type LoadReadResult, type LoadReplay } from '../../../actors/group-coordinator/partition-load.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { Logger } from '../../../src/runtime/logger.js';

function recorder(): { log: Logger; lines: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields: Record<string, unknown>) => void lines.push({ level, msg, fields });
  return { log: { warn: at('warn'), error: at('error'), info: at('info'), debug: at('debug') } as unknown as Logger, lines };
}

const read = (over: Partial<LoadReadResult> = {}): LoadReadResult => ({ fetchOffset: 0, errorCode: ErrorCode.NONE, logStartOffset: 0, logEndOffset: 10, records: new Uint8Array(0), ...over });
const bytes = (n = 3) => new Uint8Array(n).fill(1);

/** A replay that takes `upTo` as the offset after the batches, recording each call. */
function replayTo(upTo: number, problems: unknown[] = []): LoadReplay & { calls: [number, number][] } {
  const calls: [number, number][] = [];
  const f = ((records: Uint8Array, from: number) => {
    calls.push([records.length, from]);
    return { nextOffset: upTo, problems };
  }) as unknown as LoadReplay & { calls: [number, number][] };
  f.calls = calls;
  return f;
}

describe('actors/group-coordinator/partition-load', function () {
  it('fixes the target at the first read, replays what it read, and reads on until the target', function () {
    const { log } = recorder();
    const pos: LoadPosition = { fetchOffset: 0, targetOffset: -1 };
    const replay = replayTo(6);
    expect(takeLoadRead(pos, read({ records: bytes() }), replay, log, 'a partition', 3)).to.equal('read');
    expect(pos).to.deep.equal({ fetchOffset: 6, targetOffset: 10 });
    expect(replay.calls).to.deep.equal([[3, 0]]);
    // the log grew meanwhile: the target stays what it was at takeover
    expect(takeLoadRead(pos, read({ fetchOffset: 6, logEndOffset: 20, records: bytes() }), replayTo(10), log, 'a partition', 3)).to.equal('finish');
    expect(pos).to.deep.equal({ fetchOffset: 10, targetOffset: 10 });
  });

  it('finishes at once on an empty log, and never moves the position back', function () {
    const { log } = recorder();
    const empty: LoadPosition = { fetchOffset: 0, targetOffset: -1 };
    expect(takeLoadRead(empty, read({ logEndOffset: 0 }), replayTo(0), log, 'a partition', 0)).to.equal('finish');
    const pos: LoadPosition = { fetchOffset: 8, targetOffset: 12 };
    expect(takeLoadRead(pos, read({ fetchOffset: 8, records: bytes() }), replayTo(5), log, 'a partition', 0)).to.equal('read');
    expect(pos.fetchOffset).to.equal(8);
  });

  it('reads again after a backoff when nothing new came before the target (the high watermark lags)', function () {
    const { log } = recorder();
    const pos: LoadPosition = { fetchOffset: 4, targetOffset: 10 };
    expect(takeLoadRead(pos, read({ fetchOffset: 4 }), replayTo(4), log, 'a partition', 0)).to.equal('retry');
    expect(pos).to.deep.equal({ fetchOffset: 4, targetOffset: 10 });
  });

  it('skips to a log start that moved past the position, whether the read failed OFFSET_OUT_OF_RANGE or not', function () {
    const { log } = recorder();
    const pos: LoadPosition = { fetchOffset: 0, targetOffset: -1 };
    expect(takeLoadRead(pos, read({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: 7, logEndOffset: -1 }), replayTo(0), log, 'a partition', 0)).to.equal('read');
    // out of range says nothing of the log end: the target is fixed by the next good read
    expect(pos).to.deep.equal({ fetchOffset: 7, targetOffset: -1 });
    const behind: LoadPosition = { fetchOffset: 2, targetOffset: -1 };
    const replay = replayTo(99);
    expect(takeLoadRead(behind, read({ fetchOffset: 2, logStartOffset: 5, records: bytes() }), replay, log, 'a partition', 0)).to.equal('read');
    expect(behind).to.deep.equal({ fetchOffset: 5, targetOffset: 10 });
    expect(replay.calls).to.deep.equal([]);
  });

  it('retries a failed read (an OFFSET_OUT_OF_RANGE behind the position too) and a corrupt batch, saying so', function () {
    const { log, lines } = recorder();
    const pos: LoadPosition = { fetchOffset: 3, targetOffset: 10 };
    expect(takeLoadRead(pos, read({ fetchOffset: 3, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: 'moved' }), replayTo(0), log, 'an offsets partition', 4)).to.equal('retry');
    expect(takeLoadRead(pos, read({ fetchOffset: 3, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, logStartOffset: 1 }), replayTo(0), log, 'an offsets partition', 4)).to.equal('retry');
    const corrupt: LoadReplay = () => {
      throw new Error('bad crc');
    };
    expect(takeLoadRead(pos, read({ fetchOffset: 3, records: bytes() }), corrupt, log, 'an offsets partition', 4)).to.equal('retry');
    expect(pos).to.deep.equal({ fetchOffset: 3, targetOffset: 10 });
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([
      ['warn', 'reading an offsets partition to load it failed; retrying'],
      ['warn', 'reading an offsets partition to load it failed; retrying'],
      ['error', 'corrupt batch in an offsets partition; retrying the read'],
    ]);
    expect(lines[0]!.fields).to.deep.include({ partition: 4, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, reason: 'moved' });
    expect(lines[2]!.fields).to.deep.include({ partition: 4, fetchOffset: 3, error: 'bad crc' });
  });

  it('gives up a partition this broker has no replica of, saying so', function () {
    const { log, lines } = recorder();
    const pos: LoadPosition = { fetchOffset: 0, targetOffset: -1 };
    expect(takeLoadRead(pos, read({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'no actor at b1:/broker-1/replicas/__consumer_offsets-177', noReplica: true }), replayTo(0), log, 'an offsets partition', 177)).to.equal('gone');
    expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([['warn', 'an offsets partition to load has no replica here: given up']]);
    expect(lines[0]!.fields).to.deep.include({ partition: 177 });
  });

  it('logs the records it could not decode and goes on past them', function () {
    const { log, lines } = recorder();
    const pos: LoadPosition = { fetchOffset: 0, targetOffset: 5 };
    expect(takeLoadRead(pos, read({ records: bytes() }), replayTo(5, ['offset 2: not msgpack']), log, 'a transaction state partition', 1)).to.equal('finish');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.deep.include({ level: 'warn', msg: 'skipped undecodable records in a transaction state partition' });
    expect(lines[0]!.fields).to.deep.include({ partition: 1, count: 1, first: 'offset 2: not msgpack' });
  });
});
