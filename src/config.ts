// Configuration: defaults -> JSON file (--config / TOKENPROXY_CONFIG) -> environment
// (TOKENPROXY_* and PORT, HOST, DATABASE_URL, ARC_URL, ARC_API_KEY, REDIS_URL) -> argv
// flags -> validated by ConfigSchema, checked for production, frozen.
import { readFileSync } from 'node:fs';
import { Compile } from 'typebox/compile';
import {
  CONFIG_KEYS,
  type Config,
  type ConfigKey,
  ConfigSchema,
  envNameOf,
  secretKindOf,
} from './config-schema.js';
import { type SettingValue, settingsFromArgv, settingsFromEnv, settingsFromFile } from './config-sources.js';

export {
  CONFIG_KEYS,
  type Config,
  type ConfigKey,
  ConfigSchema,
  ENV_ALIASES,
  envNameOf,
  flagNameOf,
  LOG_LEVELS,
  ROLES,
  secretKindOf,
} from './config-schema.js';

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadConfigInput {
  /** Flags only (the command name already taken off). */
  readonly argv?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Reads the JSON file named by --config / TOKENPROXY_CONFIG (default: fs, utf8). */
  readonly readFile?: (path: string) => string;
  /**
   * Only the database is used (`tokenproxy migrate`): production's checks of keys, ledger and
   * roles do not apply, only that its database is PostgreSQL.
   */
  readonly databaseOnly?: boolean;
}

const validator = Compile(ConfigSchema);

const OPERATOR_KEYS = ['approverKey', 'mintKey', 'feeKey', 'fundingKey'] as const;

/** The four operator keys come together or not at all (else keys.json would silently stand in). */
export function operatorKeyProblems(config: Config): string[] {
  const given = OPERATOR_KEYS.filter((key) => config[key] !== undefined);
  if (given.length === 0 || given.length === OPERATOR_KEYS.length) return [];
  const missing = OPERATOR_KEYS.filter((key) => config[key] === undefined);
  return [`the operator keys go together: ${given.join(', ')} given without ${missing.join(', ')}`];
}

/** A lease renewed less often than it lasts, and floors (the lease share, the keeper's mark and split) under their ceilings. */
export function fundingLeaseProblems(config: Config): string[] {
  const problems: string[] = [];
  if (config.fundingLeaseKeepMs >= config.fundingLeaseMs)
    problems.push(
      'fundingLeaseKeepMs must be shorter than fundingLeaseMs (leases would lapse between renewals)',
    );
  if (config.fundingLeaseMinOutputs > config.fundingLeaseMaxOutputs)
    problems.push('fundingLeaseMinOutputs must not exceed fundingLeaseMaxOutputs');
  if (config.fundingPoolLowWater > config.fundingPoolLowWaterMax)
    problems.push('fundingPoolLowWater must not exceed fundingPoolLowWaterMax');
  if (config.fundingSplitMinOutputs > config.fundingSplitMaxOutputs)
    problems.push('fundingSplitMinOutputs must not exceed fundingSplitMaxOutputs');
  return problems;
}

/**
 * Production refuses the embedded stand-ins (PGlite, devnet, key files in the data folder) and
 * the callback allow-list. Checked before anything is opened: a refused configuration touches
 * neither the database nor the data folder.
 */
/** Production's database: PostgreSQL, never PGlite. */
function databaseProblems(config: Config): string[] {
  if (config.env !== 'production') return [];
  if (config.databaseUrl === undefined)
    return ['production needs databaseUrl (DATABASE_URL): PGlite is for sandbox and development only'];
  if (!/^postgres(ql)?:\/\//.test(config.databaseUrl))
    return ['production needs a PostgreSQL databaseUrl (postgres://...): PGlite is refused'];
  return [];
}

/** The writer serves several api processes on one PostgreSQL database (ADR 0007). */
export function writerProblems(config: Config): string[] {
  if (!config.roles.includes('writer')) return [];
  if (config.databaseUrl === undefined || !/^postgres(ql)?:\/\//.test(config.databaseUrl))
    return [
      "the 'writer' role needs a PostgreSQL databaseUrl: with the embedded database one process writes everything already",
    ];
  if (config.writerHost === '0.0.0.0' || config.writerHost === '::')
    return [
      'writerHost must be an address api processes can reach (not a wildcard): they are given it to connect to',
    ];
  return [];
}

/**
 * A token's amounts reach JSON as numbers (the API the wallets speak): a supply past 2^53-1 would
 * make every answer that carries it fail, so it is refused at start.
 */
export function tokenSupplyProblems(config: Config): string[] {
  return BigInt(config.tokenSupply) > BigInt(Number.MAX_SAFE_INTEGER)
    ? [
        `tokenSupply: ${config.tokenSupply} is more than 2^53-1 (${Number.MAX_SAFE_INTEGER}), the most a JSON number carries exactly`,
      ]
    : [];
}

export function productionProblems(config: Config): string[] {
  if (config.env !== 'production') return [];
  const problems: string[] = [];
  const missingKeys = [...OPERATOR_KEYS, 'masterKey' as const].filter((key) => config[key] === undefined);
  if (missingKeys.length > 0) {
    problems.push(
      `production needs the operator keys and the master key from the environment, never a file: ` +
        `${missingKeys.map((key) => `${key} (${envNameOf(key)})`).join(', ')} missing`,
    );
  }
  problems.push(...databaseProblems(config));
  if (config.arcUrl === undefined) {
    problems.push('production needs arcUrl (ARC_URL): the embedded devnet ledger is not a network');
  }
  if (config.roles.includes('devnet')) problems.push("production cannot run the 'devnet' role");
  if (config.callbackAllow.length > 0) {
    problems.push('production refuses callbackAllow (the allow-list is for sandbox and tests)');
  }
  return problems;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Loads, validates and freezes the configuration; throws ConfigError listing every problem. */
export function loadConfig(input: LoadConfigInput = {}): Config {
  const env = input.env ?? {};
  const problems: string[] = [];
  const argv = settingsFromArgv(input.argv ?? [], problems);
  const filePath = argv.configPath ?? env.TOKENPROXY_CONFIG;

  const layers: SettingValue[] = [];
  if (filePath !== undefined && filePath !== '') {
    const readFile = input.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
    let text: string | undefined;
    try {
      text = readFile(filePath);
    } catch (error) {
      problems.push(`config file ${filePath}: ${(error as Error).message}`);
    }
    if (text !== undefined) layers.push(...settingsFromFile(filePath, text, problems));
  }
  layers.push(...settingsFromEnv(env, problems), ...argv.settings);

  const merged: Record<string, unknown> = {};
  const origins = new Map<ConfigKey, string>();
  for (const { key, value, origin } of layers) {
    merged[key] = value;
    origins.set(key, origin);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const config = validator.Default(merged) as Config;
  if (!validator.Check(config)) {
    for (const error of validator.Errors(config).slice(0, 20)) {
      const key = error.instancePath.split('/')[1] as ConfigKey | undefined;
      const name = key ?? 'configuration';
      const origin = key === undefined ? undefined : origins.get(key);
      problems.push(`${name}${origin === undefined ? '' : ` (from ${origin})`}: ${error.message}`);
    }
    throw new ConfigError(problems);
  }
  if (input.databaseOnly === true) problems.push(...databaseProblems(config));
  else
    problems.push(
      ...operatorKeyProblems(config),
      ...fundingLeaseProblems(config),
      ...writerProblems(config),
      ...productionProblems(config),
      ...tokenSupplyProblems(config),
    );
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(config);
}

export const REDACTED = '[REDACTED]';

/** `postgres://user:secret@host/db` -> `postgres://user:[REDACTED]@host/db`. */
export function redactPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)[^/?#]*@/i, `$1${REDACTED}@`);
}

/** A plain copy of the configuration with secrets redacted (safe to log). */
export function redactConfig(config: Config): Record<ConfigKey, unknown> {
  const out = {} as Record<ConfigKey, unknown>;
  for (const key of CONFIG_KEYS) {
    const value = config[key];
    const kind = secretKindOf(key);
    if (value === undefined || kind === undefined) out[key] = value;
    else out[key] = kind === 'value' ? REDACTED : redactPassword(String(value));
  }
  return out;
}

/** The configuration as text, one `name = value` per line, secrets redacted. */
export function describeConfig(config: Config): string {
  const redacted = redactConfig(config);
  return CONFIG_KEYS.filter((key) => redacted[key] !== undefined)
    .map((key) => `${key} = ${JSON.stringify(redacted[key])}`)
    .join('\n');
}
