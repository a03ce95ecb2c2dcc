// The two locking-script templates of this service, built and recognised exactly:
// - token output: ordinal envelope with BSV-21 JSON, then the cosign script
//   `OP_DUP OP_HASH160 <owner pkh> OP_EQUALVERIFY OP_CHECKSIGVERIFY <approver pubkey> OP_CHECKSIG`;
// - P2PKH (funding outputs): `OP_DUP OP_HASH160 <pkh> OP_EQUALVERIFY OP_CHECKSIG`. Pure.
import { BSV20_CONTENT_TYPE, type Bsv21Inscription, bsv21Json, parseBsv21Json } from './bsv21.js';
import { bytesEqual, type Chunk, concatBytes, isPush, OP, pushData, readChunks } from './script-chunks.js';

export interface TokenScript {
  readonly inscription: Bsv21Inscription;
  readonly ownerPkh: Uint8Array;
  readonly approver: Uint8Array;
}

const utf8 = new TextEncoder();
const ORD = utf8.encode('ord');
const CONTENT_TYPE = utf8.encode(BSV20_CONTENT_TYPE);

export function buildTokenScript(token: TokenScript): Uint8Array {
  return buildInscribedCosignScript(bsv21Json(token.inscription), token.ownerPkh, token.approver);
}

/** The token output layout around any JSON text (tests use it to write malformed inscriptions). */
export function buildInscribedCosignScript(
  json: string,
  ownerPkh: Uint8Array,
  approver: Uint8Array,
): Uint8Array {
  if (ownerPkh.length !== 20) throw new RangeError('owner pubkey hash must be 20 bytes');
  if (approver.length !== 33) throw new RangeError('approver must be a compressed public key');
  return concatBytes([
    Uint8Array.of(OP.OP_0, OP.OP_IF),
    pushData(ORD),
    Uint8Array.of(OP.OP_1),
    pushData(CONTENT_TYPE),
    Uint8Array.of(OP.OP_0),
    pushData(utf8.encode(json)),
    Uint8Array.of(OP.OP_ENDIF),
    cosignScript(ownerPkh, approver),
  ]);
}

export function cosignScript(ownerPkh: Uint8Array, approver: Uint8Array): Uint8Array {
  return concatBytes([
    Uint8Array.of(OP.OP_DUP, OP.OP_HASH160),
    pushData(ownerPkh),
    Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIGVERIFY),
    pushData(approver),
    Uint8Array.of(OP.OP_CHECKSIG),
  ]);
}

export function buildP2pkhScript(pkh: Uint8Array): Uint8Array {
  if (pkh.length !== 20) throw new RangeError('pubkey hash must be 20 bytes');
  return concatBytes([
    Uint8Array.of(OP.OP_DUP, OP.OP_HASH160),
    pushData(pkh),
    Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG),
  ]);
}

/** The pubkey hash of an exact P2PKH script, else null. */
export function parseP2pkhScript(script: Uint8Array): Uint8Array | null {
  if (
    script.length === 25 &&
    script[0] === OP.OP_DUP &&
    script[1] === OP.OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP.OP_EQUALVERIFY &&
    script[24] === OP.OP_CHECKSIG
  ) {
    return script.subarray(3, 23);
  }
  return null;
}

/** Recognises an exact token output script; null for anything else. */
export function parseTokenScript(script: Uint8Array): TokenScript | null {
  const chunks = readChunks(script);
  if (chunks === null || chunks.length !== 15) return null;
  const envelope = readEnvelope(chunks);
  if (envelope === null) return null;
  const cosign = readCosign(chunks.slice(8));
  if (cosign === null) return null;
  return { inscription: envelope, ...cosign };
}

/** Recognises a bare cosign script (no envelope); null for anything else. */
export function parseCosignScript(script: Uint8Array): { ownerPkh: Uint8Array; approver: Uint8Array } | null {
  const chunks = readChunks(script);
  return chunks !== null && chunks.length === 7 ? readCosign(chunks) : null;
}

function readEnvelope(c: readonly Chunk[]): Bsv21Inscription | null {
  if (c[0]?.op !== OP.OP_0 || c[1]?.op !== OP.OP_IF || c[3]?.op !== OP.OP_1 || c[5]?.op !== OP.OP_0)
    return null;
  if (c[7]?.op !== OP.OP_ENDIF) return null;
  const ord = c[2];
  const type = c[4];
  const body = c[6];
  if (!isPush(ord) || !isPush(type) || !isPush(body)) return null;
  if (!bytesEqual(ord.data, ORD) || !bytesEqual(type.data, CONTENT_TYPE)) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body.data);
  } catch {
    return null;
  }
  return parseBsv21Json(text);
}

function readCosign(c: readonly Chunk[]): { ownerPkh: Uint8Array; approver: Uint8Array } | null {
  const pkh = c[2];
  const approver = c[5];
  if (c[0]?.op !== OP.OP_DUP || c[1]?.op !== OP.OP_HASH160 || c[3]?.op !== OP.OP_EQUALVERIFY) return null;
  if (c[4]?.op !== OP.OP_CHECKSIGVERIFY || c[6]?.op !== OP.OP_CHECKSIG) return null;
  if (!isPush(pkh) || pkh.data.length !== 20 || pkh.op !== 20) return null;
  if (!isPush(approver) || approver.data.length !== 33 || approver.op !== 33) return null;
  return { ownerPkh: pkh.data, approver: approver.data };
}
