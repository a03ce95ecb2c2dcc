// What every use case is handed: storage, ledger, the token, the keys, a clock and ids.
// Built once by compose.ts; use cases never choose adapters themselves.
import type { CosignKeys } from '../domain/complete-transfer.js';
import type { TicketTransition } from '../domain/ticket-transition.js';
import type { TokenConfig } from '../domain/token-config.js';
import type { Ledger } from '../ledger/port.js';
import type { Logger } from '../process/logger.js';
import type { Db } from '../store/db/db.js';
import type { IssuerControls } from './controls/control-settings.js';
import type { BroadcastQueue } from './submit/broadcast-port.js';
import type { SubmissionPipeline } from './submit/submission-pipeline.js';

export interface TrackerSettings {
  /** How often a ticket the network holds is looked at again (the guarantee behind ledger callbacks). */
  readonly pollIntervalMs: number;
  /** Blocks on top of which a mined ticket is not watched for reorgs any more. */
  readonly finalConfirmations: number;
  /** How long after its submission a new ticket is first looked at, should its broadcast not have settled it. */
  readonly firstLookAfterMs: number;
}

export interface ServiceContext {
  readonly db: Db;
  readonly ledger: Ledger;
  readonly token: TokenConfig;
  readonly keys: CosignKeys;
  readonly now: () => Date;
  /** A new ticket id (UUIDv7). */
  readonly newId: () => string;
  /** The ledger's mining fee rate, satoshis per 1000 bytes (cached by the caller as it likes). */
  readonly feeRate: () => Promise<bigint>;
  readonly tracker: TrackerSettings;
  readonly log: Logger;
  /** Told of every committed ticket status change, after its log line (metrics). */
  readonly onTransition?: (transition: TicketTransition) => void;
  /** The issuer's limits, screening and their counters (docs/operations.md, the issuer's runbook); absent: none set. */
  readonly controls?: IssuerControls;
}

/**
 * The api role's context: what accepting transfers needs besides the service's parts. Built
 * once by compose.ts for a process that runs the api role, so a use case that submits is
 * handed both parts by its type, never looks for them at run time.
 */
export interface ApiContext extends ServiceContext {
  /** This process's submission pipeline (batched lookups and commits, leased funding). */
  readonly submissions: SubmissionPipeline;
  /** Broadcasts in batches: a ticket's final transaction is enqueued and its outcome answered once committed. */
  readonly broadcasts: BroadcastQueue;
}
