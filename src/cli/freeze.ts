// `tokenproxy freeze ADDRESS --reason TEXT`, `unfreeze ADDRESS --reason TEXT` and `freezes`: the
// operator's freeze list (docs/operations.md, Freeze list), over the admin routes. The record
// names the admin key the command used (admin.key by default) and the reason.
import { CliError, connectionOf, requiredFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const freezeSpec: CommandSpec = {
  name: 'freeze',
  usage: `freeze ADDRESS --reason TEXT
  ADDRESS          the P2PKH address whose outputs the service stops cosigning
  --reason TEXT    why (recorded with the admin key id)
prints {"address", "reason", "frozenBy", "frozenAt", "changed"}`,
  options: { reason: { type: 'string' } },
  maxPositionals: 1,
};

const unfreezeSpec: CommandSpec = {
  name: 'unfreeze',
  usage: `unfreeze ADDRESS --reason TEXT
  ADDRESS          a frozen address
  --reason TEXT    why (recorded with the admin key id)
prints {"address", "unfrozenBy", "unfrozenAt", "reason"}`,
  options: { reason: { type: 'string' } },
  maxPositionals: 1,
};

const listSpec: CommandSpec = {
  name: 'freezes',
  usage: `freezes
prints {"frozen": [{"address", "reason", "frozenBy", "frozenAt", "balance"}], "total",
        "events": [{"id", "address", "action", "reason", "actor", "at"}]}`,
  options: {},
};

function addressOf(positionals: readonly string[]): string {
  const address = positionals[0];
  if (address === undefined) throw new CliError('an ADDRESS is needed');
  return address;
}

export function runFreeze(argv: readonly string[]): Promise<number> {
  return runCommand(argv, freezeSpec, async ({ values, positionals }) =>
    callService(connectionOf(values), 'POST', '/v2/admin/freezes', {
      address: addressOf(positionals),
      reason: requiredFlag(values, 'reason'),
    }),
  );
}

export function runUnfreeze(argv: readonly string[]): Promise<number> {
  return runCommand(argv, unfreezeSpec, async ({ values, positionals }) =>
    callService(
      connectionOf(values),
      'DELETE',
      `/v2/admin/freezes/${encodeURIComponent(addressOf(positionals))}`,
      { reason: requiredFlag(values, 'reason') },
    ),
  );
}

export function runFreezes(argv: readonly string[]): Promise<number> {
  return runCommand(argv, listSpec, async ({ values }) =>
    callService(connectionOf(values), 'GET', '/v2/admin/freezes'),
  );
}
