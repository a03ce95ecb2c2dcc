// The console's search box (scope `admin`): GET /v2/admin/console/search?q= with an address,
// a txid, a ticket ID or an outpoint (`txid:vout` / `txid_vout`), answered with what the
// service knows of it. A query of no recognised kind is 400 INVALID_PARAMETER.

import { Type } from 'typebox';
import { toJsonNumber } from '../../domain/amount.js';
import { parseSearchQuery, type SearchQuery } from '../../domain/search-query.js';
import { maySeeCallbackUrl, REDACTED_CALLBACK_URL, type TicketViewer } from '../../domain/ticket.js';
import { deliveriesOfTicket } from '../../store/callbacks/callback-deliveries.js';
import type { Queryable } from '../../store/db/db.js';
import {
  type KnownOutput,
  type KnownTransaction,
  knownFundingOutput,
  knownOutput,
  knownTransaction,
  outputsOfTransaction,
  ticketIdOfTransaction,
  transactionsOfAddress,
  unspentOfAddress,
} from '../../store/operator/console-search.js';
import { ticketById } from '../../store/tickets/ticket-queries.js';
import { balanceIn } from '../../store/wallets/balance-cache.js';
import { balances } from '../../store/wallets/wallet-queries.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import { ConsoleSearch } from '../schemas/console-schemas.js';
import { amountJson } from './admin-routes.js';
import type { RouteDeps } from './route-deps.js';

const SHOWN = 50;

const searchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'An address, a txid, a ticket ID (UUID) or an outpoint (txid:vout or txid_vout)',
  }),
  ...authTokenQuery,
});

export function consoleSearchRoutes(deps: RouteDeps) {
  const { db } = deps.ctx;
  return (app: AppInstance) => {
    app.get(
      '/v2/admin/console/search',
      {
        config: { scope: 'audit' },
        schema: {
          summary: 'What the service knows of an address, a transaction, a ticket or an output',
          tags: ['admin', 'console'],
          querystring: searchQuery,
          response: { 200: ConsoleSearch, ...problemResponses(400) },
        },
      },
      async (request) => {
        const parsed = parseSearchQuery(request.query.q);
        if (parsed === null) {
          throw new AppError(
            'INVALID_PARAMETER',
            'q must be an address, a txid (64 hex digits), a ticket ID (UUID) or an outpoint (txid:vout)',
          );
        }
        return { query: request.query.q, ...(await search(db, parsed, request.principal ?? null)) };
      },
    );
  };
}

async function search(db: Queryable, q: SearchQuery, viewer: TicketViewer | null) {
  switch (q.kind) {
    case 'address': {
      const [amounts, unspent, transactions] = await Promise.all([
        balances(db, [q.address]),
        unspentOfAddress(db, q.address, SHOWN),
        transactionsOfAddress(db, q.address, SHOWN),
      ]);
      return {
        kind: q.kind,
        found: unspent.count > 0 || transactions.length > 0,
        address: {
          address: q.address,
          balance: amountJson(balanceIn(amounts, q.address)),
          unspentCount: unspent.count,
          unspent: unspent.outputs.map(outputJson),
          transactions: transactions.map(transactionJson),
        },
      };
    }
    case 'txid': {
      const [transaction, outputs, ticketId] = await Promise.all([
        knownTransaction(db, q.txid),
        outputsOfTransaction(db, q.txid),
        ticketIdOfTransaction(db, q.txid),
      ]);
      const ticket = ticketId === null ? null : await ticketJson(db, ticketId, viewer);
      return {
        kind: q.kind,
        found: transaction !== null || ticket !== null,
        transaction: transaction === null ? null : transactionJson(transaction),
        outputs: outputs.map(outputJson),
        ticket,
      };
    }
    case 'ticket': {
      const ticket = await ticketJson(db, q.id, viewer);
      return { kind: q.kind, found: ticket !== null, ticket };
    }
    case 'outpoint': {
      const [output, funding] = await Promise.all([
        knownOutput(db, q.txid, q.vout),
        knownFundingOutput(db, q.txid, q.vout),
      ]);
      return {
        kind: q.kind,
        found: output !== null || funding !== null,
        output: output === null ? null : outputJson(output),
        fundingOutput:
          funding === null
            ? null
            : {
                outpoint: `${funding.txid}_${funding.vout}`,
                satoshis: toJsonNumber(funding.satoshis),
                state: funding.state,
                reservedBy: funding.reservedBy,
              },
      };
    }
  }
}

/**
 * A ticket as the console shows it. Its callback URL may carry the submitter's secret: whole only
 * for the key that submitted it and admin keys (an `audit` key finds a ticket by its public txid).
 */
async function ticketJson(db: Queryable, id: string, viewer: TicketViewer | null) {
  const ticket = await ticketById(db, id);
  if (ticket === null) return null;
  const events = await deliveriesOfTicket(db, ticket.id);
  return {
    id: ticket.id,
    txid: ticket.txid,
    status: ticket.status,
    errors: ticket.errors,
    callbackUrl:
      ticket.callbackUrl === null || maySeeCallbackUrl(ticket.apiKeyId, viewer)
        ? ticket.callbackUrl
        : REDACTED_CALLBACK_URL,
    createdAt: ticket.createdAt.toISOString(),
    updatedAt: ticket.updatedAt.toISOString(),
    events: events.map((e) => ({
      seq: e.seq,
      status: e.status,
      state: e.state,
      attempts: e.attempts,
      lastError: e.lastError,
      createdAt: e.createdAt.toISOString(),
      deliveredAt: e.deliveredAt?.toISOString() ?? null,
    })),
  };
}

function outputJson(o: KnownOutput) {
  return {
    outpoint: `${o.txid}_${o.vout}`,
    owner: o.owner,
    amount: amountJson(o.amount),
    op: o.op,
    satoshis: toJsonNumber(o.satoshis),
    state: o.state,
    spentBy: o.spentBy,
    reservedBy: o.reservedBy,
  };
}

function transactionJson(t: KnownTransaction) {
  return {
    txid: t.txid,
    state: t.state,
    height: t.height,
    blockHash: t.blockHash,
    senders: [...t.senders],
    receivers: [...t.receivers],
    createdAt: t.createdAt.toISOString(),
  };
}
