// `tokenproxy fund`: the address to pay satoshis into the funding pool, and the pool's level.
import { connectionOf } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'fund',
  usage: `fund
prints {"address", "pool": {"available", "availableSatoshis", "reserved", "lowWater", "low"},
        "reserve": {"outpoint", "satoshis"} | null}; pay the address to add funds`,
  options: {},
};

export function runFund(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) =>
    callService(connectionOf(values), 'GET', '/v2/admin/funding'),
  );
}
