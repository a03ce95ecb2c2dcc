// The running service: the parts from compose.ts, the roles the configuration names (api,
// tracker, devnet miner), the admin key at first start, and an orderly stop.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeParts, type Parts } from './compose.js';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { adminRoutes } from './http/routes/admin-routes.js';
import { arcCallbackRoutes } from './http/routes/arc-callback-routes.js';
import { historyRoutes } from './http/routes/history-routes.js';
import { parseRoutes } from './http/routes/parse-routes.js';
import { readRoutes } from './http/routes/read-routes.js';
import { transferRoutes } from './http/routes/transfer-routes.js';
import { createApiKey, storeApiKeyVerifier } from './store/api-keys-store.js';
import { refillFundingPool } from './usecases/funding-pool.js';
import { startTracker } from './usecases/track-tickets.js';

export const ADMIN_KEY_FILE = 'admin.key';
const POOL_LOW_WATER = 100;

export interface RunningService {
  readonly parts: Parts;
  /** Base URL of the HTTP server, when the api role runs. */
  readonly url: string | null;
  stop(): Promise<void>;
}

export async function startService(config: Config, version = '0.0.0-dev'): Promise<RunningService> {
  const parts = await composeParts(config);
  const { ctx, logger, db } = parts;
  const stops: (() => Promise<void>)[] = [];
  try {
    await ensureAdminKey(parts);
    const refill = () =>
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
      ).catch((err) => logger.error({ err }, 'funding pool refill failed'));
    if (config.roles.includes('tracker')) {
      await refill();
      const tracker = startTracker(ctx);
      const refiller = setInterval(() => void refill(), 5_000);
      stops.push(async () => {
        clearInterval(refiller);
        await tracker.stop();
      });
    }
    let url: string | null = null;
    if (config.roles.includes('api')) {
      const apiKeys = storeApiKeyVerifier(db);
      const app = buildApp({
        config,
        logger,
        apiKeys,
        readiness: async () => ({ ready: true }),
        version,
        routes: [
          readRoutes(routeDeps(parts)),
          transferRoutes(routeDeps(parts)),
          historyRoutes(routeDeps(parts)),
          parseRoutes(routeDeps(parts)),
          adminRoutes({
            ...routeDeps(parts),
            mintKey: parts.keys.mint,
            miner: parts.devnet,
            genesisSupply: BigInt(parts.token.supply),
            forgetApiKeys: () => apiKeys.forget(),
          }),
          ...(parts.arc === null ? [] : [arcCallbackRoutes(parts.arc)]),
        ],
      });
      url = await app.listen({ host: config.host, port: config.port });
      stops.unshift(() => app.close());
    }
    logger.info({ url, tokenId: parts.token.tokenId, roles: config.roles }, 'tokenproxy started');
    return {
      parts,
      url,
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

function routeDeps(parts: Parts) {
  return {
    ctx: parts.ctx,
    masterKey: parts.masterKey,
    environment: parts.config.env,
    maxAddresses: parts.config.maxAddresses,
  };
}

/** At first start, an admin API key saved to `<dataDir>/admin.key` (mode 0600). */
async function ensureAdminKey(parts: Parts): Promise<void> {
  const path = join(parts.config.dataDir, ADMIN_KEY_FILE);
  if (existsSync(path)) return;
  const created = await createApiKey(
    parts.db,
    parts.masterKey,
    { name: 'admin', scopes: ['admin'] },
    new Date(),
  );
  writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
  parts.logger.info({ path }, 'admin API key created');
}
