// The reference client's loose reading of locking scripts, mirrored exactly for the history and
// parse endpoints (which must agree with what @mnee/ts-sdk 1.1.2 computes). This is NOT how the
// service recognises its own token outputs (that is token-script.ts, strict); it is how the
// client does, quirks included:
// - chunks as @bsv/sdk 1.3.30 `Script.fromBinary` splits them (a push running past the end is
//   kept, truncated; OP_0 has no data) and re-encodes them (`Script.toBinary`);
// - `$`: an owner address (and cosigner) from a cosign or P2PKH pattern found ANYWHERE in the
//   script, first position wins; a script ending in `OP_DUP OP_HASH160 <20> OP_EQUALVERIFY`
//   makes the client throw;
// - `T`: the inscription content from the LAST `OP_0 OP_IF "ord"` envelope;
// - `toUTF8` of @bsv/sdk 1.3.30 (not a validating decoder) and JS `parseInt`, exactly.
// Where the client would throw, these functions throw a ClientReadingError. Pure.
import { p2pkhAddress } from './address.js';
import { OP, toHex } from './script-chunks.js';

export interface ClientChunk {
  readonly op: number;
  /** Absent for OP_0 and every non-push opcode, as in @bsv/sdk 1.3.30. */
  readonly data?: Uint8Array;
}

/** Where the reference client would throw (a TypeError in its code) on the same data. */
export class ClientReadingError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'ClientReadingError';
  }
}

const OP_16 = OP.OP_16;
const OP_FALSE = OP.OP_0;

/** @bsv/sdk 1.3.30 `Script.fromBinary`: never fails; missing bytes read as 0 or are cut off. */
export function clientChunks(script: Uint8Array): ClientChunk[] {
  const chunks: ClientChunk[] = [];
  const n = script.length;
  const byteAt = (i: number): number => (i < n ? script[i]! : 0);
  let pos = 0;
  while (pos < n) {
    const op = script[pos++]!;
    if (op > 0 && op < OP.OP_PUSHDATA1) {
      chunks.push({ op, data: script.slice(pos, pos + op) });
      pos += op;
    } else if (op === OP.OP_PUSHDATA1) {
      // readUInt8 past the end gives undefined, then read(undefined) reads nothing useful.
      const len = pos < n ? script[pos]! : 0;
      pos += 1;
      chunks.push({ op, data: script.slice(pos, pos + len) });
      pos += len;
    } else if (op === OP.OP_PUSHDATA2) {
      const len = byteAt(pos) | (byteAt(pos + 1) << 8);
      pos += 2;
      chunks.push({ op, data: script.slice(pos, pos + len) });
      pos += len;
    } else if (op === OP.OP_PUSHDATA4) {
      const len =
        (byteAt(pos) | (byteAt(pos + 1) << 8) | (byteAt(pos + 2) << 16) | (byteAt(pos + 3) << 24)) >>> 0;
      pos += 4;
      chunks.push({ op, data: script.slice(pos, pos + len) });
      pos += len;
    } else {
      chunks.push({ op });
    }
  }
  return chunks;
}

/** @bsv/sdk 1.3.30 `Script.toBinary`: the bytes the client hashes and prints for these chunks. */
export function clientScriptBytes(chunks: readonly ClientChunk[]): Uint8Array {
  const out: number[] = [];
  for (const { op, data } of chunks) {
    out.push(op);
    if (data === undefined) continue;
    const len = data.length;
    if (op === OP.OP_PUSHDATA1) out.push(len & 0xff);
    else if (op === OP.OP_PUSHDATA2) out.push(len & 0xff, (len >> 8) & 0xff);
    else if (op === OP.OP_PUSHDATA4)
      out.push(len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, (len >>> 24) & 0xff);
    else if (op > OP.OP_PUSHDATA4) continue;
    for (const b of data) out.push(b);
  }
  return Uint8Array.from(out);
}

export interface ClientCosign {
  /** The cosigner public key in lower-case hex; "" for a plain P2PKH pattern. */
  readonly cosigner: string;
  readonly address: string;
}

/** The client's `$` for one script: the first cosign or P2PKH pattern at any position. */
export function clientCosign(chunks: readonly ClientChunk[]): ClientCosign | undefined {
  const s = chunks;
  for (let e = 0; e <= s.length - 4; e++) {
    if (
      s.length > e + 6 &&
      s[e]!.op === OP.OP_DUP &&
      s[e + 1]!.op === OP.OP_HASH160 &&
      s[e + 2]!.data?.length === 20 &&
      s[e + 3]!.op === OP.OP_EQUALVERIFY &&
      s[e + 4]!.op === OP.OP_CHECKSIGVERIFY &&
      s[e + 5]!.data?.length === 33 &&
      s[e + 6]!.op === OP.OP_CHECKSIG
    ) {
      return { cosigner: toHex(s[e + 5]!.data!), address: p2pkhAddress(s[e + 2]!.data!) };
    }
    if (
      s[e]!.op === OP.OP_DUP &&
      s[e + 1]!.op === OP.OP_HASH160 &&
      s[e + 2]!.data?.length === 20 &&
      s[e + 3]!.op === OP.OP_EQUALVERIFY
    ) {
      const fifth = s[e + 4];
      if (fifth === undefined) {
        throw new ClientReadingError('script ends in OP_DUP OP_HASH160 <20 bytes> OP_EQUALVERIFY');
      }
      if (fifth.op === OP.OP_CHECKSIG) return { cosigner: '', address: p2pkhAddress(s[e + 2]!.data!) };
    }
  }
  return undefined;
}

/**
 * The client's `$` over several scripts: the recognised ones only, COMPACTED (the client then
 * indexes this list by output index, so an unrecognised output shifts every later one).
 */
export function clientCosigns(scripts: readonly (readonly ClientChunk[])[]): ClientCosign[] {
  const found: ClientCosign[] = [];
  for (const chunks of scripts) {
    const cosign = clientCosign(chunks);
    if (cosign !== undefined) found.push(cosign);
  }
  return found;
}

/**
 * The client's `T(script).file.content`: `null` when T finds no valid envelope (it answers
 * undefined), `undefined` when it finds one without content; throws where T throws.
 */
export function clientInscriptionContent(chunks: readonly ClientChunk[]): Uint8Array | undefined | null {
  let start: number | undefined;
  for (let s = 2; s < chunks.length; s++) {
    const data = chunks[s]!.data;
    if (
      data?.length === 3 &&
      clientUtf8(data) === 'ord' &&
      chunks[s - 1]!.op === OP.OP_IF &&
      chunks[s - 2]!.op === OP_FALSE
    ) {
      start = s + 1;
    }
  }
  if (start === undefined) return null;
  let content: Uint8Array | undefined;
  for (let a = start; a < chunks.length; a += 2) {
    const tag = chunks[a]!;
    if (tag.op === OP.OP_ENDIF) break;
    if (tag.op > OP_16) return null;
    const value = chunks[a + 1];
    if (value === undefined) throw new ClientReadingError('inscription envelope ends after a field tag');
    if (value.op > OP.OP_PUSHDATA4) return null;
    if (tag.data?.length) continue;
    const field = tag.op > OP.OP_PUSHDATA4 && tag.op <= OP_16 ? tag.op - 80 : 0;
    if (field === 0 && value.data?.length) content = value.data;
  }
  return content;
}

/** The client's `parseInscriptionData`: the inscription JSON value, or null (never throws). */
export function clientInscriptionJson(chunks: readonly ClientChunk[]): unknown {
  try {
    const content = clientInscriptionContent(chunks);
    if (!content) return null;
    const text = clientUtf8(content);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** @bsv/sdk 1.3.30 `Utils.toUTF8`: lenient, drops stray continuation and 0xf8-0xff bytes. */
export function clientUtf8(bytes: Uint8Array): string {
  let result = '';
  let skip = 0;
  const at = (i: number): number => bytes[i] ?? 0; // `undefined & 0x3f` is 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (skip > 0) {
      skip--;
      continue;
    }
    if (byte <= 0x7f) {
      result += String.fromCharCode(byte);
    } else if (byte >= 0xc0 && byte <= 0xdf) {
      skip = 1;
      result += String.fromCharCode(((byte & 0x1f) << 6) | (at(i + 1) & 0x3f));
    } else if (byte >= 0xe0 && byte <= 0xef) {
      skip = 2;
      result += String.fromCharCode(((byte & 0x0f) << 12) | ((at(i + 1) & 0x3f) << 6) | (at(i + 2) & 0x3f));
    } else if (byte >= 0xf0 && byte <= 0xf7) {
      skip = 3;
      const cp =
        ((byte & 0x07) << 18) | ((at(i + 1) & 0x3f) << 12) | ((at(i + 2) & 0x3f) << 6) | (at(i + 3) & 0x3f);
      result += String.fromCharCode(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    }
  }
  return result;
}

/** JS property access on a JSON value, as the client's `x.key` (undefined on null/undefined). */
export function jsonField(value: unknown, key: string): unknown {
  if (value === null || value === undefined) return undefined;
  return (value as Record<string, unknown>)[key];
}

/**
 * JS `parseInt(value, radix)` for radix 10 or undefined (then "0x" switches to hex), exactly:
 * the same string conversion (which may throw, as in the client), whitespace, sign and digit
 * prefix rules, but the value as an exact bigint. null where parseInt answers NaN. Where the
 * client's double is inexact (beyond 2^53, or Infinity past ~309 digits) this stays exact.
 */
export function clientParseInt(value: unknown, radix?: 10): bigint | null {
  let text = String(value).trimStart();
  let negative = false;
  if (text.startsWith('-') || text.startsWith('+')) {
    negative = text.startsWith('-');
    text = text.slice(1);
  }
  let hex = false;
  if (radix === undefined && (text.startsWith('0x') || text.startsWith('0X'))) {
    hex = true;
    text = text.slice(2);
  }
  const digits = (hex ? /^[0-9a-fA-F]*/ : /^[0-9]*/).exec(text)![0];
  if (digits === '') return null;
  const magnitude = BigInt(hex ? `0x${digits}` : digits);
  return negative ? -magnitude : magnitude;
}

/** JS truthiness of a JSON value (null, false, 0, "" are falsy). */
export function truthy(value: unknown): boolean {
  return Boolean(value);
}

/** What the client reads from GET /v1/config on these paths. */
export interface ClientTokenConfig {
  readonly tokenId: string;
  /** The approver public key in hex exactly as /v1/config serves it (lower case). */
  readonly approver: string;
  readonly feeAddress: string;
  readonly mintAddress: string;
}

/**
 * Mint addresses hard-coded in the client (production MNEE and sandbox): an input or output
 * owned by one of them makes its parse type "mint", and they count for "redeem" validity.
 */
export const CLIENT_BUILTIN_MINT_ADDRESSES: readonly string[] = [
  '1inHbiwj2jrEcZPiSYnfgJ8FmS1Bmk4Dh',
  '1AZNdbFYBDFTAEgzZMfPzANxyNrpGJZAUY',
];
