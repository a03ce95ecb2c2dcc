// The operations of the API as a wallet developer reads them: each route's operationId, its
// tag (the reference's chapters, in the order of TAGS) and the error codes it can answer
// beyond the frame's own (401/403/429/503, body and query checks: openapi.ts adds those).
// A route missing here still gets an operationId made from its method and path.
import type { ErrorCode } from './error-statuses.js';

export const TAGS = [
  { name: 'config', description: 'The token: IDs, addresses, decimals and fee tiers. Read it first.' },
  { name: 'balance', description: 'Balances of addresses.' },
  { name: 'utxos', description: 'Unspent token outputs: the inputs of a transfer.' },
  {
    name: 'transfer',
    description: 'Submit a signed transfer; the service cosigns, funds and broadcasts it.',
  },
  { name: 'ticket', description: 'Follow a submitted transfer to MINED; its callbacks.' },
  { name: 'sync', description: 'The change feed, by score: page with the last score you read.' },
  {
    name: 'webhooks',
    description: 'Address webhooks: events of addresses POSTed to your URL, signed (Standard Webhooks).',
  },
  { name: 'history', description: 'Transaction histories as the reference client computes them.' },
  { name: 'transactions', description: 'Raw transactions and their parse.' },
  { name: 'health', description: 'Liveness and readiness.' },
  { name: 'operations', description: 'Metrics.' },
  { name: 'admin', description: "The operator's routes (admin key)." },
  { name: 'console', description: "The operator console's reads (admin key)." },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export interface OperationFacts {
  readonly id: string;
  readonly tag: Tag;
  /** Codes this operation answers besides the frame's own. */
  readonly errors?: readonly ErrorCode[];
  /** The route honours Idempotency-Key. */
  readonly idempotent?: boolean;
  /** A 200 answer in text/plain, for a route whose schema describes none (its description). */
  readonly text?: string;
}

const TX_CODES: readonly ErrorCode[] = [
  'INVALID_TX',
  'NON_FINAL_TX',
  'LIMIT_EXCEEDED',
  'UNKNOWN_INPUT',
  'INPUT_SPENT',
  'INPUT_LOCKED',
  'DUPLICATE_INPUT',
  'BAD_OWNER_SIGNATURE',
  'BAD_SIGHASH',
  'FOREIGN_OUTPUT',
  'WRONG_TOKEN',
  'WRONG_APPROVER',
  'INVALID_AMOUNT',
  'TOKEN_NOT_CONSERVED',
  'NO_FEE_TIER',
  'FEE_TOO_LOW',
  'NONSTANDARD_VERSION',
  'TX_TOO_LARGE',
  'ADDRESS_FROZEN',
  'TRANSFERS_PAUSED',
  'ADDRESS_BLACKLISTED',
  'OUTPUT_SEIZED',
  'TRANSFER_LIMIT_EXCEEDED',
  'DAILY_LIMIT_EXCEEDED',
  'SCREENING_DENIED',
  'SCREENING_UNAVAILABLE',
  'INVALID_CALLBACK_URL',
  'IDEMPOTENCY_CONFLICT',
  'FUNDING_EXHAUSTED',
  'FUNDING_SHARE_EXCEEDED',
  'LEDGER_UNAVAILABLE',
];

const SUBSCRIPTION_CODES: readonly ErrorCode[] = ['INVALID_PARAMETER', 'NOT_FOUND'];

/** `METHOD /path/{param}` -> facts. */
export const OPERATIONS: Readonly<Record<string, OperationFacts>> = {
  'GET /v1/config': { id: 'getConfig', tag: 'config' },
  'POST /v2/balance': { id: 'getBalances', tag: 'balance', errors: ['INVALID_ADDRESS'] },
  'POST /v2/utxos': { id: 'getUtxos', tag: 'utxos', errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER'] },
  'POST /v1/utxos': { id: 'getUtxosV1', tag: 'utxos', errors: ['INVALID_ADDRESS'] },
  'GET /v2/txos/{outpoint}': { id: 'getTxo', tag: 'utxos', errors: ['INVALID_PARAMETER', 'NOT_FOUND'] },
  'POST /v2/transfer': { id: 'submitTransfer', tag: 'transfer', errors: TX_CODES, idempotent: true },
  'POST /v1/transfer': {
    id: 'submitTransferV1',
    tag: 'transfer',
    errors: [...TX_CODES, 'BROADCAST_REJECTED'],
    idempotent: true,
  },
  'GET /v2/ticket': { id: 'getTicket', tag: 'ticket', errors: ['INVALID_PARAMETER', 'NOT_FOUND'] },
  'GET /v2/ticket/{id}/deliveries': {
    id: 'getTicketDeliveries',
    tag: 'ticket',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
  },
  'POST /v2/ticket/{id}/redeliver': {
    id: 'redeliverTicketEvent',
    tag: 'ticket',
    errors: ['INVALID_PARAMETER', 'NOT_FOUND'],
  },
  'GET /v1/sync': { id: 'getFeed', tag: 'sync', errors: ['INVALID_PARAMETER'] },
  'GET /v2/sync/stream': {
    id: 'streamFeed',
    tag: 'sync',
    errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER', 'STREAM_LIMIT'],
  },
  'POST /v1/sync': { id: 'getAddressFeed', tag: 'sync', errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER'] },
  'POST /v2/subscriptions': {
    id: 'createSubscription',
    tag: 'webhooks',
    errors: ['INVALID_ADDRESS', 'INVALID_CALLBACK_URL', 'SUBSCRIPTION_LIMIT'],
  },
  'GET /v2/subscriptions': { id: 'listSubscriptions', tag: 'webhooks' },
  'GET /v2/subscriptions/{id}': { id: 'getSubscription', tag: 'webhooks', errors: SUBSCRIPTION_CODES },
  'PATCH /v2/subscriptions/{id}': {
    id: 'updateSubscription',
    tag: 'webhooks',
    errors: [...SUBSCRIPTION_CODES, 'INVALID_CALLBACK_URL'],
  },
  'DELETE /v2/subscriptions/{id}': { id: 'deleteSubscription', tag: 'webhooks', errors: SUBSCRIPTION_CODES },
  'GET /v2/subscriptions/{id}/addresses': {
    id: 'listSubscriptionAddresses',
    tag: 'webhooks',
    errors: SUBSCRIPTION_CODES,
  },
  'POST /v2/subscriptions/{id}/addresses': {
    id: 'changeSubscriptionAddresses',
    tag: 'webhooks',
    errors: [...SUBSCRIPTION_CODES, 'INVALID_ADDRESS', 'SUBSCRIPTION_LIMIT'],
  },
  'GET /v2/subscriptions/{id}/events': {
    id: 'listSubscriptionEvents',
    tag: 'webhooks',
    errors: SUBSCRIPTION_CODES,
  },
  'GET /v2/subscriptions/{id}/events/{webhookId}': {
    id: 'getSubscriptionEvent',
    tag: 'webhooks',
    errors: SUBSCRIPTION_CODES,
  },
  'POST /v2/subscriptions/{id}/events/{webhookId}/redeliver': {
    id: 'redeliverSubscriptionEvent',
    tag: 'webhooks',
    errors: [...SUBSCRIPTION_CODES, 'EVENT_IN_DELIVERY'],
  },
  'POST /v2/subscriptions/{id}/test': { id: 'testSubscription', tag: 'webhooks', errors: SUBSCRIPTION_CODES },
  'GET /v2/history/{address}': {
    id: 'getHistory',
    tag: 'history',
    errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER'],
  },
  'POST /v2/history': {
    id: 'getHistories',
    tag: 'history',
    errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER'],
  },
  'GET /v2/tx/{txid}/beef': {
    id: 'getTxBeef',
    tag: 'transactions',
    errors: ['INVALID_TXID', 'NOT_FOUND', 'BEEF_TOO_DEEP', 'TX_FAILED'],
  },
  'GET /v2/tx/{txid}/proof': { id: 'getTxProof', tag: 'transactions', errors: ['INVALID_TXID', 'NOT_FOUND'] },
  'POST /v2/beef': {
    id: 'getOutputsBeef',
    tag: 'utxos',
    errors: ['INVALID_ADDRESS', 'INVALID_PARAMETER', 'NOT_FOUND', 'BEEF_TOO_DEEP', 'TX_FAILED'],
  },
  'GET /v2/headers': { id: 'getHeaders', tag: 'transactions' },
  'GET /v1/tx/{txid}': { id: 'getRawTx', tag: 'transactions', errors: ['INVALID_TXID', 'NOT_FOUND'] },
  'GET /v2/parse/{txid}': { id: 'parseTx', tag: 'transactions', errors: ['INVALID_TXID', 'NOT_FOUND'] },
  'POST /v2/parse': { id: 'parseRawTx', tag: 'transactions', errors: ['INVALID_TX'] },
  'POST /v2/faucet': {
    id: 'requestTestTokens',
    tag: 'transfer',
    errors: ['INVALID_ADDRESS', 'ADDRESS_FROZEN', 'FAUCET_LIMIT', 'SANDBOX_ONLY', 'FUNDING_EXHAUSTED'],
  },
  'GET /healthz': { id: 'getLiveness', tag: 'health' },
  'GET /readyz': { id: 'getReadiness', tag: 'health' },
  'GET /metrics': { id: 'getMetrics', tag: 'operations', text: 'Prometheus text exposition format' },
  'POST /v2/admin/keys': { id: 'createApiKey', tag: 'admin', errors: ['INVALID_PARAMETER'] },
  'GET /v2/admin/keys': { id: 'listApiKeys', tag: 'admin' },
  'PATCH /v2/admin/keys/{id}': { id: 'updateApiKey', tag: 'admin', errors: ['NOT_FOUND'] },
  'DELETE /v2/admin/keys/{id}': { id: 'revokeApiKey', tag: 'admin', errors: ['NOT_FOUND', 'KEY_IN_USE'] },
  'POST /v2/admin/mint': {
    id: 'mintTokens',
    tag: 'admin',
    errors: [
      'INVALID_ADDRESS',
      'INVALID_AMOUNT',
      'FUNDING_EXHAUSTED',
      'ADDRESS_FROZEN',
      'ADDRESS_BLACKLISTED',
      'TRANSFERS_PAUSED',
      'MINT_ALLOWANCE_EXCEEDED',
      'IDEMPOTENCY_CONFLICT',
    ],
    idempotent: true,
  },
  'POST /v2/admin/mine': { id: 'mineBlocks', tag: 'admin', errors: ['NOT_FOUND'] },
  'GET /v2/admin/status': { id: 'getStatus', tag: 'admin' },
  'POST /v2/admin/burn': {
    id: 'burnTokens',
    tag: 'admin',
    errors: ['INVALID_AMOUNT', 'FUNDING_EXHAUSTED', 'IDEMPOTENCY_CONFLICT'],
    idempotent: true,
  },
  'GET /v2/admin/funding': { id: 'getFunding', tag: 'admin' },
  'POST /v2/admin/funding/payments': {
    id: 'recordFundingPayment',
    tag: 'admin',
    errors: [
      'INVALID_TX',
      'TX_NOT_FOUND',
      'RAWTX_REQUIRED',
      'NO_FUNDING_OUTPUT',
      'FUNDING_SPLIT_UNDER_WAY',
      'LEDGER_UNAVAILABLE',
      'IDEMPOTENCY_CONFLICT',
    ],
    idempotent: true,
  },
  'GET /v2/admin/audit': { id: 'auditLedger', tag: 'admin' },
  'POST /v2/admin/reconcile': { id: 'reconcileLedger', tag: 'admin' },
  'POST /v2/admin/freezes': {
    id: 'freezeAddress',
    tag: 'admin',
    errors: ['INVALID_ADDRESS', 'ADDRESS_CANNOT_OWN_TOKENS', 'INVALID_PARAMETER'],
  },
  'GET /v2/admin/freezes': { id: 'listFreezes', tag: 'admin' },
  'DELETE /v2/admin/freezes/{address}': {
    id: 'unfreezeAddress',
    tag: 'admin',
    errors: ['INVALID_ADDRESS', 'NOT_FOUND'],
  },
  'GET /v2/admin/whoami': { id: 'whoAmI', tag: 'admin' },
  'GET /v2/admin/pause': { id: 'getPause', tag: 'admin' },
  'PUT /v2/admin/pause': { id: 'setPause', tag: 'admin' },
  'POST /v2/admin/blacklist': {
    id: 'blacklistAddress',
    tag: 'admin',
    errors: ['INVALID_ADDRESS', 'ADDRESS_CANNOT_OWN_TOKENS', 'INVALID_PARAMETER'],
  },
  'GET /v2/admin/blacklist': { id: 'listBlacklist', tag: 'admin' },
  'DELETE /v2/admin/blacklist/{address}': {
    id: 'unblacklistAddress',
    tag: 'admin',
    errors: ['INVALID_ADDRESS', 'NOT_FOUND'],
  },
  'GET /v2/admin/controls/events': { id: 'listControlEvents', tag: 'admin' },
  'POST /v2/admin/seizures': {
    id: 'seizeAndReissue',
    tag: 'admin',
    errors: [
      'INVALID_ADDRESS',
      'SEIZURE_REFUSED',
      'TRANSFERS_PAUSED',
      'ADDRESS_BLACKLISTED',
      'ADDRESS_FROZEN',
      'IDEMPOTENCY_CONFLICT',
    ],
    idempotent: true,
  },
  'GET /v2/admin/seizures': { id: 'listSeizures', tag: 'admin' },
  'GET /v2/admin/proposals': { id: 'listProposals', tag: 'admin' },
  'GET /v2/admin/proposals/{id}': { id: 'getProposal', tag: 'admin', errors: ['NOT_FOUND'] },
  'POST /v2/admin/proposals/{id}/approve': {
    id: 'approveProposal',
    tag: 'admin',
    errors: ['NOT_FOUND', 'ALREADY_VOTED', 'PROPOSAL_CLOSED'],
  },
  'POST /v2/admin/proposals/{id}/reject': {
    id: 'rejectProposal',
    tag: 'admin',
    errors: ['NOT_FOUND', 'ALREADY_VOTED', 'PROPOSAL_CLOSED'],
  },
  'POST /v2/admin/proposals/{id}/execute': {
    id: 'executeProposal',
    tag: 'admin',
    errors: ['NOT_FOUND', 'PROPOSAL_CLOSED'],
  },
  'GET /v2/admin/approvals/policy': { id: 'getApprovalPolicy', tag: 'admin' },
  'PUT /v2/admin/approvals/policy': {
    id: 'setApprovalPolicy',
    tag: 'admin',
    errors: ['INVALID_PARAMETER', 'POLICY_CHANGED'],
  },
  'GET /v2/admin/allowances': { id: 'listMintAllowances', tag: 'admin' },
  'GET /v2/admin/allowances/{keyId}': { id: 'getMintAllowance', tag: 'admin', errors: ['NOT_FOUND'] },
  'PUT /v2/admin/allowances/{keyId}': {
    id: 'setMintAllowance',
    tag: 'admin',
    errors: ['NOT_FOUND', 'INVALID_AMOUNT', 'INVALID_PARAMETER'],
  },
  'GET /v2/admin/console/supply': { id: 'getConsoleSupply', tag: 'console' },
  'GET /v2/admin/console/tickets': { id: 'getConsoleTickets', tag: 'console' },
  'GET /v2/admin/console/funding': { id: 'getConsoleFunding', tag: 'console' },
  'GET /v2/admin/console/deliveries': { id: 'getConsoleDeliveries', tag: 'console' },
  'GET /v2/admin/console/chain': { id: 'getConsoleChain', tag: 'console' },
  'GET /v2/admin/console/search': { id: 'searchConsole', tag: 'console', errors: ['INVALID_PARAMETER'] },
};

/** `post` `/v2/admin/freeze/{id}` -> `postV2AdminFreezeById` (for a route the table lacks). */
export function fallbackOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (part.startsWith('{') ? `by ${part.slice(1, -1)}` : part))
    .join(' ')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

/** The tag of a route the table lacks, from its path. */
export function fallbackTag(path: string): Tag {
  if (path.startsWith('/v2/admin/console')) return 'console';
  if (path.startsWith('/v2/admin')) return 'admin';
  return 'operations';
}
