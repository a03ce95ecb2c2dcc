// The one registry of error codes: every error the service answers with has a code here,
// an HTTP status and a title. docs/errors.md is kept in step with this table by a test.
// The rules' codes (DomainErrorCode) are among them; only http maps a code to a status.
import type { DomainErrorCode } from '../domain/domain-error.js';

export interface ErrorSpec {
  readonly status: number;
  readonly title: string;
}

export const ERRORS = {
  // Transfer validation (token-rules.md)
  INVALID_TX: { status: 400, title: 'Transaction cannot be parsed' },
  NON_FINAL_TX: { status: 400, title: 'Transaction lock time or sequence is not final' },
  LIMIT_EXCEEDED: { status: 400, title: 'Transaction exceeds a size or count limit' },
  NONSTANDARD_VERSION: { status: 400, title: 'Transaction version is not relayed by the network' },
  TX_TOO_LARGE: { status: 400, title: "Cosigned transaction would exceed the network's size policy" },
  UNKNOWN_INPUT: { status: 400, title: 'Input is not a known token output' },
  INPUT_SPENT: { status: 400, title: 'Input already spent' },
  INPUT_LOCKED: { status: 400, title: 'Input locked by another transfer' },
  DUPLICATE_INPUT: { status: 400, title: 'Input spent twice in one transaction' },
  BAD_OWNER_SIGNATURE: { status: 400, title: 'Owner signature is missing or invalid' },
  BAD_SIGHASH: { status: 400, title: 'Owner signature has the wrong sighash type' },
  FOREIGN_OUTPUT: { status: 400, title: 'Output is neither a token output nor an allowed data output' },
  WRONG_TOKEN: { status: 400, title: 'Output carries another token' },
  WRONG_APPROVER: { status: 400, title: 'Output is locked to another approver' },
  INVALID_AMOUNT: { status: 400, title: 'Token amount is not a canonical positive integer' },
  TOKEN_NOT_CONSERVED: { status: 400, title: 'Token inputs and outputs do not balance' },
  NO_FEE_TIER: { status: 400, title: 'No fee tier covers the transferred amount' },
  FEE_TOO_LOW: { status: 400, title: 'Fee output below the fee tier' },
  // Request validation
  INVALID_JSON: { status: 400, title: 'Invalid JSON payload' },
  INVALID_REQUEST: { status: 400, title: 'Request does not match the schema' },
  INVALID_PARAMETER: { status: 400, title: 'Parameter out of range' },
  INVALID_ADDRESS: { status: 400, title: 'Invalid address' },
  ADDRESS_CANNOT_OWN_TOKENS: { status: 400, title: 'Address cannot own a token output' },
  INVALID_TXID: { status: 400, title: 'Invalid transaction ID' },
  INVALID_CALLBACK_URL: { status: 400, title: 'Callback URL refused' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  // Access
  UNAUTHORIZED: { status: 401, title: 'Missing, unknown or revoked API key' },
  FORBIDDEN: { status: 403, title: 'API key lacks the needed scope' },
  ADDRESS_FROZEN: { status: 403, title: 'Address is frozen' },
  TRANSFERS_PAUSED: { status: 403, title: 'Transfers are paused by the issuer' },
  ADDRESS_BLACKLISTED: { status: 403, title: 'Address is blacklisted' },
  OUTPUT_SEIZED: { status: 403, title: 'Output was seized' },
  TRANSFER_LIMIT_EXCEEDED: { status: 403, title: 'Transfer above the per-transfer limit' },
  DAILY_LIMIT_EXCEEDED: { status: 403, title: "Transfer above the address's daily limit" },
  SCREENING_DENIED: { status: 403, title: 'Transfer denied by screening' },
  MINT_ALLOWANCE_EXCEEDED: { status: 403, title: "Mint above the key's remaining allowance" },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  IDEMPOTENCY_CONFLICT: { status: 422, title: 'Idempotency key reused with another request' },
  KEY_IN_USE: { status: 409, title: 'API key revokes itself' },
  SEIZURE_REFUSED: { status: 409, title: 'Seizure order refused' },
  PROPOSAL_CLOSED: { status: 409, title: 'Proposal is not open for votes' },
  ALREADY_VOTED: { status: 409, title: 'This key has voted on the proposal already' },
  POLICY_CHANGED: { status: 409, title: 'Approval policy changed while the change was judged' },
  EVENT_IN_DELIVERY: { status: 409, title: 'The event is being delivered now' },
  TX_NOT_FOUND: { status: 404, title: 'Transaction not known to the ledger' },
  RAWTX_REQUIRED: { status: 422, title: 'The ledger serves no raw transactions: give rawtx' },
  NO_FUNDING_OUTPUT: { status: 422, title: 'Transaction pays nothing to the funding address' },
  FUNDING_SPLIT_UNDER_WAY: { status: 409, title: "The funding pool's own split, not yet recorded" },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  FAUCET_LIMIT: { status: 429, title: 'Faucet grants used up for today' },
  STREAM_LIMIT: { status: 429, title: 'Too many open streams' },
  SUBSCRIPTION_LIMIT: { status: 422, title: 'Address webhook limit reached' },
  BEEF_TOO_DEEP: { status: 422, title: 'Too many unmined ancestors for one BEEF' },
  TX_FAILED: { status: 409, title: 'The transaction failed: it will never be mined' },
  SANDBOX_ONLY: { status: 403, title: 'Served in the sandbox only' },
  // Service state
  BROADCAST_REJECTED: { status: 400, title: 'The network rejected the transaction' },
  FUNDING_EXHAUSTED: { status: 503, title: 'Funding pool exhausted' },
  FUNDING_SHARE_EXCEEDED: { status: 429, title: "This key's share of a low funding pool is used up" },
  LEDGER_UNAVAILABLE: { status: 503, title: 'Ledger unavailable' },
  SCREENING_UNAVAILABLE: { status: 503, title: 'Screening service unavailable' },
  NOT_READY: { status: 503, title: 'Service not ready' },
  INTERNAL: { status: 500, title: 'Internal server error' },
} as const satisfies Record<DomainErrorCode, ErrorSpec> & Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;
