// Standard Webhooks signatures (spec v1.0.0): `webhook-signature: v1,<base64 HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>">`. The key is the secret's bytes: for a
// `whsec_<base64>` secret (every API key's), the decoded base64, as the standardwebhooks
// package reads it; any other string (a ticket's own callback_secret) is used as its UTF-8
// bytes, which the package reads with `{ format: 'raw' }`.
import { createHmac } from 'node:crypto';

const WHSEC = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** The HMAC key of a signing secret. */
export function signingKeyOf(secret: string): Uint8Array {
  const base64 = WHSEC.exec(secret)?.[1];
  if (base64 !== undefined && base64.length > 0) return new Uint8Array(Buffer.from(base64, 'base64'));
  return new Uint8Array(Buffer.from(secret, 'utf8'));
}

/** `v1,<base64 signature>` of one message. */
export function webhookSignature(
  key: Uint8Array,
  webhookId: string,
  timestamp: number,
  body: string,
): string {
  const mac = createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

export interface WebhookMessage {
  readonly webhookId: string;
  /** When this attempt is made; sent as Unix seconds. */
  readonly at: Date;
  readonly body: string;
}

/**
 * The headers of one attempt. With no key (a ticket with neither a key's secret nor its own)
 * the message goes unsigned: `webhook-id` and `webhook-timestamp` only.
 */
export function webhookHeaders(message: WebhookMessage, key: Uint8Array | null): Record<string, string> {
  const timestamp = Math.floor(message.at.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'tokenproxy-webhooks/1',
    'webhook-id': message.webhookId,
    'webhook-timestamp': String(timestamp),
  };
  if (key !== null)
    headers['webhook-signature'] = webhookSignature(key, message.webhookId, timestamp, message.body);
  return headers;
}
