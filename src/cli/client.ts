// The CLI's HTTP calls to the running service: JSON in and out, the admin key as a Bearer
// token, problem details turned into one line for stderr.
import { CliError, type Connection } from './args.js';

const TIMEOUT_MS = 60_000;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Calls `method path` on the service; answers the parsed JSON body of a 2xx response. */
export async function callService(
  conn: Connection,
  method: HttpMethod,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const url = `${conn.url}${path}`;
  const headers: Record<string, string> = {
    authorization: `Bearer ${conn.adminKey}`,
    accept: 'application/json',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new CliError(`cannot reach the service at ${conn.url} (${reasonOf(err)}); is it running?`);
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

function reasonOf(err: unknown): string {
  const cause =
    err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause !== undefined && typeof cause.code === 'string') return cause.code;
  if (cause !== undefined && typeof cause.message === 'string' && cause.message !== '') return cause.message;
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer in ${TIMEOUT_MS / 1000} s`;
  return err instanceof Error ? err.message : String(err);
}
