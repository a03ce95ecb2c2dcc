// Test transactions for the ledger: P2PKH spends built and signed with @bsv/sdk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LockingScript, P2PKH, PrivateKey, Transaction } from '@bsv/sdk';
import type { Devnet } from '../../src/ledger/devnet/devnet.js';

export const alice = new PrivateKey(1001);
export const bob = new PrivateKey(2002);

export function p2pkh(key: PrivateKey): LockingScript {
  return new P2PKH().lock(key.toAddress());
}

export interface Spendable {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly key: PrivateKey;
}

export interface OutputTo {
  readonly to: PrivateKey | LockingScript;
  readonly satoshis: bigint;
}

export interface BuiltTx {
  readonly txid: string;
  readonly raw: Uint8Array;
  readonly tx: Transaction;
  /** Its outputs, ready to spend (those paid to a key). */
  out(vout: number): Spendable;
}

export interface SpendOptions {
  /** Sign with this key instead of each input's owner. */
  readonly signer?: PrivateKey;
  readonly lockTime?: number;
  readonly sequence?: number;
}

export async function spend(
  inputs: readonly Spendable[],
  outputs: readonly OutputTo[],
  opts: SpendOptions = {},
): Promise<BuiltTx> {
  const tx = new Transaction(1, [], [], opts.lockTime ?? 0);
  for (const input of inputs) {
    tx.addInput({
      sourceTXID: input.txid,
      sourceOutputIndex: input.vout,
      sequence: opts.sequence ?? 0xffffffff,
      unlockingScriptTemplate: new P2PKH().unlock(
        opts.signer ?? input.key,
        'all',
        false,
        Number(input.satoshis),
        p2pkh(input.key),
      ),
    });
  }
  for (const output of outputs) {
    const lockingScript = output.to instanceof PrivateKey ? p2pkh(output.to) : output.to;
    tx.addOutput({ satoshis: Number(output.satoshis), lockingScript });
  }
  await tx.sign();
  const raw = new Uint8Array(tx.toBinary());
  const txid = tx.id('hex');
  return {
    txid,
    raw,
    tx,
    out(vout) {
      const to = outputs[vout]?.to;
      if (!(to instanceof PrivateKey)) throw new Error(`output ${vout} is not paid to a key`);
      return { txid, vout, satoshis: outputs[vout]!.satoshis, key: to };
    },
  };
}

/** The genesis outputs every devnet test starts from. */
export const GENESIS = [
  { key: alice, satoshis: 100_000n },
  { key: alice, satoshis: 50_000n },
  { key: bob, satoshis: 100_000n },
  { key: bob, satoshis: 20_000n },
] as const;

export const genesisOption = GENESIS.map((g) => ({
  lockingScript: p2pkh(g.key).toUint8Array(),
  satoshis: g.satoshis,
}));

/** The genesis outputs of an open devnet, as spendables. */
export function genesisCoins(devnet: Devnet): Spendable[] {
  const coinbase = devnet.block(0)!.txids[0]!;
  return GENESIS.map((g, vout) => ({ txid: coinbase, vout, satoshis: g.satoshis, key: g.key }));
}

/** A confirmed output paid to `key` (the caller makes sure no mempool transaction spends it). */
export function confirmedCoinOf(devnet: Devnet, key: PrivateKey, min = 2000n): Spendable {
  const script = p2pkh(key).toHex();
  const found = devnet
    .utxos()
    .find((u) => u.satoshis >= min && Buffer.from(u.lockingScript).toString('hex') === script);
  if (found === undefined) throw new Error('no confirmed coin of that key');
  return { txid: found.txid, vout: found.vout, satoshis: found.satoshis, key };
}

export function tempDir(prefix = 'devnet-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A fixed clock that a test moves by hand (milliseconds). */
export function manualClock(start = 1_700_000_000_000): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}
