// Bech32 (BIP 173) and Bech32m (BIP 350) decoding, and the segwit address rules on top of it.
// Used only to recognise syntactically valid `bc1` addresses: they can own nothing on this ledger.

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const VALUE_OF = new Map<string, number>([...CHARSET].map((char, index) => [char, index]));
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

export type Bech32Encoding = 'bech32' | 'bech32m';
const CONSTANT: Record<Bech32Encoding, number> = { bech32: 1, bech32m: 0x2bc830a3 };

function polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) {
      if ((top >>> i) & 1) checksum ^= GENERATOR[i] ?? 0;
    }
  }
  return checksum >>> 0;
}

function expandHrp(hrp: string): number[] {
  const high: number[] = [];
  const low: number[] = [];
  for (let i = 0; i < hrp.length; i++) {
    const code = hrp.charCodeAt(i);
    high.push(code >> 5);
    low.push(code & 31);
  }
  return [...high, 0, ...low];
}

export interface Bech32Decoded {
  readonly hrp: string;
  /** 5-bit words, checksum removed. */
  readonly words: number[];
  readonly encoding: Bech32Encoding;
}

/** Decodes a Bech32 or Bech32m string (at most 90 characters, not mixed case); null on any defect. */
export function bech32Decode(text: string): Bech32Decoded | null {
  if (text.length > 90) return null;
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) return null;
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    if (code < 33 || code > 126) return null;
  }
  const separator = lower.lastIndexOf('1');
  if (separator < 1 || separator + 7 > lower.length) return null;
  const hrp = lower.slice(0, separator);
  const data: number[] = [];
  for (const char of lower.slice(separator + 1)) {
    const value = VALUE_OF.get(char);
    if (value === undefined) return null;
    data.push(value);
  }
  const check = polymod([...expandHrp(hrp), ...data]);
  const encoding = check === CONSTANT.bech32 ? 'bech32' : check === CONSTANT.bech32m ? 'bech32m' : null;
  if (encoding === null) return null;
  return { hrp, words: data.slice(0, -6), encoding };
}

/** Regroups 5-bit words into bytes (no padding beyond 4 zero bits allowed); null if ill-formed. */
function wordsToBytes(words: readonly number[]): Uint8Array | null {
  let accumulator = 0;
  let bits = 0;
  const out: number[] = [];
  for (const word of words) {
    accumulator = ((accumulator << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((accumulator >> bits) & 0xff);
    }
  }
  if (bits >= 5 || ((accumulator << (8 - bits)) & 0xff) !== 0) return null;
  return new Uint8Array(out);
}

export interface SegwitAddress {
  readonly version: number;
  readonly program: Uint8Array;
}

/**
 * Decodes a segwit address of the given human-readable part (BIP 173 / BIP 350): version 0 uses
 * Bech32 with a 20- or 32-byte program, versions 1 to 16 use Bech32m with 2 to 40 bytes.
 */
export function decodeSegwitAddress(text: string, hrp: string): SegwitAddress | null {
  const decoded = bech32Decode(text);
  if (decoded === null || decoded.hrp !== hrp) return null;
  const [version, ...rest] = decoded.words;
  if (version === undefined || version > 16) return null;
  const program = wordsToBytes(rest);
  if (program === null || program.length < 2 || program.length > 40) return null;
  if (version === 0 && program.length !== 20 && program.length !== 32) return null;
  if (decoded.encoding !== (version === 0 ? 'bech32' : 'bech32m')) return null;
  return { version, program };
}
