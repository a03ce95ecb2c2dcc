// Readiness of an instance as far as its database goes: a load balancer should stop sending
// requests to an instance whose database it cannot reach (they would all answer 503). The
// ledger is left out on purpose: transfers are accepted and broadcast later while it is away.
import type { Db } from './db.js';

export interface DatabaseReadiness {
  readonly ready: boolean;
  readonly reason?: string;
}

export function databaseReadiness(db: Db): () => Promise<DatabaseReadiness> {
  return async () => {
    try {
      await db.query('SELECT 1');
      return { ready: true };
    } catch (err) {
      return {
        ready: false,
        reason: `database unreachable: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  };
}
