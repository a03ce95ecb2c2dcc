// The sandbox faucet's grants: counted per address and per client address over a day, taken
// under an advisory lock so that instances on one PostgreSQL cannot both pass the same bound.

import { holdTransactionLock } from '../db/advisory-lock.js';
import type { Db } from '../db/db.js';

export const FAUCET_LOCK_KEY = 7_364_821_010;

export interface FaucetBounds {
  readonly perAddress: number;
  readonly perClient: number;
  /** How far back a grant counts, milliseconds (a day). */
  readonly windowMs: number;
}

export type GrantClaim =
  | { readonly kind: 'granted'; readonly id: string }
  | {
      readonly kind: 'over';
      readonly bound: 'address' | 'client';
      readonly count: number;
      readonly retryAt: Date;
    };

/** Records a grant unless the address or the client is at its bound within the window. */
export async function claimFaucetGrant(
  db: Db,
  req: { readonly address: string; readonly client: string; readonly amount: bigint; readonly now: Date },
  bounds: FaucetBounds,
): Promise<GrantClaim> {
  return db.transaction(async (tx) => {
    await holdTransactionLock(tx, FAUCET_LOCK_KEY);
    const since = new Date(req.now.getTime() - bounds.windowMs);
    const [counts] = await tx.query<{
      by_address: string;
      by_client: string;
      first_address: Date | null;
      first_client: Date | null;
    }>(
      `SELECT count(*) FILTER (WHERE address = $1) AS by_address,
              count(*) FILTER (WHERE client = $2) AS by_client,
              min(created_at) FILTER (WHERE address = $1) AS first_address,
              min(created_at) FILTER (WHERE client = $2) AS first_client
         FROM faucet_grants
        WHERE (address = $1 OR client = $2) AND created_at > $3`,
      [req.address, req.client, since],
    );
    const byAddress = Number(counts?.by_address ?? 0);
    const byClient = Number(counts?.by_client ?? 0);
    const retry = (first: Date | null) => new Date((first ?? req.now).getTime() + bounds.windowMs);
    if (byAddress >= bounds.perAddress)
      return {
        kind: 'over',
        bound: 'address',
        count: byAddress,
        retryAt: retry(counts?.first_address ?? null),
      };
    if (byClient >= bounds.perClient)
      return { kind: 'over', bound: 'client', count: byClient, retryAt: retry(counts?.first_client ?? null) };
    const [row] = await tx.query<{ id: string }>(
      'INSERT INTO faucet_grants (address, client, amount, created_at) VALUES ($1, $2, $3, $4) RETURNING id',
      [req.address, req.client, req.amount, req.now],
    );
    return { kind: 'granted', id: String(row!.id) };
  });
}

export async function settleFaucetGrant(db: Db, id: string, ticketId: string): Promise<void> {
  await db.query('UPDATE faucet_grants SET ticket_id = $2 WHERE id = $1', [id, ticketId]);
}

/** A grant whose tokens were not sent counts for nothing. */
export async function dropFaucetGrant(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM faucet_grants WHERE id = $1', [id]);
}
