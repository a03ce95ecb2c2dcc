// One process per PGlite data folder: a second opener is refused with a clear error,
// a lock left by a dead process is taken over, closing releases it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { DataFolderInUseError, LOCK_FILE_NAME, lockDataFolder } from '../../src/process/data-folder-lock.js';
import { openPgliteDb } from '../../src/store/db/pglite-db.js';
import { migrate } from '../../src/store/migrate.js';

const folders: string[] = [];
function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenproxy-data-'));
  folders.push(dir);
  return dir;
}
after(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A pid that surely belongs to no running process: one of a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const pid = Number(child.stdout);
  assert.ok(Number.isSafeInteger(pid) && pid > 0);
  return pid;
}

describe('data folder lock', () => {
  test('the lock file holds the owner’s pid and goes away on release', () => {
    const dir = tempFolder();
    const lock = lockDataFolder(dir);
    assert.equal(lock.path, join(dir, LOCK_FILE_NAME));
    assert.equal(readFileSync(lock.path, 'utf8').trim(), String(process.pid));
    lock.release();
    assert.equal(existsSync(lock.path), false);
    lock.release(); // twice is harmless
    lockDataFolder(dir).release();
  });

  test('a second opener is refused, naming the folder and the owner', () => {
    const dir = tempFolder();
    const lock = lockDataFolder(dir);
    try {
      assert.throws(
        () => lockDataFolder(dir),
        (err) =>
          err instanceof DataFolderInUseError &&
          err.pid === process.pid &&
          err.message.startsWith(`data folder ${dir} is in use by process ${process.pid}`),
      );
    } finally {
      lock.release();
    }
  });

  test('another process is refused too', () => {
    const dir = tempFolder();
    const lock = lockDataFolder(dir);
    try {
      const moduleUrl = new URL('../../src/process/data-folder-lock.ts', import.meta.url).href;
      const script = `import(${JSON.stringify(moduleUrl)}).then((m) => { try { m.lockDataFolder(${JSON.stringify(dir)}); console.log('TAKEN'); } catch (e) { console.log(e.message); } });`;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
        encoding: 'utf8',
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
      });
      assert.match(child.stdout, new RegExp(`data folder .* is in use by process ${process.pid}`));
    } finally {
      lock.release();
    }
  });

  test('a lock left by a dead process is taken over', () => {
    const dir = tempFolder();
    writeFileSync(join(dir, LOCK_FILE_NAME), `${deadPid()}\n`);
    const lock = lockDataFolder(dir);
    assert.equal(readFileSync(lock.path, 'utf8').trim(), String(process.pid));
    lock.release();
  });

  test('an unreadable lock file is taken over', () => {
    const dir = tempFolder();
    writeFileSync(join(dir, LOCK_FILE_NAME), 'garbage');
    lockDataFolder(dir).release();
  });

  test('release leaves alone a lock that is no longer ours', () => {
    const dir = tempFolder();
    const lock = lockDataFolder(dir);
    const other = String(deadPid());
    writeFileSync(lock.path, other);
    lock.release();
    assert.equal(readFileSync(lock.path, 'utf8'), other);
  });
});

describe('PGlite in a data folder', () => {
  test('keeps its data across reopening, refuses a second opener while open', async () => {
    const dir = tempFolder();
    const db = await openPgliteDb(dir);
    try {
      await migrate(db);
      await db.query('INSERT INTO settings (key, value) VALUES ($1, $2)', ['token_id', '"abc_0"']);
      await assert.rejects(openPgliteDb(dir), (err) => err instanceof DataFolderInUseError);
    } finally {
      await db.close();
    }
    assert.equal(existsSync(join(dir, LOCK_FILE_NAME)), false);
    const reopened = await openPgliteDb(dir);
    try {
      assert.deepStrictEqual(await migrate(reopened), { applied: [] });
      assert.deepStrictEqual(
        await reopened.query('SELECT value FROM settings WHERE key = $1', ['token_id']),
        [{ value: 'abc_0' }],
      );
    } finally {
      await reopened.close();
    }
  });
});
