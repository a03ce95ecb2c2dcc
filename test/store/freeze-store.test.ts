// The freeze list in the store, on both databases: frozenAmong answers exactly the frozen
// addresses among those asked; freezing twice records once; unfreezing what is not frozen
// records nothing; the record is append-only; holdings sum unspent, non-burn outputs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  freezeAddress,
  freezeEvents,
  frozenAmong,
  frozenHoldings,
  unfreezeAddress,
} from '../../src/store/controls/freeze-store.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const a = party('store freeze a').address;
const b = party('store freeze b').address;
const c = party('store freeze c').address;
const at = new Date('2026-11-23T12:00:00Z');

describeOnEachDb('freeze store', (fresh) => {
  it('frozenAmong answers the frozen ones among those asked, and nothing for none', async () => {
    const { db } = fresh;
    assert.deepEqual(await frozenAmong(db, [a, b]), new Set());
    const first = await freezeAddress(db, { address: a, reason: 'theft', actor: 'k1', at });
    assert.equal(first.changed, true);
    const second = await freezeAddress(db, { address: a, reason: 'other', actor: 'k2', at });
    assert.equal(second.changed, false);
    assert.equal(second.freeze.reason, 'theft');
    await freezeAddress(db, { address: c, reason: 'sanction', actor: 'k1', at });
    assert.deepEqual(await frozenAmong(db, [a, b, a]), new Set([a]));
    assert.deepEqual(await frozenAmong(db, [b, c]), new Set([c]));
    assert.deepEqual(await frozenAmong(db, []), new Set());
  });

  it('unfreezes once, records every change with who and why, and keeps the record append-only', async () => {
    const { db } = fresh;
    assert.equal(await unfreezeAddress(db, { address: b, reason: 'x', actor: 'k1', at }), null);
    const removed = await unfreezeAddress(db, { address: c, reason: 'lifted', actor: 'k3', at });
    assert.equal(removed?.reason, 'sanction');
    assert.deepEqual(await frozenAmong(db, [c]), new Set());
    const events = await freezeEvents(db, 10);
    assert.deepEqual(
      events.map((e) => [e.action, e.address, e.reason, e.actor]),
      [
        ['unfreeze', c, 'lifted', 'k3'],
        ['freeze', c, 'sanction', 'k1'],
        ['freeze', a, 'theft', 'k1'],
      ],
    );
    assert.equal((await freezeEvents(db, 10, a)).length, 1);
    await assert.rejects(db.query("UPDATE address_freeze_events SET actor = 'me'"), /append-only/);
    await assert.rejects(db.query('DELETE FROM address_freeze_events'), /append-only/);
  });

  it('holdings sum what a frozen address holds unspent, burns left out', async () => {
    const { db } = fresh;
    const made = await seedTransaction(db, {
      outputs: [
        { owner: a, amount: 700n },
        { owner: a, amount: 300n },
        { owner: a, amount: 50n, op: 'burn' },
        { owner: b, amount: 999n },
      ],
    });
    await seedTransaction(db, { spends: [made.outpoints[1]!], outputs: [{ owner: b, amount: 300n }] });
    const holdings = await frozenHoldings(db);
    assert.deepEqual(
      holdings.map((h) => [h.address, h.balance]),
      [[a, 700n]],
    );
  });
});
