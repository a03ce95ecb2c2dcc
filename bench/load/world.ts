// What the load benchmark's wallets hold, prepared before each measurement with the service's
// own parts (composeParts, in this process, while no instance runs): the funding pool topped
// up, tokens minted to the holders in outputs of 1,000,000 (many outputs per mint), and one
// signed transfer built per unspent output, as the tests build them.
import pino from 'pino';
import { composeParts } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { pubKeyHashOf } from '../../src/domain/address.js';
import { createApiKey } from '../../src/store/api-keys-store.js';
import { unspentOutputs } from '../../src/store/wallet-queries.js';
import { availableFundingCount, refillFundingPool } from '../../src/usecases/funding-pool.js';
import { sendFromHeldAddress } from '../../src/usecases/send-from-held-address.js';
import { buildTransfer, tokenOutput } from '../../test/support/build-transfer.js';
import { party } from '../../test/support/token-world.js';

export const HOLDERS = Array.from({ length: 16 }, (_, i) => party(`load holder ${i}`));
const RECIPIENT = party('load recipient');
const COIN = 1_000_000n;
const OUTPUTS_PER_MINT = 90;

/** The address lists wallets ask about: three holders and the recipient. */
export const ADDRESS_GROUPS: readonly (readonly string[])[] = HOLDERS.map((_, i) => [
  HOLDERS[i]!.address,
  HOLDERS[(i + 1) % HOLDERS.length]!.address,
  HOLDERS[(i + 2) % HOLDERS.length]!.address,
  RECIPIENT.address,
]);

export interface Prepared {
  /** Signed transfers (base64), one per funded output. */
  readonly transfers: string[];
  /** Tickets of the mints, for status reads. */
  readonly ticketIds: string[];
  /** A read+submit API key, when asked for. */
  readonly apiKey: string | null;
}

/**
 * Opens the service's parts with `argv` (its flags), makes `funded` transfers ready and the
 * funding pool hold at least as many outputs, then closes the parts. `mine` mines a block
 * after the mints (the embedded devnet, which mines only on command here).
 */
export async function prepare(
  argv: readonly string[],
  funded: number,
  opts: { readonly mine: boolean; readonly createKey: boolean },
): Promise<Prepared> {
  const config = loadConfig({ argv: [...argv, '--log-level', 'warn'], env: {} });
  const parts = await composeParts(config, pino({ level: 'warn' }));
  const { ctx, keys, db } = parts;
  try {
    for (let i = 0; i < 50 && (await availableFundingCount(db)) < funded + 200; i++) {
      const refill = { db, ledger: parts.ledger, fundingKey: keys.funding, feeRate: ctx.feeRate };
      const txid = await refillFundingPool({ ...refill, now: ctx.now, log: ctx.log }, funded + 200);
      if (txid === null) break;
    }
    const ready = async () =>
      (
        await unspentOutputs(db, {
          addresses: HOLDERS.map((h) => h.address),
          page: 1,
          size: 1_000_000,
          order: 'asc',
        })
      ).filter((o) => o.amount === COIN);
    const ticketIds: string[] = [];
    let missing = funded - (await ready()).length;
    for (let n = 0; missing > 0; n++) {
      const count = Math.min(OUTPUTS_PER_MINT, missing);
      const outputs = Array.from({ length: count }, (_, i) => ({
        op: 'transfer' as const,
        to: HOLDERS[(n * OUTPUTS_PER_MINT + i) % HOLDERS.length]!.address,
        amount: COIN,
      }));
      const minted = await sendFromHeldAddress(ctx, { from: ctx.token.mintAddress, key: keys.mint, outputs });
      ticketIds.push(minted.ticketId);
      missing -= count;
    }
    if (opts.mine) await parts.devnet?.mine(1);

    const feePkh = pubKeyHashOf(ctx.token.feeAddress)!;
    const out = (owner: Parameters<typeof tokenOutput>[0], amt: bigint) =>
      tokenOutput(owner, amt, ctx.token.tokenId, ctx.token.approver);
    const byAddress = new Map(HOLDERS.map((h) => [h.address, h]));
    const transfers = (await ready()).slice(0, funded).map((coin) => {
      const signer = byAddress.get(coin.owner)!;
      const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
      const outputs = [out(RECIPIENT, 500_000n), out(feePkh, 100n), out(signer, COIN - 500_100n)];
      return Buffer.from(buildTransfer({ inputs: [known], outputs, signer })).toString('base64');
    });
    const apiKey = opts.createKey
      ? (await createApiKey(db, parts.masterKey, { name: 'load', scopes: ['read', 'submit'] })).key
      : null;
    return { transfers, ticketIds, apiKey };
  } finally {
    await parts.ledger.close().catch(() => undefined);
    await db.close();
  }
}
