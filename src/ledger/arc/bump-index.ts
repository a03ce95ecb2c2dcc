// The index of a transaction in its block, read from the BUMP (BRC-74) merkle path ARC gives
// with a MINED status. @bsv/sdk's MerklePath.fromHex does this too, but it checks its paths with
// a SHA-256 written in JavaScript: with the tracker reading one path per mined ticket, that was
// 8% of the api process's CPU under sustained transfers (bench:api, PostgreSQL + ARC). Here the
// path of one transaction is read and walked to its root with node:crypto; a path of another
// shape (a compound path, say) goes to MerklePath as before.
import { MerklePath } from '@bsv/sdk';
import { sha256d } from '../../crypto/hash.js';

interface Leaf {
  readonly flags: number;
  /** Internal byte order; absent for a duplicate (flag 1). */
  readonly hash?: Buffer;
}

/** The offset of `txid` at level 0 of a BUMP: its index in the block. Null if absent or unreadable. */
export function indexInBump(bumpHex: string, txid: string): number | null {
  const fast = walkSinglePath(bumpHex, txid);
  if (fast !== undefined) return fast;
  try {
    const leaf = MerklePath.fromHex(bumpHex).path[0]?.find((l) => l.hash === txid);
    return leaf === undefined ? null : leaf.offset;
  } catch {
    return null;
  }
}

/**
 * The index when the path is one transaction's (every sibling its walk needs is there); null when
 * the bytes are not a BUMP; undefined when it is some other shape, left to MerklePath.
 */
function walkSinglePath(bumpHex: string, txid: string): number | null | undefined {
  if (!/^[0-9a-f]*$/i.test(bumpHex) || bumpHex.length % 2 !== 0 || !/^[0-9a-f]{64}$/.test(txid)) return null;
  const bytes = Buffer.from(bumpHex, 'hex');
  let pos = 0;
  const varint = (): number | null => {
    const first = bytes[pos];
    if (first === undefined) return null;
    pos += 1;
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    if (pos + size > bytes.length || size === 8) return null;
    const value = size === 2 ? bytes.readUInt16LE(pos) : bytes.readUInt32LE(pos);
    pos += size;
    return value;
  };
  if (varint() === null) return null; // block height
  const treeHeight = bytes[pos++];
  if (treeHeight === undefined || treeHeight === 0) return undefined;
  const levels: Map<number, Leaf>[] = [];
  for (let h = 0; h < treeHeight; h++) {
    const count = varint();
    if (count === null) return null;
    const level = new Map<number, Leaf>();
    for (let i = 0; i < count; i++) {
      const offset = varint();
      const flags = bytes[pos++];
      if (offset === null || flags === undefined) return null;
      if ((flags & 1) === 1) {
        level.set(offset, { flags });
        continue;
      }
      if (pos + 32 > bytes.length) return null;
      level.set(offset, { flags, hash: bytes.subarray(pos, pos + 32) });
      pos += 32;
    }
    levels.push(level);
  }
  if (pos !== bytes.length) return null;
  const own = Buffer.from(txid, 'hex').reverse();
  let index: number | undefined;
  for (const [offset, leaf] of levels[0]!) if (leaf.hash?.equals(own)) index = offset;
  if (index === undefined) return null;
  let node: Buffer = own;
  for (let h = 0; h < treeHeight; h++) {
    const offset = index >> h;
    const sibling = levels[h]!.get(offset ^ 1);
    if (sibling === undefined) return undefined;
    const other = sibling.hash ?? node;
    const pair = (offset & 1) === 0 ? Buffer.concat([node, other]) : Buffer.concat([other, node]);
    const digest = sha256d(pair);
    node = Buffer.from(digest.buffer, digest.byteOffset, digest.length);
  }
  return index;
}
