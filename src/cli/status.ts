// `tokenproxy status`: chain tip, where the supply is, the funding pool and tickets by status.
import { connectionOf } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'status',
  usage: `status
prints {"tip": {"height", "hash", "time"}, "supply": {"genesis", "circulating", "treasury", "burned"},
        "fundingPool": {"available"}, "tickets": {STATUS: count},
        "frozen": {"addresses", "balance"}}; amounts as {"atomic", "tokens"}`,
  options: {},
};

export function runStatus(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) =>
    callService(connectionOf(values), 'GET', '/v2/admin/status'),
  );
}
