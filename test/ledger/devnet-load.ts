// Many valid transactions for the devnet, built fast: `lanes` coins of the genesis, each spent
// over and over by a 1-input, 1-output P2PKH transaction back to its owner (1 satoshi of fee),
// signed with libsecp256k1. The live UTXO set stays at `lanes` outputs however long it runs,
// which is what a test of memory bounded by the live set (not the history) needs. Two loads of
// the same lanes and another fee spend the same coins in different transactions (double spends).
// With `leftover`, each transaction also pays an output to that script that nothing spends (as a
// transfer's fee output is): the live set then grows by one a transaction.
import { LockingScript, P2PKH, PrivateKey, Transaction, UnlockingScript } from '@bsv/sdk';
import { signDigest } from '../../src/crypto/secp256k1.js';
import { sighashDigest } from '../../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../../src/crypto/signature-encoding.js';
import { buildCoinbase, type CoinbaseOutput } from '../../src/ledger/devnet/block.js';
import { txidOf } from '../../src/ledger/devnet/hashing.js';

const KEY = new PrivateKey(4242);
const LOCK = new P2PKH().lock(KEY.toAddress());
const PRIVATE = Uint8Array.from(KEY.toArray('be', 32));
const PUBLIC = Uint8Array.from(KEY.toPublicKey().encode(true) as number[]);
const COIN = 10_000_000n;

const push = (data: Uint8Array): number[] => [data.length, ...data];

export interface Load {
  readonly genesis: CoinbaseOutput[];
  /** Answers the next transaction (raw), spending the previous output of lane `i % lanes`. */
  next(): { readonly txid: string; readonly raw: Uint8Array };
}

/** Satoshis of each leftover output. */
export const LEFTOVER_SATOSHIS = 1000n;

export function spendingLoad(lanes: number, fee = 1n, leftover?: Uint8Array): Load {
  const genesis = Array.from({ length: lanes }, () => ({
    lockingScript: LOCK.toUint8Array(),
    satoshis: COIN,
  }));
  // The genesis coinbase depends only on its outputs (height 0, serial 0).
  const coinbase = txidOf(buildCoinbase(0, 0, genesis));
  const heads = genesis.map((g, vout) => ({ txid: coinbase, vout, satoshis: g.satoshis }));
  let n = 0;
  return {
    genesis,
    next() {
      const lane = n++ % lanes;
      const head = heads[lane]!;
      const tx = new Transaction(1, [], [], 0);
      tx.addInput({
        sourceTXID: head.txid,
        sourceOutputIndex: head.vout,
        unlockingScript: new UnlockingScript(),
        sequence: 0xffffffff,
      });
      const left = leftover === undefined ? 0n : LEFTOVER_SATOSHIS;
      tx.addOutput({ satoshis: Number(head.satoshis - fee - left), lockingScript: LOCK });
      if (leftover !== undefined)
        tx.addOutput({ satoshis: Number(left), lockingScript: LockingScript.fromBinary([...leftover]) });
      const digest = sighashDigest(tx, 0, LOCK, head.satoshis, SIGHASH_ALL_FORKID);
      const der = signDigest(digest, PRIVATE);
      tx.inputs[0]!.unlockingScript = UnlockingScript.fromBinary([
        ...push(Uint8Array.from([...der, SIGHASH_ALL_FORKID])),
        ...push(PUBLIC),
      ]);
      const raw = Uint8Array.from(tx.toBinary());
      const txid = txidOf(raw);
      heads[lane] = { txid, vout: 0, satoshis: head.satoshis - fee - left };
      return { txid, raw };
    },
  };
}
