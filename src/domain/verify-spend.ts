// Verifies that an input's unlocking script spends the output it points to.
// Fast path (libsecp256k1) for the two templates this service lives on: P2PKH and the
// cosign template (with or without the BSV-21 envelope in front); every other script goes
// through @bsv/sdk's interpreter (Spend). Tests cross-check both paths on every fixture.
import { type LockingScript, Spend, type Transaction } from '@bsv/sdk';
import { hash160 } from '../crypto/hash.js';
import { verifyDigest } from '../crypto/secp256k1.js';
import type { SignatureHashCache } from '../crypto/sighash.js';
import { sighashDigest } from '../crypto/sighash.js';
import {
  isDefinedForkIdHashType,
  isValidPublicKeyEncoding,
  isValidSignatureEncoding,
} from '../crypto/signature-encoding.js';
import type { VerifiedSignatures } from '../crypto/verified-signatures.js';
import { bytesEqual, type Chunk, readChunks } from './script-chunks.js';
import { parseCosignScript, parseP2pkhScript, parseTokenScript } from './token-script.js';

export type SpendCheck = { ok: true } | { ok: false; reason: string };

export interface SourceOutput {
  readonly lockingScript: LockingScript;
  readonly satoshis: bigint;
}

const OK: SpendCheck = { ok: true };
const fail = (reason: string): SpendCheck => ({ ok: false, reason });

export function verifySpend(
  tx: Transaction,
  inputIndex: number,
  source: SourceOutput,
  cache?: SignatureHashCache,
  verified?: VerifiedSignatures,
): SpendCheck {
  const input = tx.inputs[inputIndex];
  if (input === undefined) return fail(`input ${inputIndex} does not exist`);
  const script = source.lockingScript.toUint8Array();
  const unlocking = input.unlockingScript?.toUint8Array();
  if (unlocking === undefined) return fail('missing unlocking script');

  const p2pkh = parseP2pkhScript(script);
  if (p2pkh !== null) {
    const pushes = minimalPushes(unlocking, 2);
    if (pushes === null) return fail('P2PKH unlocking script must be <sig> <pubkey>');
    const [sig, pub] = pushes as [Uint8Array, Uint8Array];
    if (!bytesEqual(hash160(pub), p2pkh)) return fail('public key does not match the pubkey hash');
    return checkSig(tx, inputIndex, source, sig, pub, cache, verified);
  }

  const token = parseTokenScript(script);
  const cosign = token ?? parseCosignScript(script);
  if (cosign !== null) {
    const pushes = minimalPushes(unlocking, 3);
    if (pushes === null)
      return fail('cosign unlocking script must be <approver sig> <owner sig> <owner pubkey>');
    const [approverSig, ownerSig, ownerPub] = pushes as [Uint8Array, Uint8Array, Uint8Array];
    if (!bytesEqual(hash160(ownerPub), cosign.ownerPkh)) return fail('owner public key does not match');
    const owner = checkSig(tx, inputIndex, source, ownerSig, ownerPub, cache, verified);
    if (!owner.ok) return fail(`owner signature: ${owner.reason}`);
    const approver = checkSig(tx, inputIndex, source, approverSig, cosign.approver, cache, verified);
    if (!approver.ok) return fail(`approver signature: ${approver.reason}`);
    return OK;
  }

  return interpret(tx, inputIndex, source);
}

/**
 * One checksig as the network runs it: encodings first, then ECDSA over the sighash (through
 * `verified`, when given, so a check that succeeded before on the same bytes is not run again).
 */
export function checkSig(
  tx: Transaction,
  inputIndex: number,
  source: SourceOutput,
  sigWithHashType: Uint8Array,
  publicKey: Uint8Array,
  cache?: SignatureHashCache,
  verified?: VerifiedSignatures,
): SpendCheck {
  if (sigWithHashType.length === 0) return fail('empty signature');
  if (!isValidSignatureEncoding(sigWithHashType)) return fail('signature is not strict DER');
  const hashType = sigWithHashType[sigWithHashType.length - 1]!;
  if (!isDefinedForkIdHashType(hashType)) return fail(`undefined sighash type 0x${hashType.toString(16)}`);
  if (!isValidPublicKeyEncoding(publicKey)) return fail('invalid public key encoding');
  const der = sigWithHashType.subarray(0, sigWithHashType.length - 1);
  const digest = sighashDigest(tx, inputIndex, source.lockingScript, source.satoshis, hashType, cache);
  const ok =
    verified === undefined ? verifyDigest(der, digest, publicKey) : verified.verify(der, digest, publicKey);
  return ok ? OK : fail('signature does not verify (or S is high)');
}

/** Exactly `count` pushes, each in its minimal encoding (SIGPUSHONLY and MINIMALDATA). */
function minimalPushes(unlocking: Uint8Array, count: number): Uint8Array[] | null {
  const chunks = readChunks(unlocking);
  if (chunks === null || chunks.length !== count) return null;
  const out: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (!isMinimalDirectPush(chunk)) return null;
    out.push(chunk.data!);
  }
  return out;
}

function isMinimalDirectPush(chunk: Chunk): boolean {
  const n = chunk.data?.length ?? -1;
  return n >= 2 && n <= 75 && chunk.op === n;
}

function interpret(tx: Transaction, inputIndex: number, source: SourceOutput): SpendCheck {
  const input = tx.inputs[inputIndex]!;
  try {
    const spend = new Spend({
      sourceTXID: input.sourceTXID ?? input.sourceTransaction!.id('hex'),
      sourceOutputIndex: input.sourceOutputIndex,
      sourceSatoshis: Number(source.satoshis),
      lockingScript: source.lockingScript,
      transactionVersion: tx.version,
      otherInputs: tx.inputs.filter((_, i) => i !== inputIndex),
      outputs: tx.outputs,
      unlockingScript: input.unlockingScript!,
      inputSequence: input.sequence ?? 0xffffffff,
      inputIndex,
      lockTime: tx.lockTime,
    });
    return spend.validate() ? OK : fail('script evaluated to false');
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
}
