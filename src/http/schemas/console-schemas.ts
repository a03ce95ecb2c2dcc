// TypeBox schemas of the console's read models (GET /v2/admin/console/...), for validation of
// the answers' shape in the OpenAPI document.
import { Type } from 'typebox';
import { TipJson, TipProblemJson } from '../routes/chain-tip.js';
import { SafeInteger } from './common.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const Amount = Type.Object({
  atomic: SafeInteger,
  tokens: Type.String({ description: 'Decimal token amount' }),
});

export const ConsoleSupply = Type.Object({
  genesis: Amount,
  circulating: Amount,
  treasury: Amount,
  burned: Amount,
  redeemed: Amount,
  history: Type.Object({
    bucketSeconds: Type.Integer({ minimum: 1 }),
    points: Type.Array(
      Type.Object({
        at: Type.Integer({ description: 'End of the bucket, Unix seconds' }),
        circulating: Amount,
        treasury: Amount,
        burned: Amount,
      }),
    ),
  }),
});

const StatusCounts = Type.Object({
  BROADCASTING: Type.Integer(),
  SUCCESS: Type.Integer(),
  MINED: Type.Integer(),
  FAILED: Type.Integer(),
});

export const ConsoleTickets = Type.Object({
  counts: StatusCounts,
  bucketSeconds: Type.Integer({ minimum: 1 }),
  timeline: Type.Array(
    Type.Object({
      at: Type.Integer({ description: 'Start of the bucket, Unix seconds' }),
      counts: StatusCounts,
    }),
  ),
  failed: Type.Array(
    Type.Object({
      id: Type.String(),
      txid: Type.String(),
      errors: Nullable(Type.String()),
      createdAt: Time,
      updatedAt: Time,
    }),
  ),
});

export const ConsoleFunding = Type.Object({
  address: Type.String({ description: 'Where the operator pays satoshis into the pool' }),
  outputs: Type.Object({
    available: Type.Integer(),
    usable: Type.Integer({ description: 'Available outputs that pay a typical transfer' }),
    reserved: Type.Integer(),
  }),
  satoshis: Type.Object({ available: SafeInteger, reserve: SafeInteger }),
  feeRate: Type.Object({ satoshisPerKb: SafeInteger, typicalTransferFee: SafeInteger }),
  transfersLeft: Type.Integer({ description: 'Usable outputs plus what the reserve would split into' }),
  fromReserve: Type.Integer(),
  lowWater: Type.Integer(),
  level: Type.Enum(['ok', 'low', 'critical', 'empty']),
  history: Type.Object(
    {
      bucketSeconds: Type.Integer(),
      points: Type.Array(
        Type.Object({
          at: Type.Integer({ description: 'Unix seconds: the end of the bucket' }),
          available: Type.Integer({ description: 'Available pool outputs then' }),
        }),
      ),
    },
    { description: 'Available pool outputs at the end of each time bucket' },
  ),
});

export const ConsoleDeliveries = Type.Object({
  since: Time,
  attempts: Type.Integer(),
  succeeded: Type.Integer(),
  successRate: Nullable(Type.Number({ description: 'Succeeded / attempts; null when none' })),
  latencyMs: Nullable(Type.Object({ p50: Type.Integer(), p90: Type.Integer(), p99: Type.Integer() })),
  events: Type.Object({
    pending: Type.Integer(),
    delivered: Type.Integer(),
    failed: Type.Integer(),
    dead: Type.Integer(),
  }),
  failingReceivers: Type.Array(
    Type.Object({
      origin: Type.String(),
      failures: Type.Integer(),
      attempts: Type.Integer(),
      lastError: Nullable(Type.String()),
      lastAt: Time,
    }),
  ),
  history: Type.Object(
    {
      bucketSeconds: Type.Integer(),
      points: Type.Array(
        Type.Object({
          at: Type.Integer({ description: 'Unix seconds: the start of the bucket' }),
          attempts: Type.Integer(),
          succeeded: Type.Integer(),
          p50Ms: Nullable(Type.Integer({ description: 'Median latency; null when no attempt' })),
        }),
      ),
    },
    { description: 'Delivery attempts per time bucket over the 24 hours' },
  ),
});

export const ConsoleChain = Type.Object({
  ledger: Type.Enum(['devnet', 'arc']),
  canMine: Type.Boolean({ description: 'POST /v2/admin/mine works (the devnet)' }),
  tip: TipJson,
  tipProblem: TipProblemJson,
  blocks: Type.Array(
    Type.Object({
      height: Type.Integer(),
      hash: Type.String(),
      time: Type.Integer(),
      transactions: Type.Integer({ description: 'Coinbase included' }),
    }),
    { description: 'The last blocks, newest first (devnet only; empty on ARC)' },
  ),
});

const Output = Type.Object({
  outpoint: Type.String({ description: '<txid>_<vout>' }),
  owner: Type.String(),
  amount: Amount,
  op: Type.String(),
  satoshis: SafeInteger,
  state: Type.Enum(['unspent', 'spent', 'reserved']),
  spentBy: Nullable(Type.String()),
  reservedBy: Nullable(Type.String()),
});

const Transaction = Type.Object({
  txid: Type.String(),
  state: Type.String(),
  height: Type.Integer(),
  blockHash: Type.String(),
  senders: Type.Array(Type.String()),
  receivers: Type.Array(Type.String()),
  createdAt: Time,
});

const Ticket = Type.Object({
  id: Type.String(),
  txid: Type.String(),
  status: Type.String(),
  errors: Nullable(Type.String()),
  callbackUrl: Nullable(Type.String()),
  createdAt: Time,
  updatedAt: Time,
  events: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      status: Nullable(Type.String()),
      state: Type.String(),
      attempts: Type.Integer(),
      lastError: Nullable(Type.String()),
      createdAt: Time,
      deliveredAt: Nullable(Time),
    }),
    { description: "The ticket's status changes sent to its callback URL, with their delivery state" },
  ),
});

export const ConsoleSearch = Type.Object({
  kind: Type.Enum(['address', 'txid', 'ticket', 'outpoint']),
  query: Type.String(),
  found: Type.Boolean({ description: 'The service knows something of it' }),
  address: Type.Optional(
    Type.Object({
      address: Type.String(),
      balance: Amount,
      unspentCount: Type.Integer(),
      unspent: Type.Array(Output),
      transactions: Type.Array(Transaction),
    }),
  ),
  transaction: Type.Optional(Nullable(Transaction)),
  outputs: Type.Optional(Type.Array(Output)),
  ticket: Type.Optional(Nullable(Ticket)),
  output: Type.Optional(Nullable(Output)),
  fundingOutput: Type.Optional(
    Nullable(
      Type.Object({
        outpoint: Type.String(),
        satoshis: SafeInteger,
        state: Type.String(),
        reservedBy: Nullable(Type.String()),
      }),
    ),
  ),
});
