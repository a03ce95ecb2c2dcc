// Child processes of the load benchmark: each started with `node --import tsx`, its first
// stdout lines read for the address it announces, and stopped by its PID (SIGTERM, then
// SIGKILL after a grace period). Every child started is remembered until stopped, so the
// benchmark can stop them all on error or on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const running = new Set<Child>();

export interface Child {
  readonly pid: number;
  readonly name: string;
  /** The first match of `announce` in the child's output (e.g. its URL). */
  readonly announced: string;
  stop(): Promise<void>;
}

/** The environment without TOKENPROXY_* variables, so only the flags configure a child. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TOKENPROXY_')));
}

/**
 * Starts `node --import tsx <script> ...args` and waits until its output matches `announce`
 * (stdout or stderr: `tokenproxy start` writes its banner to stderr, stdout holds log records).
 */
export async function startChild(
  name: string,
  script: string,
  args: readonly string[],
  announce: RegExp,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`${name}: could not start`);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const child: Child & { announced: string } = {
    pid,
    name,
    announced: '',
    stop: () => stopProcess(child, proc, exited),
  };
  running.add(child);
  let out = '';
  let err = '';
  let heard: ((text: string) => void) | undefined;
  proc.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    heard?.(err);
    if (err.length > 20_000) err = err.slice(-10_000);
  });
  try {
    child.announced = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name}: no announcement in ${timeoutMs} ms`)),
        timeoutMs,
      );
      heard = (text) => {
        const m = announce.exec(text);
        if (m !== null) {
          clearTimeout(timer);
          heard = undefined;
          resolve(m[1] ?? m[0]);
        }
      };
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        heard?.(out);
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}) before it was ready: ${err.trim() || out.trim()}`));
      });
    });
  } catch (e) {
    await child.stop();
    throw e;
  }
  // Keep draining its output so a chatty child never blocks on a full pipe.
  proc.stdout!.resume();
  return child;
}

async function stopProcess(child: Child, proc: ChildProcess, exited: Promise<void>): Promise<void> {
  if (!running.has(child)) return;
  running.delete(child);
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    if (proc.exitCode === null && proc.signalCode === null) process.kill(child.pid, 'SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

/** Stops every child still running (by PID), the last started first. */
export async function stopAllChildren(): Promise<void> {
  for (const child of [...running].reverse()) await child.stop().catch(() => undefined);
}
