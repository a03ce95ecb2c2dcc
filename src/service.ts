// The running service: the parts from compose.ts, the roles the configuration names (api,
// tracker, devnet miner), the admin key at first start, and an orderly stop.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parseCallbackAllow } from './callbacks/address-guard.js';
import { createDeliverer, type Deliverer } from './callbacks/deliverer.js';
import { composeParts, type Parts } from './compose.js';
import type { Config } from './config.js';
import { type AppInstance, buildApp } from './http/app.js';
import { consolePageRoutes } from './http/console/console-page-routes.js';
import { metricsRoutes } from './http/metrics.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { createRedisRateLimitStore } from './http/rate-limit-store-redis.js';
import { adminRoutes } from './http/routes/admin-routes.js';
import { arcCallbackRoutes } from './http/routes/arc-callback-routes.js';
import { consoleRoutes } from './http/routes/console-routes.js';
import { consoleSearchRoutes } from './http/routes/console-search-routes.js';
import { deliveryRoutes } from './http/routes/delivery-routes.js';
import { freezeRoutes } from './http/routes/freeze-routes.js';
import { historyRoutes } from './http/routes/history-routes.js';
import { parseRoutes } from './http/routes/parse-routes.js';
import { readRoutes } from './http/routes/read-routes.js';
import { supplyRoutes } from './http/routes/supply-routes.js';
import { transferRoutes } from './http/routes/transfer-routes.js';
import { addressesOf } from './keys/operator-keys.js';
import { fundingAlert } from './metrics/funding-alert.js';
import { registerServiceGauges } from './metrics/service-gauges.js';
import { assertPortFree } from './process/port-check.js';
import { createApiKey, hasLiveAdminKey, storeApiKeyVerifier } from './store/api-keys-store.js';
import { databaseReadiness } from './store/db-readiness.js';
import { purgeIdempotencyKeys } from './store/idempotency-store.js';
import { refillFundingPool } from './usecases/funding-pool.js';
import { noticeFundingPayments } from './usecases/notice-funding-payments.js';
import { startTracker } from './usecases/track-tickets.js';

export const ADMIN_KEY_FILE = 'admin.key';
/** Advisory lock key held while a start looks for the admin key and makes it (unique to this use). */
export const ADMIN_KEY_LOCK = 7_364_821_004;

/** What a start did about the admin key: made it (and wrote it to `path`), or found one. */
export type AdminKeyNote = { readonly created: true; readonly path: string } | { readonly created: false };
const POOL_LOW_WATER = 100;
/** Idempotency-Key answers are kept a day (retries come within minutes), purged every 10 minutes. */
const IDEMPOTENCY_KEEP_MS = 24 * 3600_000;
const IDEMPOTENCY_PURGE_EVERY_MS = 10 * 60_000;

export interface RunningService {
  readonly parts: Parts;
  /** Base URL of the HTTP server, when the api role runs. */
  readonly url: string | null;
  /** The HTTP app, when the api role runs (tests read its routes). */
  readonly app: AppInstance | null;
  /** The callback deliverer, when the deliverer role runs. */
  readonly deliverer: Deliverer | null;
  /** Whether this start made the admin key, and where it wrote it. */
  readonly adminKey: AdminKeyNote;
  stop(): Promise<void>;
}

/** `useLogger`: where the service logs (default: pino to stdout at config.logLevel). */
export async function startService(
  config: Config,
  version = '0.0.0-dev',
  useLogger?: Logger,
): Promise<RunningService> {
  // A taken port is refused now, not after the first start's deploy and pool fill.
  if (config.roles.includes('api')) await assertPortFree(config.host, config.port);
  const parts = await composeParts(config, useLogger);
  const { ctx, logger, db } = parts;
  const stops: (() => Promise<void>)[] = [];
  try {
    const adminKey = await ensureAdminKey(parts);
    registerServiceGauges(parts.metrics, { db, log: logger });
    const alertIfLow = fundingAlert({
      db,
      log: logger,
      address: addressesOf(parts.keys).fundingAddress,
      lowWater: POOL_LOW_WATER,
      everyMs: 5 * 60_000,
      now: Date.now,
    });
    // On the embedded devnet, payments to the funding address are noticed before each refill.
    const devnet = parts.devnet;
    const notice = () =>
      devnet === null
        ? Promise.resolve()
        : noticeFundingPayments({
            db,
            ledger: devnet,
            fundingKey: parts.keys.funding,
            now: ctx.now,
            log: logger,
          }).then(() => undefined);
    const refill = () =>
      notice()
        .then(() =>
          refillFundingPool(
            {
              db,
              ledger: parts.ledger,
              fundingKey: parts.keys.funding,
              feeRate: ctx.feeRate,
              now: ctx.now,
              log: logger,
            },
            POOL_LOW_WATER,
          ),
        )
        .then(() => alertIfLow())
        .catch((err) => logger.error({ err }, 'funding pool refill failed'));
    if (config.roles.includes('tracker')) {
      logger.info({ step: 'funding' }, 'checking the funding pool (filled at first start)');
      await refill();
      const tracker = startTracker(ctx);
      const refiller = setInterval(() => void refill(), 5_000);
      const purger = setInterval(() => void purgeOldIdempotencyKeys(parts), IDEMPOTENCY_PURGE_EVERY_MS);
      stops.push(async () => {
        clearInterval(refiller);
        clearInterval(purger);
        await tracker.stop();
      });
    }
    const callbackAllow = parseCallbackAllow(config.callbackAllow);
    let deliverer: Deliverer | null = null;
    if (config.roles.includes('deliverer')) {
      const running = createDeliverer({
        db,
        masterKey: parts.masterKey,
        allow: callbackAllow,
        clock: ctx.now,
        log: logger,
        timeoutMs: config.callbackTimeoutMs,
        concurrency: config.callbackConcurrency,
        perOriginLimit: config.callbackPerReceiver,
        onAttempt: (outcome) => parts.metrics.callbackAttempts.inc({ outcome }),
      });
      running.start();
      deliverer = running;
      stops.push(() => running.stop());
    }
    let url: string | null = null;
    let httpApp: AppInstance | null = null;
    if (config.roles.includes('api')) {
      const apiKeys = storeApiKeyVerifier(db);
      const rateLimit = config.rateLimitEnabled ? await rateLimitOf(config) : undefined;
      if (rateLimit !== undefined) stops.push(() => rateLimit.store.close());
      const app = buildApp({
        config,
        logger,
        apiKeys,
        readiness: databaseReadiness(db),
        version,
        ...(rateLimit !== undefined && { rateLimit }),
        metrics: parts.metrics,
        routes: [
          metricsRoutes({
            metrics: parts.metrics,
            apiKeys,
            ...(config.metricsToken !== undefined && { metricsToken: config.metricsToken }),
          }),
          readRoutes(routeDeps(parts)),
          transferRoutes({ ...routeDeps(parts), callbackAllow }),
          deliveryRoutes(routeDeps(parts)),
          historyRoutes(routeDeps(parts)),
          parseRoutes(routeDeps(parts)),
          adminRoutes({
            ...routeDeps(parts),
            mintKey: parts.keys.mint,
            miner: parts.devnet,
            genesisSupply: BigInt(parts.token.supply),
            forgetApiKeys: () => apiKeys.forget(),
          }),
          supplyRoutes({
            ...routeDeps(parts),
            burnKeys: { mint: parts.keys.mint, fee: parts.keys.fee },
            fundingAddress: addressesOf(parts.keys).fundingAddress,
            poolLowWater: POOL_LOW_WATER,
          }),
          consoleRoutes({
            ...routeDeps(parts),
            genesisSupply: BigInt(parts.token.supply),
            fundingAddress: addressesOf(parts.keys).fundingAddress,
            poolLowWater: POOL_LOW_WATER,
            devnet: parts.devnet,
          }),
          consoleSearchRoutes(routeDeps(parts)),
          freezeRoutes(routeDeps(parts)),
          consolePageRoutes(),
          ...(parts.arc === null ? [] : [arcCallbackRoutes(parts.arc)]),
        ],
      });
      url = await app.listen({ host: config.host, port: config.port });
      httpApp = app;
      // The HTTP server first (no more transfers), then the submissions in flight, then what
      // they queued for broadcasting.
      const { broadcasts, submissions } = ctx;
      stops.unshift(
        () => app.close(),
        async () => submissions?.close(),
        async () => broadcasts?.close(),
      );
    }
    logger.info(
      {
        url,
        tokenId: parts.token.tokenId,
        roles: config.roles,
        adminKeyFile: join(config.dataDir, ADMIN_KEY_FILE),
      },
      'tokenproxy started',
    );
    return {
      parts,
      url,
      app: httpApp,
      deliverer,
      adminKey,
      async stop() {
        for (const stop of stops)
          await stop().catch((err) => logger.error({ err }, 'stopping a role failed'));
        await parts.ledger.close().catch(() => undefined);
        await db.close();
      },
    };
  } catch (err) {
    for (const stop of stops) await stop().catch(() => undefined);
    await parts.ledger.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
}

async function purgeOldIdempotencyKeys(parts: Parts): Promise<void> {
  try {
    await purgeIdempotencyKeys(parts.db, new Date(parts.ctx.now().getTime() - IDEMPOTENCY_KEEP_MS));
  } catch (err) {
    parts.logger.error({ err }, 'purging old idempotency keys failed');
  }
}

/** Rate limits: shared through Redis when `redisUrl` is set, else counted in this process. */
async function rateLimitOf(config: Config) {
  const store: RateLimitStore =
    config.redisUrl !== undefined
      ? await createRedisRateLimitStore({ url: config.redisUrl })
      : createMemoryRateLimitStore();
  return {
    store,
    algorithm: config.rateLimitAlgorithm,
    windowMs: config.rateLimitWindowMs,
    perKey: config.rateLimitPerKey,
    anonymous: config.rateLimitAnonymous,
  };
}

function routeDeps(parts: Parts) {
  return {
    ctx: parts.ctx,
    masterKey: parts.masterKey,
    environment: parts.config.env,
    maxAddresses: parts.config.maxAddresses,
  };
}

/**
 * An admin API key where the database holds no live one: one per database, not per process.
 * Under an advisory lock, so instances starting at once on one PostgreSQL database make one;
 * the one that makes it writes it to `<dataDir>/admin.key` (mode 0600) before it commits.
 */
async function ensureAdminKey(parts: Parts): Promise<AdminKeyNote> {
  const path = join(parts.config.dataDir, ADMIN_KEY_FILE);
  const note = await parts.db.transaction(async (q): Promise<AdminKeyNote> => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_KEY_LOCK]);
    if (await hasLiveAdminKey(q)) return { created: false };
    const created = await createApiKey(q, parts.masterKey, { name: 'admin', scopes: ['admin'] }, new Date());
    mkdirSync(parts.config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
    return { created: true, path };
  });
  if (note.created) parts.logger.info({ path }, `admin API key created: ${path}`);
  else
    parts.logger.info(
      existsSync(path)
        ? `admin API key: ${path} (the database holds a live admin key; none created)`
        : 'admin API key: the database holds a live admin key, so none was created here; its admin.key ' +
            'is in the data folder of the instance that created it (or make one: tokenproxy keys create --scopes admin)',
    );
  return note;
}
