// What /docs says of each wallet operation: a one-line summary and a description with what a
// wallet developer needs at the call (units, paging, keys), in the words of docs/clients.md and
// docs/contract.md. A route's own `summary` or `description` in its schema wins.

export interface OperationDoc {
  readonly summary: string;
  readonly description: string;
}

const AMOUNTS =
  "Amounts are integers in the token's smallest unit: divide by 10^decimals (GET /v1/config) for tokens.";

/** `METHOD /path/{param}` -> its summary and description. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  'GET /v1/config': {
    summary: 'The token: its ID, addresses, decimals and fee tiers',
    description:
      'Read it first. `decimals` turns amounts into tokens; `fees` gives the fee a transfer of an amount ' +
      'pays to `feeAddress` (tiers by amount, in atomic units); `approver` is the cosigner every token ' +
      'output is locked to. No key needed.',
  },
  'POST /v2/balance': {
    summary: 'Balances of addresses',
    description:
      `Body: a JSON array of addresses. Answers one entry per address, \`amt\` in atomic units and \`precised\` in tokens. ${AMOUNTS} ` +
      'No key needed (anonymous callers: 120 requests a minute per client IP by default).',
  },
  'POST /v2/utxos': {
    summary: 'Unspent token outputs of addresses, paged: the inputs of a transfer',
    description:
      'Body: a JSON array of addresses. `page` (from 1) and `size` page through them in score order ' +
      '(`order`). An output a submitted transfer spends leaves the list at once. ' +
      AMOUNTS,
  },
  'POST /v2/transfer': {
    summary: 'Submit a signed transfer; answers its ticket ID',
    description:
      'Body: `{"rawtx": <base64>}`, a transaction the wallet signed (its token inputs, outputs to the ' +
      'recipients, the fee output, change). The service checks it against the token rules, adds a ' +
      'funding input, cosigns and broadcasts it, and answers `{"ticketId"}` once it is written; ' +
      'follow the ticket with GET /v2/ticket or a `callback_url`. Needs a key with the `submit` scope ' +
      '(`npx tokenproxy keys create`). Send an `Idempotency-Key` to retry safely. Callers that send ' +
      'their key as `auth_token` get the bare ticket ID as text/plain, as the published clients read it.',
  },
  'GET /v2/ticket': {
    summary: 'A submitted transfer: BROADCASTING, SUCCESS, MINED or FAILED',
    description:
      'SUCCESS: the network took it; MINED: in a block (a reorg can take it back to SUCCESS); FAILED: ' +
      'refused, with `errors`. Poll it, or ask for callbacks with `callback_url` on the transfer.',
  },
  'GET /v1/sync': {
    summary: 'The whole change feed from a score, `from` included',
    description:
      'Every record of the token in score order, from `from` on, `from` included (unlike POST /v1/sync). ' +
      'A record comes again with a higher score when it changes (mined, reorged): keep records by txid.',
  },
  'POST /v1/sync': {
    summary: "Addresses' change feed after a score, `from` excluded",
    description:
      'Body: a JSON array of addresses. Page with the `score` of the last record read as the next ' +
      '`from`, which is excluded, in both orders; an empty page ends. A transaction comes again with a ' +
      'higher score when it is mined: upsert entries by txid.',
  },
  'GET /v2/history/{address}': {
    summary: "An address's history as the reference client computes it",
    description:
      'Entries of type send or receive with amounts, fee and counterparties; page with `from` (a score, ' +
      'excluded). An entry comes again once its transaction is mined: upsert by txid. ' +
      AMOUNTS,
  },
};

/** The summary and description /docs shows for an operation, unless its schema has its own. */
export function operationDoc(
  method: string,
  path: string,
  schema: { summary?: unknown; description?: unknown } | undefined,
): Partial<OperationDoc> {
  const doc = OPERATION_DOCS[`${method} ${path}`];
  if (doc === undefined) return {};
  return {
    ...(schema?.summary === undefined && { summary: doc.summary }),
    ...(schema?.description === undefined && { description: doc.description }),
  };
}
