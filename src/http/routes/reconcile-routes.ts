// The reconciliation of the database with the ledger (scope `admin`: with `repair` it writes):
// `tokenproxy reconcile` is a thin shell over it (docs/operations.md, "Back up and restore").
import { Type } from 'typebox';
import { fromHex } from '../../domain/script-chunks.js';
import type { Devnet } from '../../ledger/devnet/devnet.js';
import { devnetHistory, reconcileLedger } from '../../usecases/supply/reconcile-ledger.js';
import type { AppInstance } from '../app.js';
import { authTokenQuery, Txid } from '../schemas/common.js';
import type { RouteDeps } from './route-deps.js';

export interface ReconcileRouteDeps extends RouteDeps {
  /** The embedded devnet: a ledger that lists its history. Null on ARC. */
  readonly devnet: Pick<Devnet, 'blocks' | 'mempoolTxids'> | null;
  readonly fundingAddress: string;
}

const query = Type.Object(authTokenQuery);
const EXAMPLE_TXID = 'ab'.repeat(32);

const ReconcileBody = Type.Object(
  {
    repair: Type.Optional(
      Type.Boolean({
        description:
          'Repair what is safe (ingest missing token transactions from their bytes, mark spent funding, re-track tickets)',
      }),
    ),
    txids: Type.Optional(
      Type.Array(Txid, {
        maxItems: 10_000,
        description:
          'Transactions to look up on the ledger besides the tickets (a ledger that lists no history: ARC)',
      }),
    ),
    rawtxs: Type.Optional(
      Type.Array(Type.String({ pattern: '^([0-9a-fA-F]{2})+$', maxLength: 2_000_000 }), {
        maxItems: 10_000,
        description:
          'Raw transactions in hex found elsewhere; each counts only if the ledger says it holds it',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ repair: true }, { txids: [EXAMPLE_TXID] }] },
);

const Difference = Type.Object({
  kind: Type.Enum(['missing-transaction', 'untracked-funding-transaction', 'ticket-status', 'funding-spent']),
  txid: Type.Optional(Type.String()),
  ledger: Type.Optional(
    Type.String({ description: "The ledger's word: unknown, mempool, mined, rejected, double-spend" }),
  ),
  refusal: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Why a missing transaction cannot be ingested; null: it can',
    }),
  ),
  ticketId: Type.Optional(Type.String()),
  database: Type.Optional(Type.String({ description: "The ticket's status in the database" })),
  outpoint: Type.Optional(Type.String()),
  table: Type.Optional(Type.Enum(['pool', 'reserve'])),
  spentBy: Type.Optional(Type.String()),
});

const Report = Type.Object(
  {
    ok: Type.Boolean({ description: 'Nothing differs (after the repairs, when asked for)' }),
    coverage: Type.Enum(['listed', 'given'], {
      description:
        '`listed`: the ledger listed every transaction it holds (the devnet); `given`: only the tickets and the txids or raw transactions given (ARC lists no history)',
    }),
    checked: Type.Object({ tickets: Type.Integer(), ledgerTransactions: Type.Integer() }),
    differences: Type.Array(Difference),
    repaired: Type.Object({
      ingested: Type.Array(Type.String()),
      fundingSpent: Type.Array(Type.String()),
      retracked: Type.Array(Type.String()),
    }),
    remaining: Type.Array(Difference),
  },
  {
    examples: [
      {
        ok: true,
        coverage: 'listed',
        checked: { tickets: 12, ledgerTransactions: 14 },
        differences: [{ kind: 'missing-transaction', txid: EXAMPLE_TXID, ledger: 'mined', refusal: null }],
        repaired: { ingested: [EXAMPLE_TXID], fundingSpent: [], retracked: [] },
        remaining: [],
      },
    ],
  },
);

export function reconcileRoutes(deps: ReconcileRouteDeps) {
  const { ctx } = deps;
  const history = deps.devnet === null ? undefined : devnetHistory(deps.devnet);
  return (app: AppInstance) => {
    app.post(
      '/v2/admin/reconcile',
      {
        config: { scope: 'admin' },
        schema: {
          summary: 'Compare the database with the ledger; with `repair`, repair what is safe',
          tags: ['admin'],
          body: ReconcileBody,
          querystring: query,
          response: { 200: Report },
        },
      },
      async (request) => {
        const body = request.body;
        const report = await reconcileLedger(
          {
            db: ctx.db,
            ledger: ctx.ledger,
            token: { tokenId: ctx.token.tokenId, fundingAddress: deps.fundingAddress },
            ...(history !== undefined && { history }),
            now: ctx.now,
          },
          {
            repair: body.repair === true,
            txids: (body.txids ?? []).map((t) => t.toLowerCase()),
            rawTxs: (body.rawtxs ?? []).map((h) => fromHex(h.toLowerCase())),
          },
        );
        if (
          report.repaired.ingested.length +
            report.repaired.fundingSpent.length +
            report.repaired.retracked.length >
          0
        )
          request.log.warn({ repaired: report.repaired }, 'reconcile repaired the database from the ledger');
        return {
          ...report,
          differences: report.differences.map((d) => ({ ...d })),
          remaining: report.remaining.map((d) => ({ ...d })),
          repaired: {
            ingested: [...report.repaired.ingested],
            fundingSpent: [...report.repaired.fundingSpent],
            retracked: [...report.repaired.retracked],
          },
        };
      },
    );
  };
}
