// The example /docs shows under each problem status of an operation: a problem of the first
// code that status can carry on that operation, with a detail as the service writes it, so a
// 401 shows a 401 (and how to get a key), a 429 a 429, and never one status's sample under
// another's.
import { ERRORS, type ErrorCode } from './error-statuses.js';
import { HOW_TO_GET_A_KEY } from './plugins/auth.js';

/** Details as the service writes them, for the codes a wallet developer meets first. */
const DETAILS: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: `An API key is required (auth_token or Authorization: Bearer); ${HOW_TO_GET_A_KEY}`,
  FORBIDDEN: "API key lacks the 'submit' scope",
  RATE_LIMITED: 'Rate limit of 120 requests per 60 s exceeded; retry in 12 s',
  NOT_READY: 'The database cannot be reached; try again shortly',
  NOT_FOUND: 'record not found',
  INVALID_ADDRESS: 'invalid address: 1NotAnAddress',
  INVALID_PARAMETER: "query parameter 'page' must be >= 1",
  INVALID_REQUEST: "body field 'rawtx' is required",
  INVALID_JSON: 'Invalid JSON payload',
  PAYLOAD_TOO_LARGE: 'Request body exceeds the limit of 1048576 bytes',
  UNSUPPORTED_MEDIA_TYPE: 'Content-Type text/plain is not taken here; send the JSON body as application/json',
  INVALID_TX: 'rawtx is not base64',
  INPUT_SPENT: 'outpoint 4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b_1 already spent',
  IDEMPOTENCY_CONFLICT:
    'Idempotency-Key order-17 was already used with another request; use a new key for a new request',
  FUNDING_EXHAUSTED: 'no funding output of at least 150 satoshis is available',
  LEDGER_UNAVAILABLE: 'the ledger did not answer; try again shortly',
};

/** A problem body of this code, as the service sends it. */
export function problemExample(code: ErrorCode): Record<string, unknown> {
  const { status, title } = ERRORS[code];
  const detail = DETAILS[code] ?? `${title} (docs/errors.md, ${code})`;
  return { type: `https://tokenproxy.dev/errors/${code}`, title, status, detail, code, message: detail };
}
