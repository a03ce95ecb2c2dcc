// When a failed callback is tried again (contract.md "Callbacks"): 5 s, 30 s, 2 min, 10 min,
// 1 h, then hourly, each with +-20 % jitter, until 24 h have passed since the first attempt;
// the attempt that fails after that gives up. A `Retry-After` answer is honoured: the next
// attempt is never sooner than the receiver asked (capped at the 24 h window). Pure: the
// clock and the randomness come in as arguments.

export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
export const LAST_DELAY_MS = 3_600_000;
/** Failures are retried until this long after the first attempt. */
export const RETRY_WINDOW_MS = 24 * 3_600_000;
export const JITTER = 0.2;

/** The delay after the `failures`-th failure (1-based), jittered by `random()` in [0, 1). */
export function backoffDelayMs(failures: number, random: () => number): number {
  const base = RETRY_DELAYS_MS[Math.max(0, failures - 1)] ?? LAST_DELAY_MS;
  const factor = 1 - JITTER + 2 * JITTER * Math.min(Math.max(random(), 0), 1);
  return Math.round(base * factor);
}

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds or an HTTP date;
 * undefined when absent or unreadable, 0 for a date in the past.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), RETRY_WINDOW_MS / 1000) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

export type RetryDecision = { readonly kind: 'retry'; readonly at: Date } | { readonly kind: 'give-up' };

export interface FailedAttempt {
  /** Failures so far, this one included (1 after the first attempt failed). */
  readonly failures: number;
  /** When the first attempt was made. */
  readonly firstAttemptAt: Date;
  readonly now: Date;
  /** From the answer's Retry-After, when it had one. */
  readonly retryAfterMs?: number | undefined;
}

export function nextRetry(failed: FailedAttempt, random: () => number): RetryDecision {
  const elapsed = failed.now.getTime() - failed.firstAttemptAt.getTime();
  if (elapsed >= RETRY_WINDOW_MS) return { kind: 'give-up' };
  const asked = Math.min(failed.retryAfterMs ?? 0, RETRY_WINDOW_MS);
  const delay = Math.max(backoffDelayMs(failed.failures, random), asked);
  return { kind: 'retry', at: new Date(failed.now.getTime() + delay) };
}

/** What an attempt's end means for its event: callbacks and address webhooks alike. */
export type AttemptVerdict =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly at: Date }
  | { readonly kind: 'failed' }
  | { readonly kind: 'gone' };

export interface EndedAttempt {
  /** The receiver's answer, or undefined when there was none (refused, timed out, reset). */
  readonly answer: { readonly status: number; readonly retryAfter: string | undefined } | undefined;
  /** Attempts made before this one. */
  readonly attemptsBefore: number;
  /** When the first attempt was made (null: this is the first). */
  readonly firstAttemptAt: Date | null;
  readonly at: Date;
}

/** A 2xx is delivered and a 410 gone; anything else is retried on the schedule, or failed. */
export function attemptVerdict(ended: EndedAttempt, random: () => number): AttemptVerdict {
  const { answer, at } = ended;
  if (answer !== undefined) {
    if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered' };
    if (answer.status === 410) return { kind: 'gone' };
  }
  const decision = nextRetry(
    {
      failures: ended.attemptsBefore + 1,
      firstAttemptAt: ended.firstAttemptAt ?? at,
      now: at,
      retryAfterMs: answer === undefined ? undefined : parseRetryAfter(answer.retryAfter, at),
    },
    random,
  );
  return decision.kind === 'retry' ? { kind: 'retry', at: decision.at } : { kind: 'failed' };
}
