// The running service: the parts from compose.ts, the first admin key, the roles the
// configuration names (one starter each in src/roles), and an orderly stop.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Deliverer } from './callbacks/deliverer.js';
import { composeParts, type Parts } from './compose.js';
import type { Config } from './config.js';
import type { AppInstance } from './http/app.js';
import { type RoleServer, startRoleServer } from './http/role-server.js';
import { registerRoleGauges } from './metrics/role-gauges.js';
import { registerServiceGauges } from './metrics/service-gauges.js';
import { assertPortFree } from './process/port-check.js';
import { type ApiRole, startApiRole } from './roles/api.js';
import { startDelivererRole } from './roles/deliverer.js';
import { createRoleLiveness, type RoleLiveness } from './roles/role-liveness.js';
import { startTrackerRole } from './roles/tracker.js';
import { startWriterRole, type WriterRole } from './roles/writer.js';
import { storeApiKeyVerifier } from './store/access/api-keys-store.js';
import { databaseReadiness } from './store/db/db-readiness.js';
import { ADMIN_KEY_FILE, type AdminKeyNote, ensureAdminKey } from './usecases/admin/first-admin-key.js';
import { type BalanceFolder, startBalanceFolder } from './usecases/wallets/balance-fold.js';

export { ADMIN_KEY_FILE, ADMIN_KEY_LOCK, type AdminKeyNote } from './usecases/admin/first-admin-key.js';

export interface RunningService {
  readonly parts: Parts;
  /** Base URL of the HTTP server, when the api role runs. */
  readonly url: string | null;
  /**
   * Base URL of what answers /healthz, /readyz and /metrics: the api's server, or (no api role)
   * the process's own server of those three on --port.
   */
  readonly healthUrl: string;
  /** Whether each of its roles is live (what /readyz answers). */
  readonly liveness: RoleLiveness;
  /** The HTTP app, when the api role runs (tests read its routes). */
  readonly app: AppInstance | null;
  /** The callback deliverer, when the deliverer role runs. */
  readonly deliverer: Deliverer | null;
  /** Whether this start made the admin key, and where it wrote it. */
  readonly adminKey: AdminKeyNote;
  stop(): Promise<void>;
}

interface Started {
  stop(): Promise<void>;
}

type Role = Config['roles'][number];

/** `useLogger`: where the service logs (default: pino to stdout at config.logLevel). */
export async function startService(
  config: Config,
  version = '0.0.0-dev',
  useLogger?: Logger,
): Promise<RunningService> {
  // A taken port is refused now, not after the first start's deploy and pool fill. Every
  // process answers on it: the api, or /healthz, /readyz and /metrics alone.
  await assertPortFree(config.host, config.port);
  const parts = await composeParts(config, useLogger);
  const { logger, db } = parts;
  const runs = (role: Role) => config.roles.includes(role);
  let tracker: Started | null = null;
  let writer: WriterRole | null = null;
  let roleServer: RoleServer | null = null;
  const liveness = createRoleLiveness({ boundMs: config.readinessRoundMs });
  let deliverer: Deliverer | null = null;
  let api: ApiRole | null = null;
  let balanceFolder: BalanceFolder | null = null;
  // The api first (no more transfers), then the writer (once nothing is sent to it), the
  // tracker, the deliverer; then what the committer still holds.
  const stopRoles = async () => {
    for (const role of [api, roleServer, writer, tracker, deliverer, balanceFolder])
      await role?.stop().catch((err) => logger.error({ err }, 'stopping a role failed'));
    await parts.writerLink?.close().catch((err) => logger.error({ err }, 'closing the writer link failed'));
    await parts.committer?.drain();
  };
  const closeParts = async () => {
    await parts.ledger.close().catch(() => undefined);
    await parts.identity.release();
    await db.close();
  };
  try {
    const adminKey = await ensureAdminKey({
      db,
      masterKey: parts.masterKey,
      dataDir: config.dataDir,
      log: logger,
      explicitOnly: config.env === 'production',
    });
    // Gauges read from the database: from the tracker's processes only, not once per process
    // (docs/operations.md Metrics); each process's roles' liveness from every process.
    if (runs('tracker'))
      registerServiceGauges(parts.metrics, {
        db,
        log: logger,
        token: parts.token,
        genesisSupply: BigInt(parts.token.supply),
        lowWater: config.fundingPoolLowWater,
      });
    registerRoleGauges(parts.metrics, liveness);
    // The 'devnet' role has no starter: the embedded devnet mines wherever arcUrl is absent.
    // Balances kept per address: the writers' and readers' processes fold their changes.
    if (runs('api') || runs('tracker')) balanceFolder = startBalanceFolder({ db, log: logger });
    if (runs('writer')) {
      const started = await startWriterRole(parts);
      writer = started;
      liveness.watchCheck('writer', async () =>
        started.registered()
          ? { ready: true }
          : { ready: false, reason: 'the writer does not hold its registration' },
      );
    }
    if (runs('tracker')) {
      tracker = await startTrackerRole(parts, (ok, seconds) => {
        parts.metrics.trackerRounds.inc({ outcome: ok ? 'ok' : 'error' });
        parts.metrics.trackerRoundDuration.observe(seconds);
        if (ok) liveness.round('tracker');
      });
      liveness.watchLoop('tracker');
    }
    if (runs('deliverer')) {
      liveness.watchLoop('deliverer');
      deliverer = startDelivererRole(parts, () => liveness.round('deliverer'));
    }
    if (runs('api')) {
      liveness.watchCheck('api', databaseReadiness(db));
      api = await startApiRole(parts, version, () => liveness.readiness());
    } else {
      roleServer = await startRoleServer({
        config,
        readiness: () => liveness.readiness(),
        metrics: parts.metrics,
        apiKeys: storeApiKeyVerifier(db),
        logger,
      });
    }
    logger.info(
      {
        url: api?.url ?? null,
        healthUrl: api?.url ?? roleServer?.url,
        tokenId: parts.token.tokenId,
        roles: config.roles,
        adminKeyFile: join(config.dataDir, ADMIN_KEY_FILE),
      },
      'tokenproxy started',
    );
    return {
      parts,
      url: api?.url ?? null,
      healthUrl: (api?.url ?? roleServer?.url)!,
      liveness,
      app: api?.app ?? null,
      deliverer,
      adminKey,
      async stop() {
        await stopRoles();
        await closeParts();
      },
    };
  } catch (err) {
    await stopRoles();
    await closeParts().catch(() => undefined);
    throw err;
  }
}
