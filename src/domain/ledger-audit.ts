// The audit's arithmetic (pure): token outputs recomputed from the transactions' raw bytes
// (every output of this token, spent when a later transaction of the feed spends it),
// compared with what the index holds, and the supply split as supply() splits it.
// Transfers to the burn address are redemptions; `"op":"burn"` outputs are burns.
import type { Transaction } from '@bsv/sdk';
import { p2pkhAddress } from './address.js';
import { readTransaction, UnreadableTransactionError } from './read-transaction.js';
import { parseTokenScript } from './token-script.js';

export interface AuditOutput {
  readonly owner: string;
  readonly amount: bigint;
  readonly op: 'deploy+mint' | 'transfer' | 'burn';
  readonly spent: boolean;
}

export interface AuditToken {
  readonly tokenId: string;
  readonly mintAddress: string;
  readonly burnAddress: string;
}

export interface AuditDifference {
  readonly outpoint: string;
  readonly field: 'presence' | 'owner' | 'amount' | 'op' | 'spent';
  readonly index: string;
  readonly recomputed: string;
}

export interface SupplySplit {
  readonly circulating: bigint;
  readonly treasury: bigint;
  /** `"op":"burn"` outputs. */
  readonly burned: bigint;
  /** Unspent outputs at the burn address (transfers to it). */
  readonly redeemed: bigint;
  /** Unspent outputs a seizure took (issue 32): out of circulation, their value reissued. */
  readonly seized: bigint;
}

/** A stored record whose bytes are no whole transaction (a corrupted row, a bad restore). */
export interface UnreadableRecord {
  readonly txid: string;
  readonly reason: string;
}

export interface Recomputed {
  /** Token outputs (`txid_vout`) of the token, spent or not. */
  readonly outputs: Map<string, AuditOutput>;
  /** Records taken as creating and spending nothing: the audit lists them, and is not ok. */
  readonly unreadable: readonly UnreadableRecord[];
}

/**
 * Token outputs (`txid_vout`) of `tokenId` in the given transactions, spent or not. A record
 * whose bytes do not parse is listed and counted as creating and spending nothing: one
 * corrupted row must not stop (or, with counts its bytes cannot hold, kill) the audit, and the
 * outputs the index holds of it then show up as differences too.
 */
export function recomputeLedger(
  txs: readonly { readonly txid: string; readonly raw: Uint8Array }[],
  tokenId: string,
): Recomputed {
  const created = new Map<string, Omit<AuditOutput, 'spent'>>();
  const spent = new Set<string>();
  const unreadable: UnreadableRecord[] = [];
  for (const { txid, raw } of txs) {
    let tx: Transaction;
    try {
      tx = readTransaction(raw, txid);
    } catch (err) {
      if (!(err instanceof UnreadableTransactionError)) throw err;
      unreadable.push({ txid, reason: err.reason });
      continue;
    }
    for (const input of tx.inputs) spent.add(`${input.sourceTXID}_${input.sourceOutputIndex}`);
    tx.outputs.forEach((output, vout) => {
      const token = parseTokenScript(new Uint8Array(output.lockingScript.toBinary()));
      if (token === null) return;
      const { inscription } = token;
      const ours =
        inscription.op === 'deploy+mint' ? `${txid}_${vout}` === tokenId : inscription.id === tokenId;
      if (!ours) return;
      created.set(`${txid}_${vout}`, {
        owner: p2pkhAddress(token.ownerPkh),
        amount: inscription.amt,
        op: inscription.op,
      });
    });
  }
  const outputs = new Map<string, AuditOutput>();
  for (const [outpoint, o] of created) outputs.set(outpoint, { ...o, spent: spent.has(outpoint) });
  return { outputs, unreadable };
}

/** recomputeLedger's outputs; throws UnreadableTransactionError on the first unreadable record. */
export function recomputeOutputs(
  txs: readonly { readonly txid: string; readonly raw: Uint8Array }[],
  tokenId: string,
): Map<string, AuditOutput> {
  const { outputs, unreadable } = recomputeLedger(txs, tokenId);
  const first = unreadable[0];
  if (first !== undefined) throw new UnreadableTransactionError(first.reason, first.txid);
  return outputs;
}

/** Every field where the index and the recomputed outputs disagree. */
export function compareOutputs(
  index: ReadonlyMap<string, AuditOutput>,
  recomputed: ReadonlyMap<string, AuditOutput>,
): AuditDifference[] {
  const diffs: AuditDifference[] = [];
  const keys = [...new Set([...index.keys(), ...recomputed.keys()])].sort();
  for (const outpoint of keys) {
    const a = index.get(outpoint);
    const b = recomputed.get(outpoint);
    if (a === undefined || b === undefined) {
      diffs.push({
        outpoint,
        field: 'presence',
        index: a === undefined ? 'absent' : 'present',
        recomputed: b === undefined ? 'absent' : 'present',
      });
      continue;
    }
    for (const field of ['owner', 'amount', 'op', 'spent'] as const) {
      if (a[field] !== b[field])
        diffs.push({ outpoint, field, index: String(a[field]), recomputed: String(b[field]) });
    }
  }
  return diffs;
}

/** Unspent balances per owner (burns left out). */
export function balancesOf(outputs: ReadonlyMap<string, AuditOutput>): Map<string, bigint> {
  const balances = new Map<string, bigint>();
  for (const o of outputs.values()) {
    if (o.spent || o.op === 'burn') continue;
    balances.set(o.owner, (balances.get(o.owner) ?? 0n) + o.amount);
  }
  return balances;
}

export function supplyOf(
  outputs: ReadonlyMap<string, AuditOutput>,
  token: AuditToken,
  seizedOutpoints: ReadonlySet<string> = new Set(),
): SupplySplit {
  let circulating = 0n;
  let treasury = 0n;
  let burned = 0n;
  let redeemed = 0n;
  let seized = 0n;
  for (const [outpoint, o] of outputs) {
    if (o.op === 'burn') burned += o.amount;
    else if (o.spent) continue;
    else if (o.owner === token.burnAddress) redeemed += o.amount;
    else if (o.owner === token.mintAddress) treasury += o.amount;
    else if (seizedOutpoints.has(outpoint)) seized += o.amount;
    else circulating += o.amount;
  }
  return { circulating, treasury, burned, redeemed, seized };
}

/**
 * Whether the supply split adds up to what the deploy minted: tokens are never made after it, so
 * a total above or below says a live transaction spends what no live transaction created (its
 * parent failed, and it lived on). Null when they agree, or when the deploy is not among the
 * transactions (nothing to compare with).
 */
export function conservationDrift(
  outputs: ReadonlyMap<string, AuditOutput>,
  token: AuditToken,
  split: SupplySplit,
): { readonly genesis: bigint; readonly total: bigint } | null {
  const genesis = outputs.get(token.tokenId)?.amount;
  if (genesis === undefined) return null;
  const total = split.circulating + split.treasury + split.burned + split.redeemed + split.seized;
  return total === genesis ? null : { genesis, total };
}
