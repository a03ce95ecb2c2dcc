// Per-key mint allowances (issue 32; USDC's minter allowance; docs/operations.md, "Set up
// approvals"). A key without an allowance mints without a cap (a deployment that never sets one
// keeps working); once set, each mint the key asks spends from it, and a mint above what is left
// is refused (MINT_ALLOWANCE_EXCEEDED, 403). Raising an allowance (or removing the cap) is an
// action the approval policy can hold back (`raise-allowance`); lowering one never is.
import { txidOf } from '../../crypto/txid.js';
import { DomainError } from '../../domain/domain-error.js';
import {
  allowanceOf,
  markSpendCommitted,
  refundAllowance,
  setAllowance,
  spendAllowance,
} from '../../store/controls/allowance-store.js';
import type { ServiceContext } from '../context.js';
import type { PreparedTransaction } from '../supply/send-from-held-address.js';

type AllowanceDeps = Pick<ServiceContext, 'db' | 'now' | 'controls'>;

function exceeded(keyId: string, amount: bigint, remaining: bigint): DomainError {
  return new DomainError(
    'MINT_ALLOWANCE_EXCEEDED',
    `key ${keyId} may mint ${remaining} more atomic units, less than ${amount}`,
  );
}

/**
 * Sets a key's mint allowance (`null`: no cap) in one database transaction, recorded with the
 * key that set it; answers what it was and what it is now.
 */
export async function setMintAllowance(
  ctx: AllowanceDeps,
  s: {
    readonly keyId: string;
    readonly remaining: bigint | null;
    readonly reason: string;
    readonly actor: string;
    /**
     * Set only if it raises nothing, judged against the allowance as it stands under the lock:
     * the caller let it through ungated as a lowering, and a mint spending meanwhile could have
     * made the same value a raise. Answers null, writing nothing, when it would raise.
     */
    readonly unlessRaise?: boolean;
  },
): Promise<{ readonly before: bigint | null; readonly after: bigint | null } | null> {
  const done = await ctx.db.transaction((tx) => setAllowance(tx, { ...s, at: ctx.now() }));
  if (done !== null) ctx.controls?.counted?.change('allowance-set');
  return done;
}

/** Refuses at once a mint the key's allowance cannot cover (checked again when spent). */
export async function checkAllowance(ctx: AllowanceDeps, keyId: string, amount: bigint): Promise<void> {
  const allowance = await allowanceOf(ctx.db, keyId);
  if (allowance !== null && allowance.remaining < amount) throw exceeded(keyId, amount, allowance.remaining);
}

/** The allowance spent while a mint runs (allowanceSpending), to give back if it was never made. */
export interface AllowanceSpending extends PreparedTransaction {
  /** Gives back what this attempt spent: its mint was refused before it moved any token. */
  refund(): Promise<void>;
  /** The mint committed: what it spent is never given back (charged again if it was meanwhile). */
  committed(): Promise<void>;
}

/**
 * Wraps where the mint keeps its transaction (Idempotency-Key, or a proposal) so that the
 * transaction about to be submitted spends `amount` of the key's allowance first: once per
 * transaction (keyed by its txid as built), so a retry that submits the kept transaction again
 * spends nothing more. Refused with MINT_ALLOWANCE_EXCEEDED when the allowance is too small.
 * Without a place to keep it (no Idempotency-Key), the transaction is kept nowhere, and one whose
 * input another transfer took is replaced at once.
 */
export function allowanceSpending(
  ctx: AllowanceDeps,
  keyId: string,
  amount: bigint,
  inner: PreparedTransaction | undefined,
): AllowanceSpending {
  let spentTxid: string | null = null;
  let chargedTxid: string | null = null;
  const spend = async (raw: Uint8Array): Promise<Uint8Array> => {
    const txid = txidOf(raw);
    const spent = await spendAllowance(ctx.db, { txid, keyId, amount, at: ctx.now() });
    if (spent.kind === 'exceeded') throw exceeded(keyId, amount, spent.remaining);
    chargedTxid = txid;
    if (spent.kind === 'spent') {
      spentTxid = txid;
      if (spent.remaining !== null) ctx.controls?.counted?.change('allowance-spend');
    }
    return raw;
  };
  // The charge moves with the transaction: the stale one, never committed, gives back what it
  // spent, and the one kept in its place spends.
  const replace = async (stale: Uint8Array, fresh: Uint8Array): Promise<Uint8Array> => {
    const now = inner?.replace === undefined ? fresh : await inner.replace(stale, fresh);
    const staleTxid = txidOf(stale);
    if (txidOf(now) !== staleTxid) {
      await refundAllowance(ctx.db, staleTxid);
      if (spentTxid === staleTxid) spentTxid = null;
    }
    return spend(now);
  };
  return {
    // A kept transaction the place of keeping cannot replace stays the caller's to judge.
    ...((inner === undefined || inner.replace !== undefined) && { replace }),
    async earlier() {
      const kept = (await inner?.earlier()) ?? null;
      return kept === null ? null : spend(kept);
    },
    async keep(raw) {
      return spend(inner === undefined ? raw : await inner.keep(raw));
    },
    async refund() {
      if (spentTxid !== null) await refundAllowance(ctx.db, spentTxid);
      spentTxid = null;
    },
    async committed() {
      if (chargedTxid === null) return;
      const again = await markSpendCommitted(ctx.db, { txid: chargedTxid, keyId, amount, at: ctx.now() });
      if (again) ctx.controls?.counted?.change('allowance-spend');
    },
  };
}
