// Schema pieces shared by the routes: the problem body, the auth_token query parameter,
// ordering and paging parameters, and the response entries for documented errors.
import { Type } from 'typebox';
import { ERRORS } from '../error-statuses.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';

const CODES = Object.keys(ERRORS);

/** Registered once by buildApp (`app.addSchema`); referenced as `Problem` (components.schemas.Problem). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI of the problem type: https://tokenproxy.dev/errors/<code>' }),
    title: Type.String({ description: 'Title of the code (docs/errors.md)' }),
    status: Type.Integer({ description: 'HTTP status' }),
    detail: Type.String({ description: 'What happened, for this request' }),
    code: Type.Enum(CODES, { description: 'Stable machine-readable code' }),
    message: Type.String({ description: 'Same as detail (read by older clients)' }),
    invalidParams: Type.Optional(
      Type.Array(
        Type.Object({
          in: Type.String({ description: 'body, query, path or header' }),
          name: Type.String(),
          reason: Type.String(),
        }),
        { description: 'Each parameter that failed its check (RFC 9457 extension)' },
      ),
    ),
  },
  {
    $id: 'Problem',
    additionalProperties: true,
    description: 'RFC 9457 problem details',
    examples: [
      {
        type: 'https://tokenproxy.dev/errors/INVALID_ADDRESS',
        title: 'Invalid address',
        status: 400,
        detail: 'invalid address: 1NotAnAddress',
        code: 'INVALID_ADDRESS',
        message: 'invalid address: 1NotAnAddress',
      },
    ],
  },
);

/** Query property carrying the API key; spread it into a querystring schema's properties. */
export const authTokenQuery = {
  auth_token: Type.Optional(Type.String({ description: 'API key (or send Authorization: Bearer <key>)' })),
};

export const Order = Type.Enum(['asc', 'desc'], { description: 'Order by score', default: 'asc' });

export const Txid = Type.String({
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'Transaction ID (64 hex digits)',
});

/** A JSON-number integer that must stay exact in JavaScript (amounts go out as numbers). */
export const SafeInteger = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** One OpenAPI response entry whose body is a problem (sent as application/problem+json). */
export function problemResponse(description = 'Problem details'): Record<string, unknown> {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: Type.Ref('Problem') } } };
}

/**
 * OpenAPI response entries for error statuses, e.g. `...problemResponses(400, 404)` in a
 * route's `schema.response`. They document the body; the error handler does not need them.
 */
export function problemResponses(...statuses: number[]): Record<number, Record<string, unknown>> {
  const out: Record<number, Record<string, unknown>> = {};
  for (const status of statuses) out[status] = problemResponse();
  return out;
}
