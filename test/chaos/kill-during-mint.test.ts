// Chaos: kill -9 of an api process while an admin mint is in flight, its ticket committed and its
// broadcast waiting on ARC, so the caller gets a socket error and no answer was kept. The retry
// with the same Idempotency-Key, sent to the restarted process, answers the first mint's ticket:
// one mint, not two (migration 016 keeps the transaction built before it is submitted).
// Runs only when TEST_DATABASE_URL is set: a real api process on PostgreSQL, the devnet's ARC here.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { eventually } from '../e2e/support.js';
import { sharedWorld } from '../support/ledger-world.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';
import { hangArc, killableApi } from './killable-api.js';

describe('chaos: kill -9 of an api process during an admin mint', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('mint kill');
  const api = killableApi(
    'mint-kill',
    () => world.databaseUrl,
    () => world.ledger.flags,
  );

  after(() => api.close());

  it('the retry with the same key answers the first mint: one mint', async () => {
    const first = await world.start('api,tracker');
    const db = first.service.parts.db;
    const adminKey = first.adminKey;
    await api.start();
    const tickets = async () =>
      Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM tickets'))[0]!.n);
    const mint = (key: string) =>
      fetch(`${api.url}/v2/admin/mint`, {
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
    const hanging = await hangArc(world.ledger);
    const inFlight = mint('mint-across-a-kill').then(
      (res) => ({ kind: 'answered' as const, status: res.status }),
      (err: unknown) => ({ kind: 'cut' as const, err }),
    );
    await eventually(
      async () => ((await tickets()) === before + 1 ? true : undefined),
      'the mint committed',
      600,
    );
    await api.kill();
    const outcome = await inFlight;
    assert.equal(outcome.kind, 'cut', 'the caller got no answer: the process died mid-mint');
    await hanging.restore();

    await api.start();
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
