// The outpoints a raw transaction spends, read from its bytes (standard format only): what a
// store that must judge a transaction's inputs derives from the signed bytes itself rather than
// from what a caller says they are. Pure.
import { ByteCursor } from './byte-cursor.js';
import { checkTxShape } from './tx-shape.js';

export interface Outpoint {
  readonly txid: string;
  readonly vout: number;
}

/** Each input's outpoint, in input order; null when the bytes are not a whole transaction. */
export function spentOutpoints(raw: Uint8Array): Outpoint[] | null {
  const shape = checkTxShape(raw);
  if (!shape.ok) return null;
  const cursor = new ByteCursor(raw, 4);
  const count = cursor.varint()!;
  const spent: Outpoint[] = [];
  for (let i = 0; i < count; i++) {
    const at = cursor.pos;
    const txid = Buffer.from(raw.subarray(at, at + 32))
      .reverse()
      .toString('hex');
    const vout = raw[at + 32]! | (raw[at + 33]! << 8) | (raw[at + 34]! << 16);
    spent.push({ txid, vout: vout + raw[at + 35]! * 0x1000000 });
    cursor.skip(36);
    cursor.skipVarBytes();
    cursor.skip(4);
  }
  return spent;
}
