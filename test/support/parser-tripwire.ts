// A tripwire on @bsv/sdk's transaction parser, for tests of hostile bytes without running out
// of memory. Every parse reaches Transaction.fromReader (fromBinary and fromHex call it), and
// bytes whose counts do not fit make it allocate until the process dies (FATAL ERROR: Reached
// heap limit, after a minute). Armed, the tripwire throws at once for such bytes instead and
// counts them: on code that hands them to the parser unguarded, a test fails in milliseconds
// (even where the code swallows the throw), and the test runner stays alive.
import assert from 'node:assert/strict';
import { Transaction } from '@bsv/sdk';
import { ByteCursor } from '../../src/domain/byte-cursor.js';
import { walkTransaction } from '../../src/domain/tx-shape.js';

/** 9 bytes: version 1, then an input count of 16,777,215 (fe ffffff00) and nothing else. */
export const SIXTEEN_MILLION_INPUTS = Uint8Array.from(Buffer.from('01000000feffffff00', 'hex'));
/** 15 bytes: version 1, an input count of 4,294,967,295 (fe ffffffff), six bytes of zeros. */
export const FOUR_BILLION_INPUTS = Uint8Array.from(Buffer.from('01000000feffffffff000000000000', 'hex'));
export const HOSTILE = [SIXTEEN_MILLION_INPUTS, FOUR_BILLION_INPUTS] as const;

/** What the sdk's readers carry: their bytes (Uint8Array or number[]) and where they read next. */
type AnyReader = { readonly bin: ArrayLike<number>; readonly pos: number };

/**
 * Runs `fn` with the tripwire armed and fails when any bytes whose layout does not fit reached
 * the parser meanwhile. Arming is process-wide: tests of a file run one after another.
 */
export async function parsedSafely<T>(fn: () => T | Promise<T>): Promise<T> {
  const original = Transaction.fromReader;
  let trips = 0;
  Transaction.fromReader = (br) => {
    const { bin, pos } = br as unknown as AnyReader;
    const bytes = bin instanceof Uint8Array ? bin : Uint8Array.from(bin);
    if (!walkTransaction(new ByteCursor(bytes, pos)).ok) {
      trips++;
      throw new Error('tripwire: @bsv/sdk was handed a transaction whose counts do not fit its bytes');
    }
    return original.call(Transaction, br);
  };
  try {
    return await fn();
  } finally {
    Transaction.fromReader = original;
    assert.equal(trips, 0, 'bytes whose counts do not fit reached the @bsv/sdk parser unguarded');
  }
}
