// `tokenproxy fund`: the address to pay satoshis into the funding pool, and the pool's level;
// `tokenproxy fund --txid TXID [--rawtx HEX]`: records a payment to that address as reserve.
import { connectionOf, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'fund',
  usage: `fund [--txid TXID [--rawtx HEX]]
without --txid prints {"address", "pool": {"available", "availableSatoshis", "reserved", "lowWater", "low"},
        "reserve": {"outpoint", "satoshis"} | null, "reserves": [...], "reserveSatoshis"};
        pay the address to add funds, then tell the service the payment's txid
  --txid TXID   a transaction paying the funding address: its outputs become reserve the pool
                refill splits (recorded once; prints {"txid", "outputs", "recorded", "alreadyRecorded"})
  --rawtx HEX   the raw transaction, when the ledger serves no raw transactions (ARC)`,
  options: { txid: { type: 'string' }, rawtx: { type: 'string' } },
};

export function runFund(argv: readonly string[]): Promise<number> {
  return runCommand(argv, spec, async ({ values }) => {
    const txid = stringFlag(values, 'txid');
    const rawtx = stringFlag(values, 'rawtx');
    if (txid === undefined) return callService(connectionOf(values), 'GET', '/v2/admin/funding');
    return callService(
      connectionOf(values),
      'POST',
      '/v2/admin/funding/payments',
      { txid, ...(rawtx !== undefined && { rawtx }) },
      { idempotent: true },
    );
  });
}
