// The funding pool: small P2PKH outputs of the funding key, one spent whole (to the miner) by
// each transfer. A reserve output is split into the pool's denominations when the pool runs
// low; the split is built deterministically from the reserve, so a retry after a crash sends
// the same transaction again.
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../crypto/hash.js';
import { lockingScriptOf } from '../crypto/script-objects.js';
import { publicKeyOf } from '../crypto/secp256k1.js';
import { signP2pkhInputs } from '../crypto/sign-p2pkh.js';
import { networkFee } from '../domain/network-fee.js';
import { buildP2pkhScript } from '../domain/token-script.js';
import type { Ledger } from '../ledger/port.js';
import type { Db } from '../store/db.js';
import { readSetting, writeSetting } from '../store/settings.js';
import type { Logger } from './context.js';

export interface Denomination {
  readonly satoshis: bigint;
  readonly count: number;
}

export interface ReserveOutput {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: string;
}

export const RESERVE_SETTING = 'funding_reserve';

/** Denominations sized to the fee rate: a typical transfer (~1.5 kB) costs `unit`. */
export function defaultDenominations(satoshisPerKb: bigint): Denomination[] {
  const unit = networkFee(1500, satoshisPerKb) + 2n;
  return [
    { satoshis: unit * 2n, count: 400 },
    { satoshis: unit * 10n, count: 60 },
    { satoshis: unit * 100n, count: 10 },
  ];
}

export interface RefillDeps {
  readonly db: Db;
  readonly ledger: Ledger;
  readonly fundingKey: Uint8Array;
  readonly feeRate: () => Promise<bigint>;
  readonly now: () => Date;
  readonly log: Logger;
}

export async function availableFundingCount(db: Db): Promise<number> {
  const rows = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM funding_outputs WHERE state = 'available'",
  );
  return Number(rows[0]?.n ?? 0);
}

/** Splits the reserve into the pool when fewer than `lowWater` outputs are available. */
export async function refillFundingPool(deps: RefillDeps, lowWater: number): Promise<string | null> {
  if ((await availableFundingCount(deps.db)) >= lowWater) return null;
  const reserve = await readSetting<ReserveOutput>(deps.db, RESERVE_SETTING);
  if (reserve === null) return null;
  const rate = await deps.feeRate();
  const script = buildP2pkhScript(hash160(publicKeyOf(deps.fundingKey)));
  const denominations = defaultDenominations(rate);
  const pool = denominations.flatMap((d) => Array.from({ length: d.count }, () => d.satoshis));
  const tx = new Transaction(1, [], [], 0);
  tx.addInput({ sourceTXID: reserve.txid, sourceOutputIndex: reserve.vout, sequence: 0xffffffff });
  for (const satoshis of pool)
    tx.addOutput({ satoshis: Number(satoshis), lockingScript: lockingScriptOf(script) });
  const size = 10 + 148 + (pool.length + 1) * 34 + 9;
  const fee = networkFee(size, rate);
  const change = BigInt(reserve.satoshis) - pool.reduce((a, b) => a + b, 0n) - fee;
  if (change < 1000n) {
    deps.log.warn({ reserve: reserve.satoshis }, 'funding reserve exhausted: the operator must add funds');
    return null;
  }
  tx.addOutput({ satoshis: Number(change), lockingScript: lockingScriptOf(script) });
  signP2pkhInputs(tx, [{ lockingScript: script, satoshis: BigInt(reserve.satoshis) }], deps.fundingKey);
  const txid = tx.id('hex');
  const result = await deps.ledger.broadcast(tx.toUint8Array());
  if (!result.ok) throw new Error(`funding split refused by the ledger: ${result.reason}`);
  await deps.db.transaction(async (q) => {
    for (const [vout, satoshis] of pool.entries()) {
      await q.query(
        `INSERT INTO funding_outputs (txid, vout, satoshis, script, state) VALUES ($1, $2, $3, $4, 'available')
         ON CONFLICT DO NOTHING`,
        [txid, vout, satoshis, script],
      );
    }
    await writeSetting(
      q,
      RESERVE_SETTING,
      { txid, vout: pool.length, satoshis: change.toString() },
      deps.now(),
    );
  });
  deps.log.info({ txid, outputs: pool.length, reserve: change.toString() }, 'funding pool refilled');
  return txid;
}
