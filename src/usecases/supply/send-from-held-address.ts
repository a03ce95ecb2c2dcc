// A transfer the service builds out of an address whose key it holds (the mint treasury, the fee
// address): enough of its outputs, the requested outputs, change back to it, signed as a wallet
// signs (ALL|ANYONECANPAY|FORKID), then the same pipeline as every wallet's transfer.
import { Transaction } from '@bsv/sdk';
import { lockingScriptOf } from '../../crypto/script-objects.js';
import { pubKeyHashOf } from '../../domain/address.js';
import { DomainError } from '../../domain/domain-error.js';
import { signOwnerInputs } from '../../domain/sign-owner.js';
import { buildTokenScript } from '../../domain/token-script.js';
import { type UnspentOutput, unspentOutputs } from '../../store/wallets/wallet-queries.js';
import type { ApiContext, ServiceContext } from '../context.js';
import { submitTransfer } from '../submit/submit-transfer.js';

export interface HeldOutput {
  readonly op: 'transfer' | 'burn';
  readonly to: string;
  readonly amount: bigint;
}

export interface HeldTransfer {
  /** The held address the tokens come out of, and its private key. */
  readonly from: string;
  readonly key: Uint8Array;
  readonly outputs: readonly HeldOutput[];
}

/**
 * Where a retried request finds the transaction its first attempt built (Idempotency-Key on the
 * admin routes). The transaction is kept before it is submitted, so that a retry after a crash
 * submits the same one again (answered with its ticket when it had committed) and never builds a
 * second.
 */
export interface PreparedTransaction {
  /** The transaction an earlier attempt of this request kept, or null. */
  earlier(): Promise<Uint8Array | null>;
  /** Keeps `raw` as this request's transaction; answers the one to submit (an earlier attempt's wins). */
  keep(raw: Uint8Array): Promise<Uint8Array>;
  /**
   * After the kept `stale` was refused because another transfer took an input it picked: keeps
   * `fresh` in its place if `stale` can never be committed, and answers the one to submit now
   * (`stale` again while it may yet commit). Absent: such a refusal is the caller's to judge.
   */
  replace?(stale: Uint8Array, fresh: Uint8Array): Promise<Uint8Array>;
}

export interface HeldTransferResult {
  readonly ticketId: string;
  readonly txid: string;
}

export async function sendFromHeldAddress(
  ctx: ApiContext,
  req: HeldTransfer,
  prepared?: PreparedTransaction,
): Promise<HeldTransferResult> {
  const submitted = await inTurn(req.from, async () => {
    let raw = await firstAttempt(ctx, req, prepared);
    for (let attempt = 1; ; attempt++) {
      try {
        return await submitTransfer(ctx, { raw, callbackUrl: null, callbackSecretEnc: null, apiKeyId: null });
      } catch (err) {
        // Another process's transfer took an output this one picked. Built here just now and
        // kept nowhere, it reached no ticket and so no ledger, and is built again. A kept one
        // (a retried request's) gives way to a new build only once the store judges it can never
        // be committed; a seizure's reissue is the seizure's to judge.
        if (attempt >= PICKS || !isTakenInput(err)) throw err;
        if (prepared !== undefined && prepared.replace === undefined) throw err;
        const fresh = await buildHeldTransfer(ctx, req);
        raw = prepared?.replace === undefined ? fresh : await prepared.replace(raw, fresh);
      }
    }
  });
  const outcome = await submitted.broadcast;
  if (outcome.kind === 'rejected') throw new DomainError('BROADCAST_REJECTED', outcome.reason);
  return { ticketId: submitted.ticketId, txid: submitted.txid };
}

/** The transaction an earlier attempt kept, or one built now (and kept, when the caller keeps them). */
async function firstAttempt(
  ctx: ApiContext,
  req: HeldTransfer,
  prepared: PreparedTransaction | undefined,
): Promise<Uint8Array> {
  const earlier = (await prepared?.earlier()) ?? null;
  if (earlier !== null) return earlier;
  const built = await buildHeldTransfer(ctx, req);
  return prepared === undefined ? built : prepared.keep(built);
}

/** Times a transfer is built again because another process's took an output it picked. */
const PICKS = 3;

/**
 * The build and commit of this process's transfers out of one held address, one at a time: two
 * at once would pick the same oldest outputs and the second be refused (INPUT_SPENT). Module
 * state, since the outputs it guards are the database's, whichever context asks.
 */
const turns = new Map<string, Promise<unknown>>();

function inTurn<T>(address: string, work: () => Promise<T>): Promise<T> {
  // The chain holds only settled turns (`done` never rejects): the next starts after it.
  const mine = (turns.get(address) ?? Promise.resolve()).then(work);
  const done = mine.then(
    () => undefined,
    () => undefined,
  );
  turns.set(address, done);
  void done.then(() => {
    if (turns.get(address) === done) turns.delete(address);
  });
  return mine;
}

/** Refused because an input is spent or held by another transaction. */
export function isTakenInput(err: unknown): boolean {
  return err instanceof DomainError && (err.code === 'INPUT_SPENT' || err.code === 'INPUT_LOCKED');
}

/** The transfer built and signed with the held address's key, not yet submitted. */
async function buildHeldTransfer(ctx: ServiceContext, req: HeldTransfer): Promise<Uint8Array> {
  const { token } = ctx;
  const amount = req.outputs.reduce((sum, o) => sum + o.amount, 0n);
  if (req.outputs.some((o) => o.amount <= 0n))
    throw new DomainError('INVALID_AMOUNT', 'the amount must be positive');
  const chosen = await pickOutputs(ctx, req.from, amount);
  const total = chosen.reduce((sum, o) => sum + o.amount, 0n);

  const tx = new Transaction(1, [], [], 0);
  for (const o of chosen)
    tx.addInput({ sourceTXID: o.txid, sourceOutputIndex: o.vout, sequence: 0xffffffff });
  const output = (op: 'transfer' | 'burn', address: string, amt: bigint) => {
    const ownerPkh = pubKeyHashOf(address);
    if (ownerPkh === null) throw new DomainError('INVALID_ADDRESS', `not a P2PKH address: ${address}`);
    const script = buildTokenScript({
      inscription: { op, id: token.tokenId, amt },
      ownerPkh,
      approver: token.approver,
    });
    return { satoshis: 1, lockingScript: lockingScriptOf(script) };
  };
  for (const o of req.outputs) tx.addOutput(output(o.op, o.to, o.amount));
  if (total > amount) tx.addOutput(output('transfer', req.from, total - amount));
  signOwnerInputs(
    tx,
    chosen.map((o) => ({ lockingScript: o.script, satoshis: o.satoshis })),
    req.key,
  );
  return tx.toUint8Array();
}

/** Oldest spendable outputs of `address` until they cover `amount`. */
async function pickOutputs(ctx: ServiceContext, address: string, amount: bigint): Promise<UnspentOutput[]> {
  const chosen: UnspentOutput[] = [];
  let total = 0n;
  for (let page = 1; total < amount; page++) {
    const outputs = await unspentOutputs(ctx.db, { addresses: [address], page, size: 100, order: 'asc' });
    if (outputs.length === 0)
      throw new DomainError('INVALID_AMOUNT', `${address} holds ${total}, less than ${amount}`);
    for (const o of outputs) {
      if (total >= amount) break;
      chosen.push(o);
      total += o.amount;
    }
  }
  return chosen;
}
