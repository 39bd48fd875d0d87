/**
 * The SamsaError a promise is rejected with (the test fails when it resolves, or rejects with
 * anything else).
 */
import { expect } from 'chai';
import { SamsaError } from '../../src/client/errors.js';

export async function refused(p: Promise<unknown>): Promise<SamsaError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(SamsaError);
    return e as SamsaError;
  }
  throw new Error('expected a SamsaError');
}
