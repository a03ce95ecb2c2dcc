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
