// `tokenproxy mine [--blocks N]`: mines blocks on the embedded devnet.
import { connectionOf, positiveIntegerFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'mine',
  usage: `mine [--blocks N]
  --blocks N         how many blocks to mine (default 1, at most 1000); devnet only
prints {"blocks": [{"height", "hash"}]}`,
  options: { blocks: { type: 'string' } },
};

export function runMine(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) => {
    const blocks = positiveIntegerFlag(values, 'blocks');
    return callService(connectionOf(values), 'POST', '/v2/admin/mine', {
      ...(blocks !== undefined && { blocks }),
    });
  });
}
