// The body of a callback: the Ticket JSON of the event (spec section 6), its fields in the
// order of the Ticket resource. The outbox keeps it as jsonb, which does not keep key order;
// the same event always yields the same bytes, so every retry carries the same body.
const FIELD_ORDER = [
  'id',
  'tx_id',
  'tx_hex',
  'action_requested',
  'status',
  'callback_url',
  'createdAt',
  'updatedAt',
  'errors',
] as const;

export function eventBody(payload: unknown): string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return JSON.stringify(payload);
  const source = payload as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) if (key in source) ordered[key] = source[key];
  for (const key of Object.keys(source).sort()) if (!(key in ordered)) ordered[key] = source[key];
  return JSON.stringify(ordered);
}
