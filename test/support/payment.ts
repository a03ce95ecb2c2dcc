// A plain P2PKH payment, as an operator's wallet makes one: spends one coin of `key` to the
// given outputs, the rest (less the fee) back to the key. For tests that pay the funding address.
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { pubKeyHashOf } from '../../src/domain/address.js';
import { signP2pkhInputs } from '../../src/domain/sign-p2pkh.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';

export interface PayCoin {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
}

export interface Payment {
  readonly txid: string;
  readonly raw: Uint8Array;
  readonly hex: string;
}

export function p2pkhScriptOf(address: string): Uint8Array {
  const pkh = pubKeyHashOf(address);
  if (pkh === null) throw new Error(`not a P2PKH address: ${address}`);
  return buildP2pkhScript(pkh);
}

export function pay(
  coin: PayCoin,
  key: Uint8Array,
  outputs: readonly { readonly address: string; readonly satoshis: bigint }[],
  fee = 1_000n,
): Payment {
  const own = buildP2pkhScript(hash160(publicKeyOf(key)));
  const tx = new Transaction(1, [], [], 0);
  tx.addInput({ sourceTXID: coin.txid, sourceOutputIndex: coin.vout, sequence: 0xffffffff });
  for (const o of outputs)
    tx.addOutput({ satoshis: Number(o.satoshis), lockingScript: lockingScriptOf(p2pkhScriptOf(o.address)) });
  const change = coin.satoshis - outputs.reduce((sum, o) => sum + o.satoshis, 0n) - fee;
  if (change < 0n) throw new Error(`coin of ${coin.satoshis} satoshis cannot pay that`);
  if (change > 0n) tx.addOutput({ satoshis: Number(change), lockingScript: lockingScriptOf(own) });
  signP2pkhInputs(tx, [{ lockingScript: own, satoshis: coin.satoshis }], key);
  const raw = tx.toUint8Array();
  return { txid: tx.id('hex'), raw, hex: Buffer.from(raw).toString('hex') };
}
