// The wire shapes of address webhooks (issue 31, part 1): a subscription, its address changes,
// its events (the Standard Webhooks envelope a receiver gets) and their delivery log. Address
// lists carry no maxItems: the bound is the use case's, answered 422 SUBSCRIPTION_LIMIT (the
// body limit bounds the request).
import { Type } from 'typebox';
import { ADDRESS_EVENT_TYPES, TEST_EVENT_TYPE } from '../../usecases/subscriptions/address-event.js';

/** Text a database column takes: no NUL or other control characters. */
const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f]*$';
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

const EXAMPLE_ID = '0192f0c4-a1b2-7c3e-8d5f-6a7b8c9d0e1f';
const EXAMPLE_ADDRESS = '1BoatSLRHtKNngkdXEeobR76b53LETtpyT';
const EXAMPLE_TXID = 'a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef';

export const EventType = Type.Enum([...ADDRESS_EVENT_TYPES], { description: 'An event type' });

export const Subscription = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String(), { description: 'The event types sent' }),
    description: Type.String(),
    addressCount: Type.Integer(),
    enabled: Type.Boolean(),
    disabledAt: NullableTime,
    disabledReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it was disabled (deliveries failing for too long, 410 Gone, its owner)',
    }),
    failingSince: Type.Union([Time, Type.Null()], {
      description: 'The first failed attempt of the current run of failures; null: the last attempt worked',
    }),
    createdAt: Time,
    updatedAt: Time,
  },
  {
    examples: [
      {
        id: EXAMPLE_ID,
        url: 'https://wallet.example/hooks/tokens',
        events: [...ADDRESS_EVENT_TYPES],
        description: 'hot wallet',
        addressCount: 1,
        enabled: true,
        disabledAt: null,
        disabledReason: null,
        failingSince: null,
        createdAt: '2026-11-27T12:00:00.000Z',
        updatedAt: '2026-11-27T12:00:00.000Z',
      },
    ],
  },
);

export const CreatedSubscription = Type.Intersect(
  [
    Subscription,
    Type.Object({
      secret: Type.String({
        description: 'The Standard Webhooks signing secret (whsec_...): shown once, here',
      }),
    }),
  ],
  {
    examples: [
      {
        id: EXAMPLE_ID,
        url: 'https://wallet.example/hooks/tokens',
        events: [...ADDRESS_EVENT_TYPES],
        description: 'hot wallet',
        addressCount: 1,
        enabled: true,
        disabledAt: null,
        disabledReason: null,
        failingSince: null,
        createdAt: '2026-11-27T12:00:00.000Z',
        updatedAt: '2026-11-27T12:00:00.000Z',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
    ],
  },
);

export function subscriptionBody(maxAddresses: number) {
  return Type.Object(
    {
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'Where events are POSTed (http or https)',
      }),
      addresses: Type.Optional(
        Type.Array(Type.String({ maxLength: 128 }), {
          description: `Addresses to watch (at most ${maxAddresses}; change them later at /addresses)`,
        }),
      ),
      events: Type.Optional(
        Type.Array(EventType, {
          minItems: 1,
          uniqueItems: true,
          description: 'Event types to send (default: all)',
        }),
      ),
      description: Type.Optional(Type.String({ maxLength: 200, pattern: NO_CONTROL })),
    },
    {
      additionalProperties: false,
      examples: [
        {
          url: 'https://wallet.example/hooks/tokens',
          addresses: [EXAMPLE_ADDRESS],
          events: ['tokens.received.confirmed', 'tokens.received.reorged'],
        },
      ],
    },
  );
}

export const SubscriptionChangeBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Type.Array(EventType, { minItems: 1, uniqueItems: true })),
    description: Type.Optional(Type.String({ maxLength: 200, pattern: NO_CONTROL })),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true: enable a disabled subscription again; false: disable it' }),
    ),
  },
  { additionalProperties: false, examples: [{ enabled: true }] },
);

export function addressChangeBody(maxAddresses: number) {
  const list = (what: string) =>
    Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { description: what }));
  return Type.Object(
    {
      add: list('Addresses to watch besides the ones watched (applied last)'),
      remove: list('Addresses to stop watching (applied after replace)'),
      replace: list('The whole new list (applied first)'),
    },
    {
      additionalProperties: false,
      description: `The watched list after the change holds at most ${maxAddresses} addresses`,
      examples: [{ add: [EXAMPLE_ADDRESS], remove: ['1JwSSubhmg6iPtRjtyqhUYYH7bZg3Lfy1T'] }],
    },
  );
}

export const AddressList = Type.Object(
  { subscriptionId: Type.String(), count: Type.Integer(), addresses: Type.Array(Type.String()) },
  { examples: [{ subscriptionId: EXAMPLE_ID, count: 1, addresses: [EXAMPLE_ADDRESS] }] },
);

export const AddressCount = Type.Object(
  {
    subscriptionId: Type.String(),
    count: Type.Integer({ description: 'Addresses watched after the change' }),
  },
  { examples: [{ subscriptionId: EXAMPLE_ID, count: 2 }] },
);

const EXAMPLE_PAYLOAD = {
  type: 'tokens.received.confirmed',
  timestamp: '2026-11-27T12:00:05.000Z',
  data: {
    subscriptionId: EXAMPLE_ID,
    txid: EXAMPLE_TXID,
    score: '1042',
    address: EXAMPLE_ADDRESS,
    direction: 'received',
    amount: '150000',
    tokens: '1.5',
    counterparties: ['1JwSSubhmg6iPtRjtyqhUYYH7bZg3Lfy1T'],
    status: 'confirmed',
    blockHeight: 812,
    blockHash: '00000000000000000a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071',
    blockTime: 1795780805,
  },
};

export const EventPayload = Type.Object(
  {
    type: Type.String({ description: `An address event type, or ${TEST_EVENT_TYPE}` }),
    timestamp: Time,
    data: Type.Object(
      {
        subscriptionId: Type.String(),
        txid: Type.Optional(Type.String()),
        score: Type.String({ description: 'The change-feed score of the change, a decimal string' }),
        address: Type.Optional(Type.String()),
        direction: Type.Optional(Type.Enum(['received', 'sent'])),
        amount: Type.Optional(Type.String({ description: 'Atomic units, a decimal string' })),
        tokens: Type.Optional(Type.String({ description: 'The amount in tokens, a decimal string' })),
        counterparties: Type.Optional(Type.Array(Type.String())),
        status: Type.Optional(Type.Enum(['unconfirmed', 'confirmed', 'reorged', 'failed'])),
        blockHeight: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        blockHash: Type.Optional(NullableString),
        blockTime: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { description: 'The body POSTed to the subscription URL', examples: [EXAMPLE_PAYLOAD] },
);

const Attempt = Type.Object({
  at: Time,
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null: no answer' }),
  latencyMs: Type.Integer(),
  error: NullableString,
});

const EVENT_FIELDS = {
  webhookId: Type.String({ description: 'The webhook-id header: the same on every attempt' }),
  type: Type.String(),
  score: Type.String(),
  state: Type.Enum(['pending', 'delivered', 'failed', 'skipped']),
  attempts: Type.Integer(),
  nextAttemptAt: NullableTime,
  deliveredAt: NullableTime,
  lastError: NullableString,
  createdAt: Time,
  payload: EventPayload,
};

const EXAMPLE_EVENT = {
  webhookId: 'msg_2b7QzVYb8mS1cJ0hT2vX5kqP3nLw',
  type: 'tokens.received.confirmed',
  score: '1042',
  state: 'delivered',
  attempts: 1,
  nextAttemptAt: null,
  deliveredAt: '2026-11-27T12:00:05.120Z',
  lastError: null,
  createdAt: '2026-11-27T12:00:05.000Z',
  payload: EXAMPLE_PAYLOAD,
};

export const EventPage = Type.Object(
  {
    subscriptionId: Type.String(),
    events: Type.Array(Type.Object(EVENT_FIELDS)),
    nextScore: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `from` for the next page; null: this page is the last',
    }),
  },
  { examples: [{ subscriptionId: EXAMPLE_ID, events: [EXAMPLE_EVENT], nextScore: null }] },
);

export const EventWithDeliveries = Type.Object(
  { ...EVENT_FIELDS, deliveries: Type.Array(Attempt) },
  {
    examples: [
      {
        ...EXAMPLE_EVENT,
        deliveries: [{ at: '2026-11-27T12:00:05.100Z', statusCode: 204, latencyMs: 20, error: null }],
      },
    ],
  },
);

export const EventQueued = Type.Object(
  { subscriptionId: Type.String(), webhookId: Type.String() },
  { examples: [{ subscriptionId: EXAMPLE_ID, webhookId: 'msg_test_Yb8mS1cJ0hT2vX5k' }] },
);

export const SubscriptionList = Type.Object(
  {
    subscriptions: Type.Array(Subscription),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'The `after` of the next page; null when this page is the last',
    }),
  },
  { examples: [{ subscriptions: [], next: null }] },
);
