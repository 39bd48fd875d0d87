/**
 * BatchBufferPool: free buffers of one size, at most maxFree of them; anything else is dropped.
 */
import { expect } from 'chai';
import { BatchBufferPool } from '../../../actors/producer/buffer-pool.js';

describe('actors/producer/buffer-pool', () => {
  it('hands back the buffers it was given, last in first out, then nothing', () => {
    const pool = new BatchBufferPool(64, 4);
    const a = Buffer.allocUnsafeSlow(64);
    const b = Buffer.allocUnsafeSlow(64);
    expect(pool.take()).to.equal(undefined);
    pool.give(a);
    pool.give(b);
    expect(pool.available).to.equal(2);
    expect(pool.take()).to.equal(b);
    expect(pool.take()).to.equal(a);
    expect(pool.take()).to.equal(undefined);
  });

  it('keeps at most maxFree buffers', () => {
    const pool = new BatchBufferPool(16, 2);
    for (let i = 0; i < 5; i++) pool.give(Buffer.allocUnsafeSlow(16));
    expect(pool.available).to.equal(2);
    expect(new BatchBufferPool(16, 0).available).to.equal(0);
  });

  it('drops a buffer of another size, and a view into a larger buffer', () => {
    const pool = new BatchBufferPool(32, 4);
    pool.give(Buffer.allocUnsafeSlow(33));
    pool.give(Buffer.allocUnsafeSlow(31));
    pool.give(Buffer.allocUnsafeSlow(64).subarray(0, 32));
    pool.give(Buffer.allocUnsafeSlow(64).subarray(32, 64));
    expect(pool.available).to.equal(0);
  });

  it('forgets its buffers on clear', () => {
    const pool = new BatchBufferPool(8, 4);
    pool.give(Buffer.allocUnsafeSlow(8));
    pool.clear();
    expect(pool.available).to.equal(0);
    expect(pool.take()).to.equal(undefined);
  });

  it('refuses a size or a limit that is not a whole number', () => {
    expect(() => new BatchBufferPool(0, 1)).to.throw(RangeError, /buffer size must be a positive integer, got 0/);
    expect(() => new BatchBufferPool(8.5, 1)).to.throw(RangeError, /buffer size/);
    expect(() => new BatchBufferPool(8, -1)).to.throw(RangeError, /maxFree must be a non-negative integer, got -1/);
  });
});
