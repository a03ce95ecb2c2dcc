// buildApp: the HTTP frame. It never listens (tests use inject() or listen themselves).
// Everything it needs is handed in: configuration, logger, API key verifier, readiness
// check and the resource route plugins, which are registered after the frame's own parts
// (problem errors, 404/405, auth and scopes, request IDs, deprecation headers, OpenAPI,
// health) so every route inherits them.

import { constants as zlibConstants } from 'node:zlib';
import compress from '@fastify/compress';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { Config } from '../config.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { AppError } from './app-error.js';
import { docsRoutes, markDocsRoutesPublic } from './docs-ui.js';
import { frameworkErrorHandler, installErrorHandler } from './error-handler.js';
import { healthRoutes, type ReadinessCheck } from './health.js';
import { installHttpMetrics } from './metrics.js';
import { openApiRoutes, registerOpenApi } from './openapi.js';
import { type ApiKeyVerifier, installAuth, installAuthFailures } from './plugins/auth.js';
import { installCors } from './plugins/cors.js';
import { installDefaultJsonContentType } from './plugins/default-content-type.js';
import { installDeprecationHeaders } from './plugins/deprecation.js';
import { installNotFoundHandler } from './plugins/method-not-allowed.js';
import { installRateLimit, type RateLimitOptions } from './plugins/rate-limit.js';
import { installRequestIdHeader, requestIdGenerator } from './plugins/request-id.js';
import {
  LOG_REDACT_PATHS,
  REDACTED,
  RedactingLogController,
  serializeRequest,
} from './plugins/request-log.js';
import { ProblemSchema } from './schemas/common.js';
import { WIRE_SCHEMAS } from './schemas/wire-schemas.js';
import { typeboxValidatorCompiler } from './validation.js';
import { anonymousTokensOf, publicPrincipalsOf } from './well-known-tokens.js';

export type AppInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A resource route plugin: registers its routes (each with `config.scope`) on the app. */
export type RoutePlugin = (app: AppInstance) => void | Promise<void>;

/** The settings the frame reads; a full Config satisfies it. */
export type HttpConfig = Pick<
  Config,
  'bodyLimit' | 'anonymousRead' | 'trustProxy' | 'publicBaseUrl' | 'fundingRefillMs'
> &
  Partial<Pick<Config, 'corsOrigins' | 'anonymousTokens' | 'env' | 'sandboxPublicSubmit'>> &
  Partial<Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'idleTimeoutMs' | 'keepAliveTimeoutMs'>>;

/** Answers smaller than this many bytes go out uncompressed even when the client accepts gzip. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

export interface AppDeps {
  readonly config: HttpConfig;
  /** A pino logger; the app logs through a child of it (request lines carry `requestId`). */
  readonly logger: FastifyBaseLogger;
  readonly apiKeys: ApiKeyVerifier;
  readonly readiness: ReadinessCheck;
  /** Registered in order, each in its own encapsulated context. */
  readonly routes?: readonly RoutePlugin[];
  /** Version shown in the OpenAPI document. */
  readonly version?: string;
  readonly readinessTimeoutMs?: number;
  /** Request ID source when the client sends none (default: randomUUID). */
  readonly generateRequestId?: () => string;
  /** Rate limits (after auth); absent: none. */
  readonly rateLimit?: RateLimitOptions;
  /** Request metrics per route; absent: none. */
  readonly metrics?: ServiceMetrics;
}

/** Defaults of the timeouts, when the config does not carry them (tests build partial configs). */
const TIMEOUT_DEFAULTS = { headers: 10_000, request: 30_000, idle: 60_000, keepAlive: 5_000 };

function timeoutOptions(config: HttpConfig) {
  const headersTimeout = config.headersTimeoutMs ?? TIMEOUT_DEFAULTS.headers;
  const requestTimeout = Math.max(config.requestTimeoutMs ?? TIMEOUT_DEFAULTS.request, headersTimeout);
  return {
    requestTimeout,
    connectionTimeout: config.idleTimeoutMs ?? TIMEOUT_DEFAULTS.idle,
    keepAliveTimeout: config.keepAliveTimeoutMs ?? TIMEOUT_DEFAULTS.keepAlive,
    http: {
      headersTimeout,
      requestTimeout,
      // How often Node looks for requests past their deadline (its default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
    },
  };
}

export function buildApp(deps: AppDeps): AppInstance {
  const { config } = deps;
  const logger = deps.logger.child(
    {},
    { serializers: { req: serializeRequest }, redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED } },
  );
  const app = Fastify({
    loggerInstance: logger,
    logController: new RedactingLogController(),
    genReqId: requestIdGenerator(deps.generateRequestId),
    requestIdHeader: false,
    bodyLimit: config.bodyLimit,
    // Slow clients are cut (docs/operations.md, Rate limits: slow clients): Fastify's defaults (0) would turn
    // Node's own request timeout off, and a socket sending a byte every few seconds would hold
    // its connection for ever. Node answers 408 to headers or a body that do not arrive in time.
    ...timeoutOptions(config),
    trustProxy: config.trustProxy.length === 0 ? false : [...config.trustProxy],
    frameworkErrors: frameworkErrorHandler(config),
    // Closing answers a problem (NOT_READY, Retry-After) from the hook below, not Fastify's own body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(typeboxValidatorCompiler);
  // Response schemas describe answers (the OpenAPI document, generated clients); they never
  // reshape them: fast-json-stringify would drop fields a schema omits and coerce types, so
  // answers are serialized as the handlers made them (the e2e suites check them against the
  // document instead).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addSchema(ProblemSchema);
  for (const schema of WIRE_SCHEMAS) app.addSchema(schema);
  const root = app as unknown as FastifyInstance;
  root.addHook('onRoute', markDocsRoutesPublic);
  installCors(root, config.corsOrigins ?? ['*']);
  installAuth(root, {
    verifier: deps.apiKeys,
    anonymousRead: config.anonymousRead,
    anonymousTokens: anonymousTokensOf({
      env: config.env ?? 'sandbox',
      anonymousTokens: config.anonymousTokens,
    }),
    publicPrincipals: publicPrincipalsOf(config),
  });
  if (deps.rateLimit !== undefined) installRateLimit(root, deps.rateLimit);
  installAuthFailures(root);
  if (deps.metrics !== undefined) installHttpMetrics(root, deps.metrics);
  installRequestIdHeader(root);
  installDefaultJsonContentType(root);
  installDeprecationHeaders(root);
  installErrorHandler(root, config);
  installNotFoundHandler(root);
  registerOpenApi(root, {
    version: deps.version ?? '0.0.0-dev',
    anonymousRead: config.anonymousRead,
    publicBaseUrl: config.publicBaseUrl,
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new AppError('NOT_READY', 'the service is shutting down; try again shortly');
  });

  // Compressed when asked (Accept-Encoding) and at least COMPRESS_THRESHOLD_BYTES; brotli at a
  // moderate quality (its default, 11, costs far more CPU than it saves on JSON).
  app.register(compress, {
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
    // Request bodies are read as sent: no client compresses them, and inflating them would let
    // a small body expand past bodyLimit's intent.
    globalDecompression: false,
  });
  app.register(healthRoutes(deps.readiness, deps.readinessTimeoutMs));
  app.register(openApiRoutes);
  app.register(docsRoutes);
  for (const plugin of deps.routes ?? []) {
    app.register(async (child) => {
      await plugin(child);
    });
  }
  return app;
}
