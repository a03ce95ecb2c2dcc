// The issuer's controls from the command line (issue 32; docs/operations.md, "Issuer's
// runbook"), over the admin routes: `pause` and `unpause` transfers, `blacklist`, `unblacklist`
// and `blacklisted`, `seize` (and reissue), and `controls` (the pause and the control record).
// Every change is recorded with the admin key the command used and the reason.
import { CliError, connectionOf, requiredFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const reason = { reason: { type: 'string' } } as const;

const pauseSpec = (name: 'pause' | 'unpause'): CommandSpec => ({
  name,
  usage: `${name} --reason TEXT
  --reason TEXT    why (recorded with the admin key id)
${name === 'pause' ? 'no transfer is cosigned but the issuer’s own burns until `unpause`\n' : ''}prints {"paused", "reason", "changedBy", "changedAt", "changed"}`,
  options: reason,
});

const blacklistSpec: CommandSpec = {
  name: 'blacklist',
  usage: `blacklist ADDRESS --reason TEXT
  ADDRESS          an address that may then neither send nor receive
  --reason TEXT    why (recorded with the admin key id)
prints {"address", "reason", "listedBy", "listedAt", "changed"}`,
  options: reason,
  maxPositionals: 1,
};

const unblacklistSpec: CommandSpec = {
  name: 'unblacklist',
  usage: `unblacklist ADDRESS --reason TEXT
  ADDRESS          a blacklisted address
  --reason TEXT    why (recorded with the admin key id)
prints {"address", "unlistedBy", "unlistedAt", "reason"}`,
  options: reason,
  maxPositionals: 1,
};

const listedSpec: CommandSpec = {
  name: 'blacklisted',
  usage: `blacklisted
prints {"listed": [{"address", "reason", "listedBy", "listedAt", "balance"}], "total"}`,
  options: {},
};

const seizeSpec: CommandSpec = {
  name: 'seize',
  usage: `seize OUTPOINT... --reference REF --reason TEXT --to ADDRESS
  OUTPOINT         <txid>_<vout> of an output of a frozen or blacklisted address
  --reference REF  the order's number or hash (one seizure per reference: run it again to complete one)
  --reason TEXT    why (recorded with the admin key id)
  --to ADDRESS     the address the seized value is minted to
prints {"id", "reference", "reason", "reissueTo", "amount", "reissueTxid", "outputs", "actor", "at", "created"}`,
  options: { ...reason, reference: { type: 'string' }, to: { type: 'string' } },
  maxPositionals: 1000,
};

const controlsSpec: CommandSpec = {
  name: 'controls',
  usage: `controls
prints {"pause": {"paused", "reason", "changedBy", "changedAt"}, "events": [{"id", "action",
        "subject", "reason", "actor", "at", "detail"}]} (the latest control changes, newest first)`,
  options: {},
};

function addressOf(positionals: readonly string[]): string {
  const address = positionals[0];
  if (address === undefined) throw new CliError('an ADDRESS is needed');
  return address;
}

export function runPause(argv: readonly string[], paused = true): Promise<number> {
  return runCommand(argv, pauseSpec(paused ? 'pause' : 'unpause'), async ({ values }) =>
    callService(connectionOf(values), 'PUT', '/v2/admin/pause', {
      paused,
      reason: requiredFlag(values, 'reason'),
    }),
  );
}

export function runBlacklist(argv: readonly string[]): Promise<number> {
  return runCommand(argv, blacklistSpec, async ({ values, positionals }) =>
    callService(connectionOf(values), 'POST', '/v2/admin/blacklist', {
      address: addressOf(positionals),
      reason: requiredFlag(values, 'reason'),
    }),
  );
}

export function runUnblacklist(argv: readonly string[]): Promise<number> {
  return runCommand(argv, unblacklistSpec, async ({ values, positionals }) =>
    callService(
      connectionOf(values),
      'DELETE',
      `/v2/admin/blacklist/${encodeURIComponent(addressOf(positionals))}`,
      { reason: requiredFlag(values, 'reason') },
    ),
  );
}

export function runBlacklisted(argv: readonly string[]): Promise<number> {
  return runCommand(argv, listedSpec, async ({ values }) =>
    callService(connectionOf(values), 'GET', '/v2/admin/blacklist'),
  );
}

export function runSeize(argv: readonly string[]): Promise<number> {
  return runCommand(argv, seizeSpec, async ({ values, positionals }) => {
    if (positionals.length === 0) throw new CliError('at least one OUTPOINT is needed');
    return callService(connectionOf(values), 'POST', '/v2/admin/seizures', {
      reference: requiredFlag(values, 'reference'),
      reason: requiredFlag(values, 'reason'),
      reissueTo: requiredFlag(values, 'to'),
      outpoints: [...positionals],
    });
  });
}

export function runControls(argv: readonly string[]): Promise<number> {
  return runCommand(argv, controlsSpec, async ({ values }) => {
    const connection = connectionOf(values);
    const [pause, events] = await Promise.all([
      callService(connection, 'GET', '/v2/admin/pause'),
      callService(connection, 'GET', '/v2/admin/controls/events') as Promise<{ events: unknown[] }>,
    ]);
    return { pause, events: events.events };
  });
}
