// `tokenproxy proposals list|show|approve|reject|execute|policy|set-policy` (issue 32, "no
// single key"; docs/operations.md, "Set up approvals"): the actions the approval policy holds
// back, voted on with the admin key the command uses, and the policy itself. A thin shell over
// /v2/admin/proposals and /v2/admin/approvals/policy.
import { readFileSync } from 'node:fs';
import { CliError, connectionOf, requiredFlag, stringFlag } from './args.js';
import { callService } from './client.js';
import { type CommandSpec, runCommand } from './command.js';

const PROPOSAL_FIELDS = `{"id", "action", "summary", "body", "required", "approvals", "state", "proposedBy",
        "proposedAt", "expiresAt", "decidedAt", "finishedAt", "result", "error", "votes"}`;

const list: CommandSpec = {
  name: 'proposals list',
  usage: `proposals list [--state open|approved|executed|failed|rejected|expired]
prints {"proposals": [${PROPOSAL_FIELDS}]}, newest first`,
  options: { state: { type: 'string' } },
};

const show: CommandSpec = {
  name: 'proposals show',
  usage: `proposals show ID
prints ${PROPOSAL_FIELDS}`,
  options: {},
  maxPositionals: 1,
};

const vote = (kind: 'approve' | 'reject'): CommandSpec => ({
  name: `proposals ${kind}`,
  usage: `proposals ${kind} ID [--reason TEXT]
  --reason TEXT    why (recorded with the admin key id)
${
  kind === 'approve'
    ? 'the K-th distinct key to approve runs the action; a key approves once (the proposer already did)'
    : 'one rejection closes the proposal: nothing runs'
}
prints the proposal and "answer" (what the action answered, when this vote ran it) and "executionError"`,
  options: { reason: { type: 'string' } },
  maxPositionals: 1,
});

const execute: CommandSpec = {
  name: 'proposals execute',
  usage: `proposals execute ID
completes an approved proposal whose execution was interrupted (a crash, the ledger down); it runs once
prints the proposal and "answer"`,
  options: {},
  maxPositionals: 1,
};

const policy: CommandSpec = {
  name: 'proposals policy',
  usage: `proposals policy
prints {"rules": [{"action", "approvals", "above", "proposerApproves"}], "changedBy", "changedAt"}`,
  options: {},
};

const setPolicy: CommandSpec = {
  name: 'proposals set-policy',
  usage: `proposals set-policy --file RULES.json --reason TEXT
  --file PATH      a JSON list of rules, e.g. [{"action": "mint", "approvals": 2, "above": "10000000000"}]
                   (actions: mint, seize, unpause, unfreeze, unblacklist, create-key, raise-allowance,
                   set-policy; "above": atomic units, mint only; "proposerApproves": default true)
  --reason TEXT    why (recorded with the admin key id)
prints the policy, or the set-policy proposal (202) when the current policy holds changes back`,
  options: { file: { type: 'string' }, reason: { type: 'string' } },
};

const USAGE = `usage: tokenproxy proposals list|show|approve|reject|execute|policy|set-policy [options]
  list        proposals, newest first (--state to filter)
  show        one proposal with its votes
  approve     approve a proposal with this admin key; the K-th approval runs it
  reject      reject a proposal: one rejection closes it
  execute     complete an approved proposal whose execution was interrupted
  policy      the approval policy: which actions need how many distinct keys
  set-policy  replace the approval policy
tokenproxy proposals SUBCOMMAND --help shows its options.
`;

function idOf(positionals: readonly string[]): string {
  const id = positionals[0];
  if (id === undefined) throw new CliError('a proposal ID is needed');
  return encodeURIComponent(id);
}

export async function runProposals(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'list':
      return runCommand(rest, list, async ({ values }) => {
        const state = stringFlag(values, 'state');
        const q = state === undefined ? '' : `?state=${encodeURIComponent(state)}`;
        return callService(connectionOf(values), 'GET', `/v2/admin/proposals${q}`);
      });
    case 'show':
      return runCommand(rest, show, async ({ values, positionals }) =>
        callService(connectionOf(values), 'GET', `/v2/admin/proposals/${idOf(positionals)}`),
      );
    case 'approve':
    case 'reject':
      return runCommand(rest, vote(sub), async ({ values, positionals }) => {
        const reason = stringFlag(values, 'reason');
        return callService(
          connectionOf(values),
          'POST',
          `/v2/admin/proposals/${idOf(positionals)}/${sub}`,
          reason === undefined ? {} : { reason },
        );
      });
    case 'execute':
      return runCommand(rest, execute, async ({ values, positionals }) =>
        callService(connectionOf(values), 'POST', `/v2/admin/proposals/${idOf(positionals)}/execute`),
      );
    case 'policy':
      return runCommand(rest, policy, async ({ values }) =>
        callService(connectionOf(values), 'GET', '/v2/admin/approvals/policy'),
      );
    case 'set-policy':
      return runCommand(rest, setPolicy, async ({ values }) => {
        const file = requiredFlag(values, 'file');
        let rules: unknown;
        try {
          rules = JSON.parse(readFileSync(file, 'utf8'));
        } catch (err) {
          throw new CliError(`${file}: ${err instanceof Error ? err.message : String(err)}`);
        }
        return callService(connectionOf(values), 'PUT', '/v2/admin/approvals/policy', {
          rules,
          reason: requiredFlag(values, 'reason'),
        });
      });
    default:
      if (sub === undefined || sub === '--help' || sub === '-h') {
        process.stdout.write(USAGE);
        return sub === undefined ? 1 : 0;
      }
      process.stderr.write(`tokenproxy proposals: unknown subcommand ${sub}\n${USAGE}`);
      return 1;
  }
}
