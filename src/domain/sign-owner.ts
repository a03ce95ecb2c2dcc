// Owner signatures the way wallets make them: sighash ALL|ANYONECANPAY|FORKID over each token
// input, unlocking script `<sig> <pubkey>` (the reference client's signAllInputs). The service
// uses it for transfers out of the addresses it holds (mint, fee).
import type { Transaction } from '@bsv/sdk';
import { lockingScriptOf, unlockingScriptOf } from '../crypto/script-objects.js';
import { publicKeyOf, signDigest } from '../crypto/secp256k1.js';
import { sighashDigest } from '../crypto/sighash.js';
import { SIGHASH_OWNER } from '../crypto/signature-encoding.js';
import { concatBytes, pushData } from './script-chunks.js';

export interface OwnedSource {
  readonly lockingScript: Uint8Array;
  readonly satoshis: bigint;
}

export function signOwnerInputs(
  tx: Transaction,
  sources: readonly OwnedSource[],
  key: Uint8Array,
  scope: number = SIGHASH_OWNER,
): void {
  const pub = publicKeyOf(key);
  const unlocks = sources.map((source, i) => {
    const digest = sighashDigest(tx, i, lockingScriptOf(source.lockingScript), source.satoshis, scope);
    return concatBytes([
      pushData(concatBytes([signDigest(digest, key), Uint8Array.of(scope)])),
      pushData(pub),
    ]);
  });
  for (const [i, script] of unlocks.entries()) tx.inputs[i]!.unlockingScript = unlockingScriptOf(script);
}
