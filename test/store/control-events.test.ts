// The issuer's control record reads newest first by its numeric id: with more than nine
// events, "the latest N" must be the N highest ids in descending order, not an order of the
// ids as text (where '9' sorts after '12').
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { controlEvents, recordControlEvent } from '../../src/store/controls/control-events.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';

describeOnEachDb('control events', (fresh) => {
  it('lists the newest events first by number, past nine of them', async () => {
    for (let i = 1; i <= 12; i++) {
      await recordControlEvent(fresh.db, {
        action: i % 2 === 0 ? 'pause' : 'unpause',
        subject: '',
        reason: `event ${i}`,
        actor: 'key-a',
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      });
    }
    const latest = await controlEvents(fresh.db, 5);
    assert.deepEqual(
      latest.map((e) => e.reason),
      ['event 12', 'event 11', 'event 10', 'event 9', 'event 8'],
    );
    const pauses = await controlEvents(fresh.db, 3, 'pause');
    assert.deepEqual(
      pauses.map((e) => e.reason),
      ['event 12', 'event 10', 'event 8'],
    );
  });
});
