// `tokenproxy faucet ADDRESS`: the sandbox faucet's test tokens to an address (POST /v2/faucet,
// bounded per address and per client address a day; a production service refuses it).
import { CliError, connectionOf } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'faucet',
  usage: `faucet ADDRESS
  ADDRESS            the P2PKH address receiving the sandbox's test tokens
prints {"ticketId", "txid", "address", "amount", "tokens"}`,
  options: {},
  maxPositionals: 1,
};

export function runFaucet(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values, positionals }) => {
    const address = positionals[0];
    if (address === undefined) throw new CliError('an ADDRESS is needed');
    return callService(connectionOf(values), 'POST', '/v2/faucet', { address });
  });
}
