// Chaos: kill -9 of the whole service (its process: HTTP, tracker, embedded database and
// devnet) at random points of a stream of transfers, several times over, the wallets sending
// again to each new process. Afterwards: no ticket lost (each answered transfer keeps its first
// ticket), every ticket reaches MINED, no output both spent and unspent, the ledger holds no
// transaction the store does not know, balances sum to the supply.
// CHAOS_ROUNDS sets the kills (default 3; LONG=1: 10), CHAOS_SEED the random points.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expectAllMined,
  expectBalances,
  expectLedgerAndIndexAgree,
  expectNoOutputBothSpentAndUnspent,
  type Outcome,
  recordedTransfers,
  resend,
  sendUntilKilled,
  startOn,
  streamInDataDir,
} from '../e2e/restart-support.js';
import { prng } from '../support/client-fixtures.js';
import { expectLedgerHoldsOnlyKnown, expectStoreAndLedgerAgree } from './invariants.js';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? (process.env.LONG === '1' ? 10 : 3));

describe(`chaos: kill -9 of the service at random points of a stream, ${ROUNDS} times`, () => {
  const run = streamInDataDir('chaos-kill');

  it('loses no ticket, ends every ticket, and leaves store and ledger in agreement', async (t) => {
    const { dataDir, stream } = run;
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000_007);
    t.diagnostic(`CHAOS_SEED=${seed}`);
    const random = prng(seed); // seeded: the kill points of a run can be replayed
    const first: Outcome[] = stream.planned.map(() => ({ kind: 'none', why: 'never answered' }));
    for (let round = 0; round < ROUNDS; round++) {
      const killAfter = 1 + Math.floor(random() * stream.planned.length);
      // Each round sends the transfers in another order, so the kills fall on new ones too.
      const order = stream.planned.map((_, i) => i).sort(() => random() - 0.5);
      const shuffled = { ...stream, planned: order.map((i) => stream.planned[i]!) };
      const outcomes = await sendUntilKilled(dataDir, shuffled, killAfter);
      for (const [j, outcome] of outcomes.entries()) {
        const i = order[j]!;
        if (outcome?.kind !== 'ticket') continue;
        const earlier = first[i]!;
        if (earlier.kind === 'ticket')
          assert.equal(outcome.id, earlier.id, `transfer ${i}: its first ticket`);
        else first[i] = outcome;
      }
      const answered = first.filter((o) => o.kind === 'ticket').length;
      t.diagnostic(
        `round ${round}: killed after ${killAfter} tickets; ${answered} transfers answered so far`,
      );
    }

    const service = await startOn(dataDir);
    run.service = service;
    const answered = first.filter((o) => o.kind === 'ticket').length;
    assert.ok((await recordedTransfers(service, stream)) >= answered, 'every answered transfer was recorded');
    const tickets = await resend(service, stream, first);
    await expectAllMined(service, stream, tickets);
    await expectBalances(service, stream);
    await expectNoOutputBothSpentAndUnspent(service);
    await expectLedgerAndIndexAgree(service, stream);

    const { db, devnet } = service.parts;
    assert.ok(devnet!.blocks().flatMap((b) => b.txids.slice(1)).length > stream.planned.length);
    await expectLedgerHoldsOnlyKnown(db, devnet!);
    await expectStoreAndLedgerAgree({
      url: service.url!,
      key: stream.key,
      db,
      devnet: devnet!,
      tokenId: stream.token.tokenId,
      supply: stream.supply,
    });
  });
});
