// bench:supply — what one read of the supply split costs as the ledger grows: supply(), which
// sums every token output, against keptSupply(), which reads the kept total of the balances
// (migration 040, docs/adr/0004-balances-kept-per-address.md). It is the read behind the
// `tokenproxy_supply_*` gauges at every scrape, the admin status and the console. On a fresh
// PostgreSQL database (TEST_DATABASE_URL), the ledger is grown in steps (one transaction of
// three outputs, one of them spent, per step unit, owners spread over a tenth as many
// addresses, the balances folded) and at each size both reads run interleaved, median of
// seven each. Prints, per size, each read's milliseconds and the ratio scan / kept.
import { performance } from 'node:perf_hooks';
import { openPostgresDb } from '../src/store/db/postgres-db.js';
import { migrate } from '../src/store/migrate.js';
import { keptSupply } from '../src/store/wallets/kept-supply.js';
import { supply } from '../src/store/wallets/wallet-queries.js';
import { freshDatabase } from '../test/support/test-databases.js';
import { medianOf as median } from './median.js';

const SIZES = (process.env.BENCH_SUPPLY_SIZES ?? '10000,100000,300000').split(',').map(Number);
const ROUNDS = 7;
const TOKEN = { mintAddress: 'mint-address', burnAddress: 'burn-address' };

async function timed(read: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await read();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('bench:supply needs TEST_DATABASE_URL');
  const database = await freshDatabase(url, 'supplyread');
  const db = await openPostgresDb(database.url, { max: 2 });
  try {
    await migrate(db);
    let transactions = 0;
    for (const size of SIZES) {
      // Grown to `size` transactions: each records three outputs and spends its first.
      await db.query(
        `WITH t AS (
           INSERT INTO transactions (txid, raw_tx, state, score)
           SELECT 'tx' || i, '\\x00', 'mined', i FROM generate_series($1::int, $2::int) i RETURNING txid, score)
         INSERT INTO token_outputs (txid, vout, owner, amount, op, script, satoshis, spent_by, score)
         SELECT t.txid, v, 'owner ' || (t.score % greatest($2::int / 10, 1)), 1000 + v, 'transfer', '\\x00', 1,
                CASE WHEN v = 0 THEN t.txid ELSE NULL END, t.score
           FROM t, generate_series(0, 2) v`,
        [transactions + 1, size],
      );
      transactions = size;
      await db.query('ANALYZE');
      const [scan, kept] = [await supply(db, TOKEN), await keptSupply(db, TOKEN)];
      if (JSON.stringify(scan, (_k, v) => String(v)) !== JSON.stringify(kept, (_k, v) => String(v)))
        throw new Error(
          `the two reads disagree at ${size}: ${JSON.stringify({ scan, kept }, (_k, v) => String(v))}`,
        );
      const scans: number[] = [];
      const keeps: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        scans.push(await timed(() => supply(db, TOKEN)));
        keeps.push(await timed(() => keptSupply(db, TOKEN)));
      }
      const s = median(scans);
      const k = median(keeps);
      console.log(
        `supply read at ${size * 3} outputs (${size} transactions): scan ${s.toFixed(2)} ms, kept ${k.toFixed(2)} ms; ratio scan / kept ${(s / k).toFixed(1)}`,
      );
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

await main();
