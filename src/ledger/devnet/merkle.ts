// Merkle trees of blocks, by Bitcoin's rules (double SHA-256 of left || right, the last node of
// an odd level paired with itself), and BUMP (BRC-74) merkle paths for one transaction of a block.
import { sha256d } from './hashing.js';

/**
 * Every level of the tree, leaves (the txids, internal byte order) first, the root last.
 * A block always has its coinbase, so there is at least one leaf.
 */
export function merkleLevels(leaves: readonly Uint8Array[]): Uint8Array[][] {
  if (leaves.length === 0) throw new RangeError('a merkle tree needs at least one leaf');
  const levels: Uint8Array[][] = [leaves.slice()];
  let level = levels[0]!;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      const pair = new Uint8Array(64);
      pair.set(left, 0);
      pair.set(right, 32);
      next.push(sha256d(pair));
    }
    levels.push(next);
    level = next;
  }
  return levels;
}

export function merkleRootOf(levels: readonly (readonly Uint8Array[])[]): Uint8Array {
  const top = levels[levels.length - 1];
  if (top === undefined || top.length !== 1) throw new RangeError('not a complete merkle tree');
  return top[0]!;
}

/**
 * The BUMP of the leaf at `index`, hex: block height (VarInt), tree height, then for each level
 * the leaves needed (offset VarInt, flags, hash in internal order): flag 1 = duplicate (no hash),
 * flag 2 = the txid the path is for. Encoded here rather than through @bsv/sdk's MerklePath so a
 * block of thousands of transactions gets its paths cheaply; the tests read them back with
 * MerklePath and compute the root.
 */
export function merklePathHex(
  levels: readonly (readonly Uint8Array[])[],
  index: number,
  height: number,
): string {
  const leaves = levels[0];
  if (leaves === undefined || index < 0 || index >= leaves.length)
    throw new RangeError('leaf index out of range');
  const treeHeight = levels.length - 1;
  // Written into one buffer (a path is asked for every transaction of every block): at most a
  // 9-byte VarInt and 2 leaves of 9 + 1 + 32 bytes a level, plus the heights.
  const out = Buffer.allocUnsafe(10 + Math.max(treeHeight, 1) * (9 + 2 * 42));
  let at = writeVarInt(out, 0, height);
  if (treeHeight === 0) {
    // One transaction in the block: one level holding the txid alone, which is also the root
    // (as @bsv/sdk's MerklePath.fromCoinbaseTxidAndHeight writes it).
    out[at++] = 1;
    at = writeVarInt(out, at, 1);
    at = writeLeaf(out, at, 0, 2, leaves[0]!);
    return out.toString('hex', 0, at);
  }
  out[at++] = treeHeight;
  for (let h = 0; h < treeHeight; h++) {
    const level = levels[h]!;
    const self = index >> h;
    const siblingOffset = self ^ 1;
    const sibling = level[siblingOffset];
    const siblingFlags = sibling === undefined ? 1 : 0;
    if (h === 0) {
      at = writeVarInt(out, at, 2);
      if (siblingOffset < self) {
        at = writeLeaf(out, at, siblingOffset, siblingFlags, sibling);
        at = writeLeaf(out, at, self, 2, level[self]!);
      } else {
        at = writeLeaf(out, at, self, 2, level[self]!);
        at = writeLeaf(out, at, siblingOffset, siblingFlags, sibling);
      }
    } else {
      at = writeVarInt(out, at, 1);
      at = writeLeaf(out, at, siblingOffset, siblingFlags, sibling);
    }
  }
  return out.toString('hex', 0, at);
}

/** offset VarInt, flags, and the hash unless it is a duplicate (flag 1). */
function writeLeaf(out: Buffer, at: number, offset: number, flags: number, hash?: Uint8Array): number {
  let next = writeVarInt(out, at, offset);
  out[next++] = flags;
  if (hash !== undefined) {
    out.set(hash, next);
    next += hash.length;
  }
  return next;
}

function writeVarInt(out: Buffer, at: number, n: number): number {
  if (Number.isInteger(n) && n >= 0 && n < 0xfd) {
    out[at] = n;
    return at + 1;
  }
  const bytes = varInt(n);
  out.set(bytes, at);
  return at + bytes.length;
}

export function varInt(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a VarInt: ${n}`);
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  if (n <= 0xffffffff) {
    const b = Buffer.alloc(5);
    b[0] = 0xfe;
    b.writeUInt32LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xff;
  b.writeBigUInt64LE(BigInt(n), 1);
  return b;
}
