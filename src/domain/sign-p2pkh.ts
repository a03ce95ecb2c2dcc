// Signs P2PKH inputs (ALL|FORKID) of a transaction the service builds itself: the token's
// deploy and the funding pool's splits.
import type { Transaction } from '@bsv/sdk';
import { lockingScriptOf, unlockingScriptOf } from '../crypto/script-objects.js';
import { publicKeyOf, signDigest } from '../crypto/secp256k1.js';
import { type SignatureHashCache, sighashDigest } from '../crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../crypto/signature-encoding.js';
import { concatBytes, pushData } from './script-chunks.js';
import { verifySpend } from './verify-spend.js';

export interface P2pkhSource {
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
}

/** Signs every input with `key`, then verifies each; throws if one does not verify. */
export function signP2pkhInputs(tx: Transaction, sources: readonly P2pkhSource[], key: Uint8Array): void {
  const pub = publicKeyOf(key);
  const cache: SignatureHashCache = {};
  const unlocks = sources.map((source, i) => {
    const digest = sighashDigest(
      tx,
      i,
      lockingScriptOf(source.lockingScript),
      source.satoshis,
      SIGHASH_ALL_FORKID,
      cache,
    );
    const sig = concatBytes([signDigest(digest, key), Uint8Array.of(SIGHASH_ALL_FORKID)]);
    return concatBytes([pushData(sig), pushData(pub)]);
  });
  for (const [i, script] of unlocks.entries()) tx.inputs[i]!.unlockingScript = unlockingScriptOf(script);
  for (const [i, source] of sources.entries()) {
    const check = verifySpend(tx, i, {
      lockingScript: lockingScriptOf(source.lockingScript),
      satoshis: source.satoshis,
    });
    if (!check.ok) throw new Error(`input ${i} does not verify: ${check.reason}`);
  }
}
