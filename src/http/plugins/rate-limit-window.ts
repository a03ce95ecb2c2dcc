// Rate limit arithmetic (pure): a fixed window counts hits in the current window; a sliding
// window weighs the previous window's count by the part of it still inside the last
// `windowMs` (the sliding window counter). Stores keep the two counts; this file decides.

export type RateLimitAlgorithm = 'fixed' | 'sliding';

/** The counts a store holds for one client: this window's hits and the previous window's. */
export interface WindowCounts {
  readonly current: number;
  readonly previous: number;
}

/** Where `nowMs` falls: the window's index and how far into it. */
export interface WindowPosition {
  readonly index: number;
  readonly elapsedMs: number;
}

export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Seconds until the window resets (RateLimit `t`). */
  readonly resetSeconds: number;
  /** Seconds to wait before a request would be allowed (Retry-After); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export function windowPosition(nowMs: number, windowMs: number): WindowPosition {
  const index = Math.floor(nowMs / windowMs);
  return { index, elapsedMs: nowMs - index * windowMs };
}

/** The weighted count a request is judged against (before it is counted). */
export function estimatedCount(
  algorithm: RateLimitAlgorithm,
  counts: WindowCounts,
  position: WindowPosition,
  windowMs: number,
): number {
  if (algorithm === 'fixed') return counts.current;
  return (counts.previous * (windowMs - position.elapsedMs)) / windowMs + counts.current;
}

/** Milliseconds until one more request fits under `limit` (0 when it fits now). */
export function waitMs(
  algorithm: RateLimitAlgorithm,
  limit: number,
  counts: WindowCounts,
  position: WindowPosition,
  windowMs: number,
): number {
  const left = windowMs - position.elapsedMs;
  if (estimatedCount(algorithm, counts, position, windowMs) + 1 <= limit) return 0;
  if (algorithm === 'fixed' || counts.current + 1 > limit) {
    if (algorithm === 'fixed') return left;
    // Next window: this window's count becomes the previous one and fades as time passes.
    const into = counts.current === 0 ? 0 : windowMs - ((limit - 1) * windowMs) / counts.current;
    return left + Math.max(0, Math.ceil(into));
  }
  // Still in this window: the previous window's weight must fade enough.
  const fits = windowMs - ((limit - 1 - counts.current) * windowMs) / counts.previous;
  return Math.max(1, Math.ceil(fits - position.elapsedMs));
}

/**
 * The decision for one request, given the counts before it and whether the store counted it
 * (a store counts a request only when it is allowed).
 */
export function decide(
  algorithm: RateLimitAlgorithm,
  limit: number,
  windowMs: number,
  before: WindowCounts,
  position: WindowPosition,
): RateLimitDecision {
  const estimate = estimatedCount(algorithm, before, position, windowMs);
  const allowed = estimate + 1 <= limit;
  const used = allowed ? estimate + 1 : estimate;
  const resetSeconds = Math.max(1, Math.ceil((windowMs - position.elapsedMs) / 1000));
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.floor(limit - used)),
    resetSeconds,
    retryAfterSeconds: allowed
      ? 0
      : Math.max(1, Math.ceil(waitMs(algorithm, limit, before, position, windowMs) / 1000)),
  };
}
