// Sealed secrets: round trips, tampering and wrong keys refused, and the master key's
// file and environment forms.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import {
  loadOrCreateMasterKey,
  MASTER_KEY_FILE,
  masterKeyFromEnv,
  open,
  openString,
  SecretBoxError,
  seal,
} from '../../src/crypto/secret-box.js';

const key = new Uint8Array(randomBytes(32));

describe('seal and open', () => {
  test('round-trip bytes and strings, empty ones included', () => {
    for (const plain of [
      new Uint8Array([0, 1, 2, 255]),
      new Uint8Array(0),
      new Uint8Array(randomBytes(5000)),
    ]) {
      assert.deepStrictEqual(open(key, seal(key, plain)), plain);
    }
    assert.equal(openString(key, seal(key, 'whsec_héllo')), 'whsec_héllo');
    assert.equal(openString(key, seal(key, '')), '');
  });

  test('lay out version, nonce, ciphertext and tag, with a fresh nonce each time', () => {
    const plain = new Uint8Array([1, 2, 3, 4, 5, 6, 7]);
    const a = seal(key, plain);
    const b = seal(key, plain);
    assert.equal(a.length, 1 + 12 + plain.length + 16);
    assert.equal(a[0], 1);
    assert.notDeepStrictEqual(a.subarray(1, 13), b.subarray(1, 13));
    assert.notDeepStrictEqual(a, b);
  });

  test('refuse any altered byte', () => {
    const sealed = seal(key, 'a webhook secret');
    for (let i = 0; i < sealed.length; i++) {
      const altered = new Uint8Array(sealed);
      altered[i]! ^= 0x01;
      assert.throws(() => open(key, altered), SecretBoxError, `byte ${i}`);
    }
  });

  test('refuse a truncated or extended box', () => {
    const sealed = seal(key, 'secret');
    assert.throws(() => open(key, sealed.subarray(0, sealed.length - 1)), SecretBoxError);
    assert.throws(() => open(key, new Uint8Array([...sealed, 0])), SecretBoxError);
    assert.throws(() => open(key, new Uint8Array(10)), SecretBoxError);
  });

  test('refuse another key', () => {
    const other = new Uint8Array(randomBytes(32));
    assert.throws(() => open(other, seal(key, 'secret')), SecretBoxError);
  });

  test('refuse a key that is not 32 bytes', () => {
    assert.throws(() => seal(new Uint8Array(16), 'x'), SecretBoxError);
    assert.throws(() => open(new Uint8Array(31), seal(key, 'x')), SecretBoxError);
  });
});

describe('loadOrCreateMasterKey', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-key-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('creates a 32-byte key, hex, mode 0600, and reads the same one back', () => {
    const dir = join(tempDir(), 'data');
    const first = loadOrCreateMasterKey(dir);
    assert.equal(first.length, 32);
    const path = join(dir, MASTER_KEY_FILE);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, 'utf8').trim(), Buffer.from(first).toString('hex'));
    assert.deepStrictEqual(loadOrCreateMasterKey(dir), first);
    assert.notDeepStrictEqual(loadOrCreateMasterKey(tempDir()), first);
  });

  test('refuses a key file that does not hold 32 hex bytes', () => {
    const dir = tempDir();
    writeFileSync(join(dir, MASTER_KEY_FILE), 'abcd\n');
    assert.throws(() => loadOrCreateMasterKey(dir), SecretBoxError);
  });
});

describe('masterKeyFromEnv', () => {
  test('reads hex, base64 and base64url of 32 bytes', () => {
    const raw = Buffer.from(randomBytes(32));
    assert.deepStrictEqual(masterKeyFromEnv(raw.toString('hex')), new Uint8Array(raw));
    assert.deepStrictEqual(masterKeyFromEnv(raw.toString('hex').toUpperCase()), new Uint8Array(raw));
    assert.deepStrictEqual(masterKeyFromEnv(raw.toString('base64')), new Uint8Array(raw));
    assert.deepStrictEqual(masterKeyFromEnv(raw.toString('base64url')), new Uint8Array(raw));
    assert.deepStrictEqual(masterKeyFromEnv(` ${raw.toString('hex')}\n`), new Uint8Array(raw));
  });

  test('refuses other lengths and other text', () => {
    for (const bad of [
      '',
      'ab'.repeat(31),
      'ab'.repeat(33),
      Buffer.alloc(31).toString('base64'),
      'x'.repeat(64),
    ]) {
      assert.throws(() => masterKeyFromEnv(bad), SecretBoxError, JSON.stringify(bad));
    }
  });
});
