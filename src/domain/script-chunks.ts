// Reading and writing script bytes as chunks (opcodes and pushes). Pure, no @bsv/sdk:
// recognising the two templates this service uses must be exact and fast.

export const OP = {
  OP_0: 0x00,
  OP_PUSHDATA1: 0x4c,
  OP_PUSHDATA2: 0x4d,
  OP_PUSHDATA4: 0x4e,
  OP_1: 0x51,
  OP_16: 0x60,
  OP_IF: 0x63,
  OP_ENDIF: 0x68,
  OP_RETURN: 0x6a,
  OP_DUP: 0x76,
  OP_EQUALVERIFY: 0x88,
  OP_HASH160: 0xa9,
  OP_CHECKSIG: 0xac,
  OP_CHECKSIGVERIFY: 0xad,
} as const;

export interface Chunk {
  readonly op: number;
  /** Present for push opcodes (0x00-0x4e); empty for OP_0. */
  readonly data?: Uint8Array;
}

/** Splits a script into chunks; null when a push runs past the end. */
export function readChunks(script: Uint8Array): Chunk[] | null {
  const chunks: Chunk[] = [];
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    if (op > OP.OP_PUSHDATA4) {
      chunks.push({ op });
      continue;
    }
    let len: number;
    if (op < OP.OP_PUSHDATA1) {
      len = op;
    } else if (op === OP.OP_PUSHDATA1) {
      if (i + 1 > script.length) return null;
      len = script[i]!;
      i += 1;
    } else if (op === OP.OP_PUSHDATA2) {
      if (i + 2 > script.length) return null;
      len = script[i]! | (script[i + 1]! << 8);
      i += 2;
    } else {
      if (i + 4 > script.length) return null;
      len = (script[i]! | (script[i + 1]! << 8) | (script[i + 2]! << 16)) + script[i + 3]! * 0x1000000;
      i += 4;
    }
    if (i + len > script.length) return null;
    chunks.push({ op, data: script.subarray(i, i + len) });
    i += len;
  }
  return chunks;
}

/** The minimal push encoding of `data` (OP_0 for empty data, as the reference client writes it). */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  let prefix: number[];
  if (n < OP.OP_PUSHDATA1) prefix = [n];
  else if (n <= 0xff) prefix = [OP.OP_PUSHDATA1, n];
  else if (n <= 0xffff) prefix = [OP.OP_PUSHDATA2, n & 0xff, n >> 8];
  else prefix = [OP.OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  const out = new Uint8Array(prefix.length + n);
  out.set(prefix, 0);
  out.set(data, prefix.length);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function isPush(chunk: Chunk | undefined): chunk is Chunk & { data: Uint8Array } {
  return chunk !== undefined && chunk.op <= OP.OP_PUSHDATA4 && chunk.data !== undefined;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new TypeError('invalid hex');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
