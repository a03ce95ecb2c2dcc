// What the resource routes are handed: the use-case context and the service's own facts.
import type { ApiContext } from '../../usecases/context.js';

export interface RouteDeps {
  readonly ctx: ApiContext;
  /** Seals callback secrets at rest. */
  readonly masterKey: Uint8Array;
  readonly environment: 'sandbox' | 'production';
  /** Addresses per request (contract.md, Limits). */
  readonly maxAddresses: number;
  /** Records one anonymous request is answered at most (contract.md, Long answers; default 5,000). */
  readonly anonymousMaxRecords?: number;
  /** How long a proposal (an action held back for approvals) stays open, ms (setting proposalTtlMs). */
  readonly proposalTtlMs?: number;
  /** How long an executor holds an approved proposal, ms (setting proposalExecutionLeaseMs). */
  readonly proposalExecutionLeaseMs?: number;
}
