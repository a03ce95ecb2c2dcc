import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canTransition,
  INITIAL_TICKET_STATUS,
  isLive,
  isTerminal,
  isTicketStatus,
  pathTo,
  TICKET_STATUS_RANK,
  TICKET_STATUSES,
  type TicketStatus,
  TicketTransitionError,
  ticketStatusOfRank,
  transition,
} from '../../src/domain/ticket-state.js';

const B: TicketStatus = 'BROADCASTING';
const S: TicketStatus = 'SUCCESS';
const M: TicketStatus = 'MINED';
const F: TicketStatus = 'FAILED';

// Written by hand from the diagram in contract.md "Ticket states": every ordered pair of statuses,
// whether it is one move, and the path of statuses an observer passes through ('throw': unreachable).
const TABLE: Array<[from: TicketStatus, to: TicketStatus, oneMove: boolean, path: TicketStatus[] | 'throw']> =
  [
    [B, B, false, []],
    [B, S, true, [S]],
    [B, M, false, [S, M]],
    [B, F, true, [F]],
    [S, B, false, 'throw'],
    [S, S, false, []],
    [S, M, true, [M]],
    [S, F, true, [F]],
    [M, B, false, 'throw'],
    [M, S, true, [S]],
    [M, M, false, []],
    [M, F, false, [S, F]],
    [F, B, false, 'throw'],
    [F, S, false, 'throw'],
    [F, M, false, 'throw'],
    [F, F, false, []],
  ];

describe('ticket statuses', () => {
  it('are the four of the contract, starting at BROADCASTING', () => {
    assert.deepEqual([...TICKET_STATUSES].sort(), [B, F, M, S]);
    assert.equal(INITIAL_TICKET_STATUS, B);
  });

  it('have distinct ranks with gaps, increasing along the forward path, each readable back', () => {
    const ranks = [B, S, M, F].map((status) => TICKET_STATUS_RANK[status]);
    for (let i = 1; i < ranks.length; i++) {
      assert.ok((ranks[i] ?? 0) - (ranks[i - 1] ?? 0) >= 2, `gap between ${ranks[i - 1]} and ${ranks[i]}`);
    }
    for (const status of TICKET_STATUSES)
      assert.equal(ticketStatusOfRank(TICKET_STATUS_RANK[status]), status);
    assert.equal(ticketStatusOfRank(0), null);
    assert.equal(ticketStatusOfRank(15), null);
  });

  it('recognises status strings', () => {
    for (const status of TICKET_STATUSES) assert.ok(isTicketStatus(status));
    for (const other of ['broadcasting', 'PENDING', '', 10, null, undefined])
      assert.equal(isTicketStatus(other), false);
  });
});

describe('the table covers every pair', () => {
  it('has 16 distinct pairs', () => {
    const pairs = new Set(TABLE.map(([from, to]) => `${from}>${to}`));
    assert.equal(pairs.size, TICKET_STATUSES.length ** 2);
  });
});

describe('canTransition and transition', () => {
  for (const [from, to, oneMove] of TABLE) {
    it(`${from} -> ${to}: ${oneMove ? 'allowed' : 'refused'}`, () => {
      assert.equal(canTransition(from, to), oneMove);
      if (oneMove) assert.equal(transition(from, to), to);
      else assert.throws(() => transition(from, to), TicketTransitionError);
    });
  }
});

describe('pathTo', () => {
  for (const [from, to, , path] of TABLE) {
    it(`${from} => ${to}: ${path === 'throw' ? 'throws' : `[${path.join(', ')}]`}`, () => {
      if (path === 'throw') {
        assert.throws(
          () => pathTo(from, to),
          (e: unknown) => e instanceof TicketTransitionError && e.from === from && e.to === to,
        );
      } else {
        const got = pathTo(from, to);
        assert.deepEqual(got, path);
        // Every step of the path is one move of the machine.
        let at = from;
        for (const step of got) at = transition(at, step);
        assert.equal(at, to);
      }
    });
  }
});

describe('isTerminal and isLive', () => {
  it('only FAILED is terminal, and only FAILED is not live', () => {
    const expected: Array<[TicketStatus, terminal: boolean, live: boolean]> = [
      [B, false, true],
      [S, false, true],
      [M, false, true],
      [F, true, false],
    ];
    for (const [status, terminal, live] of expected) {
      assert.equal(isTerminal(status), terminal, status);
      assert.equal(isLive(status), live, status);
    }
  });
});
