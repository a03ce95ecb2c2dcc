// Secrets at rest (webhook signing secrets, callback secrets): AES-256-GCM under one
// 32-byte master key. A sealed box is
//   version (1 byte, 0x01) | nonce (12 random bytes) | ciphertext | tag (16 bytes)
// with the version byte bound in as associated data. The master key lives in
// `<dataDir>/master.key` (hex, mode 0600, made on first start) or comes from the
// environment (hex or base64).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';

const VERSION = 0x01;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES;

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

function checkKey(masterKey: Uint8Array): void {
  if (masterKey.length !== MASTER_KEY_BYTES) {
    throw new SecretBoxError(`master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`);
  }
}

/** Encrypts and authenticates `plaintext` (a string is taken as UTF-8). */
export function seal(masterKey: Uint8Array, plaintext: Uint8Array | string): Uint8Array {
  checkKey(masterKey);
  const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  const nonce = randomBytes(NONCE_BYTES);
  const header = Buffer.concat([Buffer.of(VERSION), nonce]);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(header.subarray(0, 1));
  const body = Buffer.concat([cipher.update(data), cipher.final()]);
  return new Uint8Array(Buffer.concat([header, body, cipher.getAuthTag()]));
}

/** Decrypts a box made by seal(); throws SecretBoxError when it was altered or the key is wrong. */
export function open(masterKey: Uint8Array, sealed: Uint8Array): Uint8Array {
  checkKey(masterKey);
  if (sealed.length < HEADER_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret is too short');
  if (sealed[0] !== VERSION) throw new SecretBoxError(`unknown sealed secret version ${sealed[0]}`);
  const nonce = sealed.subarray(1, HEADER_BYTES);
  const body = sealed.subarray(HEADER_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', masterKey, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  try {
    return new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch {
    throw new SecretBoxError('sealed secret failed authentication (altered, or another master key)');
  }
}

/** open() for a secret that was sealed from a string. */
export function openString(masterKey: Uint8Array, sealed: Uint8Array): string {
  return Buffer.from(open(masterKey, sealed)).toString('utf8');
}

function parseHexKey(text: string, where: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new SecretBoxError(`${where}: expected ${MASTER_KEY_BYTES} bytes as 64 hex digits`);
  }
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/**
 * The master key of a data folder: read from `<dataDir>/master.key` (64 hex digits), or,
 * on first use, 32 random bytes written there with mode 0600. Two processes creating it
 * at once cannot both win: the file is created exclusively and the loser reads the winner's.
 */
export function loadOrCreateMasterKey(dataDir: string): Uint8Array {
  return readOrMakeMasterKey(dataDir).save();
}

/**
 * The master key of `<dataDir>/master.key`, or a fresh one kept in memory until `save` writes it
 * (mode 0600, exclusively; the loser of a race gets the winner's): a refused start writes nothing.
 */
export function readOrMakeMasterKey(dataDir: string): {
  readonly key: Uint8Array;
  readonly existed: boolean;
  save(): Uint8Array;
} {
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    const key = parseHexKey(readFileSync(path, 'utf8').trim(), path);
    return { key, existed: true, save: () => key };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(MASTER_KEY_BYTES);
  return {
    key: new Uint8Array(key),
    existed: false,
    save: () => {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      try {
        writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return parseHexKey(readFileSync(path, 'utf8').trim(), path);
      }
      return new Uint8Array(key);
    },
  };
}

/** The master key given in the environment: 64 hex digits, or base64 / base64url of 32 bytes. */
export function masterKeyFromEnv(value: string): Uint8Array {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return parseHexKey(text, 'master key');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === MASTER_KEY_BYTES) return new Uint8Array(bytes);
  }
  throw new SecretBoxError(`master key must be ${MASTER_KEY_BYTES} bytes, as 64 hex digits or base64`);
}
