// The settings of address webhooks (issue 31, part 1), spread into the one schema
// (config-schema.ts): bounds, the dispatcher's pace and when a failing subscription is disabled.
import { Type } from 'typebox';

export const SUBSCRIPTION_SETTINGS = {
  subscriptionMaxAddresses: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 10_000,
    description: 'Addresses one address-webhook subscription watches at most (POST /v2/subscriptions).',
  }),
  subscriptionsPerKey: Type.Integer({
    minimum: 1,
    default: 20,
    description: 'Address-webhook subscriptions one API key may have.',
  }),
  subscriptionDisableAfterMs: Type.Integer({
    minimum: 0,
    default: 3 * 24 * 3_600_000,
    description:
      'An address-webhook subscription whose deliveries have failed for this long is disabled, with the reason, until its owner enables it again, ms.',
  }),
  subscriptionPollMs: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 250,
    description: 'How often a deliverer looks at the change feed for address-webhook events, ms.',
  }),
  subscriptionHoldMs: Type.Integer({
    minimum: 0,
    default: 30_000,
    description:
      "How long an address webhook's unconfirmed event waits for the ledger to accept its transfer before it is sent anyway, ms.",
  }),
};
