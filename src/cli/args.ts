// What every admin command takes: where the service is (--url, else TOKENPROXY_URL, else the
// loopback address on the configured port) and the admin key (--admin-key, else
// TOKENPROXY_ADMIN_KEY, else the file TOKENPROXY_ADMIN_KEY_FILE names, else <data-dir>/admin.key,
// the file a single-process service writes at first start).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** The file the service writes its admin key to (service.ts ADMIN_KEY_FILE; a test keeps them equal). */
export const ADMIN_KEY_FILE_NAME = 'admin.key';
export const DEFAULT_URL = 'http://127.0.0.1:3000';
export const DEFAULT_DATA_DIR = './.tokenproxy';

/** A failure the user is told about on stderr (the command exits 1). */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface Connection {
  /** Base URL without a trailing slash. */
  readonly url: string;
  readonly adminKey: string;
}

export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  'admin-key': { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
} as const satisfies CommandOptions;

/** The environment variables the CLI reads for its connection (the service ignores them). */
export const CLI_ENV = ['TOKENPROXY_URL', 'TOKENPROXY_ADMIN_KEY', 'TOKENPROXY_ADMIN_KEY_FILE'] as const;

export const CONNECTION_USAGE = `connection:
  --url URL          base URL of the running service (default: TOKENPROXY_URL, else
                     http://127.0.0.1:<PORT or TOKENPROXY_PORT, else 3000>)
  --admin-key KEY    admin API key (default: TOKENPROXY_ADMIN_KEY, else the file
                     TOKENPROXY_ADMIN_KEY_FILE names, else <data-dir>/${ADMIN_KEY_FILE_NAME})
  --data-dir DIR     the service's data folder (default: TOKENPROXY_DATA_DIR, else ${DEFAULT_DATA_DIR})
output:
  --json             print the answer as JSON (the default when stdout is not a terminal;
                     on a terminal the answer is printed as indented lines)
`;

export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  readonly help: boolean;
}

/** Parses argv strictly (unknown flags are errors) with the connection options added. */
export function parseCommand(
  argv: readonly string[],
  options: CommandOptions,
  maxPositionals: number,
): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...CONNECTION_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (parsed.positionals.length > maxPositionals)
    throw new CliError(`unexpected argument: ${parsed.positionals[maxPositionals]}`);
  return { values, positionals: parsed.positionals, help: values.help === true };
}

/** The service's URL and admin key from the flags, the environment and the data folder. */
export function connectionOf(
  values: ParsedCommand['values'],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Connection {
  const url = urlOf(values, env);
  const given = stringFlag(values, 'admin-key');
  if (given !== undefined) {
    if (given.trim() === '') throw new CliError('--admin-key is empty');
    return { url, adminKey: given.trim() };
  }
  const fromEnv = nonEmpty(env.TOKENPROXY_ADMIN_KEY?.trim());
  if (fromEnv !== undefined) return { url, adminKey: fromEnv };
  const keyFile = nonEmpty(env.TOKENPROXY_ADMIN_KEY_FILE);
  if (keyFile !== undefined)
    return { url, adminKey: adminKeyFrom(resolve(keyFile), 'TOKENPROXY_ADMIN_KEY_FILE') };
  const dataDir = stringFlag(values, 'data-dir') ?? nonEmpty(env.TOKENPROXY_DATA_DIR) ?? DEFAULT_DATA_DIR;
  return { url, adminKey: adminKeyFrom(resolve(join(dataDir, ADMIN_KEY_FILE_NAME)), 'the data folder') };
}

/** The service's base URL: --url, else TOKENPROXY_URL, else loopback on the configured port. */
export function urlOf(
  values: ParsedCommand['values'],
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const flag = stringFlag(values, 'url');
  if (flag !== undefined) return normalizeUrl(flag, '--url');
  const fromEnv = nonEmpty(env.TOKENPROXY_URL);
  if (fromEnv !== undefined) return normalizeUrl(fromEnv, 'TOKENPROXY_URL');
  const port = nonEmpty(env.TOKENPROXY_PORT) ?? nonEmpty(env.PORT);
  if (port === undefined) return DEFAULT_URL;
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65_535)
    throw new CliError(`the configured port is not a port: ${port}; pass --url`);
  return `http://127.0.0.1:${Number(port)}`;
}

function adminKeyFrom(path: string, source: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(
      `no admin key: cannot read ${path} from ${source} (${code}); pass --admin-key, set TOKENPROXY_ADMIN_KEY ` +
        'or TOKENPROXY_ADMIN_KEY_FILE, or pass --data-dir of the running service',
    );
  }
  const adminKey = text.trim();
  if (adminKey === '') throw new CliError(`no admin key: ${path} is empty`);
  return adminKey;
}

export function stringFlag(values: ParsedCommand['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A flag that must be there. */
export function requiredFlag(values: ParsedCommand['values'], name: string): string {
  const value = stringFlag(values, name);
  if (value === undefined || value === '') throw new CliError(`--${name} is required`);
  return value;
}

/** A positive integer flag (digits only), or undefined when absent. */
export function positiveIntegerFlag(values: ParsedCommand['values'], name: string): number | undefined {
  const text = stringFlag(values, name);
  if (text === undefined) return undefined;
  const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : 0;
  if (n < 1) throw new CliError(`--${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

function normalizeUrl(text: string, source: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${source} is not a URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${source} must be http or https: ${text}`);
  return url.href.replace(/\/+$/, '');
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}
