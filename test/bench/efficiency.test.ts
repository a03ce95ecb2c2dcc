// bench:api's efficiency line: what it prints, a script reads back, figure for figure; and the
// row writes counted between two readings of the statistics views.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Efficiency, formatEfficiency, parseEfficiency, rowWritesOf } from '../../bench/efficiency.js';

describe('bench: the efficiency line', () => {
  const figures: Efficiency = {
    hostCpu: 9.04,
    rowWrites: 24.3,
    hotPercent: 4,
    wal: 14.6,
    scoreLockUnits: 0.33,
    scoreLockHeldPercent: 41,
    devnet: 3.2,
  };

  it('prints the figures in the documented shape', () => {
    assert.equal(
      formatEfficiency(figures),
      'efficiency: host CPU x9.0 of own signatures; row writes 24.3 per transfer, HOT 4%; WAL x14.6 of raw tx; ' +
        'score lock 0.3300 ceiling units, held 41% of wall time; devnet x3.2 of its verifies',
    );
  });

  it('gives a share under 1% two decimals', () => {
    assert.match(
      formatEfficiency({ ...figures, scoreLockUnits: 0.00412, scoreLockHeldPercent: 0.137 }),
      /score lock 0\.0041 ceiling units, held 0\.14% of wall time;/,
    );
  });

  it('reads back what it printed, within a line of other output', () => {
    const read = parseEfficiency(`transfers: 3000\n  ${formatEfficiency(figures)}\n  (own signatures ...)`);
    assert.deepEqual(read, { ...figures, hostCpu: 9 });
    assert.equal(parseEfficiency('no such line'), undefined);
  });

  it('counts inserts, updates and deletes per transfer, and the share of HOT updates', () => {
    const before = new Map([['tickets', { ins: 10, upd: 10, hot: 5, del: 0 }]]);
    const after = new Map([
      ['tickets', { ins: 20, upd: 30, hot: 10, del: 0 }],
      ['token_outputs', { ins: 20, upd: 20, hot: 15, del: 10 }],
    ]);
    assert.deepEqual(rowWritesOf(before, after, 10), { rowWrites: 8, hotPercent: 50 });
  });
});
