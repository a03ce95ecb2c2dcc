// Redis unreachable at start (issue 29, and the operator's issue): `tokenproxy start` with a
// redisUrl nothing answers used to log a fatal record after deploying and funding, then linger
// listening nowhere. Now it asks Redis first and exits 1 at once, with a clear message.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('tokenproxy start with Redis unreachable', () => {
  it('exits 1 at once, before the slow start, saying Redis cannot be reached', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-redis-'));
    const port = await closedPort();
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/entry.ts',
          'start',
          '--data-dir',
          dataDir,
          '--port',
          '0',
          '--redis-url',
          `redis://127.0.0.1:${port}`,
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const lingering = setTimeout(() => child.kill('SIGKILL'), 45_000);
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      clearTimeout(lingering);
      assert.equal(code, 1, `exit code (null: it lingered and was killed); stderr: ${stderr}`);
      assert.match(stderr, new RegExp(`cannot reach Redis at redis://127\\.0\\.0\\.1:${port}`));
      assert.match(stdout, /"level":60.*could not start/, 'a fatal record');
      assert.doesNotMatch(stdout, /token deployed|funding pool refilled/, 'nothing slow started first');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
