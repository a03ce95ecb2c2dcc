// The operator's keys: approver (cosigns every transfer), mint (holds the treasury), fee
// (receives transfer fees), funding (pays network fees). Embedded: a 0600 file in the data
// folder, created at first start. Production: hex private keys from the environment.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hash160 } from '../crypto/hash.js';
import { isValidPrivateKey, publicKeyOf } from '../crypto/secp256k1.js';
import { p2pkhAddress } from '../domain/address.js';
import { toHex } from '../domain/script-chunks.js';

export interface OperatorKeys {
  readonly approver: Uint8Array;
  readonly mint: Uint8Array;
  readonly fee: Uint8Array;
  readonly funding: Uint8Array;
}

const NAMES = ['approver', 'mint', 'fee', 'funding'] as const;

export interface OperatorAddresses {
  readonly approverPublicKey: Uint8Array;
  readonly mintAddress: string;
  readonly feeAddress: string;
  readonly fundingAddress: string;
  /** Keyless: the hash of a text, not of a public key, so no one can spend what is sent there. */
  readonly burnAddress: string;
}

export function addressesOf(keys: OperatorKeys): OperatorAddresses {
  const addressOf = (key: Uint8Array) => p2pkhAddress(hash160(publicKeyOf(key)));
  const approverPublicKey = publicKeyOf(keys.approver);
  return {
    approverPublicKey,
    mintAddress: addressOf(keys.mint),
    feeAddress: addressOf(keys.fee),
    fundingAddress: addressOf(keys.funding),
    burnAddress: p2pkhAddress(
      hash160(new TextEncoder().encode(`tokenproxy burn ${toHex(approverPublicKey)}`)),
    ),
  };
}

/** Reads `<dataDir>/keys.json`, creating it (mode 0600) with fresh keys on first use. */
export function loadOrCreateKeyFile(dataDir: string): OperatorKeys {
  return readOrMakeKeyFile(dataDir).save();
}

export interface KeyFile {
  readonly keys: OperatorKeys;
  /** Whether keys.json was there; when not, `keys` are fresh and nothing is written yet. */
  readonly existed: boolean;
  /**
   * Writes fresh keys to keys.json (mode 0600, exclusively) and answers the keys the file holds:
   * another process's when it wrote first.
   */
  save(): OperatorKeys;
}

/**
 * The keys of `<dataDir>/keys.json`, or fresh keys kept in memory until `save`: a start that is
 * refused (a token deployed with other keys) writes nothing.
 */
export function readOrMakeKeyFile(dataDir: string): KeyFile {
  const path = join(dataDir, 'keys.json');
  const read = () => {
    const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return keysFrom((name) => json[name], `key file ${path}`);
  };
  if (existsSync(path)) {
    const keys = read();
    return { keys, existed: true, save: () => keys };
  }
  const fresh = Object.fromEntries(NAMES.map((n) => [n, randomBytes(32).toString('hex')]));
  return {
    keys: keysFrom((name) => fresh[name as string], 'fresh keys'),
    existed: false,
    save: () => {
      try {
        writeFileSync(path, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      return read();
    },
  };
}

/** Keys from the configuration (approverKey, mintKey, feeKey, fundingKey: 64 hex characters each). */
export function keysFromConfig(
  config: Readonly<Partial<Record<`${(typeof NAMES)[number]}Key`, string>>>,
): OperatorKeys {
  return keysFrom((name) => config[`${name as (typeof NAMES)[number]}Key`], 'configuration');
}

function keysFrom(read: (name: string) => unknown, where: string): OperatorKeys {
  const out: Record<string, Uint8Array> = {};
  for (const name of NAMES) {
    const hex = read(name);
    const key =
      typeof hex === 'string' && /^[0-9a-fA-F]{64}$/.test(hex)
        ? new Uint8Array(Buffer.from(hex, 'hex'))
        : null;
    if (key === null || !isValidPrivateKey(key))
      throw new Error(`${where}: the ${name} key is missing or not a valid private key`);
    out[name] = key;
  }
  return out as unknown as OperatorKeys;
}

/** What the token's settings record of the keys it was deployed with. */
export interface DeployedKeys {
  readonly tokenId: string;
  readonly approver: string;
  readonly mintAddress: string;
  readonly feeAddress: string;
  readonly fundingAddress: string;
}

/** The names of the operator keys (approver, mint, fee, funding) that differ from the deployed ones. */
export function keysNotDeployed(deployed: DeployedKeys, addresses: OperatorAddresses): string[] {
  const ours: Record<(typeof NAMES)[number], [string, string]> = {
    approver: [toHex(addresses.approverPublicKey), deployed.approver],
    mint: [addresses.mintAddress, deployed.mintAddress],
    fee: [addresses.feeAddress, deployed.feeAddress],
    funding: [addresses.fundingAddress, deployed.fundingAddress],
  };
  return NAMES.filter((name) => ours[name][0] !== ours[name][1]);
}

/**
 * Throws when these keys are not the ones the token was deployed with: a process with other
 * keys would serve and then fail every mint, cosignature or funding input it signs.
 */
export function checkKeysDeployed(deployed: DeployedKeys, addresses: OperatorAddresses): void {
  const differ = keysNotDeployed(deployed, addresses);
  if (differ.length === 0) return;
  const what = (name: string) =>
    name === 'approver'
      ? `the approver key (public key ${toHex(addresses.approverPublicKey)}, deployed with ${deployed.approver})`
      : `the ${name} key (address ${addresses[`${name}Address` as 'mintAddress']}, deployed with ${
          deployed[`${name}Address` as 'mintAddress']
        })`;
  throw new Error(
    `refusing to start: the operator keys do not match the token ${deployed.tokenId} deployed in this ` +
      `database: ${differ.map(what).join('; ')}. Start with the keys the token was deployed with ` +
      '(docs/operations.md, Key rotation)',
  );
}
