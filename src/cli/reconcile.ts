// `tokenproxy reconcile [--repair] [--txids T1,T2] [--raw-file FILE]`: the service compares its
// database with the ledger and, with --repair, repairs what it safely can. Prints the report;
// exits 1 when differences remain.
import { readFileSync } from 'node:fs';
import { CliError, connectionOf, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'reconcile',
  usage: `reconcile [--repair] [--txids TXID,...] [--raw-file FILE]
  --repair           ingest missing token transactions from their raw bytes, mark funding outputs
                     the ledger saw spent, hand tickets the ledger does not bear out to the tracker
  --txids TXID,...   transactions to look up besides the tickets' (ARC lists no address history)
  --raw-file FILE    raw transactions in hex, one a line (ARC serves no raw transactions); each
                     counts only if the ledger says it holds it
prints {"ok", "coverage", "checked", "differences", "repaired", "remaining"}; coverage "listed": the
ledger listed every transaction it holds (the devnet), "given": only tickets and what was given
exits 1 when differences remain`,
  options: { repair: { type: 'boolean' }, txids: { type: 'string' }, 'raw-file': { type: 'string' } },
};

const HEX_TXID = /^[0-9a-fA-F]{64}$/;
const HEX = /^([0-9a-fA-F]{2})+$/;

export async function runReconcile(argv: readonly string[]): Promise<number> {
  let ok = true;
  const code = await runCommand(argv, spec, async ({ values }) => {
    const txids = (stringFlag(values, 'txids') ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    for (const txid of txids) if (!HEX_TXID.test(txid)) throw new CliError(`--txids: not a txid: ${txid}`);
    const file = stringFlag(values, 'raw-file');
    const rawtxs = file === undefined ? [] : rawLines(file);
    const body = {
      repair: values.repair === true,
      ...(txids.length > 0 && { txids }),
      ...(rawtxs.length > 0 && { rawtxs }),
    };
    const report = (await callService(connectionOf(values), 'POST', '/v2/admin/reconcile', body)) as {
      ok?: unknown;
    };
    ok = report.ok === true;
    return report;
  });
  return code === 0 && !ok ? 1 : code;
}

function rawLines(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(
      `--raw-file: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  lines.forEach((line, i) => {
    if (!HEX.test(line)) throw new CliError(`--raw-file: line ${i + 1} is not hex`);
  });
  return lines;
}
