// Base58 and Base58Check (Bitcoin alphabet): version byte, payload, and the first four bytes of
// the double SHA-256 of both as checksum.

import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT_OF = new Map<string, number>([...ALPHABET].map((char, index) => [char, index]));

/** Longest text decoded: far beyond any address, it bounds the quadratic decoding work. */
const MAX_DECODE_LENGTH = 128;

export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian base-58 digits of the big-endian number in `bytes`.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] ?? 0;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] ?? 0) * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let text = '1'.repeat(zeros);
  for (let j = digits.length - 1; j >= 0; j--) text += ALPHABET[digits[j] ?? 0];
  return text;
}

/** Decodes Base58 text; null when it holds a character outside the alphabet or is too long. */
export function base58Decode(text: string): Uint8Array | null {
  if (text.length > MAX_DECODE_LENGTH) return null;
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  // Little-endian base-256 bytes of the number.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const digit = DIGIT_OF.get(text[i] ?? '');
    if (digit === undefined) return null;
    let carry = digit;
    for (let j = 0; j < bytes.length; j++) {
      carry += (bytes[j] ?? 0) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let j = 0; j < bytes.length; j++) out[out.length - 1 - j] = bytes[j] ?? 0;
  return out;
}

export function doubleSha256(bytes: Uint8Array): Uint8Array {
  const once = createHash('sha256').update(bytes).digest();
  return new Uint8Array(createHash('sha256').update(once).digest());
}

/** Base58Check of one version byte and a payload. */
export function base58CheckEncode(version: number, payload: Uint8Array): string {
  const body = new Uint8Array(1 + payload.length);
  body[0] = version;
  body.set(payload, 1);
  const whole = new Uint8Array(body.length + 4);
  whole.set(body);
  whole.set(doubleSha256(body).subarray(0, 4), body.length);
  return base58Encode(whole);
}

/** Decodes Base58Check text into its version byte and payload; null on any defect or bad checksum. */
export function base58CheckDecode(text: string): { version: number; payload: Uint8Array } | null {
  const whole = base58Decode(text);
  if (whole === null || whole.length < 5) return null;
  const body = whole.subarray(0, whole.length - 4);
  const checksum = doubleSha256(body);
  for (let i = 0; i < 4; i++) {
    if (whole[body.length + i] !== checksum[i]) return null;
  }
  return { version: body[0] ?? 0, payload: body.slice(1) };
}
