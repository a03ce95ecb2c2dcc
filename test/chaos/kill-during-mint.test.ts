// Chaos: kill -9 of an api process while an admin mint is in flight, its ticket committed and its
// broadcast waiting on ARC, so the caller gets a socket error and no answer was kept. The retry
// with the same Idempotency-Key, sent to the restarted process, answers the first mint's ticket:
// one mint, not two (migration 016 keeps the transaction built before it is submitted).
// Runs only when TEST_DATABASE_URL is set: a real api process on PostgreSQL, the devnet's ARC here.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eventually } from '../e2e/support.js';
import { sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A server on ARC's port that takes every connection and never answers: ARC hanging. */
async function hangOn(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('chaos: kill -9 of an api process during an admin mint', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('mint kill');
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-mint-kill-'));
  let child: ChildProcess | null = null;

  const startApi = async (port: number): Promise<ChildProcess> => {
    const started = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/entry.ts',
        'start',
        '--roles',
        'api',
        '--port',
        String(port),
        '--data-dir',
        dataDir,
        '--log-level',
        'error',
        '--database-url',
        world.databaseUrl,
        '--no-rate-limit-enabled',
        ...world.ledger.flags,
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await eventually(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        return res?.ok === true ? true : undefined;
      },
      'the api process answers',
      600,
    );
    return started;
  };

  after(() => {
    if (child !== null && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the retry with the same key answers the first mint: one mint', async () => {
    const first = await world.start('api,tracker');
    const db = first.service.parts.db;
    const adminKey = first.adminKey;
    const port = await freePort();
    child = await startApi(port);
    const tickets = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const mint = (key: string) =>
      fetch(`http://127.0.0.1:${port}/v2/admin/mint`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${adminKey}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ to: party('mint kill recipient').address, amount: '25' }),
      });

    // A first mint while ARC answers: the process's fee rate is cached, so the next mint asks
    // ARC nothing before its broadcast.
    assert.equal((await mint('mint-warm-up')).status, 200);
    const before = await tickets();
    // ARC hangs: the mint commits its ticket, then waits on the broadcast.
    const arcPort = Number(new URL(world.ledger.arcUrl).port);
    await world.ledger.arcDown();
    const hanging = await hangOn(arcPort);
    const inFlight = mint('mint-across-a-kill').then(
      (res) => ({ kind: 'answered' as const, status: res.status }),
      (err: unknown) => ({ kind: 'cut' as const, err }),
    );
    await eventually(
      async () => ((await tickets()) === before + 1 ? true : undefined),
      'the mint committed',
      600,
    );
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const outcome = await inFlight;
    assert.equal(outcome.kind, 'cut', 'the caller got no answer: the process died mid-mint');
    await hanging.close();
    await world.ledger.arcUp();

    child = await startApi(port);
    const retry = await mint('mint-across-a-kill');
    const body = (await retry.json()) as { ticketId?: string; txid?: string };
    assert.equal(retry.status, 200, JSON.stringify(body));
    assert.equal(await tickets(), before + 1, 'one mint for the two requests');
    const [committed] = await db.query<{ id: string; txid: string }>(
      'SELECT id, txid FROM tickets ORDER BY created_at DESC LIMIT 1',
    );
    assert.equal(body.txid, committed!.txid, 'the retry answers the committed mint');
    assert.equal(body.ticketId, committed!.id);
    const again = await mint('mint-across-a-kill');
    assert.equal(again.headers.get('idempotent-replayed'), 'true', 'a third try replays the kept answer');
  });
});
