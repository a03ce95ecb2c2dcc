// checkTxShape: counts and lengths that do not fit the bytes are refused before @bsv/sdk builds
// anything (a 15-byte body announcing 3.6 billion inputs ran the service out of memory).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, Utils } from '@bsv/sdk';
import fc from 'fast-check';
import { parseTransfer } from '../../src/domain/parse-transfer.js';
import { checkTxShape } from '../../src/domain/tx-shape.js';
import { TokenWorld } from '../support/token-world.js';

const HOSTILE = new Uint8Array(Buffer.from('5524df5ce5fad692163b', 'base64'));

describe('checkTxShape', () => {
  it('refuses a count the bytes cannot hold, and parseTransfer answers INVALID_TX', () => {
    assert.deepEqual(checkTxShape(HOSTILE), {
      ok: false,
      reason: 'input count larger than the bytes can hold',
    });
    const world = new TokenWorld();
    const refusal = parseTransfer(HOSTILE, world.config) as { code?: string };
    assert.equal(refusal.code, 'INVALID_TX');
  });

  it('lets through only what fits the bytes, read by @bsv/sdk to the end', () => {
    const sample = Uint8Array.from(
      Buffer.from(
        '0100000001' +
          '11'.repeat(32) +
          '01000000' +
          '02abcd' +
          'ffffffff' +
          '01' +
          '0100000000000000' +
          '01ac' +
          '00000000',
        'hex',
      ),
    );
    assert.deepEqual(checkTxShape(sample), { ok: true, inputs: 1, outputs: 1 });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.tuple(fc.nat({ max: sample.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, mask]) => {
            const out = Uint8Array.from(sample);
            out[at]! ^= mask;
            return out;
          }),
        ),
        (raw) => {
          const shape = checkTxShape(raw);
          if (!shape.ok) return;
          // Within the bytes, @bsv/sdk either reads to the end or throws (an amount beyond 2^53).
          const reader = new Utils.ReaderUint8Array(raw);
          let parsed: Transaction;
          try {
            parsed = Transaction.fromReader(reader);
          } catch {
            return;
          }
          assert.equal(reader.pos, raw.length);
          assert.equal(parsed.inputs.length, shape.inputs);
          assert.equal(parsed.outputs.length, shape.outputs);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
