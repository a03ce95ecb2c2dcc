// The invariants every chaos scenario checks at its end, on a quiet service: no ticket lost
// (each accepted submission's ticket is in the store and at its end), no output both spent and
// unspent, store and ledger in agreement on every transaction the store broadcast (and the
// ledger holding none the store does not know), balances summing to the supply.
import assert from 'node:assert/strict';
import { parseTokenScript } from '../../src/domain/token-script.js';
import type { Devnet } from '../../src/ledger/devnet/devnet.js';
import type { Db } from '../../src/store/db/db.js';
import { http } from '../e2e/e2e-http.js';
import { expectNoOutputBothSpentAndUnspent } from '../support/store-invariants.js';

export interface Observed {
  /** The service's base URL (balances are read over the API). */
  readonly url: string;
  /** An API key with the read scope. */
  readonly key: string;
  readonly db: Db;
  readonly devnet: Devnet;
  readonly tokenId: string;
  readonly supply: bigint;
}

export interface Expected {
  /** Ticket IDs the service answered for accepted submissions. */
  readonly accepted: readonly string[];
  /** Of those, the ones allowed to end FAILED (the rest must end MINED). */
  readonly mayFail?: ReadonlySet<string>;
  /** Transactions on the ledger that are not the service's (a rival the scenario mined). */
  readonly outsiders?: ReadonlySet<string>;
}

/** Every check below, in order. */
export async function expectInvariants(o: Observed, expected: Expected): Promise<void> {
  await expectNoTicketLost(o.db, expected);
  await expectNoOutputBothSpentAndUnspent(o.db);
  await expectStoreAndLedgerAgree(o, expected.outsiders);
  await expectSupplyUnchanged(o);
}

/** Each accepted ticket is stored and ended; no ticket of the store is left live. */
export async function expectNoTicketLost(db: Db, expected: Expected): Promise<void> {
  const rows = await db.query<{ id: string; status: string }>('SELECT id, status FROM tickets');
  const status = new Map(rows.map((r) => [r.id, r.status]));
  for (const id of expected.accepted) {
    const got = status.get(id);
    assert.notEqual(got, undefined, `ticket ${id} was answered but is not in the store`);
    const ends = expected.mayFail?.has(id) === true ? ['MINED', 'FAILED'] : ['MINED'];
    assert.ok(ends.includes(got!), `ticket ${id} ended ${got}, expected ${ends.join(' or ')}`);
  }
  const live = rows.filter((r) => r.status !== 'MINED' && r.status !== 'FAILED');
  assert.deepEqual(live, [], 'every ticket of the store reached its end');
}

/**
 * Every transaction the store holds live is mined on the ledger, every one it failed is not on
 * it, the ledger holds no transaction the store does not know, and the ledger's unspent token
 * outputs are exactly the index's.
 */
export async function expectStoreAndLedgerAgree(
  o: Observed,
  outsiders: ReadonlySet<string> = new Set(),
): Promise<void> {
  const { db, devnet } = o;
  const rows = await db.query<{ txid: string; state: string }>('SELECT txid, state FROM transactions');
  for (const row of rows) {
    const status = await devnet.status(row.txid);
    if (row.state === 'failed')
      assert.ok(
        status.kind !== 'mined' && status.kind !== 'mempool',
        `${row.txid} failed but ${status.kind}`,
      );
    else {
      assert.equal(row.state, 'mined', `${row.txid} is ${row.state} in the store`);
      assert.equal(status.kind, 'mined', `${row.txid} is mined in the store, ${status.kind} on the ledger`);
    }
  }
  await expectLedgerHoldsOnlyKnown(db, devnet, outsiders);
  const unspent = new Set(devnet.utxos().map((u) => `${u.txid}_${u.vout}`));
  const available = await db.query<{ txid: string; vout: number }>(
    "SELECT txid, vout FROM funding_outputs WHERE state = 'available'",
  );
  for (const f of available)
    assert.ok(
      unspent.has(`${f.txid}_${f.vout}`),
      `funding output ${f.txid}_${f.vout} available but not unspent on the ledger`,
    );
  const onChain = devnet
    .utxos()
    .flatMap((u) => {
      const inscription = parseTokenScript(u.lockingScript)?.inscription;
      const outpoint = `${u.txid}_${u.vout}`;
      if (inscription === undefined || inscription.op === 'burn') return [];
      const id = inscription.op === 'deploy+mint' ? outpoint : inscription.id;
      return id === o.tokenId ? [outpoint] : [];
    })
    .sort();
  const indexed = (
    await db.query<{ txid: string; vout: number }>(
      "SELECT txid, vout FROM token_outputs WHERE spent_by IS NULL AND op <> 'burn'",
    )
  )
    .map((r) => `${r.txid}_${r.vout}`)
    .sort();
  assert.deepEqual(onChain, indexed, "the ledger's unspent token outputs are the index's");
}

/** No transaction in a block or the mempool that the store does not know (the operator's own coins aside). */
export async function expectLedgerHoldsOnlyKnown(
  db: Db,
  devnet: Devnet,
  outsiders: ReadonlySet<string> = new Set(),
): Promise<void> {
  const known = new Set(
    (
      await db.query<{ txid: string }>('SELECT txid FROM transactions UNION SELECT txid FROM funding_outputs')
    ).map((r) => r.txid),
  );
  const onLedger = [...devnet.blocks().flatMap((b) => b.txids.slice(1)), ...devnet.mempoolTxids()];
  assert.ok(onLedger.length > 0);
  for (const txid of onLedger)
    if (!outsiders.has(txid)) assert.ok(known.has(txid), `${txid} is on the ledger, unknown to the store`);
}

/** The balances of every owner the index knows, over the API, sum to the supply. */
export async function expectSupplyUnchanged(o: Observed): Promise<void> {
  const owners = (await o.db.query<{ owner: string }>('SELECT DISTINCT owner FROM token_outputs')).map(
    (r) => r.owner,
  );
  const res = await http(o.url, 'POST', '/v2/balance', { key: o.key, body: owners });
  assert.equal(res.status, 200, res.text);
  const sum = (res.json as { amt: number }[]).reduce((s, b) => s + BigInt(b.amt), 0n);
  assert.equal(sum, o.supply, 'balances sum to the supply');
}
