// `tokenproxy audit`: the service recomputes balances and supply from the transactions' raw
// bytes and compares them with its index. Prints the report; exits 1 on any difference.
import { connectionOf } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const spec: CommandSpec = {
  name: 'audit',
  usage: `audit
prints {"ok", "transactions", "outputs", "unreadableTransactions", "supply": {"index", "recomputed"},
        "balanceDifferences", "outputDifferences", "conservationDifference", "keptBalanceDifferences",
        "keptTotalDifference", "ticketCountDifferences", "eventCountDifferences", "failedOnLedger"};
        unreadableTransactions: stored transactions whose raw bytes are no whole transaction,
        recomputed as creating and spending nothing {"txid", "reason"};
        supply splits {"circulating", "treasury", "burned", "redeemed", "seized"};
        conservationDifference: the recomputed total unlike what the deploy minted {"genesis",
        "total"}, or null; keptBalanceDifferences: kept
        balances unlike the index's sums {"address", "kept", "summed"}; keptTotalDifference: the kept
        total of all balances unlike their sum {"kept", "summed"}, or null; ticketCountDifferences:
        kept ticket counts unlike a count of the tickets {"status", "kept", "counted"};
        eventCountDifferences: kept callback event counts unlike a count of the events {"state",
        "kept", "counted"};
        failedOnLedger: failed transactions the ledger holds anyway {"txid", "status", "height"}
exits 1 when a stored transaction is unreadable, the index and the transactions differ, the supply
does not add up to the deploy's, a kept balance, the kept total or a kept ticket or event count
differs, or a failed transaction is on the ledger`,
  options: {},
};

export async function runAudit(argv: readonly string[]): Promise<number> {
  let ok = true;
  const code = await runCommand(argv, spec, async ({ values }) => {
    const report = (await callService(connectionOf(values), 'GET', '/v2/admin/audit')) as { ok?: unknown };
    ok = report.ok === true;
    return report;
  });
  return code === 0 && !ok ? 1 : code;
}
