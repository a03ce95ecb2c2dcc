// Comparing a presented secret with the expected one in constant time (no early exit that would
// tell a caller how many leading characters it got right). One home for every server that checks
// a token: the metrics route, ARC's callbacks, the devnet's ARC API, the writer.
import { timingSafeEqual } from 'node:crypto';

/** True when `given` is `expected`, compared in constant time for strings of the same length. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when an Authorization header is `Bearer <token>` (compared in constant time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  return sameSecret(authorization ?? '', `Bearer ${token}`);
}
