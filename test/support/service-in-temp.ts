// tokenproxy started in this process the way tests and benches start it: in a data folder (a
// new temporary one, removed by `stop`, or one the caller keeps for a restart), on a free port,
// the devnet mining only on command, and the caller's flags after those (a later flag wins).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../../src/config.js';
import { ADMIN_KEY_FILE, type RunningService, startService } from '../../src/service.js';

/** What every in-process service of the tests takes before its own flags. */
const BASE_FLAGS = ['--port', '0', '--block-interval-ms', '0'];

export interface StartOptions {
  /** The version it reports (startService's default when absent). */
  readonly version?: string;
  /** Its logger, to capture what it logs (one made from --log-level when absent). */
  readonly logger?: Logger;
}

export interface ServiceInTemp {
  readonly service: RunningService;
  /** Its base URL (throws when it runs no api role). */
  readonly url: string;
  /** The admin key written at its start (throws when none was: no api role, or a key already in the database). */
  readonly adminKey: string;
  readonly dataDir: string;
  /** Stops it and removes its data folder. */
  stop(): Promise<void>;
}

/** Starts a service on `dataDir` (made by the caller, kept after a stop: a restart finds it). */
export function startServiceOn(
  dataDir: string,
  flags: readonly string[] = [],
  options: StartOptions = {},
): Promise<RunningService> {
  const config = loadConfig({ argv: ['--data-dir', dataDir, ...BASE_FLAGS, ...flags], env: {} });
  return startService(config, options.version, options.logger);
}

/** Starts a service in a new data folder `tokenproxy-<label>-*` under the system's temp folder. */
export async function startServiceIn(
  label: string,
  flags: readonly string[] = [],
  options: StartOptions = {},
): Promise<ServiceInTemp> {
  const dataDir = mkdtempSync(join(tmpdir(), `tokenproxy-${label}-`));
  const service = await startServiceOn(dataDir, flags, options).catch((err: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const keyFile = join(dataDir, ADMIN_KEY_FILE);
  const adminKey = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : undefined;
  return {
    service,
    dataDir,
    get url() {
      if (service.url === null) throw new Error(`the ${label} service runs no api role: no URL`);
      return service.url;
    },
    get adminKey() {
      if (adminKey === undefined) throw new Error(`the ${label} service wrote no ${ADMIN_KEY_FILE}`);
      return adminKey;
    },
    async stop() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
