// Maps anything thrown during a request to a problem (problem.ts): AppError and the rules'
// DomainError to their code (the status is the code's: error-statuses.ts), Fastify's own errors
// (validation, JSON parsing, body size, media type) to registry codes, everything else to a
// generic 500 that is logged with the request ID and never leaks.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/domain-error.js';
import { LedgerUnavailableError } from '../ledger/port.js';
import { safeForLog } from '../process/log-safety.js';
import { isDatabaseUnavailable } from '../store/db/sql-error.js';
import { AppError } from './app-error.js';
import type { ErrorCode } from './error-statuses.js';
import { REQUEST_ID_HEADER } from './plugins/request-id.js';
import { type Problem, problemOf, sendProblemBody } from './problem.js';
import { describeIssue, validationIssues } from './validation.js';

export const INVALID_JSON_DETAIL = 'Invalid JSON payload';

/**
 * Retry-After of a 503 (funding pool empty, ledger unavailable, not ready): the funding pool's
 * refill interval (fundingRefillMs), in whole seconds.
 */
export function retryAfterSecondsOf(fundingRefillMs: number): number {
  return Math.max(1, Math.ceil(fundingRefillMs / 1000));
}

/** What the handler reads of the configuration. */
export interface ErrorHandlerSettings {
  readonly bodyLimit: number;
  readonly fundingRefillMs: number;
}

export interface MappedError {
  readonly problem: Problem;
  /** true when the error is the service's fault (log at error level with the stack). */
  readonly internal: boolean;
}

interface FastifyLikeError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: unknown;
  readonly validation?: readonly unknown[];
  readonly validationContext?: string;
  readonly name?: unknown;
}

const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

function internal(requestId: string): MappedError {
  return {
    problem: problemOf(
      'INTERNAL',
      `An internal error occurred; quote request ID ${requestId} when reporting it`,
    ),
    internal: true,
  };
}

function clip(text: string, max = 200): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > max ? `${printable.slice(0, max)}...` : printable;
}

/** Pure mapping from a thrown value to the problem answered. */
export function mapError(error: unknown, requestId: string, bodyLimit?: number): MappedError {
  if (error instanceof AppError) {
    // 503s (funding exhausted, ledger unavailable, not ready) are conditions, not bugs.
    return { problem: problemOf(error.code, error.message, error.extra), internal: error.status === 500 };
  }
  if (error instanceof DomainError) return { problem: problemOf(error.code, error.message), internal: false };
  if (typeof error !== 'object' || error === null) return internal(requestId);
  if (error instanceof LedgerUnavailableError) {
    return {
      problem: problemOf('LEDGER_UNAVAILABLE', 'The ledger cannot be reached; try again shortly'),
      internal: false,
    };
  }
  // The database down or restarting: a condition the client retries (Retry-After), not a bug.
  if (isDatabaseUnavailable(error)) {
    return {
      problem: problemOf('NOT_READY', 'The database cannot be reached; try again shortly'),
      internal: false,
    };
  }
  const e = error as FastifyLikeError;

  if (Array.isArray(e.validation)) {
    const issues = validationIssues(e.validationContext, e.validation);
    const first = issues[0];
    const code: ErrorCode =
      first?.in === 'query' || first?.in === 'path' ? 'INVALID_PARAMETER' : 'INVALID_REQUEST';
    const detail = first === undefined ? 'Request does not match the schema' : describeIssue(first);
    return { problem: problemOf(code, detail, { invalidParams: issues }), internal: false };
  }

  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { problem: problemOf('INVALID_JSON', INVALID_JSON_DETAIL), internal: false };
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = bodyLimit === undefined ? '' : ` of ${bodyLimit} bytes`;
      return {
        problem: problemOf('PAYLOAD_TOO_LARGE', `Request body exceeds the limit${limit}`),
        internal: false,
      };
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: problemOf('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type; send application/json'),
        internal: false,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        problem: problemOf('INVALID_REQUEST', 'Content-Length does not match the body'),
        internal: false,
      };
    case 'FST_ERR_BAD_URL':
      return { problem: problemOf('INVALID_REQUEST', 'Malformed request URL'), internal: false };
  }

  // The JSON parser's own SyntaxError (e.g. a forbidden __proto__ key) carries statusCode 400.
  if (e.name === 'SyntaxError' && e.statusCode === 400) {
    return { problem: problemOf('INVALID_JSON', INVALID_JSON_DETAIL), internal: false };
  }

  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = BY_STATUS[status] ?? 'INVALID_REQUEST';
    const message = typeof e.message === 'string' && e.message !== '' ? clip(e.message) : 'Bad request';
    return { problem: problemOf(code, message), internal: false };
  }
  return internal(requestId);
}

function handle(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  settings: ErrorHandlerSettings,
): FastifyReply {
  const { problem, internal: isInternal } = mapError(error, request.id, settings.bodyLimit);
  if (isInternal) request.log.error({ err: error, code: problem.code }, 'request failed');
  else if (problem.status >= 500)
    request.log.warn({ code: problem.code, status: problem.status }, problem.detail);
  // A 4xx detail echoes the caller's input: logged redacted, escaped and bounded (log-safety.ts).
  else request.log.info({ code: problem.code, status: problem.status }, safeForLog(problem.detail));
  if (problem.code === 'UNAUTHORIZED') reply.header('www-authenticate', 'Bearer realm="tokenproxy"');
  if (
    (problem.status === 503 || problem.code === 'FUNDING_SHARE_EXCEEDED') &&
    !reply.hasHeader('retry-after')
  )
    reply.header('retry-after', String(retryAfterSecondsOf(settings.fundingRefillMs)));
  return sendProblemBody(reply, problem);
}

/** Installs the error handler on the root instance (child contexts inherit it). */
export function installErrorHandler(app: FastifyInstance, settings: ErrorHandlerSettings): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) =>
    handle(request, reply, error, settings),
  );
}

/** For Fastify's `frameworkErrors` option (bad URL and the like, before routing). */
export function frameworkErrorHandler(settings: ErrorHandlerSettings) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    // These replies skip the onSend hooks, so the request ID header is set here.
    reply.header(REQUEST_ID_HEADER, request.id);
    handle(request, reply, error, settings);
  };
}
