// `tokenproxy burn --amount TOKENS [--from mint|fee]`: tokens out of the treasury (or the fee
// address) into a `"op":"burn"` output, never spendable again.
import { CliError, connectionOf, requiredFlag, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'burn',
  usage: `burn --amount TOKENS [--from mint|fee]
  --amount TOKENS    decimal token amount, e.g. 12.5 (at most 5 decimals)
  --from mint|fee    the address burned from (default mint, the treasury)
prints {"ticketId", "txid", "from", "amount": {"atomic", "tokens"}}`,
  options: { amount: { type: 'string' }, from: { type: 'string' } },
};

export function runBurn(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) => {
    const amount = requiredFlag(values, 'amount');
    const from = stringFlag(values, 'from') ?? 'mint';
    if (from !== 'mint' && from !== 'fee') throw new CliError(`--from must be mint or fee, not '${from}'`);
    return callService(
      connectionOf(values),
      'POST',
      '/v2/admin/burn',
      { amount, from },
      { idempotent: true },
    );
  });
}
