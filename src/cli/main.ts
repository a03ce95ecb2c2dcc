// The command dispatcher: parses argv and hands it to a CLI command. Nothing else lives here.
// Each command's module is imported when it runs: the admin commands (a few HTTP calls) do
// not load the service's storage, ledger and HTTP server. A bare `tokenproxy` prints the help
// (it used to start the service; `npm start` runs `tokenproxy start`).
import { COMMAND_SUMMARIES, mainUsage } from './help.js';
import { packageVersion } from './version.js';

type Command = (argv: readonly string[]) => Promise<number>;

export const COMMANDS: Readonly<Record<string, Command>> = {
  start: async (argv) => (await import('./start.js')).runStart(argv),
  devnet: async (argv) => (await import('./devnet.js')).runDevnetCommand([...argv]),
  keys: async (argv) => (await import('./keys.js')).runKeys(argv),
  mint: async (argv) => (await import('./mint.js')).runMint(argv),
  mine: async (argv) => (await import('./mine.js')).runMine(argv),
  faucet: async (argv) => (await import('./faucet.js')).runFaucet(argv),
  status: async (argv) => (await import('./status.js')).runStatus(argv),
  burn: async (argv) => (await import('./burn.js')).runBurn(argv),
  fund: async (argv) => (await import('./fund.js')).runFund(argv),
  audit: async (argv) => (await import('./audit.js')).runAudit(argv),
  reconcile: async (argv) => (await import('./reconcile.js')).runReconcile(argv),
  migrate: async (argv) => (await import('./migrate.js')).runMigrate(argv),
  freeze: async (argv) => (await import('./freeze.js')).runFreeze(argv),
  unfreeze: async (argv) => (await import('./freeze.js')).runUnfreeze(argv),
  freezes: async (argv) => (await import('./freeze.js')).runFreezes(argv),
  pause: async (argv) => (await import('./controls.js')).runPause(argv, true),
  unpause: async (argv) => (await import('./controls.js')).runPause(argv, false),
  blacklist: async (argv) => (await import('./controls.js')).runBlacklist(argv),
  unblacklist: async (argv) => (await import('./controls.js')).runUnblacklist(argv),
  blacklisted: async (argv) => (await import('./controls.js')).runBlacklisted(argv),
  seize: async (argv) => (await import('./controls.js')).runSeize(argv),
  controls: async (argv) => (await import('./controls.js')).runControls(argv),
  proposals: async (argv) => (await import('./proposals.js')).runProposals(argv),
  allowance: async (argv) => (await import('./allowance.js')).runAllowance(argv),
  help: async (argv) => help(argv),
};

const HELP_FLAGS = new Set(['--help', '-h']);

function help(argv: readonly string[]): Promise<number> {
  const [topic] = argv;
  if (topic === undefined || topic === 'help') {
    process.stdout.write(mainUsage(packageVersion()));
    return Promise.resolve(0);
  }
  const run = COMMANDS[topic];
  if (run === undefined) return unknown(topic);
  return run(['--help']);
}

function unknown(command: string): Promise<number> {
  process.stderr.write(
    `tokenproxy: unknown command '${command}' (commands: ${COMMAND_SUMMARIES.map(([n]) => n).join(', ')}; tokenproxy --help)\n`,
  );
  return Promise.resolve(2);
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || HELP_FLAGS.has(command)) return help([]);
  if (command === '--version' || command === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  if (run === undefined) return unknown(command);
  return run(rest);
}
