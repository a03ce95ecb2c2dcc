// Completes a valid transfer: adds the funding input, cosigns every token input with the
// approver key (ALL|FORKID, committing to every input), signs the funding input, then
// verifies every input of the result before anything leaves the process (the owner signatures
// through the verifications validation recorded: their digests are unchanged, so they are not
// verified twice; the signatures made here are verified afresh, as Bitcoin Core verifies every
// signature it makes: a signature corrupted while it was made, by a fault of the machine, must
// not leave, since two signatures of one deterministic nonce can give the key away).
//
// The transaction completed is the one validation read (`valid.parsed.tx`, taken over: it
// gains the funding input and the unlocking scripts), not a fresh reading of its bytes, so the
// owner signatures are verified over exactly what was validated.
import { type Transaction, UnlockingScript } from '@bsv/sdk';
import { hash160 } from '../crypto/hash.js';
import { lockingScriptOf, unlockingScriptOf } from '../crypto/script-objects.js';
import { publicKeyOf, signDigest } from '../crypto/secp256k1.js';
import type { SignatureHashCache } from '../crypto/sighash.js';
import { sighashDigest } from '../crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../crypto/signature-encoding.js';
import { txidOf } from '../crypto/txid.js';
import { networkFee } from './network-fee.js';
import { concatBytes, pushData, readChunks } from './script-chunks.js';
import { buildP2pkhScript } from './token-script.js';
import type { ValidTransfer } from './validate-transfer.js';
import { verifySpend } from './verify-spend.js';

export interface FundingOutput {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
  readonly lockingScript: Uint8Array;
}

export interface CosignKeys {
  /** Private key (32 bytes) whose public key is the token's approver. */
  readonly approver: Uint8Array;
  /** Private key (32 bytes) of the funding pool's P2PKH outputs. */
  readonly funding: Uint8Array;
}

export interface CompletedTransfer {
  readonly tx: Transaction;
  readonly raw: Uint8Array;
  readonly txid: string;
  /** Satoshis the miner receives. */
  readonly networkFee: bigint;
}

export class CompletionError extends Error {
  override name = 'CompletionError';
}

export function completeTransfer(
  valid: ValidTransfer,
  funding: FundingOutput,
  keys: CosignKeys,
  satoshisPerKb: bigint,
): CompletedTransfer {
  const { publicKey: fundingPub, script: fundingScript } = fundingLock(keys.funding);
  if (Buffer.compare(Buffer.from(fundingScript), Buffer.from(funding.lockingScript)) !== 0) {
    throw new CompletionError('funding output is not locked to the funding key');
  }
  const tx = valid.parsed.tx;
  tx.addInput({
    sourceTXID: funding.txid,
    sourceOutputIndex: funding.vout,
    unlockingScript: new UnlockingScript(),
    sequence: 0xffffffff,
  });
  const sources = [
    ...valid.inputs.map((o) => ({ lockingScript: lockingScriptOf(o.lockingScript), satoshis: o.satoshis })),
    { lockingScript: lockingScriptOf(funding.lockingScript), satoshis: funding.satoshis },
  ];

  const cache: SignatureHashCache = {};
  const unlocking: Uint8Array[] = [];
  for (const [i, input] of valid.inputs.entries()) {
    const owner = readChunks(tx.inputs[i]!.unlockingScript!.toUint8Array());
    const ownerSig = owner?.[0]?.data;
    const ownerPub = owner?.[1]?.data;
    if (ownerSig === undefined || ownerPub === undefined)
      throw new CompletionError(`input ${i} lost its owner unlock`);
    const digest = sighashDigest(tx, i, sources[i]!.lockingScript, input.satoshis, SIGHASH_ALL_FORKID, cache);
    const approverSig = withHashType(signDigest(digest, keys.approver));
    unlocking.push(concatBytes([pushData(approverSig), pushData(ownerSig), pushData(ownerPub)]));
  }
  const f = valid.inputs.length;
  const fundingDigest = sighashDigest(
    tx,
    f,
    sources[f]!.lockingScript,
    funding.satoshis,
    SIGHASH_ALL_FORKID,
    cache,
  );
  unlocking.push(
    concatBytes([pushData(withHashType(signDigest(fundingDigest, keys.funding))), pushData(fundingPub)]),
  );
  for (const [i, script] of unlocking.entries()) tx.inputs[i]!.unlockingScript = unlockingScriptOf(script);

  // A cache of its own: the digests are computed again, so a fault in those signing used shows.
  const verifyCache: SignatureHashCache = {};
  for (const [i, source] of sources.entries()) {
    const check = verifySpend(tx, i, source, verifyCache, valid.verifiedSignatures);
    if (!check.ok) throw new CompletionError(`input ${i} does not verify after cosigning: ${check.reason}`);
  }
  const raw = tx.toUint8Array();
  const paid =
    sources.reduce((s, o) => s + o.satoshis, 0n) -
    tx.outputs.reduce((s, o) => s + BigInt(o.satoshis ?? 0), 0n);
  const needed = networkFee(raw.length, satoshisPerKb);
  if (paid < needed) throw new CompletionError(`funding pays ${paid} satoshis, the network asks ${needed}`);
  return { tx, raw, txid: txidOf(raw), networkFee: paid };
}

const fundingLocks = new WeakMap<Uint8Array, { publicKey: Uint8Array; script: Uint8Array }>();

/** The funding key's public key and P2PKH script, computed once per key. */
function fundingLock(key: Uint8Array): { publicKey: Uint8Array; script: Uint8Array } {
  let lock = fundingLocks.get(key);
  if (lock === undefined) {
    const publicKey = publicKeyOf(key);
    lock = { publicKey, script: buildP2pkhScript(hash160(publicKey)) };
    fundingLocks.set(key, lock);
  }
  return lock;
}

function withHashType(der: Uint8Array): Uint8Array {
  return concatBytes([der, Uint8Array.of(SIGHASH_ALL_FORKID)]);
}
