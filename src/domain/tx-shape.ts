// The layout of a raw transaction checked before any parser builds objects from it: every
// count and length must fit in the bytes there are. @bsv/sdk's reader does not check this, so
// a 15-byte "transaction" announcing four billion inputs makes it allocate until the process
// runs out of memory. Pure.
import { ByteCursor } from './byte-cursor.js';

export type TxShape =
  | { readonly ok: true; readonly inputs: number; readonly outputs: number }
  | { readonly ok: false; readonly reason: string };

/** Smallest input: outpoint (36), script length (1), sequence (4). */
const MIN_INPUT_BYTES = 41;
/** Smallest output: satoshis (8), script length (1). */
const MIN_OUTPUT_BYTES = 9;
/** Smallest extended-format input: an input plus the parent's satoshis (8) and script length (1). */
const MIN_EF_INPUT_BYTES = MIN_INPUT_BYTES + 9;

/** A whole raw transaction and nothing after it. */
export function checkTxShape(raw: Uint8Array): TxShape {
  if (raw.length < 4) return { ok: false, reason: 'shorter than a version' };
  const cursor = new ByteCursor(raw);
  const shape = walkTransaction(cursor);
  if (shape.ok && cursor.pos !== raw.length)
    return { ok: false, reason: 'trailing bytes after the transaction' };
  return shape;
}

/**
 * Steps over one transaction from the cursor, standard or extended (BRC-30: after each input's
 * sequence, the parent output's satoshis and locking script; the caller has stepped over the marker).
 */
export function walkTransaction(cursor: ByteCursor, extended = false): TxShape {
  if (!cursor.skip(4)) return { ok: false, reason: 'shorter than a version' };
  if (extended && !cursor.skip(6)) return { ok: false, reason: 'extended-format marker cut short' };
  const inputs = cursor.varint();
  const minInput = extended ? MIN_EF_INPUT_BYTES : MIN_INPUT_BYTES;
  if (inputs === null || inputs * minInput > cursor.remaining)
    return { ok: false, reason: 'input count larger than the bytes can hold' };
  for (let i = 0; i < inputs; i++) {
    const whole =
      cursor.skip(36) &&
      cursor.skipVarBytes() &&
      cursor.skip(4) &&
      (!extended || (cursor.skip(8) && cursor.skipVarBytes()));
    if (!whole) return { ok: false, reason: `input ${i} cut short` };
  }
  const outputs = cursor.varint();
  if (outputs === null || outputs * MIN_OUTPUT_BYTES > cursor.remaining)
    return { ok: false, reason: 'output count larger than the bytes can hold' };
  for (let i = 0; i < outputs; i++) {
    if (!cursor.skip(8) || !cursor.skipVarBytes()) return { ok: false, reason: `output ${i} cut short` };
  }
  if (!cursor.skip(4)) return { ok: false, reason: 'lock time cut short' };
  return { ok: true, inputs, outputs };
}
