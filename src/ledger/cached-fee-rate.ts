// The ledger's fee rate, asked at most once per `ttlMs`. While the ledger cannot be reached the
// last rate it gave is served for up to `staleIfErrorMs` more (transfers are accepted and wait
// for the tracker to broadcast them), then the LedgerUnavailableError goes through (a 503).
import { type Ledger, LedgerUnavailableError } from './port.js';

export function cachedFeeRate(
  ledger: Pick<Ledger, 'feePolicy'>,
  ttlMs: number,
  staleIfErrorMs = 10 * 60_000,
  now: () => number = Date.now,
): () => Promise<bigint> {
  let cached: { rate: bigint; at: number } | null = null;
  return async () => {
    if (cached === null || now() - cached.at > ttlMs) {
      try {
        cached = { rate: (await ledger.feePolicy()).satoshisPerKb, at: now() };
      } catch (err) {
        const stale = cached !== null && now() - cached.at <= ttlMs + staleIfErrorMs;
        if (!(err instanceof LedgerUnavailableError) || !stale) throw err;
      }
    }
    return cached!.rate;
  };
}
