// bench:statements — database statements and round trips per transfer, counted (not timed, so
// the machine's noise does not touch it): TRANSFERS transfers through POST /v2/transfer from 16
// submitters, one block mined, counted from the first submission until every ticket is MINED
// (submission, broadcast answer, tracker, block). PGlite always; PostgreSQL when
// TEST_DATABASE_URL is set. A round trip is a statement, a BEGIN or a COMMIT/ROLLBACK.
// BENCH_SERVICE_FLAGS adds flags to both services (e.g. "--submission-window-ms 0").

import { apiContextOf } from '../src/compose.js';
import { pubKeyHashOf } from '../src/domain/address.js';
import { unspentOutputs } from '../src/store/wallets/wallet-queries.js';
import { mintTokens } from '../src/usecases/supply/mint-tokens.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import { party } from '../test/support/token-world.js';
import {
  BENCH_SERVICE_FLAGS,
  mineUntilMined,
  startBenchService,
  withBenchDatabase,
} from './bench-service.js';
import { countStatements, roundTrips } from './counting-db.js';

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 200);

async function measure(label: string, flags: string[]): Promise<void> {
  const { service, adminKey, stop } = await startBenchService([...flags, ...BENCH_SERVICE_FLAGS]);
  try {
    const { keys, devnet } = service.parts;
    const ctx = apiContextOf(service.parts);
    const senders = Array.from({ length: 20 }, (_, i) => party(`statements sender ${i}`));
    for (let i = 0; i < TRANSFERS; i++)
      await mintTokens(ctx, keys.mint, { to: senders[i % senders.length]!.address, amount: 1_000_000n });
    await devnet!.mine(1);
    const recipient = party('statements recipient');
    const feePkh = pubKeyHashOf(ctx.token.feeAddress)!;
    const out = (o: Parameters<typeof tokenOutput>[0], amt: bigint) =>
      tokenOutput(o, amt, ctx.token.tokenId, ctx.token.approver);
    const raws: string[] = [];
    for (const s of senders) {
      const coins = await unspentOutputs(ctx.db, {
        addresses: [s.address],
        page: 1,
        size: 1000,
        order: 'asc',
      });
      for (const coin of coins) {
        const known = { ...coin, lockingScript: coin.script, state: 'unspent' as const };
        const outputs = [out(recipient, 500_000n), out(feePkh, 100n), out(s, coin.amount - 500_100n)];
        raws.push(Buffer.from(buildTransfer({ inputs: [known], outputs, signer: s })).toString('base64'));
      }
    }
    // Let the mints' own follow-up (tracker looks, pool refill) settle before counting.
    await new Promise((r) => setTimeout(r, 3000));
    const { counts, uncounted } = countStatements(ctx.db);
    const ids: string[] = [];
    const queue = [...raws];
    const submitter = async () => {
      for (let rawtx = queue.shift(); rawtx !== undefined; rawtx = queue.shift()) {
        const res = await fetch(`${service.url}/v2/transfer`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${adminKey}` },
          body: JSON.stringify({ rawtx }),
        });
        if (!res.ok) throw new Error(`transfer refused: ${res.status} ${await res.text()}`);
        ids.push(((await res.json()) as { ticketId: string }).ticketId);
      }
    };
    await Promise.all(Array.from({ length: 16 }, submitter));
    await mineUntilMined(uncounted, devnet!, ids);
    const counting = { ...counts };
    const trips = roundTrips(counting);
    if (process.env.BENCH_DETAIL === '1') {
      for (const [kind, n] of [...counts.kinds].sort((a, b) => b[1] - a[1]).slice(0, 25))
        console.log(`  ${(n / ids.length).toFixed(2).padStart(6)}  ${kind}`);
    }
    console.log(
      `${label}: ${ids.length} transfers to MINED: ${(counting.statements / ids.length).toFixed(2)} statements, ` +
        `${(counting.transactions / ids.length).toFixed(2)} transactions, ${(trips / ids.length).toFixed(2)} round trips per transfer`,
    );
  } finally {
    await stop();
  }
}

await measure('PGlite', []);
const pgUrl = process.env.TEST_DATABASE_URL;
if (pgUrl !== undefined) {
  await withBenchDatabase(pgUrl, (url) => measure('PostgreSQL', ['--database-url', url]));
} else {
  console.log('PostgreSQL: skipped (set TEST_DATABASE_URL)');
}
