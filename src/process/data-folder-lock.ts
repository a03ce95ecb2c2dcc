// One process per data folder: PGlite keeps its database in files that two processes
// would corrupt. The lock itself is a pid lock file (src/process/pid-lock.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type PidLock, takePidLock } from './pid-lock.js';

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

export type DataFolderLock = PidLock;

/** Takes the lock of `folder` (created if missing) or throws DataFolderInUseError. */
export function lockDataFolder(folder: string): DataFolderLock {
  mkdirSync(folder, { recursive: true });
  return takePidLock(join(folder, LOCK_FILE_NAME), (pid) => new DataFolderInUseError(folder, pid));
}
