// What an operator typed in the console's search box: an address, a txid, a ticket ID (UUID)
// or an outpoint (`txid:vout` or `txid_vout`). Pure; anything else is null.
import { isUuid } from '../crypto/random-id.js';
import { isValidAddress } from './address.js';
import { MAX_VOUT } from './index-bounds.js';

export type SearchQuery =
  | { readonly kind: 'address'; readonly address: string }
  | { readonly kind: 'txid'; readonly txid: string }
  | { readonly kind: 'ticket'; readonly id: string }
  | { readonly kind: 'outpoint'; readonly txid: string; readonly vout: number };

const TXID = /^[0-9a-f]{64}$/i;
const OUTPOINT = /^([0-9a-f]{64})[:_](\d{1,10})$/i;

export function parseSearchQuery(text: string): SearchQuery | null {
  const q = text.trim();
  if (TXID.test(q)) return { kind: 'txid', txid: q.toLowerCase() };
  const outpoint = OUTPOINT.exec(q);
  if (outpoint !== null) {
    const vout = Number(outpoint[2]);
    return vout > MAX_VOUT ? null : { kind: 'outpoint', txid: outpoint[1]!.toLowerCase(), vout };
  }
  if (isUuid(q)) return { kind: 'ticket', id: q.toLowerCase() };
  if (q.length <= 100 && isValidAddress(q)) return { kind: 'address', address: q };
  return null;
}
