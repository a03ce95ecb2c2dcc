// What the writer believes of a submission an api process sent it: nothing it can check
// (docs/adr/0007-one-writer-per-deployment.md, "an internal hop trusts nothing it could check").
// The writer reads the cosigned raw transaction itself and derives from it and from the index
// what it writes: the txid, the token inputs and the funding input, every token output's owner,
// amount, op, script and satoshis, the senders and receivers. It refuses a submission whose token
// inputs do not carry this service's approver signature (ALL|FORKID, over the whole transaction)
// and their owner's (ALL|ANYONECANPAY|FORKID, by the key of the owner the index holds: the
// approver key signs anything, the owner's is what says the owner spends), whose amounts do not
// balance, whose claimed fields disagree with what it derived, or whose
// times and free fields are out of bounds. Pure, given the token outputs the index holds.
import type { Transaction } from '@bsv/sdk';
import { hash160 } from '../crypto/hash.js';
import { lockingScriptOf } from '../crypto/script-objects.js';
import type { SignatureHashCache } from '../crypto/sighash.js';
import { SIGHASH_ALL_FORKID, SIGHASH_OWNER } from '../crypto/signature-encoding.js';
import { txidOf } from '../crypto/txid.js';
import { pubKeyHashOf } from '../domain/address.js';
import { classifyOutput } from '../domain/output-kind.js';
import { readTransaction, UnreadableTransactionError } from '../domain/read-transaction.js';
import { bytesEqual, readChunks } from '../domain/script-chunks.js';
import type { TokenConfig } from '../domain/token-config.js';
import { parseCosignScript, parseTokenScript } from '../domain/token-script.js';
import { checkSig } from '../domain/verify-spend.js';
import type { NewTokenOutput, Submission } from '../store/submissions/submission-writes.js';

/** A token output as the index holds it (what the check needs of it). */
export interface IndexedOutput {
  readonly owner: string;
  readonly amount: bigint;
  readonly op: string;
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
}

export interface SubmissionBounds {
  /** How far a submission's `now` may be from the writer's clock, ms. */
  readonly maxClockSkewMs: number;
  /** Latest first look after `now` the writer accepts (the tracker's firstLookAfterMs plus slack), ms. */
  readonly maxFirstLookMs: number;
}

export type SubmissionCheck =
  | { readonly ok: true; readonly submission: Submission }
  | { readonly ok: false; readonly reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TXID = /^[0-9a-f]{64}$/;
/** The funding input and its unlocking script, beyond the largest transaction a client may send. */
const COSIGN_GROWTH_BYTES = 1_000;
const MAX_LEASE_OWNER = 200;
const MAX_CALLBACK_URL = 2_048;
// The route takes 256 characters, up to 4 bytes each in UTF-8, sealed with 29 bytes around them.
const MAX_SECRET_BYTES = 1_053;
/** A request id as the frame takes it (request-id.ts: at most 128 characters). */
const MAX_REQUEST_ID = 128;

const refuse = (reason: string): SubmissionCheck => ({ ok: false, reason });
const key = (txid: string, vout: number) => `${txid}_${vout}`;
const unique = (list: readonly string[]) => [...new Set(list)];

export function checkSubmission(
  claimed: Submission,
  known: ReadonlyMap<string, IndexedOutput>,
  token: TokenConfig,
  now: Date,
  bounds: SubmissionBounds,
): SubmissionCheck {
  const fields = fieldRefusal(claimed, now, bounds);
  if (fields !== null) return refuse(fields);

  const raw = claimed.rawTx;
  if (raw.length > token.limits.maxTxBytes + COSIGN_GROWTH_BYTES)
    return refuse(`rawTx: ${raw.length} bytes, more than any cosigned transfer`);
  // The writer trusts no sender: counts the bytes cannot hold would make the sdk's parser
  // allocate until the writer dies (readTransaction checks the layout first, trailing bytes too).
  let tx: Transaction;
  try {
    tx = readTransaction(raw);
  } catch (err) {
    return refuse(
      `rawTx: does not parse${err instanceof UnreadableTransactionError ? `: ${err.reason}` : ''}`,
    );
  }
  const txid = txidOf(raw);
  if (claimed.txid !== txid) return refuse(`txid: ${claimed.txid} is not the raw transaction's (${txid})`);

  // Inputs: the token inputs in order, then the funding input (complete-transfer.ts appends it).
  if (tx.inputs.length < 2) return refuse('rawTx: a cosigned transfer has token inputs and a funding input');
  const outpoints = tx.inputs.map((i) => ({ txid: i.sourceTXID ?? '', vout: i.sourceOutputIndex }));
  const funding = outpoints[outpoints.length - 1]!;
  const tokenInputs = outpoints.slice(0, -1);
  if (key(funding.txid, funding.vout) !== key(claimed.funding.txid, claimed.funding.vout))
    return refuse("funding: not the raw transaction's last input");
  if (
    claimed.inputs.length !== tokenInputs.length ||
    claimed.inputs.some((o, n) => key(o.txid, o.vout) !== key(tokenInputs[n]!.txid, tokenInputs[n]!.vout))
  )
    return refuse("inputs: not the raw transaction's token inputs");

  const spent: IndexedOutput[] = [];
  const cache: SignatureHashCache = {};
  for (const [i, o] of tokenInputs.entries()) {
    const output = known.get(key(o.txid, o.vout));
    if (output === undefined) return refuse(`input ${i}: not a token output the index holds`);
    if (output.op === 'burn') return refuse(`input ${i}: a burned output`);
    const signatures = signaturesRefusal(tx, i, output, token.approver, cache);
    if (signatures !== null) return refuse(`input ${i}: ${signatures}`);
    spent.push(output);
  }

  const outputs: NewTokenOutput[] = [];
  let dataOutputs = 0;
  for (const [vout, out] of tx.outputs.entries()) {
    const script = out.lockingScript.toUint8Array();
    const satoshis = BigInt(out.satoshis ?? 0);
    const kind = classifyOutput(script, satoshis, vout, token);
    if (kind.kind === 'refused') return refuse(`output ${vout}: ${kind.detail}`);
    if (kind.kind === 'data') {
      if (++dataOutputs > 1) return refuse(`output ${vout}: a second data output`);
      continue;
    }
    outputs.push({ vout, owner: kind.owner, amount: kind.amount, op: kind.op, script, satoshis });
  }
  if (outputs.length === 0) return refuse('rawTx: no token outputs');
  const totalIn = spent.reduce((sum, o) => sum + o.amount, 0n);
  const totalOut = outputs.reduce((sum, o) => sum + o.amount, 0n);
  if (totalIn !== totalOut) return refuse(`amounts: inputs carry ${totalIn}, outputs ${totalOut}`);

  return {
    ok: true,
    submission: {
      ...claimed,
      txid,
      inputs: tokenInputs,
      funding,
      outputs,
      senders: unique(spent.map((o) => o.owner)),
      receivers: unique(outputs.map((o) => o.owner)),
    },
  };
}

/**
 * Null when input `i` carries both signatures its unlocking script must: first this service's
 * approver signature over the whole transaction (the output it spends is locked to this
 * approver, and the first push is a signature by that key with ALL|FORKID, the only type
 * complete-transfer.ts makes); then its owner's, the second push an ALL|ANYONECANPAY|FORKID
 * signature (it commits to its own input, so the funding input added after it leaves it valid)
 * by the third push, a public key whose hash is that of the owner the index holds.
 */
function signaturesRefusal(
  tx: Transaction,
  i: number,
  output: IndexedOutput,
  approver: Uint8Array,
  cache: SignatureHashCache,
): string | null {
  const lock = parseTokenScript(output.lockingScript) ?? parseCosignScript(output.lockingScript);
  if (lock === null || !bytesEqual(lock.approver, approver)) return 'not locked to this approver';
  const chunks = readChunks(tx.inputs[i]!.unlockingScript?.toUint8Array() ?? new Uint8Array());
  const [approverSignature, ownerSignature, publicKey] =
    chunks?.length === 3 ? chunks.map((c) => c.data) : [];
  if (approverSignature === undefined || approverSignature.length === 0) return 'no approver signature';
  if (approverSignature[approverSignature.length - 1] !== SIGHASH_ALL_FORKID)
    return 'the approver signature is not ALL|FORKID';
  const source = { lockingScript: lockingScriptOf(output.lockingScript), satoshis: output.satoshis };
  const approved = checkSig(tx, i, source, approverSignature, approver, cache);
  if (!approved.ok) return `approver signature: ${approved.reason}`;
  if (ownerSignature === undefined || publicKey === undefined || ownerSignature.length === 0)
    return 'no owner signature';
  if (ownerSignature[ownerSignature.length - 1] !== SIGHASH_OWNER)
    return 'the owner signature is not ALL|ANYONECANPAY|FORKID';
  const ownerPkh = pubKeyHashOf(output.owner);
  if (ownerPkh === null || !bytesEqual(hash160(publicKey), ownerPkh))
    return `the owner signature's key is not ${output.owner}'s`;
  const owned = checkSig(tx, i, source, ownerSignature, publicKey, cache);
  return owned.ok ? null : `owner signature: ${owned.reason}`;
}

/** The fields nothing in the transaction says: bounded. Null when all are within bounds. */
function fieldRefusal(s: Submission, now: Date, bounds: SubmissionBounds): string | null {
  if (!UUID.test(s.ticketId)) return 'ticketId: not a UUID';
  if (!TXID.test(s.submittedTxid)) return 'submittedTxid: not a txid';
  if (s.leaseOwner.length === 0 || s.leaseOwner.length > MAX_LEASE_OWNER) return 'leaseOwner: out of bounds';
  if (s.apiKeyId !== null && !UUID.test(s.apiKeyId)) return 'apiKeyId: not a UUID';
  if (s.requestId != null && (s.requestId.length === 0 || s.requestId.length > MAX_REQUEST_ID))
    return 'requestId: out of bounds';
  if (
    s.callbackUrl !== null &&
    (s.callbackUrl.length > MAX_CALLBACK_URL || !/^https?:\/\//.test(s.callbackUrl))
  )
    return 'callbackUrl: out of bounds';
  if (s.callbackSecretEnc !== null && s.callbackSecretEnc.length > MAX_SECRET_BYTES)
    return 'callbackSecretEnc: out of bounds';
  if (s.callbackSecretEnc !== null && s.callbackUrl === null)
    return 'callbackSecretEnc: without a callbackUrl';
  const skew = Math.abs(s.now.getTime() - now.getTime());
  if (skew > bounds.maxClockSkewMs) return `now: ${skew} ms from the writer's clock`;
  const firstLook = s.firstCheckAt.getTime() - s.now.getTime();
  if (firstLook < 0 || firstLook > bounds.maxFirstLookMs)
    return `firstCheckAt: ${firstLook} ms after now, outside 0..${bounds.maxFirstLookMs}`;
  return null;
}
