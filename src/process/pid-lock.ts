// One holder per lock file: the file is created exclusively (a hard link, which fails when the
// name exists) holding the owner's pid, so it is never seen empty. A lock left by a process that
// no longer runs, or by this process without a live holder here (pid reuse, a crash), is taken
// over. Two processes taking over the same stale lock at the same instant could both win: a
// narrow race accepted for development-only data (PGlite, the devnet).
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface PidLock {
  readonly path: string;
  release(): void;
}

/** Lock files this process holds now (resolved paths). */
const heldHere = new Set<string>();

/** Takes the lock at `path`, or throws `inUse(pid)` naming the process that holds it. */
export function takePidLock(path: string, inUse: (pid: number) => Error): PidLock {
  const full = resolve(path);
  if (heldHere.has(full)) throw inUse(process.pid);
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(full)) {
      heldHere.add(full);
      let held = true;
      return {
        path,
        release() {
          if (!held) return;
          held = false;
          heldHere.delete(full);
          // Remove it only while it is still ours.
          if (ownerOf(full) === process.pid) unlinkSync(full);
        },
      };
    }
    const owner = ownerOf(full);
    if (owner !== undefined && owner !== process.pid && isAlive(owner)) throw inUse(owner);
    // Stale (dead owner, ours without a holder here) or unreadable: remove it and try again.
    try {
      unlinkSync(full);
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
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
