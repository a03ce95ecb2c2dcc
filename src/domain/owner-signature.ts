// Checks a submitted token input's owner signature: the wallet's unlocking script
// `<owner sig> <owner pubkey>`, signed with sighash ALL|ANYONECANPAY|FORKID (0xc1).
import type { Transaction } from '@bsv/sdk';
import { hash160 } from '../crypto/hash.js';
import type { SignatureHashCache } from '../crypto/sighash.js';
import { SIGHASH_OWNER } from '../crypto/signature-encoding.js';
import type { VerifiedSignatures } from '../crypto/verified-signatures.js';
import { bytesEqual, readChunks } from './script-chunks.js';
import { checkSig, type SourceOutput } from './verify-spend.js';

export type OwnerCheck =
  | { readonly ok: true; readonly signature: Uint8Array; readonly publicKey: Uint8Array }
  | { readonly ok: false; readonly code: 'BAD_OWNER_SIGNATURE' | 'BAD_SIGHASH'; readonly reason: string };

export function checkOwnerSignature(
  tx: Transaction,
  inputIndex: number,
  source: SourceOutput,
  ownerPkh: Uint8Array,
  cache?: SignatureHashCache,
  verified?: VerifiedSignatures,
): OwnerCheck {
  const unlocking = tx.inputs[inputIndex]?.unlockingScript?.toUint8Array();
  const chunks = unlocking === undefined ? null : readChunks(unlocking);
  const sig = chunks?.[0]?.data;
  const pub = chunks?.[1]?.data;
  if (chunks?.length !== 2 || sig === undefined || pub === undefined || sig.length === 0) {
    return bad('BAD_OWNER_SIGNATURE', 'unlocking script must be <owner sig> <owner pubkey>');
  }
  if (chunks[0]!.op !== sig.length || chunks[1]!.op !== pub.length) {
    return bad('BAD_OWNER_SIGNATURE', 'unlocking script pushes are not minimal');
  }
  const hashType = sig[sig.length - 1]!;
  if (hashType !== SIGHASH_OWNER) {
    return bad(
      'BAD_SIGHASH',
      `sighash type is 0x${hashType.toString(16)}, must be 0xc1 (ALL|ANYONECANPAY|FORKID)`,
    );
  }
  if (!bytesEqual(hash160(pub), ownerPkh)) return bad('BAD_OWNER_SIGNATURE', "public key is not the owner's");
  const check = checkSig(tx, inputIndex, source, sig, pub, cache, verified);
  if (!check.ok) return bad('BAD_OWNER_SIGNATURE', check.reason);
  return { ok: true, signature: sig, publicKey: pub };
}

function bad(code: 'BAD_OWNER_SIGNATURE' | 'BAD_SIGHASH', reason: string): OwnerCheck {
  return { ok: false, code, reason };
}
