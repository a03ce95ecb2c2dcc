// One process per data folder: PGlite keeps its database in files that two processes
// would corrupt. The lock is a file created exclusively (a hard link, which fails when the
// name exists) holding the owner's pid; a lock left by a process that no longer runs is
// taken over. Two processes taking over the same stale lock at the same instant could both
// win: a narrow race accepted for a development-only database.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE_NAME = 'pglite.lock';

export class DataFolderInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
  ) {
    super(
      `data folder ${folder} is in use by process ${pid} (stop it first; if no such process runs, delete ${join(folder, LOCK_FILE_NAME)})`,
    );
    this.name = 'DataFolderInUseError';
  }
}

export interface DataFolderLock {
  readonly path: string;
  release(): void;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the lock file holding our pid, atomically (link fails when it exists), so it is never seen empty. */
function tryCreate(path: string): boolean {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${process.pid}\n`);
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(temp);
  }
}

/** Takes the lock of `folder` (created if missing) or throws DataFolderInUseError. */
export function lockDataFolder(folder: string): DataFolderLock {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) {
      let held = true;
      return {
        path,
        release() {
          if (!held) return;
          held = false;
          // Remove it only while it is still ours.
          if (readOwner(path) === process.pid) unlinkSync(path);
        },
      };
    }
    const owner = readOwner(path);
    if (owner !== undefined && processIsAlive(owner)) throw new DataFolderInUseError(folder, owner);
    // Stale (dead owner) or unreadable: remove it and try again.
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
