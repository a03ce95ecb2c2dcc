// RFC 9457 problem details: the one shape of every error body the service sends.
// `message` repeats `detail` (the Go client reads `message`); `code` is a key of ERRORS.
import type { FastifyReply } from 'fastify';
import { ERRORS, type ErrorCode } from './error-statuses.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Base of the `type` member: `https://tokenproxy.dev/errors/<code>` (see docs/errors.md). */
export const PROBLEM_TYPE_BASE = 'https://tokenproxy.dev/errors/';

/** The members every problem carries; extension members may follow them. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly message: string;
  readonly [extension: string]: unknown;
}

const STANDARD_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'message']);

export function problemTypeOf(code: ErrorCode): string {
  return `${PROBLEM_TYPE_BASE}${code}`;
}

/**
 * Builds the problem body for a registered code. `extensions` become extra members
 * (public by contract: never put secrets or internals there); they cannot override
 * the standard members.
 */
export function problemOf(
  code: ErrorCode,
  detail: string,
  extensions?: Readonly<Record<string, unknown>>,
): Problem {
  const spec = ERRORS[code];
  const problem: Record<string, unknown> = {
    type: problemTypeOf(code),
    title: spec.title,
    status: spec.status,
    detail,
    code,
    message: detail,
  };
  if (extensions !== undefined) {
    for (const [name, value] of Object.entries(extensions)) {
      if (!STANDARD_MEMBERS.has(name) && value !== undefined) problem[name] = value;
    }
  }
  return problem as unknown as Problem;
}

/** Sends a problem from a route handler: `return sendProblem(reply, 'NOT_FOUND', 'record not found')`. */
export function sendProblem(
  reply: FastifyReply,
  code: ErrorCode,
  detail: string,
  extensions?: Readonly<Record<string, unknown>>,
): FastifyReply {
  return sendProblemBody(reply, problemOf(code, detail, extensions));
}

const serializeProblem = (payload: unknown): string => JSON.stringify(payload);

/**
 * Sends a built problem. Its own serializer bypasses any response schema a route declared
 * for that status, so a problem always goes out whole.
 */
export function sendProblemBody(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).serializer(serializeProblem).send(problem);
}
