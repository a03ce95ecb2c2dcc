// One devnet per data folder, within this process and across processes: a pid lock file
// (src/process/pid-lock.ts) held until the devnet closes.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type PidLock, takePidLock } from '../../process/pid-lock.js';

export const DEVNET_LOCK_FILE = 'devnet.lock';

export class DevnetFolderInUseError extends Error {
  constructor(folder: string, pid: number) {
    super(
      `devnet data folder ${folder} is in use by process ${pid}` +
        ` (stop it first; if no such process runs, delete ${join(folder, DEVNET_LOCK_FILE)})`,
    );
    this.name = 'DevnetFolderInUseError';
  }
}

export type FolderLock = PidLock;

export function lockFolder(folder: string): FolderLock {
  const dir = resolve(folder);
  mkdirSync(dir, { recursive: true });
  return takePidLock(join(dir, DEVNET_LOCK_FILE), (pid) => new DevnetFolderInUseError(dir, pid));
}
