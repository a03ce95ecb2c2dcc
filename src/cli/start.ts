// `tokenproxy start`: loads the configuration, starts the service, stops it on SIGINT/SIGTERM.
// stdout carries only the log records (JSON, or pino-pretty lines on a terminal): the first
// says which version starts with which settings (secrets redacted), the last that it stopped.
// The short banner a person looks for (URL, token, admin key file) goes to stderr.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Config, ConfigError, loadConfig, redactConfig } from '../config.js';
import { createRedisRateLimitStore } from '../http/plugins/rate-limit-store-redis.js';
import { createLogger } from '../process/logger.js';
import { PortInUseError } from '../process/port-check.js';
import { ADMIN_KEY_FILE, type RunningService, startService } from '../service.js';
import { DEFAULT_DATA_DIR, DEFAULT_URL } from './args.js';
import { startUsage } from './help.js';
import { packageVersion } from './version.js';

export async function runStart(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(startUsage());
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig({ argv, env: process.env });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n(tokenproxy start --help lists the settings)\n`);
      return 2;
    }
    throw err;
  }
  const version = packageVersion();
  const logger = createLogger({ level: config.logLevel, pretty: process.stdout.isTTY === true });
  const startedAt = Date.now();
  logger.info(
    { version, node: process.version, pid: process.pid, config: configSummary(config) },
    `tokenproxy ${version} starting`,
  );
  // Redis is asked first, before anything slow (keys, deploy, the funding pool) starts: an api
  // process whose shared rate limits cannot be counted must not start (operations.md).
  const redisRefusal = await redisUnreachable(config);
  if (redisRefusal !== null) {
    logger.fatal({ err: redisRefusal }, 'tokenproxy could not start');
    process.stderr.write(`tokenproxy start: ${redisRefusal.message}\n`);
    return 1;
  }
  let service: RunningService;
  try {
    service = await startService(config, version, logger);
  } catch (err) {
    logger.fatal({ err }, 'tokenproxy could not start');
    if (err instanceof PortInUseError) {
      process.stderr.write(`tokenproxy start: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  process.stderr.write(banner(config, service));
  logger.info({ startMs: Date.now() - startedAt }, 'tokenproxy ready');
  const signal = await nextSignal().signal;
  logger.info({ signal, stopTimeoutMs: config.stopTimeoutMs }, 'tokenproxy stopping');
  const stopped = await stopWithin(service, config.stopTimeoutMs);
  if (stopped !== 'stopped') {
    // Safe to cut: what was answered is committed (kill -9 at any point loses nothing), and
    // leases lapse for another process to take over. A stop that hangs must not hold the
    // process until the supervisor's SIGKILL, nor a restart behind it.
    logger.error(
      { signal, cutBy: stopped, stopTimeoutMs: config.stopTimeoutMs },
      'tokenproxy stop did not finish; exiting without it',
    );
    return 1;
  }
  logger.info({ signal, uptimeS: Math.round((Date.now() - startedAt) / 1000) }, 'tokenproxy stopped');
  return 0;
}

/** The next SIGINT or SIGTERM, and how to stop listening for it. */
function nextSignal(): { readonly signal: Promise<NodeJS.Signals>; cancel(): void } {
  let on!: (signal: NodeJS.Signals) => void;
  const cancel = () => {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  };
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    on = (signal) => {
      cancel();
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
  return { signal, cancel };
}

/** The service's orderly stop, or what cut it: its deadline, or a second signal. */
async function stopWithin(
  service: RunningService,
  timeoutMs: number,
): Promise<'stopped' | 'deadline' | NodeJS.Signals> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), timeoutMs);
  });
  const second = nextSignal();
  try {
    return await Promise.race([service.stop().then(() => 'stopped' as const), deadline, second.signal]);
  } finally {
    clearTimeout(timer);
    second.cancel();
  }
}

/** Null when the api role needs no Redis or reaches it; else why not. */
async function redisUnreachable(config: Config): Promise<Error | null> {
  if (config.redisUrl === undefined || !config.rateLimitEnabled || !config.roles.includes('api')) return null;
  try {
    await (await createRedisRateLimitStore({ url: config.redisUrl })).close();
    return null;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** The settings as loaded, secrets redacted and unset ones left out. */
export function configSummary(config: Config): Record<string, unknown> {
  return Object.fromEntries(Object.entries(redactConfig(config)).filter(([, v]) => v !== undefined));
}

function banner(config: Config, service: RunningService): string {
  const url = service.url;
  return [
    `tokenproxy ${config.env} running${url ? ` at ${url}` : ''}`,
    `token ${service.parts.token.tokenId}`,
    service.adminKey.created
      ? `admin key created in ${service.adminKey.path}`
      : existsSync(join(config.dataDir, ADMIN_KEY_FILE))
        ? `admin key in ${join(config.dataDir, ADMIN_KEY_FILE)}`
        : 'admin key: the database holds one (admin.key is in the data folder of the instance that made it)',
    ...(url ? [`console ${url}/console, API reference ${url}/docs`] : []),
    ...(url ? firstSteps(config, url) : []),
    '',
  ].join('\n');
}

/** What a newcomer tries first: where to start, how a wallet gets a key and test funds. */
function firstSteps(config: Config, url: string): string[] {
  // The flags the commands need when the service is not where they look by default.
  const at = url === DEFAULT_URL ? '' : ` --url ${url}`;
  const dir = resolve(config.dataDir) === resolve(DEFAULT_DATA_DIR) ? '' : ` --data-dir ${config.dataDir}`;
  return [
    `start here: ${url}/ (the wallet quick start: README.md)`,
    `an API key for a wallet: npx tokenproxy keys create${at}${dir}`,
    ...(config.env === 'production'
      ? []
      : [`test funds: npx tokenproxy mint --to ADDRESS --amount 10${at}${dir}`]),
  ];
}
