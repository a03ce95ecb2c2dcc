// The help texts a person reads: `tokenproxy`, `tokenproxy --help`, `tokenproxy help [command]`,
// and `tokenproxy start --help` (its flags generated from the configuration schema, so a new
// setting shows up here without a second list to keep).
import {
  CONFIG_KEYS,
  type ConfigKey,
  ConfigSchema,
  ENV_ALIASES,
  envNameOf,
  flagNameOf,
} from '../config-schema.js';

/** Every command with one line saying what it does, in the order a newcomer meets them. */
export const COMMAND_SUMMARIES: readonly (readonly [string, string])[] = [
  ['start', 'run the service (default: embedded database and local ledger, port 3000)'],
  ['devnet', 'run the embedded local ledger alone, behind its ARC API'],
  ['migrate', 'apply the database migrations and exit (--status lists them)'],
  ['status', 'chain tip, supply, funding pool and tickets of a running service'],
  ['keys', 'create, list, limit and revoke API keys; generate, addresses, create-admin for a first start'],
  ['mint', 'send tokens out of the treasury to an address'],
  ['burn', 'burn tokens out of the treasury or the fee address'],
  ['fund', 'the funding address and pool level; record a payment to it'],
  ['audit', 'recompute balances and supply from the transactions'],
  ['reconcile', 'compare the database with the ledger; --repair what is safe'],
  ['mine', 'mine blocks on the embedded devnet'],
  ['faucet', "send the sandbox's test tokens to an address (sandbox only)"],
  ['freeze', 'freeze an address: no transfer spending its outputs is cosigned'],
  ['unfreeze', 'lift the freeze of an address'],
  ['freezes', 'the frozen addresses, what they hold, and the record'],
  ['pause', 'pause transfers: nothing is cosigned but the issuer’s burns'],
  ['unpause', 'cosign transfers again'],
  ['blacklist', 'blacklist an address: it can neither send nor receive'],
  ['unblacklist', 'take an address off the blacklist'],
  ['blacklisted', 'the blacklisted addresses and what they hold'],
  ['seize', 'seize frozen outputs and reissue their value to an address'],
  ['controls', 'the pause and the record of every control change'],
  ['proposals', 'actions waiting for approvals: list, show, approve, reject; the policy'],
  ['allowance', "an admin key's mint allowance: set, show"],
  ['help', "this help, or a command's own (tokenproxy help COMMAND)"],
];

export function mainUsage(version: string): string {
  const width = Math.max(...COMMAND_SUMMARIES.map(([name]) => name.length));
  return `tokenproxy ${version}: a cosigning proxy for a BSV-21 token

usage: tokenproxy COMMAND [options]

commands:
${COMMAND_SUMMARIES.map(([name, text]) => `  ${name.padEnd(width)}  ${text}`).join('\n')}

  tokenproxy COMMAND --help   the command's options
  tokenproxy --version        the version

Start here: \`tokenproxy start\` (or \`npm start\`), then open http://127.0.0.1:3000/console
(the admin key is in .tokenproxy/admin.key). Docs: README.md and docs/operations.md.
`;
}

interface SchemaLike {
  readonly type?: unknown;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly description?: string;
}

function valueName(key: ConfigKey, schema: SchemaLike): string {
  if (schema.type === 'boolean') return '';
  if (schema.enum !== undefined) return ` ${schema.enum.join('|')}`;
  if (schema.type === 'integer') return ' N';
  if (schema.type === 'array') return ' LIST';
  return /Url$/.test(key) ? ' URL' : ' VALUE';
}

/** One entry per setting: `--flag VALUE`, its description, env variable(s) and default. */
export function settingsUsage(): string {
  return CONFIG_KEYS.map((key) => {
    const schema = ConfigSchema.properties[key] as SchemaLike;
    const alias = ENV_ALIASES[key];
    const env = `env ${envNameOf(key)}${alias === undefined ? '' : ` or ${alias}`}`;
    const def =
      schema.default === undefined
        ? ''
        : `; default ${Array.isArray(schema.default) ? schema.default.join(',') || '(none)' : String(schema.default)}`;
    return `  --${flagNameOf(key)}${valueName(key, schema)}\n      ${schema.description ?? ''} (${env}${def})`;
  }).join('\n');
}

export function startUsage(): string {
  return `usage: tokenproxy start [--config FILE] [--SETTING VALUE ...]

Runs the service until SIGINT or SIGTERM. Settings come from defaults, a JSON file (--config or
TOKENPROXY_CONFIG), the environment and these flags, later ones winning. A boolean flag alone
means true, --no-FLAG false. On a terminal the logs are printed for a person; piped, stdout holds
only JSON log records (one per line) and the start banner goes to stderr.

settings:
${settingsUsage()}

The configuration reference with types is in docs/operations.md.
`;
}

export function migrateUsage(): string {
  return `usage: tokenproxy migrate [--status] [--json] [--config FILE] [--SETTING VALUE ...]

Applies the database migrations of this version and exits: a release step before the new
version's instances start (they would apply them too, at start). It reads the same settings as
\`tokenproxy start\` (only the database ones matter: --database-url / DATABASE_URL, else the
embedded database in --data-dir).

  --status   list each migration as applied, pending or edited and change nothing;
             exit 0 when up to date, 3 when migrations are pending, 1 when one was edited
  --json     print JSON ({"applied": [...]} or {"migrations": [...]}) instead of lines
`;
}
