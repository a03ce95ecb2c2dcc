// Independent checks of a devnet's chain: recomputes the UTXO set, the merkle roots and the
// header links from the blocks alone (with @bsv/sdk), to compare with what the devnet keeps.
import assert from 'node:assert/strict';
import { Hash, Transaction, Utils } from '@bsv/sdk';
import type { Devnet, DevnetBlock } from '../../src/ledger/devnet/devnet.js';

const isData = (script: number[] | Uint8Array): boolean =>
  script[0] === 0x6a || (script[0] === 0x00 && script[1] === 0x6a);

/** Display hex of the double SHA-256 of `bytes`. */
function hash256Hex(bytes: number[]): string {
  return Utils.toHex(Hash.hash256(bytes).reverse());
}

/** Bitcoin's merkle root of display-hex txids, computed the plain way. */
export function merkleRootOf(txids: readonly string[]): string {
  let level = txids.map((t) => Utils.toArray(t, 'hex').reverse() as number[]);
  while (level.length > 1) {
    const next: number[][] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      next.push(Hash.hash256([...left, ...right]));
    }
    level = next;
  }
  return Utils.toHex([...level[0]!].reverse());
}

export interface HeaderFields {
  readonly prevHash: string;
  readonly merkleRoot: string;
  readonly time: number;
}

export function readHeader(block: DevnetBlock): HeaderFields {
  const bytes = Utils.toArray(block.header, 'hex') as number[];
  assert.equal(bytes.length, 80);
  const reader = new Utils.Reader(bytes);
  reader.readUInt32LE();
  const prevHash = Utils.toHex(reader.read(32).reverse());
  const merkleRoot = Utils.toHex(reader.read(32).reverse());
  const time = reader.readUInt32LE();
  return { prevHash, merkleRoot, time };
}

/** Checks every header (hash, link, merkle root, time) and answers the UTXO set the blocks imply. */
export async function utxoFromBlocks(devnet: Devnet): Promise<Set<string>> {
  const utxo = new Map<string, string>();
  let prev = '0'.repeat(64);
  for (const block of devnet.blocks()) {
    const header = readHeader(block);
    assert.equal(hash256Hex(Utils.toArray(block.header, 'hex')), block.hash, `hash of block ${block.height}`);
    assert.equal(header.prevHash, prev, `block ${block.height} links to its parent`);
    assert.equal(header.merkleRoot, merkleRootOf(block.txids), `merkle root of block ${block.height}`);
    assert.equal(header.time, block.time);
    prev = block.hash;
    for (const [index, txid] of block.txids.entries()) {
      const raw = await devnet.rawTransaction(txid);
      assert.ok(raw !== null, `raw transaction ${txid} of block ${block.height}`);
      const tx = Transaction.fromBinary(raw);
      assert.equal(tx.id('hex'), txid);
      if (index > 0) {
        for (const input of tx.inputs) {
          const op = `${input.sourceTXID}:${input.sourceOutputIndex}`;
          assert.ok(utxo.delete(op), `${txid} spends ${op}, which the earlier blocks left unspent`);
        }
      }
      tx.outputs.forEach((out, vout) => {
        const script = out.lockingScript.toUint8Array();
        if (!isData(script)) utxo.set(`${txid}:${vout}`, `${out.satoshis}:${out.lockingScript.toHex()}`);
      });
    }
  }
  return new Set([...utxo].map(([op, v]) => `${op}:${v}`));
}

export function utxoOfDevnet(devnet: Devnet): Set<string> {
  return new Set(
    devnet
      .utxos()
      .map((u) => `${u.txid}:${u.vout}:${u.satoshis}:${Buffer.from(u.lockingScript).toString('hex')}`),
  );
}

export async function assertUtxoConsistent(devnet: Devnet): Promise<void> {
  assert.deepEqual(utxoOfDevnet(devnet), await utxoFromBlocks(devnet));
}
