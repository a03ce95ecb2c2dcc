// The gauges read from the database at each scrape: on a real database of each adapter, a
// scrape's reads run one at a time (a scrape holds one connection of the pool, however many
// gauges it collects) and still give every gauge its value, and a read two gauges share is
// made once a scrape.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { registerServiceGauges } from '../../src/metrics/service-gauges.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import type { Queryable, Row, SqlValue } from '../../src/store/db/db.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

/** `db`, with the statements it runs counted, and the most that were in flight at once. */
function counted(db: Queryable) {
  const seen = { inFlight: 0, most: 0, statements: [] as string[] };
  const q: Queryable = {
    async query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
      seen.inFlight++;
      seen.most = Math.max(seen.most, seen.inFlight);
      seen.statements.push(sql);
      try {
        // A pause, so that reads started together would overlap if nothing kept them apart.
        await new Promise((r) => setTimeout(r, 2));
        return await db.query<R>(sql, params);
      } finally {
        seen.inFlight--;
      }
    },
  };
  return { q, seen };
}

describeOnEachDb('gauges read at a scrape', (fresh) => {
  it('runs the reads one at a time and sets every gauge', async () => {
    const { q, seen } = counted(fresh.db);
    const warnings: string[] = [];
    const metrics = createServiceMetrics({ defaultMetrics: false });
    registerServiceGauges(metrics, {
      db: q,
      log: { warn: (_obj, msg) => warnings.push(msg) },
      token: { mintAddress: '1Mint', burnAddress: '1Burn' },
      genesisSupply: 0n,
      lowWater: 10,
    });
    const text = await metrics.registry.metrics();
    assert.deepEqual(warnings, []);
    assert.ok(seen.statements.length >= 8, `${seen.statements.length} reads`);
    assert.equal(seen.most, 1, 'a scrape never has two reads in flight');
    for (const line of [
      'tokenproxy_tickets{status="BROADCASTING"} 0',
      'tokenproxy_funding_pool_outputs 0',
      'tokenproxy_funding_pool_satoshis 0',
      'tokenproxy_supply_imbalance_units 0',
      'tokenproxy_outbox_oldest_pending_seconds 0',
    ])
      assert.ok(text.includes(line), `${line} in the scrape`);
    const fundingReads = seen.statements.filter((sql) => /FROM funding_outputs/i.test(sql)).length;
    assert.equal(fundingReads, 1, 'the two funding pool gauges share one read');
  });
});
