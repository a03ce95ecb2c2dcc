// The ticket state machine (contract.md "Ticket states"):
//
//   BROADCASTING --accepted by network--> SUCCESS --in a block--> MINED
//        |                                  |  ^                    |
//        +------rejected / double spend-----+--+--- block reorged --+
//        v                                  v
//      FAILED (terminal)
//
// Initial status BROADCASTING. Moves: BROADCASTING→SUCCESS, BROADCASTING→FAILED, SUCCESS→MINED,
// SUCCESS→FAILED, MINED→SUCCESS (its block was reorged out). FAILED is terminal. Nothing returns
// to BROADCASTING, and no status moves to itself.

export const TICKET_STATUSES = ['BROADCASTING', 'SUCCESS', 'MINED', 'FAILED'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const INITIAL_TICKET_STATUS: TicketStatus = 'BROADCASTING';

/**
 * A number per status, with gaps so that one can be inserted later (as ARC numbers its own), for
 * storage and ordering along the forward path. Ranks do not rise along every move: MINED→SUCCESS
 * goes down.
 */
export const TICKET_STATUS_RANK: Readonly<Record<TicketStatus, number>> = Object.freeze({
  BROADCASTING: 10,
  SUCCESS: 20,
  MINED: 30,
  FAILED: 40,
});

const NEXT: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = Object.freeze({
  BROADCASTING: ['SUCCESS', 'FAILED'],
  SUCCESS: ['MINED', 'FAILED'],
  MINED: ['SUCCESS'],
  FAILED: [],
});

export class TicketTransitionError extends Error {
  readonly from: TicketStatus;
  readonly to: TicketStatus;

  constructor(from: TicketStatus, to: TicketStatus, why: string) {
    super(`Ticket cannot go from ${from} to ${to}: ${why}`);
    this.name = 'TicketTransitionError';
    this.from = from;
    this.to = to;
  }
}

export function isTicketStatus(value: unknown): value is TicketStatus {
  return typeof value === 'string' && (TICKET_STATUSES as readonly string[]).includes(value);
}

/** The status stored under a rank; null for a number that is no rank. */
export function ticketStatusOfRank(rank: number): TicketStatus | null {
  return TICKET_STATUSES.find((status) => TICKET_STATUS_RANK[status] === rank) ?? null;
}

/** Whether `from` may move to `to` in one step (one edge of the diagram; never to itself). */
export function canTransition(from: TicketStatus, to: TicketStatus): boolean {
  return NEXT[from].includes(to);
}

/**
 * One step of the machine.
 * @throws TicketTransitionError when the move is not an edge of the diagram.
 */
export function transition(from: TicketStatus, to: TicketStatus): TicketStatus {
  if (!canTransition(from, to)) throw new TicketTransitionError(from, to, 'not a move of the ticket diagram');
  return to;
}

/**
 * The statuses to pass through, in order and ending with `to`, so that a ticket seen at `from`
 * and now observed at `to` emits one event per status change even when the ledger skipped some
 * (BROADCASTING→MINED is [SUCCESS, MINED]; MINED→FAILED goes through SUCCESS). The shortest such
 * path. Same status (FAILED→FAILED included): [], nothing changed.
 * @throws TicketTransitionError when `to` cannot be reached: anything from FAILED (terminal),
 * and BROADCASTING from any other status.
 */
export function pathTo(from: TicketStatus, to: TicketStatus): TicketStatus[] {
  if (from === to) return [];
  if (isTerminal(from)) throw new TicketTransitionError(from, to, `${from} is terminal`);
  // Breadth-first search over the (tiny) diagram gives the shortest path.
  const previous = new Map<TicketStatus, TicketStatus>();
  const queue: TicketStatus[] = [from];
  while (queue.length > 0) {
    const current = queue.shift() as TicketStatus;
    for (const next of NEXT[current]) {
      if (next === from || previous.has(next)) continue;
      previous.set(next, current);
      if (next === to) {
        const path: TicketStatus[] = [to];
        for (let step = current; step !== from; step = previous.get(step) as TicketStatus) path.unshift(step);
        return path;
      }
      queue.push(next);
    }
  }
  throw new TicketTransitionError(from, to, `${to} cannot be reached from ${from}`);
}

/** FAILED only: no move leaves it. MINED is not terminal, a reorg takes it back to SUCCESS. */
export function isTerminal(status: TicketStatus): boolean {
  return NEXT[status].length === 0;
}

/**
 * Whether the ticket's transaction still stands: BROADCASTING, SUCCESS and MINED. While live,
 * its token inputs (and funding input) stay reserved to it, no other transfer may spend them,
 * and its new outputs exist (unconfirmed until MINED). FAILED is not live: its inputs are
 * released and spendable again, and its outputs never existed.
 */
export function isLive(status: TicketStatus): boolean {
  return status !== 'FAILED';
}
