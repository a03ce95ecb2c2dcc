// What one change of a feed record means to one watched address (issue 31, part 1): the event a
// wallet needs without a second call. Pure: the dispatcher hands it a joined row
// (store/subscriptions/subscription-feed.ts) and writes what it answers.
//
// Status: a record first written is `unconfirmed` (once its ticket left BROADCASTING: the
// ledger accepted it), `confirmed` once mined, `reorged` when a mined record is unconfirmed
// again (its block left the chain), `failed` when it will never be mined (only to a
// subscription that was told of it before). Direction: `sent` when the address spends in it
// (amount: what it spent less what came back to it), `received` otherwise.
import { createHash } from 'node:crypto';
import { formatTokens } from '../../domain/amount.js';
import type { SubscribedChange } from '../../store/subscriptions/subscription-feed.js';

export const ADDRESS_EVENT_TYPES = [
  'tokens.received.unconfirmed',
  'tokens.received.confirmed',
  'tokens.received.reorged',
  'tokens.received.failed',
  'tokens.sent.unconfirmed',
  'tokens.sent.confirmed',
  'tokens.sent.reorged',
  'tokens.sent.failed',
] as const;
export type AddressEventType = (typeof ADDRESS_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';

export type EventStatus = 'unconfirmed' | 'confirmed' | 'reorged' | 'failed';
export type Direction = 'received' | 'sent';

/** The `data` of an address event. */
export interface AddressEventData {
  readonly subscriptionId: string;
  readonly txid: string;
  readonly score: string;
  readonly address: string;
  readonly direction: Direction;
  /** Atomic units, a decimal string. */
  readonly amount: string;
  /** The same in tokens, a decimal string. */
  readonly tokens: string;
  /** For `received`: the senders; for `sent`: the receivers; the address itself left out. */
  readonly counterparties: readonly string[];
  readonly status: EventStatus;
  readonly blockHeight: number | null;
  readonly blockHash: string | null;
  readonly blockTime: number | null;
}

/** The Standard Webhooks envelope: type, timestamp, data. */
export interface AddressEventPayload {
  readonly type: AddressEventType;
  readonly timestamp: string;
  readonly data: AddressEventData;
}

export type EventPlan =
  | {
      readonly kind: 'event';
      readonly type: AddressEventType;
      readonly status: EventStatus;
      readonly payload: AddressEventPayload;
    }
  /** Not an event for this subscription (not wanted, or nothing it was told of before). */
  | { readonly kind: 'none' }
  /** Not yet: the record's ticket waits for the ledger's answer. */
  | { readonly kind: 'hold' };

function statusOf(change: SubscribedChange): EventStatus {
  if (change.state === 'mined') return 'confirmed';
  if (change.state === 'failed') return 'failed';
  return change.rescored ? 'reorged' : 'unconfirmed';
}

/** Direction and amount of the change to the address. */
function movementOf(change: SubscribedChange): { direction: Direction; amount: bigint } {
  const net = change.received - change.spent;
  if (change.senders.includes(change.address) && net <= 0n) return { direction: 'sent', amount: -net };
  return { direction: 'received', amount: net < 0n ? -net : net };
}

/**
 * The event of `change`, if the subscription wants it. `holdUntil`: an unconfirmed record whose
 * ticket is still BROADCASTING and was written after this is held (the dispatcher comes back).
 */
export function planAddressEvent(change: SubscribedChange, now: Date, holdUntil: Date): EventPlan {
  const status = statusOf(change);
  if (status === 'unconfirmed' && change.ticketStatus === 'BROADCASTING' && change.createdAt > holdUntil)
    return { kind: 'hold' };
  let data: AddressEventData;
  if (status === 'failed') {
    // Its outputs are gone and its inputs released: the figures are those of the last event.
    const prior = (change.prior as AddressEventPayload | null)?.data;
    if (prior === undefined || prior === null) return { kind: 'none' };
    data = {
      ...prior,
      score: change.score.toString(),
      status,
      blockHeight: null,
      blockHash: null,
      blockTime: null,
    };
  } else {
    const { direction, amount } = movementOf(change);
    const others = direction === 'received' ? change.senders : change.receivers;
    const mined = status === 'confirmed';
    data = {
      subscriptionId: change.subscriptionId,
      txid: change.txid,
      score: change.score.toString(),
      address: change.address,
      direction,
      amount: amount.toString(),
      tokens: formatTokens(amount),
      counterparties: [...new Set(others)].filter((a) => a !== change.address),
      status,
      blockHeight: mined ? change.height : null,
      blockHash: mined ? change.blockHash : null,
      blockTime: mined ? change.blockTime : null,
    };
  }
  const type = `tokens.${data.direction}.${status}` as AddressEventType;
  if (!change.events.includes(type)) return { kind: 'none' };
  return { kind: 'event', type, status, payload: { type, timestamp: now.toISOString(), data } };
}

/** The webhook-id of an event: the same for the same change, whoever writes it. */
export function webhookIdOf(
  subscriptionId: string,
  txid: string,
  address: string,
  status: string,
  score: bigint,
) {
  const digest = createHash('sha256')
    .update(`${subscriptionId}|${txid}|${address}|${status}|${score}`)
    .digest();
  return `msg_${digest.subarray(0, 18).toString('base64url')}`;
}
