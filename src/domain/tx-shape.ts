// The layout of a raw transaction checked before any parser builds objects from it: every
// count and length must fit in the bytes there are. @bsv/sdk's reader does not check this, so
// a 15-byte "transaction" announcing four billion inputs makes it allocate until the process
// runs out of memory. Pure.

export type TxShape =
  | { readonly ok: true; readonly inputs: number; readonly outputs: number }
  | { readonly ok: false; readonly reason: string };

/** Smallest input: outpoint (36), script length (1), sequence (4). */
const MIN_INPUT_BYTES = 41;
/** Smallest output: satoshis (8), script length (1). */
const MIN_OUTPUT_BYTES = 9;

export function checkTxShape(raw: Uint8Array): TxShape {
  let pos = 4; // version
  const varint = (): number | null => {
    if (pos >= raw.length) return null;
    const first = raw[pos]!;
    const width = first < 0xfd ? 1 : first === 0xfd ? 3 : first === 0xfe ? 5 : 9;
    if (pos + width > raw.length) return null;
    let value = first < 0xfd ? first : 0;
    // Little-endian; values beyond 2^53 cannot fit in any transaction: read as Infinity.
    for (let i = width - 1; i >= 1; i--) value = value * 256 + raw[pos + i]!;
    pos += width;
    return Number.isSafeInteger(value) ? value : Number.POSITIVE_INFINITY;
  };
  const skip = (bytes: number): boolean => {
    if (bytes > raw.length - pos) return false;
    pos += bytes;
    return true;
  };
  if (raw.length < 4) return { ok: false, reason: 'shorter than a version' };
  const inputs = varint();
  if (inputs === null || inputs * MIN_INPUT_BYTES > raw.length - pos)
    return { ok: false, reason: 'input count larger than the bytes can hold' };
  for (let i = 0; i < inputs; i++) {
    if (!skip(36)) return { ok: false, reason: `input ${i} cut short` };
    const script = varint();
    if (script === null || !skip(script) || !skip(4)) return { ok: false, reason: `input ${i} cut short` };
  }
  const outputs = varint();
  if (outputs === null || outputs * MIN_OUTPUT_BYTES > raw.length - pos)
    return { ok: false, reason: 'output count larger than the bytes can hold' };
  for (let i = 0; i < outputs; i++) {
    if (!skip(8)) return { ok: false, reason: `output ${i} cut short` };
    const script = varint();
    if (script === null || !skip(script)) return { ok: false, reason: `output ${i} cut short` };
  }
  if (!skip(4)) return { ok: false, reason: 'lock time cut short' };
  if (pos !== raw.length) return { ok: false, reason: 'trailing bytes after the transaction' };
  return { ok: true, inputs, outputs };
}
