// Reading settings from their sources: the JSON file, the environment and argv flags.
// Strings from env and flags are converted by the setting's schema type; whatever does not
// convert is left as is, so validation reports it with the source it came from.
// Every variable may instead be given as `<NAME>_FILE`, the path of a file holding the value
// (Docker and compose secrets, systemd credentials): no secret need be in the environment.
import { readFileSync } from 'node:fs';
import {
  CONFIG_KEYS,
  type ConfigKey,
  ConfigSchema,
  ENV_ALIASES,
  envNameOf,
  flagNameOf,
} from './config-schema.js';

export interface SettingValue {
  readonly key: ConfigKey;
  readonly value: unknown;
  /** e.g. `env TOKENPROXY_PORT`, `flag --port`, `config file ./x.json`. */
  readonly origin: string;
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

function typeOf(key: ConfigKey): unknown {
  return (ConfigSchema.properties[key] as { type?: unknown }).type;
}

/** Converts a string from env or argv by the type of the setting. */
export function parseSetting(key: ConfigKey, raw: string): unknown {
  switch (typeOf(key)) {
    case 'integer':
      return /^-?\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : raw;
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      return raw;
    }
    case 'array':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    default:
      return raw;
  }
}

const FLAG_TO_KEY = new Map(CONFIG_KEYS.map((key) => [flagNameOf(key), key]));
const ENV_TO_KEY = new Map(CONFIG_KEYS.map((key) => [envNameOf(key), key]));

/** TOKENPROXY_* variables that are no setting of the service: the CLI's connection (src/cli/args.ts). */
const NOT_SETTINGS: ReadonlySet<string> = new Set([
  'TOKENPROXY_CONFIG',
  'TOKENPROXY_URL',
  'TOKENPROXY_ADMIN_KEY',
  'TOKENPROXY_ADMIN_KEY_FILE',
]);

/**
 * The environment with every `<NAME>_FILE` read into `<NAME>` (its content, trailing newline
 * dropped). Both set is a problem: which one was meant is not known. An unreadable file is a problem
 * naming the variable and the path.
 */
export function withFileVariables(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { readonly env: Record<string, string | undefined>; readonly fromFile: ReadonlyMap<string, string> } {
  const out: Record<string, string | undefined> = { ...env };
  const fromFile = new Map<string, string>();
  for (const [fileName, path] of Object.entries(env)) {
    if (!fileName.endsWith('_FILE') || path === undefined || path === '' || NOT_SETTINGS.has(fileName))
      continue;
    const name = fileName.slice(0, -'_FILE'.length);
    if (!ENV_TO_KEY.has(name) && !Object.values(ENV_ALIASES).includes(name)) continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`both ${name} and ${fileName} are set: keep one`);
      continue;
    }
    try {
      out[name] = read(path).replace(/\r?\n$/, '');
      fromFile.set(name, `file ${path} (env ${fileName})`);
    } catch (err) {
      problems.push(
        `${fileName}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
    delete out[fileName];
  }
  return { env: out, fromFile };
}

/** Settings from the environment: TOKENPROXY_* (unknown ones are problems), then aliases. */
export function settingsFromEnv(
  given: Readonly<Record<string, string | undefined>>,
  problems: string[],
): SettingValue[] {
  const { env, fromFile } = withFileVariables(given, problems);
  const originOf = (name: string) => fromFile.get(name) ?? `env ${name}`;
  const out: SettingValue[] = [];
  const seen = new Set<ConfigKey>();
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('TOKENPROXY_') || NOT_SETTINGS.has(name) || raw === undefined) continue;
    const key = ENV_TO_KEY.get(name);
    if (key === undefined) {
      problems.push(`unknown setting in environment: ${name}`);
      continue;
    }
    out.push({ key, value: parseSetting(key, raw), origin: originOf(name) });
    seen.add(key);
  }
  for (const [key, name] of Object.entries(ENV_ALIASES) as [ConfigKey, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '' || seen.has(key)) continue;
    out.push({ key, value: parseSetting(key, raw), origin: originOf(name) });
  }
  return out;
}

export interface ParsedArgv {
  readonly configPath?: string;
  readonly settings: SettingValue[];
}

/**
 * Flags: `--name value`, `--name=value`; a boolean flag alone means true and
 * `--no-name` means false; `--config <file>` names the JSON file.
 */
export function settingsFromArgv(argv: readonly string[], problems: string[]): ParsedArgv {
  const settings: SettingValue[] = [];
  let configPath: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      problems.push(`unexpected argument '${arg}'`);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let raw = eq < 0 ? undefined : arg.slice(eq + 1);
    const negated = name.startsWith('no-') ? FLAG_TO_KEY.get(name.slice(3)) : undefined;
    if (negated !== undefined && raw === undefined && typeOf(negated) === 'boolean') {
      settings.push({ key: negated, value: false, origin: `flag --${name}` });
      continue;
    }
    const key = FLAG_TO_KEY.get(name);
    if (name !== 'config' && key === undefined) {
      problems.push(`unknown flag --${name}`);
      continue;
    }
    if (raw === undefined) {
      const next = argv[i + 1];
      const takesNext = next !== undefined && !next.startsWith('--');
      if (key !== undefined && typeOf(key) === 'boolean' && !takesNext) raw = 'true';
      else if (!takesNext) {
        problems.push(`flag --${name} needs a value`);
        continue;
      } else {
        raw = next;
        i += 1;
      }
    }
    if (key === undefined) configPath = raw;
    else settings.push({ key, value: parseSetting(key, raw), origin: `flag --${name}` });
  }
  return configPath === undefined ? { settings } : { configPath, settings };
}

/** Settings from the JSON file: an object of known names (and an optional `$schema`). */
export function settingsFromFile(path: string, text: string, problems: string[]): SettingValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    problems.push(`config file ${path}: ${(error as Error).message}`);
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`config file ${path}: must hold a JSON object`);
    return [];
  }
  const out: SettingValue[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (name === '$schema') continue;
    if (!Object.hasOwn(ConfigSchema.properties, name)) {
      problems.push(`config file ${path}: unknown setting '${name}'`);
      continue;
    }
    out.push({ key: name as ConfigKey, value, origin: `config file ${path}` });
  }
  return out;
}
