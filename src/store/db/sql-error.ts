// Database errors, the same from both adapters: pg and PGlite both throw a DatabaseError
// (pg-protocol's) carrying the PostgreSQL SQLSTATE in `code`, and `severity`, `constraint`,
// `table`, `detail` as the server sent them.

export const SqlState = {
  UNIQUE_VIOLATION: '23505',
  FOREIGN_KEY_VIOLATION: '23503',
  CHECK_VIOLATION: '23514',
  NOT_NULL_VIOLATION: '23502',
  SERIALIZATION_FAILURE: '40001',
  DEADLOCK_DETECTED: '40P01',
  LOCK_NOT_AVAILABLE: '55P03',
} as const;

/** The SQLSTATE of a database error (e.g. '23505'), or undefined for any other error. */
export function sqlStateOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  // `severity` tells a server error from a Node system error (whose code may be 5 letters).
  return typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code)
    ? code
    : undefined;
}

/** True when err is a unique-constraint violation (optionally on the named constraint). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (sqlStateOf(err) !== SqlState.UNIQUE_VIOLATION) return false;
  return constraint === undefined || (err as { constraint?: unknown }).constraint === constraint;
}

/** SQLSTATEs of a server that is going away or not there yet (class 08, admin shutdown, starting up). */
const UNAVAILABLE_STATES = /^(08...|57P01|57P02|57P03|53300)$/;
/** Node's errors of a connection that cannot be made or was cut. */
const UNAVAILABLE_SYSCALLS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/** pg's own errors when a connection ends under a client. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
];

/**
 * True when err says the database cannot be reached (down, restarting, connection cut): a
 * condition to answer 503 and retry, not a bug. Causes and AggregateErrors are looked into.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const state = sqlStateOf(err);
  if (state !== undefined) return UNAVAILABLE_STATES.test(state);
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && UNAVAILABLE_SYSCALLS.has(code)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** True when PostgreSQL aborted the transaction as a deadlock or serialization failure: run it again. */
export function isRetryableConflict(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === SqlState.DEADLOCK_DETECTED || state === SqlState.SERIALIZATION_FAILURE;
}
