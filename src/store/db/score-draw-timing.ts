// How this process draws change-feed scores (store/feed/score.ts), timed around its statements,
// for the metrics and bench:api (docs/performance.md "Efficiency"):
// - draw time: while a statement that draws scores is in flight, from its send to its answer.
//   Writers do not wait for each other (docs/adr/0020-scores-drawn-under-shared-markers.md); what
//   is serial is nextval's lock on the sequence's page, inside these statements, so this time is
//   an upper bound on the serial part, not the serial part;
// - marker time: while some transaction of this process holds its marker, from the send of its
//   first drawing statement to its COMMIT or ROLLBACK: how long it may hold readers' bound back;
// - scores drawn: the rows the drawing statements answered (one a score).
// Both times count the moments when at least one is under way, so overlapping writers of one
// process count once.
import { SCORE_DRAW } from '../feed/score.js';

/** Time during which at least one of the intervals begun and not yet ended was open. */
class BusyTime {
  private open = 0;
  private since = 0;
  seconds = 0;

  begin(now: number): void {
    if (this.open++ === 0) this.since = now;
  }

  end(now: number): void {
    if (--this.open === 0) this.seconds += Math.max(0, now - this.since) / 1000;
  }
}

const drawing = new BusyTime();
const marked = new BusyTime();
let scoresDrawn = 0;

/** True when the statement draws change-feed scores (and so takes the writer's marker first). */
export function drawsScores(sql: string): boolean {
  return sql.includes(SCORE_DRAW);
}

/** A transaction's first drawing statement is sent: its marker is held from now to its end. */
export function markerTaken(now = performance.now()): void {
  marked.begin(now);
}

/** The transaction that took a marker ended (commit or rollback). */
export function markerReleased(now = performance.now()): void {
  marked.end(now);
}

/** A drawing statement was sent. */
export function drawSent(now = performance.now()): void {
  drawing.begin(now);
}

/** A drawing statement answered `rows` rows (one a score), or failed (0). */
export function drawAnswered(rows: number, now = performance.now()): void {
  drawing.end(now);
  scoresDrawn += rows;
}

/** Totals since the process started. */
export function scoreDrawTotals(): {
  readonly drawSeconds: number;
  readonly markerSeconds: number;
  readonly scoresDrawn: number;
} {
  return { drawSeconds: drawing.seconds, markerSeconds: marked.seconds, scoresDrawn };
}
