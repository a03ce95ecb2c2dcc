// What a sequence of ledger verdicts does to one ticket and its change-feed record, worked out
// without I/O: the statuses the ticket passes through (one callback event each), where it ends,
// when the tracker looks again, whether its inputs stop being merely reserved, and the record's
// net change (one new score for the batch, whatever it passed through). Applying the verdicts
// one by one (apply-ledger-status.ts before batches) and planning them together give the same
// ticket, the same events and the same record: the planner walks them in order.
import { pathTo, type TicketStatus } from '../../domain/ticket-state.js';
import type { TxStatus } from '../../ledger/port.js';
import type { BlockPlace } from '../../store/feed/feed-writes.js';

export interface LedgerView {
  readonly status: TxStatus;
  /** Chain tip height when known (decides when a mined ticket stops being watched). */
  readonly tipHeight?: number;
  /**
   * A broadcast's answer: it may be older than what the store holds (the tracker can record the
   * block while the answer is on its way), so its `mempool` never takes a MINED ticket back.
   * Reorgs are the tracker's to see, from a status it asked for.
   */
  readonly fromBroadcast?: boolean;
  /**
   * A sweep's answer: the ticket's status when the sweep claimed it. A look begun before the
   * ticket was MINED may answer `mempool` after a push recorded the block: it never takes a
   * MINED ticket back either (a reorg is seen by a look at a MINED ticket).
   */
  readonly seenAs?: TicketStatus;
  /**
   * A sweep's answer about a MINED ticket: the block its record was in when the sweep claimed it.
   * Its `mempool` is about that block: once the record has moved to another block (a push of
   * the new block landed while the look was under way), it is older than the record, and ignored.
   */
  readonly seenBlock?: string;
}

/** Whether a `mempool` view may take a MINED ticket back (a reorg): only a look that saw it MINED, or a push. */
const mayUnmine = (view: LedgerView): boolean =>
  view.fromBroadcast !== true && (view.seenAs === undefined || view.seenAs === 'MINED');

/** The change-feed record as read (locked) before the verdicts; null when there is none. */
export interface RecordNow {
  readonly state: 'unconfirmed' | 'mined' | 'failed';
  readonly blkHash: string;
}

export interface PlannedStep {
  readonly from: TicketStatus;
  readonly to: TicketStatus;
  /** True the first time the ticket reaches `to` (MINED: first_mined_at was empty). */
  readonly first: boolean;
}

export interface VerdictPlan {
  readonly steps: readonly PlannedStep[];
  readonly status: TicketStatus;
  /** The schedule (next_check_at, lease, failures) is written; false: nothing to write at all. */
  readonly touched: boolean;
  /** Looked at again; false: never (final, or FAILED). */
  readonly watch: boolean;
  /**
   * Ends MINED, seen last in this block: the block gets its row (a block final when first seen,
   * for one look, whose insert is how a new block is noticed, docs/adr/0008). When still watched
   * (`watch`), the tracker watches the block (one look a poll for all its tickets) and the ticket
   * itself gets only a backstop look (docs/adr/0006). Null otherwise.
   */
  readonly minedIn: { readonly hash: string; readonly height: number } | null;
  /**
   * Ends SUCCESS because the ledger said it is in the mempool: looked at again when a block comes
   * (or at the mempool's backstop), not every poll (docs/adr/0008).
   */
  readonly waitsForBlock: boolean;
  /** Left BROADCASTING for the network: its inputs are spent, no longer merely reserved. */
  readonly release: boolean;
  /** Why it FAILED (its record fails, its spenders fail with it); null: it did not. */
  readonly failure: string | null;
  /** The record's net change when it did not fail: mined in a block, or back to unconfirmed. */
  readonly record:
    | { readonly kind: 'mined'; readonly block: BlockPlace }
    | { readonly kind: 'unmined' }
    | null;
}

export interface PlanInput {
  readonly status: TicketStatus;
  readonly firstMined: boolean;
  readonly record: RecordNow | null;
}

/**
 * Whether walking `views` from `status` can read or change the ticket's record: a block
 * (mined), a rejection (the record fails), or a mempool answer to a MINED ticket that is not a
 * broadcast's (a reorg). Otherwise (the common broadcast answer: mempool to a ticket not yet
 * MINED) the plan is the same with or without the record, and the record need not be locked.
 */
export function mayTouchRecord(status: TicketStatus, views: readonly LedgerView[]): boolean {
  return views.some((view) => {
    const kind = view.status.kind;
    if (kind === 'mined' || kind === 'rejected') return true;
    // Only a mempool view can take a ticket back from MINED, and only a view may make it MINED.
    return kind === 'mempool' && status === 'MINED' && mayUnmine(view);
  });
}

/** Walks `views` in order from the ticket's current status. */
export function planVerdicts(
  ticket: PlanInput,
  views: readonly LedgerView[],
  finalConfirmations: number,
): VerdictPlan {
  const steps: PlannedStep[] = [];
  let status = ticket.status;
  let firstMined = ticket.firstMined;
  let touched = false;
  let watch = true;
  let minedIn: VerdictPlan['minedIn'] = null;
  let waitsForBlock = false;
  let release = false;
  let failure: string | null = null;
  let record: { state: RecordNow['state']; block: BlockPlace | null } | null =
    ticket.record === null ? null : { state: ticket.record.state, block: null };
  let recordHash = ticket.record?.blkHash ?? '';
  const moveTo = (to: TicketStatus) => {
    for (const step of pathTo(status, to)) {
      const first = step === 'MINED' ? firstMined : status === 'BROADCASTING';
      if (step === 'MINED') firstMined = false;
      steps.push({ from: status, to: step, first });
      status = step;
    }
  };
  for (const view of views) {
    if (status === 'FAILED') break;
    const s = view.status;
    switch (s.kind) {
      case 'mempool':
        if (status === 'MINED' && !mayUnmine(view)) break;
        if (status === 'MINED' && view.seenBlock !== undefined && view.seenBlock !== recordHash) break;
        if (status === 'BROADCASTING') release = true;
        if (status === 'MINED' && record !== null && record.state === 'mined') {
          record = { state: 'unconfirmed', block: null };
          recordHash = '';
        }
        moveTo('SUCCESS');
        touched = true;
        watch = true;
        minedIn = null;
        waitsForBlock = true;
        break;
      case 'mined': {
        if (status === 'BROADCASTING') release = true;
        if (record !== null && !(record.state === 'mined' && recordHash === s.blockHash)) {
          record = {
            state: 'mined',
            block: { height: s.height, idx: s.index, hash: s.blockHash, time: s.blockTime },
          };
          recordHash = s.blockHash;
        }
        const depth = view.tipHeight === undefined ? 0 : view.tipHeight - s.height + 1;
        moveTo('MINED');
        touched = true;
        watch = depth < finalConfirmations;
        minedIn = { hash: s.blockHash, height: s.height };
        waitsForBlock = false;
        break;
      }
      case 'rejected':
        // A MINED ticket has a block's proof: a rejection from a push (a callback sent again after
        // a restart, older than the block) or a broadcast's answer is not enough to fail it. It
        // is looked at again at once, and the answer to that look decides.
        if (status === 'MINED' && view.seenAs !== 'MINED') {
          touched = true;
          watch = true;
          minedIn = null;
          waitsForBlock = false;
          break;
        }
        failure = s.reason;
        moveTo('FAILED');
        touched = true;
        watch = false;
        minedIn = null;
        waitsForBlock = false;
        break;
      case 'double-spend':
      case 'unknown':
        touched = true;
        watch = true;
        minedIn = null;
        waitsForBlock = false;
        break;
    }
  }
  const initial = ticket.record;
  let change: VerdictPlan['record'] = null;
  if (failure === null && record !== null && initial !== null) {
    if (
      record.state === 'mined' &&
      record.block !== null &&
      !(initial.state === 'mined' && initial.blkHash === recordHash)
    )
      change = { kind: 'mined', block: record.block };
    else if (record.state === 'unconfirmed' && initial.state === 'mined') change = { kind: 'unmined' };
  }
  return {
    steps,
    status,
    touched,
    watch,
    minedIn,
    waitsForBlock,
    release,
    failure,
    record: change,
  };
}

/** A live ticket failed because a transaction it spends from failed: its plan ends FAILED too. */
export function failAfter(plan: VerdictPlan, reason: string): VerdictPlan {
  if (plan.failure !== null || plan.status === 'FAILED') return plan;
  const steps = [...plan.steps];
  let status: TicketStatus = plan.status;
  for (const step of pathTo(status, 'FAILED')) {
    steps.push({ from: status, to: step, first: status === 'BROADCASTING' });
    status = step;
  }
  return {
    ...plan,
    steps,
    status,
    touched: true,
    watch: false,
    minedIn: null,
    waitsForBlock: false,
    failure: reason,
    record: null,
  };
}
