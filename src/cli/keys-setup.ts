// The first production start's key commands, run where the configuration is (no service needed):
// `keys generate` makes the operator and master keys (environment lines, or files of mode 0600
// named by <NAME>_FILE lines); `keys addresses` prints the addresses of the configured keys, the
// funding address first (pay the genesis coin there); `keys create-admin` makes an admin API key
// in the database itself, the explicit first admin key of a deployment of several processes.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { envNameOf } from '../config-schema.js';
import { MASTER_KEY_FILE, masterKeyFromEnv, readOrMakeMasterKey } from '../crypto/secret-box.js';
import { toHex } from '../domain/script-chunks.js';
import { checkMasterKey } from '../keys/master-key-check.js';
import { addressesOf, keysFromConfig } from '../keys/operator-keys.js';
import { createApiKey } from '../store/access/api-keys-store.js';
import type { Db } from '../store/db/db.js';
import { openPgliteDb } from '../store/db/pglite-db.js';
import { openPostgresDb } from '../store/db/postgres-db.js';
import { migrationStatus } from '../store/migration-status.js';
import { configArgvOf } from './migrate.js';

const KEY_SETTINGS = ['approverKey', 'mintKey', 'feeKey', 'fundingKey', 'masterKey'] as const;

export const GENERATE_USAGE = `usage: tokenproxy keys generate [--out DIR]
makes the four operator keys and the master key (32 random bytes each) and prints them as
environment lines (TOKENPROXY_APPROVER_KEY=... for secrets.env), then the funding address to pay
the genesis coin to. Keep them: the token is bound to the operator keys, the secrets to the master key.
  --out DIR   write each key to DIR/<name>.key (mode 0600; refused if one exists) and print
              TOKENPROXY_<NAME>_KEY_FILE=DIR/<name>.key lines instead
`;

export const ADDRESSES_USAGE = `usage: tokenproxy keys addresses [setting flags]
prints the addresses of the operator keys of the configuration (TOKENPROXY_*_KEY or *_KEY_FILE):
{"fundingAddress" (pay the genesis coin here), "mintAddress", "feeAddress", "burnAddress",
 "approverPublicKey"}
`;

export const CREATE_ADMIN_USAGE = `usage: tokenproxy keys create-admin [--name NAME] [--out FILE] [setting flags]
makes an admin API key in the database of the configuration (DATABASE_URL and the master key,
as the processes have them; run tokenproxy migrate first) and prints it once; with --out, writes
it to FILE (mode 0600, refused if it exists) and prints {"id", "file"}. Production processes
make no admin key of their own: this is how a deployment gets its first one.
`;

type Write = (text: string) => void;

/** The setting flags of a command, its own flags taken out. */
function split(
  argv: readonly string[],
  own: readonly string[],
): { own: Map<string, string>; rest: string[] } {
  const found = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.replace(/^--/, '').split('=')[0]!;
    if (arg.startsWith('--') && own.includes(name)) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (value === undefined || value === '') throw new ConfigError([`--${name} needs a value`]);
      found.set(name, value);
    } else rest.push(arg);
  }
  return { own: found, rest };
}

export function generateKeys(argv: readonly string[], out: Write): void {
  const { own, rest } = split(argv, ['out']);
  if (rest.length > 0) throw new ConfigError([`keys generate: unexpected ${rest[0]}`]);
  const keys = Object.fromEntries(KEY_SETTINGS.map((k) => [k, randomBytes(32).toString('hex')]));
  const dir = own.get('out');
  const lines: string[] = [];
  if (dir !== undefined) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const setting of KEY_SETTINGS) {
    const name = envNameOf(setting);
    if (dir === undefined) {
      lines.push(`${name}=${keys[setting]}`);
      continue;
    }
    const file = resolve(join(dir, `${setting.replace(/Key$/, '')}.key`));
    writeFileSync(file, `${keys[setting]}\n`, { mode: 0o600, flag: 'wx' });
    lines.push(`${name}_FILE=${file}`);
  }
  const addresses = addressesOf(
    keysFromConfig({
      approverKey: keys.approverKey!,
      mintKey: keys.mintKey!,
      feeKey: keys.feeKey!,
      fundingKey: keys.fundingKey!,
    }),
  );
  out(
    `${lines.join('\n')}\n# The funding address: pay the coin the token is deployed from here, then set\n` +
      `# TOKENPROXY_GENESIS_FUNDING=<txid>_<vout>:<satoshis>\n# ${addresses.fundingAddress}\n`,
  );
}

/** The master key of a started process's data folder, never a fresh one (its secrets would be lost). */
function existingMasterKey(dataDir: string): { key: Uint8Array; source: string } | null {
  const file = readOrMakeMasterKey(dataDir);
  return file.existed ? { key: file.key, source: join(dataDir, MASTER_KEY_FILE) } : null;
}

function configOf(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  return loadConfig({ argv: configArgvOf(argv), env, databaseOnly: true });
}

export function keyAddresses(argv: readonly string[], env: NodeJS.ProcessEnv, out: Write): void {
  const config = configOf(argv, env);
  if (config.approverKey === undefined)
    throw new ConfigError([
      'no operator keys in the configuration: set TOKENPROXY_APPROVER_KEY, _MINT_KEY, _FEE_KEY and _FUNDING_KEY (or their _FILE forms; tokenproxy keys generate makes them)',
    ]);
  const a = addressesOf(keysFromConfig(config));
  out(
    `${JSON.stringify(
      {
        fundingAddress: a.fundingAddress,
        mintAddress: a.mintAddress,
        feeAddress: a.feeAddress,
        burnAddress: a.burnAddress,
        approverPublicKey: toHex(a.approverPublicKey),
      },
      null,
      2,
    )}\n`,
  );
}

export async function createAdminKey(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: Write,
): Promise<void> {
  const { own, rest } = split(argv, ['name', 'out']);
  const config = configOf(rest, env);
  const master =
    config.masterKey !== undefined
      ? { key: masterKeyFromEnv(config.masterKey), source: 'from the configuration: TOKENPROXY_MASTER_KEY' }
      : config.env === 'production'
        ? null
        : existingMasterKey(config.dataDir);
  if (master === null)
    throw new ConfigError([
      'masterKey: set TOKENPROXY_MASTER_KEY (or _FILE) as the processes have it, or pass --data-dir of a started process',
    ]);
  const db: Db = config.databaseUrl
    ? await openPostgresDb(config.databaseUrl, { max: 1 })
    : await openPgliteDb(config.dataDir);
  try {
    const pending = (await migrationStatus(db)).filter((m) => m.state !== 'applied');
    if (pending.length > 0)
      throw new ConfigError([
        `the database is not migrated (${pending[0]!.version}): run tokenproxy migrate first`,
      ]);
    await checkMasterKey(db, master.key, master.source, new Date());
    const file = own.get('out');
    if (file !== undefined && existsSync(file))
      throw new ConfigError([`--out: ${file} exists; name a new file`]);
    const created = await createApiKey(db, master.key, {
      name: own.get('name') ?? 'admin',
      scopes: ['admin'],
    });
    if (file !== undefined) {
      writeFileSync(file, `${created.key}\n`, { mode: 0o600, flag: 'wx' });
      out(`${JSON.stringify({ id: created.id, file: resolve(file) }, null, 2)}\n`);
    } else out(`${JSON.stringify({ id: created.id, key: created.key, name: created.name }, null, 2)}\n`);
  } finally {
    await db.close();
  }
}
