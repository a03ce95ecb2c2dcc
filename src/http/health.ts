// Liveness (/healthz: the process answers) and readiness (/readyz: the dependencies this
// instance needs are there, decided by the readiness function handed to buildApp).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendProblem } from './problem.js';
import { problemResponses } from './schemas/common.js';

export interface Readiness {
  readonly ready: boolean;
  readonly reason?: string;
}

export type ReadinessCheck = () => Promise<Readiness>;

const Status = (value: string) => Type.Object({ status: Type.Literal(value) });

async function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: 'readiness check timed out' }), timeoutMs);
  });
  try {
    return await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(readiness: ReadinessCheck, timeoutMs = 5000) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/healthz',
      {
        config: { scope: 'public' },
        schema: {
          summary: 'Liveness: the process answers',
          tags: ['health'],
          response: { 200: Status('ok') },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'ok' };
      },
    );
    app.get(
      '/readyz',
      {
        config: { scope: 'public' },
        schema: {
          summary: 'Readiness: this instance can serve requests',
          tags: ['health'],
          response: { 200: Status('ready'), ...problemResponses(503) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        let result: Readiness;
        try {
          result = await withTimeout(readiness, timeoutMs);
        } catch (error) {
          request.log.error({ err: error }, 'readiness check failed');
          result = { ready: false, reason: 'readiness check failed' };
        }
        if (!result.ready) return sendProblem(reply, 'NOT_READY', result.reason ?? 'Service not ready');
        return { status: 'ready' };
      },
    );
  };
}
