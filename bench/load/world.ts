// What the load benchmark's wallets hold, prepared before each measurement with the service's
// own parts (composeParts, in this process, while no instance runs): the funding pool topped
// up, tokens minted to the measurement's own holders in outputs of 1,000,000 (many outputs
// per mint), and one signed transfer built per unspent output, as the tests build them.
import pino from 'pino';
import { apiContextOf, composeParts } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { pubKeyHashOf } from '../../src/domain/address.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import type { Db } from '../../src/store/db/db.js';
import { availableFundingCount } from '../../src/store/funding/funding-pool.js';
import { unspentOutputs } from '../../src/store/wallets/wallet-queries.js';
import { defaultDenominations, refillFundingPool } from '../../src/usecases/funding/pool-refill.js';
import { sendFromHeldAddress } from '../../src/usecases/supply/send-from-held-address.js';
import { buildTransfer, tokenOutput } from '../../test/support/build-transfer.js';
import { party } from '../../test/support/token-world.js';

const COIN = 1_000_000n;
const OUTPUTS_PER_MINT = 90;

/**
 * The wallets of one measurement: 16 holders and a recipient of its own (named by `tag`), so
 * every measurement reads addresses holding what one measurement leaves, not what the run
 * has piled up so far (a balance sums its address's outputs).
 */
export function walletsOf(tag: string) {
  const holders = Array.from({ length: 16 }, (_, i) => party(`load ${tag} holder ${i}`));
  const recipient = party(`load ${tag} recipient`);
  /** The address lists wallets ask about: three holders and the recipient. */
  const addressGroups: readonly (readonly string[])[] = holders.map((_, i) => [
    holders[i]!.address,
    holders[(i + 1) % holders.length]!.address,
    holders[(i + 2) % holders.length]!.address,
    recipient.address,
  ]);
  return { holders, recipient, addressGroups };
}

export interface Prepared {
  /** Signed transfers (base64), one per funded output. */
  readonly transfers: string[];
  /** Tickets of the mints, for status reads. */
  readonly ticketIds: string[];
  /** A read+submit API key, when asked for. */
  readonly apiKey: string | null;
  /** An admin key (the service's /metrics), made with apiKey. */
  readonly adminKey: string | null;
  /** The address lists the reads ask about. */
  readonly addressGroups: readonly (readonly string[])[];
}

/** Available funding outputs of at least `satoshis` that no process holds leased. */
async function freeFundingOutputs(db: Db, satoshis: bigint): Promise<number> {
  const rows = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM funding_outputs
      WHERE state = 'available' AND satoshis >= $1::bigint AND (lease_owner IS NULL OR lease_until < now())`,
    [satoshis.toString()],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Funding outputs the api processes of one measurement may hold leased: 4 x 512. */
const LEASED_ELSEWHERE = 4 * 512;

/**
 * Opens the service's parts with `argv` (its flags), makes `funded` transfers ready and the
 * funding pool hold at least as many outputs, then closes the parts. `mine` mines a block
 * after the mints (the embedded devnet, which mines only on command here).
 */
export async function prepare(
  argv: readonly string[],
  funded: number,
  opts: { readonly mine: boolean; readonly createKey: boolean; readonly tag: string },
): Promise<Prepared> {
  const { holders, recipient, addressGroups } = walletsOf(opts.tag);
  const config = loadConfig({ argv: [...argv, '--log-level', 'warn'], env: {} });
  const parts = await composeParts(config, pino({ level: 'warn' }));
  const { keys, db } = parts;
  const ctx = apiContextOf(parts);
  try {
    // Outputs still leased to the api processes of the measurement before (up to
    // fundingLeaseMaxOutputs each until their leases lapse) count as available but cannot be
    // taken: the pool holds a margin for them.
    const wanted = funded + 200 + LEASED_ELSEWHERE;
    const refill = {
      db,
      ledger: parts.ledger,
      fundingKey: keys.funding,
      feeRate: ctx.feeRate,
      now: ctx.now,
      log: ctx.log,
    };
    for (let i = 0; i < 50 && (await availableFundingCount(db)) < wanted; i++) {
      const txid = await refillFundingPool(refill, wanted);
      if (txid === null) break;
    }
    // The mints below pay a larger fee than a transfer: each takes one of the pool's largest
    // outputs, of which a split makes few. Split more until there is one per mint (earlier
    // measurements' mints used up those the count above does not see).
    const largest = defaultDenominations(await ctx.feeRate()).at(-1)!.satoshis;
    const mints = Math.ceil(funded / OUTPUTS_PER_MINT);
    for (let i = 0; i < 50 && (await freeFundingOutputs(db, largest)) < mints + 10; i++) {
      const force = (await availableFundingCount(db)) + 1;
      const txid = await refillFundingPool(refill, force);
      if (txid === null) break;
    }
    const ready = async () =>
      (
        await unspentOutputs(db, {
          addresses: holders.map((h) => h.address),
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
        to: holders[(n * OUTPUTS_PER_MINT + i) % holders.length]!.address,
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
    const byAddress = new Map(holders.map((h) => [h.address, h]));
    const transfers = (await ready()).slice(0, funded).map((coin) => {
      const signer = byAddress.get(coin.owner)!;
      const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
      const outputs = [out(recipient, 500_000n), out(feePkh, 100n), out(signer, COIN - 500_100n)];
      return Buffer.from(buildTransfer({ inputs: [known], outputs, signer })).toString('base64');
    });
    const apiKey = opts.createKey
      ? (await createApiKey(db, parts.masterKey, { name: 'load', scopes: ['read', 'submit'] })).key
      : null;
    const adminKey = opts.createKey
      ? (await createApiKey(db, parts.masterKey, { name: 'bench admin', scopes: ['admin'] })).key
      : null;
    return { transfers, ticketIds, apiKey, adminKey, addressGroups };
  } finally {
    await ctx.submissions.close().catch(() => undefined);
    await ctx.broadcasts.close().catch(() => undefined);
    await parts.writerLink?.close().catch(() => undefined);
    await parts.ledger.close().catch(() => undefined);
    // Before the database closes: its renewal would otherwise go on against a closed pool.
    await parts.identity.release();
    await db.close();
  }
}
