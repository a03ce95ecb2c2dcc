// A cosigned submission as the committer writes it (store/submissions/submission-writes.ts), for the suites
// that build batches by hand: fresh ids and txids, nothing spent, no callback, at `now`; each
// suite names what it cares about. One place to change when a submission gains a field.
import { uuidv7 } from '../../src/crypto/random-id.js';
import type { Submission } from '../../src/store/submissions/submission-writes.js';
import { randomTxid } from './seed-store.js';

export function aSubmission(fields: Partial<Submission> & { readonly now?: Date } = {}): Submission {
  const now = fields.now ?? new Date('2026-11-23T10:00:00Z');
  return {
    ticketId: uuidv7(),
    txid: randomTxid(),
    submittedTxid: randomTxid(),
    rawTx: new Uint8Array(),
    inputs: [],
    funding: { txid: randomTxid(), vout: 0 },
    leaseOwner: 'test-lease-owner',
    outputs: [],
    senders: [],
    receivers: [],
    callbackUrl: null,
    callbackSecretEnc: null,
    apiKeyId: null,
    firstCheckAt: now,
    ...fields,
    now,
  };
}
