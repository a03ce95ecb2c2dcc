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
  if (treeHeight === 0) {
    // One transaction in the block: one level holding the txid alone, which is also the root
    // (as @bsv/sdk's MerklePath.fromCoinbaseTxidAndHeight writes it).
    return Buffer.concat([varInt(height), Buffer.from([1]), varInt(1), leaf(0, 2, leaves[0]!)]).toString(
      'hex',
    );
  }
  const parts: Buffer[] = [varInt(height), Buffer.from([treeHeight])];
  for (let h = 0; h < treeHeight; h++) {
    const level = levels[h]!;
    const self = index >> h;
    const siblingOffset = self ^ 1;
    const sibling = level[siblingOffset];
    const siblingLeaf = sibling === undefined ? leaf(siblingOffset, 1) : leaf(siblingOffset, 0, sibling);
    if (h === 0) {
      const own = leaf(self, 2, level[self]!);
      parts.push(varInt(2), ...(siblingOffset < self ? [siblingLeaf, own] : [own, siblingLeaf]));
    } else {
      parts.push(varInt(1), siblingLeaf);
    }
  }
  return Buffer.concat(parts).toString('hex');
}

function leaf(offset: number, flags: number, hash?: Uint8Array): Buffer {
  const head = Buffer.concat([varInt(offset), Buffer.from([flags])]);
  return hash === undefined ? head : Buffer.concat([head, Buffer.from(hash)]);
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
