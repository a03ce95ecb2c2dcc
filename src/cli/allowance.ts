// `tokenproxy allowance set|show|list` (issue 32; USDC's minter allowance): what an admin key
// may still mint. A key without an allowance mints without a cap; once set, each of its mints
// spends from it and a mint above what is left is refused (MINT_ALLOWANCE_EXCEEDED). A raise is
// an action the approval policy can hold back (the answer is then the proposal).
import { CliError, connectionOf, requiredFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const set: CommandSpec = {
  name: 'allowance set',
  usage: `allowance set KEY_ID (--amount TOKENS | --no-cap) --reason TEXT
  KEY_ID           the admin key's id (tokenproxy keys list)
  --amount TOKENS  what the key may mint from now on, decimal tokens (e.g. 1000000)
  --no-cap         remove the key's allowance: it mints without a cap
  --reason TEXT    why (recorded with the admin key id)
prints {"keyId", "before", "after"} (atomic units; null: no cap), or the raise-allowance proposal
when the approval policy holds raises back`,
  options: { amount: { type: 'string' }, 'no-cap': { type: 'boolean' }, reason: { type: 'string' } },
  maxPositionals: 1,
};

const show: CommandSpec = {
  name: 'allowance show',
  usage: `allowance show [KEY_ID]
prints {"keyId", "remaining": {"atomic", "tokens"}, "setBy", "setAt"} for one key (404: no cap),
or {"allowances": [...]} for every key that has one`,
  options: {},
  maxPositionals: 1,
};

const USAGE = `usage: tokenproxy allowance set|show [options]
  set    set (or remove) an admin key's mint allowance
  show   one key's allowance, or every allowance
tokenproxy allowance SUBCOMMAND --help shows its options.
`;

export async function runAllowance(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'set':
      return runCommand(rest, set, async ({ values, positionals }) => {
        const keyId = positionals[0];
        if (keyId === undefined) throw new CliError('a KEY_ID is needed');
        const noCap = values['no-cap'] === true;
        const amount = values.amount;
        if (noCap === (typeof amount === 'string'))
          throw new CliError('give either --amount TOKENS or --no-cap');
        return callService(connectionOf(values), 'PUT', `/v2/admin/allowances/${encodeURIComponent(keyId)}`, {
          amount: noCap ? null : amount,
          reason: requiredFlag(values, 'reason'),
        });
      });
    case 'show':
      return runCommand(rest, show, async ({ values, positionals }) => {
        const keyId = positionals[0];
        return callService(
          connectionOf(values),
          'GET',
          keyId === undefined ? '/v2/admin/allowances' : `/v2/admin/allowances/${encodeURIComponent(keyId)}`,
        );
      });
    default:
      if (sub === undefined || sub === '--help' || sub === '-h') {
        process.stdout.write(USAGE);
        return sub === undefined ? 1 : 0;
      }
      process.stderr.write(`tokenproxy allowance: unknown subcommand ${sub}\n${USAGE}`);
      return 1;
  }
}
