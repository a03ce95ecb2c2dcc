// The master key must be the one the deployment's secrets were sealed with (webhook and callback
// secrets): another key starts and serves, and what the first sealed can then not be opened. At
// the first start a check value sealed under the key is kept in `settings`; every later start
// opens it and refuses, naming both keys by their ids, when it cannot. A database from before the
// check gets one at its next start, once a secret already kept opens under the key.
import { createHash } from 'node:crypto';
import { open, seal } from '../crypto/secret-box.js';
import type { Queryable } from '../store/db/db.js';
import { anySealedSecret, readSetting, writeSettingOnce } from '../store/settings.js';

const SETTING = 'master_key_check';
const CHECK_TEXT = 'tokenproxy master key check';

interface CheckValue {
  /** The id of the key that sealed it (masterKeyId). */
  readonly keyId: string;
  /** CHECK_TEXT sealed under it, hex. */
  readonly sealed: string;
}

/** A master key's id: 8 hex digits of a hash, enough to tell two keys apart, nothing to open with. */
export function masterKeyId(masterKey: Uint8Array): string {
  return createHash('sha256')
    .update('tokenproxy master key id\n')
    .update(masterKey)
    .digest('hex')
    .slice(0, 8);
}

export class MasterKeyMismatch extends Error {
  override readonly name = 'MasterKeyMismatch';
}

function opens(masterKey: Uint8Array, sealed: Uint8Array): boolean {
  try {
    open(masterKey, sealed);
    return true;
  } catch {
    return false; // the wrong key, or a box that is not one: either way it does not open
  }
}

/**
 * Refuses (MasterKeyMismatch) a master key other than the deployment's; keeps the check value
 * at the first start. `source` says where the key came from (`env TOKENPROXY_MASTER_KEY`, a file).
 */
export async function checkMasterKey(
  q: Queryable,
  masterKey: Uint8Array,
  source: string,
  now: Date,
): Promise<void> {
  const id = masterKeyId(masterKey);
  const refuse = (sealedWith: string) =>
    new MasterKeyMismatch(
      `refusing to start: the master key ${id} (${source}) is not the key this database's secrets ` +
        `were sealed with (${sealedWith}); webhook and callback secrets could not be opened. ` +
        'Start with the master key of the first start (docs/operations.md, Rotating the master key)',
    );
  let kept = await readSetting<CheckValue>(q, SETTING);
  if (kept === null) {
    const earlier = await anySealedSecret(q);
    if (earlier !== null && !opens(masterKey, earlier))
      throw refuse('another key, before the check value was kept');
    const mine: CheckValue = { keyId: id, sealed: Buffer.from(seal(masterKey, CHECK_TEXT)).toString('hex') };
    kept = await writeSettingOnce(q, SETTING, mine, now);
  }
  if (!opens(masterKey, new Uint8Array(Buffer.from(kept.sealed, 'hex'))))
    throw refuse(`master key ${kept.keyId}`);
}
