// Builds owner-signed transfers by hand (not through the client), so a test can break
// exactly one rule: any outputs, any sighash type, any signer.
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { SIGHASH_OWNER } from '../../src/crypto/signature-encoding.js';
import { signOwnerInputs } from '../../src/domain/sign-owner.js';
import { buildTokenScript } from '../../src/domain/token-script.js';
import type { KnownTokenOutput } from '../../src/domain/validate-transfer.js';
import { lockingFrom, type Party } from './token-world.js';

export interface OutputSpec {
  readonly script: Uint8Array;
  readonly satoshis: bigint;
}

export interface BuildOptions {
  readonly inputs: readonly KnownTokenOutput[];
  readonly outputs: readonly OutputSpec[];
  /** The key signing every input (defaults: none given means unsigned). */
  readonly signer?: Party;
  readonly sighash?: number;
  readonly lockTime?: number;
  readonly sequence?: number;
  readonly version?: number;
}

export function tokenOutput(
  owner: Party | Uint8Array,
  amt: bigint,
  tokenId: string,
  approver: Uint8Array,
  op: 'transfer' | 'burn' = 'transfer',
): OutputSpec {
  const ownerPkh = owner instanceof Uint8Array ? owner : owner.pkh;
  return {
    script: buildTokenScript({ inscription: { op, id: tokenId, amt }, ownerPkh, approver }),
    satoshis: 1n,
  };
}

export function buildTransfer(options: BuildOptions): Uint8Array {
  const tx = new Transaction(options.version ?? 1, [], [], options.lockTime ?? 0);
  for (const input of options.inputs) {
    tx.addInput({
      sourceTXID: input.txid,
      sourceOutputIndex: input.vout,
      unlockingScript: new UnlockingScript(),
      sequence: options.sequence ?? 0xffffffff,
    });
  }
  for (const output of options.outputs) {
    tx.addOutput({ satoshis: Number(output.satoshis), lockingScript: lockingFrom(output.script) });
  }
  if (options.signer !== undefined) {
    signOwnerInputs(tx, options.inputs, options.signer.privateKey, options.sighash ?? SIGHASH_OWNER);
  }
  return tx.toUint8Array();
}
