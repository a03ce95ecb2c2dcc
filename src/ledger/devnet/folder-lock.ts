// One devnet per data folder: a lock file created exclusively (a hard link, which fails when the
// name exists) holding the owner's pid. A lock left by a process that no longer runs is taken
// over; within one process, a folder is held until its devnet closes.
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEVNET_LOCK_FILE = 'devnet.lock';

const heldHere = new Set<string>();

export class DevnetFolderInUseError extends Error {
  constructor(folder: string, pid: number) {
    super(
      `devnet data folder ${folder} is in use by process ${pid}` +
        ` (stop it first; if no such process runs, delete ${join(folder, DEVNET_LOCK_FILE)})`,
    );
    this.name = 'DevnetFolderInUseError';
  }
}

export interface FolderLock {
  release(): void;
}

export function lockFolder(folder: string): FolderLock {
  const dir = resolve(folder);
  if (heldHere.has(dir)) throw new DevnetFolderInUseError(dir, process.pid);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, DEVNET_LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) {
      heldHere.add(dir);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          heldHere.delete(dir);
          if (ownerOf(path) === process.pid) unlinkSync(path);
        },
      };
    }
    const owner = ownerOf(path);
    // Our own pid without a devnet holding the folder here: a lock left behind (e.g. pid reuse).
    if (owner !== undefined && owner !== process.pid && isAlive(owner))
      throw new DevnetFolderInUseError(dir, owner);
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

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

function ownerOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
