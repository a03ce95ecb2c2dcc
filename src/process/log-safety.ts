// What a log record may carry of what a caller sent (issue 29): no control character a
// terminal would act on (a newline or an escape sequence in a ticket ID printed a forged line on
// pino-pretty), and no key-shaped string in clear (a key pasted where an ID or an address was
// expected was logged four times). Pure string functions, used by the logger on every message
// and by the HTTP layer on every 4xx detail and URL it logs.

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what is escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Each control character as a visible escape (`\n`, `\u001b`), so a record stays one line. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * Key-shaped strings: this service's API keys (`tp_`) and webhook secrets (`whsec_`), WIF private
 * keys (base58, 51-52 characters from 5, K, L, 9 or c), extended private keys (xprv/tprv), and
 * any other run of 40 or more base64url characters with digits and letters that is not plain
 * hex (64 hex digits are a txid, kept: they are what a 4xx about a transaction is about).
 */
const KEY_SHAPED =
  /(?:tp_|whsec_)[A-Za-z0-9_\-+/=]{8,}|\b[5KL9c][1-9A-HJ-NP-Za-km-z]{50,51}\b|\b[xt]prv[1-9A-HJ-NP-Za-km-z]{20,}|[A-Za-z0-9_-]{40,}/g;
const HEX = /^[0-9a-fA-F]+$/;
/** A random run has digits and letters; a long hyphenated word or path segment has no digit. */
const MIXED = /^(?=.*[0-9])(?=.*[A-Za-z])/;

/** Every key-shaped run replaced by `[REDACTED key-shaped, N chars]`. */
export function redactKeyShaped(text: string): string {
  return text.replace(KEY_SHAPED, (run) =>
    HEX.test(run) || !MIXED.test(run) ? run : `[REDACTED key-shaped, ${run.length} chars]`,
  );
}

/** Most characters of a caller's input a 4xx record carries. */
export const MAX_LOGGED_DETAIL = 240;

/** A caller's text as a log record may carry it: redacted, escaped, bounded. */
export function safeForLog(text: string, max = MAX_LOGGED_DETAIL): string {
  const safe = escapeControls(redactKeyShaped(text));
  return safe.length <= max ? safe : `${safe.slice(0, max)}…(${safe.length} chars)`;
}
