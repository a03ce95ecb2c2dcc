// Request logging without secrets: URLs are logged with credential parameters and key-shaped
// strings redacted, and no header is ever logged (the Authorization header carries keys).
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { redactKeyShaped, safeForLog } from '../../process/log-safety.js';
import { REQUEST_ID_LOG_LABEL } from './request-id.js';

export const REDACTED = '[REDACTED]';

/** Health probes: a balancer asks every few seconds; their answers are logged at debug. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** A successful health probe (logged below info); a failing one stays at info. */
export function isQuietProbe(url: string, statusCode: number): boolean {
  const q = url.indexOf('?');
  return statusCode < 400 && PROBE_PATHS.has(q < 0 ? url : url.slice(0, q));
}

/** pino redact paths: a belt for code that logs headers or a parsed query by mistake. */
export const LOG_REDACT_PATHS: readonly string[] = [
  'headers.authorization',
  '*.headers.authorization',
  'authorization',
  'query.auth_token',
  '*.query.auth_token',
  'auth_token',
];

/** Query parameter names that carry a credential, however spelt (case, `_`, brackets, encoding). */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'authtoken',
  'apikey',
  'accesstoken',
  'token',
  'key',
  'secret',
  'password',
]);

/** A parameter name as compared: decoded (up to three times), lower case, letters and digits only. */
function credentialName(name: string): string {
  let decoded = name.replaceAll('+', ' ');
  for (let i = 0; i < 3 && decoded.includes('%'); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  return decoded
    .toLowerCase()
    .replace(/\[.*$/, '')
    .replace(/[^a-z0-9]/g, '');
}

/**
 * A URL as logs may carry it: the value of every credential parameter (`auth_token` in any
 * spelling: `Auth_Token`, `auth_token[]`, `auth%5Ftoken`, `api_key`...) replaced by [REDACTED],
 * and every key-shaped string elsewhere in it (a key pasted as an ID or an address) too.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactKeyShaped(url);
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return CREDENTIAL_NAMES.has(credentialName(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return redactKeyShaped(`${url.slice(0, q)}?${query}`);
}

/** A pino `req` serializer that never shows a key (used for any `{ req }` log field). */
export function serializeRequest(req: {
  method?: string;
  url?: string;
  ip?: string;
}): Record<string, unknown> {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    remoteAddress: req.ip,
  };
}

/** Fastify's internal request log lines, with redacted URLs and the `requestId` label. */
export class RedactingLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: REQUEST_ID_LOG_LABEL });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: redactUrl(request.url) }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 1000) / 1000,
      // Who asked: the client's address (behind trustProxy, the forwarded one) and the API key's
      // id (null: anonymous, or refused before a key was known).
      clientAddress: request.ip,
      apiKeyId: request.principal?.id ?? null,
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else if (isQuietProbe(request.url, reply.statusCode)) reply.log.debug(fields, 'request completed');
    else reply.log.info(fields, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.info({ method: request.method, url: redactUrl(request.url) }, 'route not found');
  }

  override writeHeadError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    reply.log.error({ method: request.method, url: redactUrl(request.url), err: error }, error.message);
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode };
    if (reply.statusCode >= 500) reply.log.error({ ...fields, err: error }, error.message);
    else reply.log.info({ ...fields, code: (error as { code?: unknown }).code }, safeForLog(error.message));
  }
}
