// The codes the service's rules answer with, and the error that carries one: a code naming
// the rule and a detail safe to show the client. Nothing of HTTP here: src/http/error-statuses.ts
// gives each code its status and title (docs/errors.md lists them).

export type DomainErrorCode =
  // The transfer rules (token-rules.md)
  | 'INVALID_TX'
  | 'NON_FINAL_TX'
  | 'LIMIT_EXCEEDED'
  | 'NONSTANDARD_VERSION'
  | 'TX_TOO_LARGE'
  | 'UNKNOWN_INPUT'
  | 'INPUT_SPENT'
  | 'INPUT_LOCKED'
  | 'DUPLICATE_INPUT'
  | 'BAD_OWNER_SIGNATURE'
  | 'BAD_SIGHASH'
  | 'FOREIGN_OUTPUT'
  | 'WRONG_TOKEN'
  | 'WRONG_APPROVER'
  | 'INVALID_AMOUNT'
  | 'TOKEN_NOT_CONSERVED'
  | 'NO_FEE_TIER'
  | 'FEE_TOO_LOW'
  // Addresses: minting, sending, the freeze list
  | 'INVALID_ADDRESS'
  | 'ADDRESS_FROZEN'
  // The issuer's controls (issue 32)
  | 'TRANSFERS_PAUSED'
  | 'ADDRESS_BLACKLISTED'
  | 'OUTPUT_SEIZED'
  | 'TRANSFER_LIMIT_EXCEEDED'
  | 'DAILY_LIMIT_EXCEEDED'
  | 'SCREENING_DENIED'
  | 'SCREENING_UNAVAILABLE'
  | 'MINT_ALLOWANCE_EXCEEDED'
  // What the use cases could not do
  | 'TX_NOT_FOUND'
  | 'RAWTX_REQUIRED'
  | 'NO_FUNDING_OUTPUT'
  | 'FUNDING_SPLIT_UNDER_WAY'
  | 'BROADCAST_REJECTED'
  | 'FUNDING_EXHAUSTED'
  | 'FUNDING_SHARE_EXCEEDED'
  | 'LEDGER_UNAVAILABLE';

/** A rule's refusal thrown: its code and a detail safe to show the client. */
export class DomainError extends Error {
  readonly code: DomainErrorCode;

  constructor(code: DomainErrorCode, detail: string) {
    super(detail);
    this.name = 'DomainError';
    this.code = code;
  }
}
