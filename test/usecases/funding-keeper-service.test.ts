// The funding keeper in the real service (embedded devnet, PGlite): transfers step from none to
// 25 a second and hold that rate, with the pool left low at the step (40 outputs: under two
// seconds of it) and the keeper's slow round a minute away, so only its looks (on the lease
// pool's signal and its short tick) can keep up. No transfer is refused with 503 once the first
// two seconds are over, and the splits grow with the rate measured (a minute of demand each).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { pubKeyHashOf } from '../../src/domain/address.js';
import { unspentOutputs } from '../../src/store/wallets/wallet-queries.js';
import { DEFAULT_SPLIT_OUTPUTS } from '../../src/usecases/funding/pool-refill.js';
import { sendFromHeldAddress } from '../../src/usecases/supply/send-from-held-address.js';
import { buildTransfer, tokenOutput } from '../support/build-transfer.js';
import { type ServiceInTemp, startServiceIn } from '../support/service-in-temp.js';
import { party } from '../support/token-world.js';

const RATE = 25;
const SECONDS = 12;
/** Refusals allowed only this long after the step. */
const STEP_MS = 2_000;
const POOL_AT_STEP = 40;

let running: ServiceInTemp;
before(async () => {
  running = await startServiceIn('keeper', [
    '--log-level',
    'error',
    '--no-rate-limit-enabled',
    '--funding-refill-ms',
    '60000',
  ]);
});
after(() => running?.stop());

/** Mints `count` coins to `senders` and signs one transfer from each coin (to one recipient). */
async function signedTransfers(count: number): Promise<string[]> {
  const { keys, devnet } = running.service.parts;
  const ctx = apiContextOf(running.service.parts);
  const senders = Array.from({ length: 8 }, (_, i) => party(`keeper sender ${i}`));
  for (let made = 0; made < count; made += 99) {
    const n = Math.min(99, count - made);
    await sendFromHeldAddress(ctx, {
      from: ctx.token.mintAddress,
      key: keys.mint,
      outputs: Array.from({ length: n }, (_, i) => ({
        op: 'transfer' as const,
        to: senders[(made + i) % senders.length]!.address,
        amount: 1_000_000n,
      })),
    });
  }
  await devnet!.mine(1);
  const recipient = party('keeper recipient');
  const feePkh = pubKeyHashOf(ctx.token.feeAddress)!;
  const out = (o: Parameters<typeof tokenOutput>[0], amt: bigint) =>
    tokenOutput(o, amt, ctx.token.tokenId, ctx.token.approver);
  const bodies: string[] = [];
  for (const s of senders) {
    const coins = await unspentOutputs(ctx.db, { addresses: [s.address], page: 1, size: 1000, order: 'asc' });
    for (const coin of coins) {
      const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
      const outputs = [out(recipient, 500_000n), out(feePkh, 100n), out(s, coin.amount - 500_100n)];
      const raw = buildTransfer({ inputs: [known], outputs, signer: s });
      bodies.push(JSON.stringify({ rawtx: Buffer.from(raw).toString('base64') }));
    }
  }
  return bodies;
}

test('at a step from 0 to 25 transfers a second and at that rate after it, no 503 past the first two seconds', async () => {
  const { ctx, devnet } = running.service.parts;
  const bodies = await signedTransfers(RATE * SECONDS + 10);
  // The pool left low: all but POOL_AT_STEP available outputs taken away, and the process's
  // leases fitted to that.
  await ctx.db.query(
    `UPDATE funding_outputs SET state = 'spent' WHERE state = 'available' AND (txid, vout) NOT IN (
       SELECT txid, vout FROM funding_outputs WHERE state = 'available' ORDER BY satoshis, txid, vout LIMIT $1)`,
    [POOL_AT_STEP],
  );
  await apiContextOf(running.service.parts).submissions.funding.resync();
  const splitsBefore = new Set((await splits()).map((s) => s.txid));

  const answers: { at: number; status: number }[] = [];
  const miner = setInterval(() => void devnet!.mine(1), 1000);
  const started = Date.now();
  const sends: Promise<void>[] = [];
  try {
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = started + (i * 1000) / RATE;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const at = Date.now() - started;
      sends.push(
        fetch(`${running.url}/v2/transfer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${running.adminKey}` },
          body: bodies[i]!,
        }).then(async (res) => {
          await res.arrayBuffer();
          answers.push({ at, status: res.status });
        }),
      );
    }
    await Promise.all(sends);
  } finally {
    clearInterval(miner);
  }

  const refused = answers.filter((a) => a.status === 503);
  const late = refused.filter((a) => a.at >= STEP_MS);
  const other = answers.filter((a) => a.status !== 200 && a.status !== 503);
  assert.deepEqual(other, [], 'every transfer is valid: no other refusal');
  assert.deepEqual(late, [], `no 503 after the first ${STEP_MS} ms (${refused.length} in all)`);
  const grown = (await splits()).filter((s) => !splitsBefore.has(s.txid));
  assert.ok(grown.length > 0, 'the keeper refilled');
  assert.ok(
    grown.some((s) => s.outputs > DEFAULT_SPLIT_OUTPUTS),
    `a split sized to the rate measured (${grown.map((s) => s.outputs).join(', ')} outputs)`,
  );
});

/** The splits made so far: their txids and outputs. */
async function splits(): Promise<{ txid: string; outputs: number }[]> {
  const rows = await running.service.parts.ctx.db.query<{ txid: string; n: string }>(
    'SELECT txid, count(*) AS n FROM funding_outputs GROUP BY txid',
  );
  return rows.map((r) => ({ txid: r.txid, outputs: Number(r.n) }));
}
