// `tokenproxy mint --to ADDRESS --amount TOKENS`: tokens out of the treasury to an address.
import { connectionOf, requiredFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'mint',
  usage: `mint --to ADDRESS --amount TOKENS
  --to ADDRESS       the P2PKH address receiving the tokens
  --amount TOKENS    decimal token amount, e.g. 12.5 (at most 5 decimals)
prints {"ticketId", "txid"}`,
  options: { to: { type: 'string' }, amount: { type: 'string' } },
};

export function runMint(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) => {
    const to = requiredFlag(values, 'to');
    const amount = requiredFlag(values, 'amount');
    return callService(connectionOf(values), 'POST', '/v2/admin/mint', { to, amount }, { idempotent: true });
  });
}
