// `tokenproxy keys create|list|revoke`: API keys through the admin routes.
import { CliError, connectionOf, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const create: CommandSpec = {
  name: 'keys create',
  usage: `keys create [--scopes read,submit] [--name NAME]
  --scopes LIST      comma-separated scopes among read, submit, admin (default read,submit)
  --name NAME        a label for the key (default "api key")
prints {"id", "key", "webhookSecret", "name", "scopes", "createdAt"}; the key and the secret are shown only once`,
  options: { scopes: { type: 'string' }, name: { type: 'string' } },
};

const list: CommandSpec = {
  name: 'keys list',
  usage:
    'keys list\nprints {"keys": [{"id", "name", "scopes", "createdAt", "lastUsedAt", "revokedAt"}]}, no secrets',
  options: {},
};

const revoke: CommandSpec = {
  name: 'keys revoke',
  usage: 'keys revoke ID\nrevokes the key at once; prints {"id", "revokedAt"}',
  options: {},
  maxPositionals: 1,
};

const KEYS_USAGE = 'usage: tokenproxy keys create|list|revoke [options] (--help for each)\n';

export async function runKeys(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'create':
      return runCommand(rest, create, async ({ values }) => {
        const scopes = stringFlag(values, 'scopes');
        const name = stringFlag(values, 'name');
        return callService(connectionOf(values), 'POST', '/v2/admin/keys', {
          ...(name !== undefined && { name }),
          ...(scopes !== undefined && { scopes: scopeList(scopes) }),
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

/** `read, submit` -> ['read', 'submit']; the service checks the names. */
export function scopeList(text: string): string[] {
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (scopes.length === 0) throw new CliError('--scopes names no scope');
  return scopes;
}
