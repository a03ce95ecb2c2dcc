// submissionLookups answers in one statement what three queries answered: the earlier tickets of
// submitted txids, the known token outputs among outpoints, and the frozen owners among them. On
// both databases, it must agree with the three one by one.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { freezeAddress, frozenAmong } from '../../src/store/controls/freeze-store.js';
import { submissionLookups } from '../../src/store/submissions/submission-lookups.js';
import { ticketIdsBySubmittedTxid } from '../../src/store/tickets/ticket-queries.js';
import { tokenOutputsByOutpoint } from '../../src/store/wallets/wallet-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import { randomTxid, seedTicket, seedTransaction } from '../support/seed-store.js';
import { party } from '../support/token-world.js';

const alice = party('lookups alice').address;
const bob = party('lookups bob').address;
const carol = party('lookups carol').address;

describeOnEachDb('submission lookups', (fresh) => {
  it('agree with the three queries they replace: tickets, outputs (with their state) and frozen owners', async () => {
    const { db } = fresh;
    const made = await seedTransaction(db, {
      outputs: [
        { owner: alice, amount: 5n },
        { owner: bob, amount: 7n },
        { owner: carol, amount: 9n, op: 'burn' },
      ],
    });
    const ticketId = await seedTicket(db);
    await seedTransaction(db, {
      spends: [made.outpoints[1]!],
      outputs: [{ owner: alice, amount: 7n }],
      ticketId,
    });
    const submitted = randomTxid();
    const earlier = await seedTicket(db);
    await db.query('UPDATE tickets SET submitted_txid = $1 WHERE id = $2', [submitted, earlier]);
    await freezeAddress(db, { address: bob, reason: 'theft', actor: 'test', at: new Date() });
    await freezeAddress(db, { address: carol, reason: 'unasked', actor: 'test', at: new Date() });

    const outpoints = [...made.outpoints.slice(0, 2), `${randomTxid()}_0`];
    const submittedTxids = [submitted, randomTxid()];
    const got = await submissionLookups(db, submittedTxids, outpoints);
    const known = await tokenOutputsByOutpoint(db, outpoints);
    assert.deepEqual(got.known, known);
    assert.equal(got.known.size, 2);
    assert.equal(got.known.get(made.outpoints[1]!)?.state, 'reserved');
    assert.deepEqual(got.earlier, await ticketIdsBySubmittedTxid(db, submittedTxids));
    assert.equal(got.earlier.get(submitted), earlier);
    assert.deepEqual(
      got.frozen,
      await frozenAmong(
        db,
        [...known.values()].map((o) => o.owner),
      ),
    );
    assert.deepEqual(got.frozen, new Set([bob]), 'carol is frozen but none of her outputs was asked');
  });

  it('answer nothing for nothing asked, and refuse a malformed outpoint', async () => {
    const { db } = fresh;
    const none = await submissionLookups(db, [], []);
    assert.equal(none.earlier.size + none.known.size + none.frozen.size, 0);
    await assert.rejects(submissionLookups(db, [], ['nope']), RangeError);
  });
});
