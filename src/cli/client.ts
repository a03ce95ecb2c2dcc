// The CLI's HTTP calls to the running service: JSON in and out, the admin key as a Bearer
// token, problem details turned into one line for stderr. A write that moves value (mint, burn,
// a funding payment) carries one Idempotency-Key per invocation and is sent again with the same
// key when the network fails (the process answering may have died after the write committed):
// the service answers the first answer again instead of writing twice.
import { randomUUID } from 'node:crypto';
import { CliError, type Connection } from './args.js';

const TIMEOUT_MS = 60_000;
/** Attempts of an idempotent write whose request never got an answer, and the pause between. */
const IDEMPOTENT_ATTEMPTS = 4;
const RETRY_PAUSE_MS = 1_000;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface CallOptions {
  /** Send an Idempotency-Key and retry network failures with it (writes that move value). */
  readonly idempotent?: boolean;
  /** The pause before each retry, ms (tests shorten it). */
  readonly retryPauseMs?: number;
}

/** Calls `method path` on the service; answers the parsed JSON body of a 2xx response. */
export async function callService(
  conn: Connection,
  method: HttpMethod,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<unknown> {
  const url = `${conn.url}${path}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${conn.adminKey}`,
    accept: 'application/json',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotent === true) headers['idempotency-key'] = `cli-${randomUUID()}`;
  const attempts = options.idempotent === true ? IDEMPOTENT_ATTEMPTS : 1;
  let response: Response | undefined;
  for (let attempt = 1; response === undefined; attempt++) {
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      if (attempt >= attempts) throw unreachable(conn, err, attempt);
      await new Promise((r) => setTimeout(r, (options.retryPauseMs ?? RETRY_PAUSE_MS) * attempt));
    }
  }
  const text = await response.text();
  if (!response.ok) throw new CliError(problemLine(response.status, text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError(
      `${method} ${path}: the service answered ${response.status} with a body that is not JSON`,
    );
  }
}

/** `404 NOT_FOUND: no live API key with id x` from a problem body (or the status alone). */
export function problemLine(status: number, text: string): string {
  try {
    const problem = JSON.parse(text) as { code?: unknown; detail?: unknown; title?: unknown };
    const code = typeof problem.code === 'string' ? ` ${problem.code}` : '';
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : '';
    return `${status}${code}${detail === '' ? '' : `: ${detail}`}`;
  } catch {
    return `${status}: ${text.slice(0, 200)}`;
  }
}

function unreachable(conn: Connection, err: unknown, attempts: number): CliError {
  const tries = attempts > 1 ? `, ${attempts} attempts with one Idempotency-Key` : '';
  return new CliError(
    `cannot reach the service at ${conn.url} (${reasonOf(err)}${tries}); is it running? ` +
      `The URL comes from --url, else TOKENPROXY_URL, else http://127.0.0.1:<port of the configuration>`,
  );
}

function reasonOf(err: unknown): string {
  const cause =
    err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause !== undefined && typeof cause.code === 'string') return cause.code;
  if (cause !== undefined && typeof cause.message === 'string' && cause.message !== '') return cause.message;
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer in ${TIMEOUT_MS / 1000} s`;
  return err instanceof Error ? err.message : String(err);
}
