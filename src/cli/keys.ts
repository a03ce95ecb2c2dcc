// `tokenproxy keys create|list|limit|revoke`: API keys through the admin routes;
// `keys generate|addresses|create-admin`: the first production start's keys (keys-setup.ts).
import { ConfigError } from '../config.js';
import { CliError, connectionOf, positiveIntegerFlag, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const create: CommandSpec = {
  name: 'keys create',
  usage: `keys create [--scopes read,submit] [--name NAME] [--rate-limit N]
  --scopes LIST      comma-separated scopes among read, submit, admin, mint, burn, freeze, seize,
                     pause, keys, policy, audit (default read,submit)
  --name NAME        a label for the key (default "api key")
  --rate-limit N     requests per rate-limit window for this key (default: the service's rateLimitPerKey)
prints {"id", "key", "webhookSecret", "name", "scopes", "rateLimit", "createdAt"}; the key and the secret are shown only once`,
  options: { scopes: { type: 'string' }, name: { type: 'string' }, 'rate-limit': { type: 'string' } },
};

const limit: CommandSpec = {
  name: 'keys limit',
  usage: `keys limit ID N|default
sets the key's own rate limit to N requests per window, or back to the service's rateLimitPerKey
with "default"; prints the key as keys list shows it`,
  options: {},
  maxPositionals: 2,
};

const list: CommandSpec = {
  name: 'keys list',
  usage:
    'keys list\nprints {"keys": [{"id", "name", "scopes", "rateLimit", "createdAt", "lastUsedAt", "revokedAt"}]}, no secrets\n(rateLimit null: the service\'s rateLimitPerKey)',
  options: {},
};

const revoke: CommandSpec = {
  name: 'keys revoke',
  usage: 'keys revoke ID\nrevokes the key at once; prints {"id", "revokedAt"}',
  options: {},
  maxPositionals: 1,
};

const KEYS_USAGE = `usage: tokenproxy keys create|list|limit|revoke|generate|addresses|create-admin [options]
  create        a new API key (scopes, name, rate limit); the key and its webhook secret are shown once
  list          every key, without secrets
  limit         set a key's own rate limit, or back to the service's default
  revoke        revoke a key at once
  generate      make the operator and master keys (environment lines, or files of mode 0600)
  addresses     the configured keys' addresses: the funding address to pay the genesis coin to
  create-admin  an admin API key made in the database (a deployment's first), no service needed
tokenproxy keys SUBCOMMAND --help shows its options.
`;

export async function runKeys(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create':
      return runCommand(rest, create, async ({ values }) => {
        const scopes = stringFlag(values, 'scopes');
        const name = stringFlag(values, 'name');
        const rateLimit = positiveIntegerFlag(values, 'rate-limit');
        return callService(connectionOf(values), 'POST', '/v2/admin/keys', {
          ...(name !== undefined && { name }),
          ...(scopes !== undefined && { scopes: scopeList(scopes) }),
          ...(rateLimit !== undefined && { rateLimit }),
        });
      });
    case 'limit':
      return runCommand(rest, limit, async ({ values, positionals }) => {
        const [id, text] = positionals;
        if (id === undefined || id === '' || text === undefined)
          throw new CliError('the ID of the key and its limit (N or default) are required');
        return callService(connectionOf(values), 'PATCH', `/v2/admin/keys/${encodeURIComponent(id)}`, {
          rateLimit: rateLimitOf(text),
        });
      });
    case 'list':
      return runCommand(rest, list, async ({ values }) =>
        callService(connectionOf(values), 'GET', '/v2/admin/keys'),
      );
    case 'revoke':
      return runCommand(rest, revoke, async ({ values, positionals }) => {
        const id = positionals[0];
        if (id === undefined || id === '') throw new CliError('the ID of the key to revoke is required');
        return callService(connectionOf(values), 'DELETE', `/v2/admin/keys/${encodeURIComponent(id)}`);
      });
    case 'generate':
    case 'addresses':
    case 'create-admin':
      return runSetup(sub, rest);
    case '--help':
    case '-h':
      process.stdout.write(KEYS_USAGE);
      return 0;
    default:
      process.stderr.write(
        `tokenproxy keys: ${sub === undefined ? 'a subcommand is required' : `unknown subcommand '${sub}'`}\n${KEYS_USAGE}`,
      );
      return 1;
  }
}

/** `250` -> 250, `default` -> null (the service's rateLimitPerKey). */
export function rateLimitOf(text: string): number | null {
  if (text === 'default') return null;
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) < 1)
    throw new CliError(`the limit must be a positive integer or "default", got ${JSON.stringify(text)}`);
  return Number(text);
}

/** `read, submit` -> ['read', 'submit']; the service checks the names. */
export function scopeList(text: string): string[] {
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (scopes.length === 0) throw new CliError('--scopes names no scope');
  return scopes;
}

/** The setup commands: configuration problems exit 2 (as start and migrate), other failures 1. */
async function runSetup(
  sub: 'generate' | 'addresses' | 'create-admin',
  argv: readonly string[],
): Promise<number> {
  const setup = await import('./keys-setup.js');
  const usage = {
    generate: setup.GENERATE_USAGE,
    addresses: setup.ADDRESSES_USAGE,
    'create-admin': setup.CREATE_ADMIN_USAGE,
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage[sub]);
    return 0;
  }
  const out = (text: string) => process.stdout.write(text);
  try {
    if (sub === 'generate') setup.generateKeys(argv, out);
    else if (sub === 'addresses') setup.keyAddresses(argv, process.env, out);
    else await setup.createAdminKey(argv, process.env, out);
    return 0;
  } catch (err) {
    const config = err instanceof ConfigError;
    process.stderr.write(`tokenproxy keys ${sub}: ${err instanceof Error ? err.message : String(err)}\n`);
    return config ? 2 : 1;
  }
}
