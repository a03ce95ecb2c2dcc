// What ARC posts to the X-CallbackUrl: one status `{timestamp, txid, txStatus, ...}`, or a batch
// `{count, callbacks: [...]}` (X-CallbackBatch), with the X-CallbackToken as a bearer token.
import type { ArcStatusFields } from './arc-status.js';

export type ArcCallbackResult =
  | { readonly status: 200; readonly accepted: number; readonly ignored: number }
  | { readonly status: 400 | 401; readonly error: string };

/** The statuses of a callback body; null when it is neither a status nor a batch of them. */
export function callbackItems(body: unknown): ArcStatusFields[] | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.callbacks)) {
    const items = record.callbacks.filter((c): c is ArcStatusFields => typeof c === 'object' && c !== null);
    return items.length === record.callbacks.length ? items : null;
  }
  return typeof record.txid === 'string' ? [record as ArcStatusFields] : null;
}

/** ARC's timestamps are RFC 3339 with nanoseconds; milliseconds are enough to order them. */
export function timestampMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
