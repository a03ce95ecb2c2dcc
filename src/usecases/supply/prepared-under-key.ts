// Where a mint or burn keeps the transaction it builds, under a key (an admin request's
// Idempotency-Key, an approved proposal's id; migration 016), and finds an earlier attempt's.
import {
  type IdempotencyScope,
  keepPrepared,
  recallPrepared,
  replaceStalePrepared,
} from '../../store/access/idempotency-store.js';
import type { Queryable } from '../../store/db/db.js';
import type { PreparedTransaction } from './send-from-held-address.js';

/** What to make of the key's kept transaction being another request's ('conflict'). */
export type KeptCheck = (kept: Uint8Array | 'conflict' | null) => Uint8Array | null;

/**
 * The kept transaction under `scope`. The store is read once: the checks up front (the route's,
 * the allowance's) and the submission ask the same question, and what this attempt keeps or
 * replaces afterwards is what it answers from then on. A transaction another process kept
 * meanwhile is found by the keep, which answers it.
 */
export function preparedUnderKey(
  q: Queryable,
  scope: IdempotencyScope,
  now: () => Date,
  checked: KeptCheck,
): PreparedTransaction {
  let known: Promise<Uint8Array | null> | undefined;
  return {
    earlier() {
      known ??= recallPrepared(q, scope).then(checked);
      return known;
    },
    async keep(raw) {
      const kept = checked(await keepPrepared(q, scope, raw, now())) ?? raw;
      known = Promise.resolve(kept);
      return kept;
    },
    async replace(stale, fresh) {
      const kept = checked(await replaceStalePrepared(q, scope, stale, fresh)) ?? stale;
      known = Promise.resolve(kept);
      return kept;
    },
  };
}
