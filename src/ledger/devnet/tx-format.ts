// What a broadcast may carry, as ARC accepts it: a raw transaction, the extended format
// (BRC-30, parents' scripts and satoshis after each input) or BEEF (BRC-62/95/96, the
// transaction with its ancestors). Each becomes the standard serialization and its txid.

import { Beef, Transaction, Utils } from '@bsv/sdk';
import { checkTxShape } from '../../domain/tx-shape.js';
import { txidOf } from './hashing.js';
import { ATOMIC_BEEF, BEEF_V1, BEEF_V2, checkBeefShape, efToRaw } from './submission-shape.js';

export interface ParsedTx {
  readonly txid: string;
  /** Standard serialization (what the txid hashes and blocks hold). */
  readonly raw: Uint8Array;
  readonly tx: Transaction;
}

export type DecodedSubmission =
  | { readonly ok: true; readonly format: 'raw' | 'ef'; readonly tx: ParsedTx }
  /** `ancestors`: unmined transactions of the BEEF before the subject, in dependency order. */
  | {
      readonly ok: true;
      readonly format: 'beef';
      readonly tx: ParsedTx;
      readonly ancestors: readonly ParsedTx[];
    }
  | { readonly ok: false; readonly reason: string };

const EF_MARKER = Buffer.from('0000000000ef', 'hex');
const BEEF_MAGICS = new Set([BEEF_V1, BEEF_V2, ATOMIC_BEEF]);

/** Standard serialization only; refuses trailing bytes. Throws on anything else. */
export function parseRawTransaction(raw: Uint8Array): ParsedTx {
  // Counts the bytes cannot hold would make @bsv/sdk's reader allocate without bound.
  const shape = checkTxShape(raw);
  if (!shape.ok) throw new Error(shape.reason);
  const reader = new Utils.ReaderUint8Array(raw);
  const tx = Transaction.fromReader(reader);
  if (reader.pos !== raw.length) throw new Error(`${raw.length - reader.pos} bytes after the transaction`);
  return { txid: txidOf(raw), raw, tx };
}

export function decodeSubmission(bytes: Uint8Array): DecodedSubmission {
  try {
    if (bytes.length >= 4 && BEEF_MAGICS.has(Buffer.from(bytes).readUInt32LE(0))) return decodeBeef(bytes);
    if (bytes.length >= 10 && Buffer.from(bytes.subarray(4, 10)).equals(EF_MARKER)) {
      const standard = efToRaw(bytes);
      if (!standard.ok) return { ok: false, reason: `transaction cannot be parsed: ${standard.reason}` };
      return { ok: true, format: 'ef', tx: parseRawTransaction(standard.raw) };
    }
    return { ok: true, format: 'raw', tx: parseRawTransaction(bytes) };
  } catch (err) {
    return {
      ok: false,
      reason: `transaction cannot be parsed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

function decodeBeef(bytes: Uint8Array): DecodedSubmission {
  const shape = checkBeefShape(bytes);
  if (!shape.ok) return { ok: false, reason: `BEEF cannot be parsed: ${shape.reason}` };
  const beef = Beef.fromBinary(bytes);
  const txs: ParsedTx[] = [];
  for (const btx of beef.txs) {
    if (btx.isTxidOnly || btx.hasProof) continue;
    const raw = btx.rawTx;
    if (raw !== undefined) txs.push(parseRawTransaction(Uint8Array.from(raw)));
  }
  // The subject: the atomic txid (BRC-95), else the last transaction.
  const subject =
    beef.atomicTxid !== undefined ? txs.find((t) => t.txid === beef.atomicTxid) : txs[txs.length - 1];
  if (subject === undefined) return { ok: false, reason: 'BEEF holds no unmined subject transaction' };
  return { ok: true, format: 'beef', tx: subject, ancestors: txs.filter((t) => t !== subject) };
}

/** Lowercase hex to bytes, or null when the text is not hex of whole bytes. */
export function hexToBytes(text: string): Uint8Array | null {
  const hex = text.trim();
  if (hex.length === 0 || hex.length % 2 !== 0) return null;
  // Node's hex decoding stops at the first pair that is not hex: a short result means the text
  // was not hex (cheaper than a regular expression over the text first).
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length * 2 !== hex.length) return null;
  // A copy of its own: a small Buffer is a view of a shared pool the mempool must not keep.
  return new Uint8Array(bytes);
}
