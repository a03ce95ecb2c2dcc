// The first admin key: made at a start where the database holds no live one (one per database,
// not per process), written to `<dataDir>/admin.key` (mode 0600) by the start that made it. In
// production no process makes one (it would land in whichever process won the race, the
// tracker's as often as not): the operator makes it with `tokenproxy keys create-admin`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiKey, hasLiveAdminKey } from '../../store/access/api-keys-store.js';
import { holdTransactionLock } from '../../store/db/advisory-lock.js';
import type { Db } from '../../store/db/db.js';

export const ADMIN_KEY_FILE = 'admin.key';
/** Advisory lock key held while a start looks for the admin key and makes it (unique to this use). */
export const ADMIN_KEY_LOCK = 7_364_821_011;

/** What a start did about the admin key: made it (and wrote it to `path`), or found one. */
export type AdminKeyNote = { readonly created: true; readonly path: string } | { readonly created: false };

export interface FirstAdminKeyDeps {
  readonly db: Db;
  readonly masterKey: Uint8Array;
  readonly dataDir: string;
  readonly log: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** Production: make none, only say when the database holds none. */
  readonly explicitOnly?: boolean;
}

/**
 * An admin API key where the database holds no live one. Under an advisory lock, so instances
 * starting at once on one PostgreSQL database make one; the one that makes it writes it to
 * `<dataDir>/admin.key` before it commits.
 */
export async function ensureAdminKey(deps: FirstAdminKeyDeps): Promise<AdminKeyNote> {
  const { dataDir } = deps;
  const path = join(dataDir, ADMIN_KEY_FILE);
  if (deps.explicitOnly === true) {
    if (!(await hasLiveAdminKey(deps.db)))
      deps.log.warn(
        {},
        'no admin API key in the database, and a production process makes none: make one with ' +
          'tokenproxy keys create-admin (docs/operations.md, First production start)',
      );
    return { created: false };
  }
  const note = await deps.db.transaction(async (q): Promise<AdminKeyNote> => {
    await holdTransactionLock(q, ADMIN_KEY_LOCK);
    if (await hasLiveAdminKey(q)) return { created: false };
    const created = await createApiKey(q, deps.masterKey, { name: 'admin', scopes: ['admin'] }, new Date());
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
    return { created: true, path };
  });
  if (note.created) deps.log.info({ path }, `admin API key created: ${path}`);
  else
    deps.log.info(
      {},
      existsSync(path)
        ? `admin API key: ${path} (the database holds a live admin key; none created)`
        : 'admin API key: the database holds a live admin key, so none was created here; its admin.key ' +
            'is in the data folder of the instance that created it (or make one: tokenproxy keys create --scopes admin)',
    );
  return note;
}
