// Process entry: parses argv and dispatches to a CLI command. Nothing else lives here.
// Each command's module is imported when it runs: the admin commands (a few HTTP calls) do
// not load the service's storage, ledger and HTTP server.

type Command = (argv: readonly string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  start: async (argv) => (await import('./cli/start.js')).runStart(argv),
  devnet: async (argv) => (await import('./cli/devnet.js')).runDevnetCommand([...argv]),
  keys: async (argv) => (await import('./cli/keys.js')).runKeys(argv),
  mint: async (argv) => (await import('./cli/mint.js')).runMint(argv),
  mine: async (argv) => (await import('./cli/mine.js')).runMine(argv),
  status: async (argv) => (await import('./cli/status.js')).runStatus(argv),
  burn: async (argv) => (await import('./cli/burn.js')).runBurn(argv),
  fund: async (argv) => (await import('./cli/fund.js')).runFund(argv),
  audit: async (argv) => (await import('./cli/audit.js')).runAudit(argv),
  migrate: async (argv) => (await import('./cli/migrate.js')).runMigrate(argv),
};

export async function main(argv: readonly string[]): Promise<number> {
  const [command = 'start', ...rest] = argv;
  const run = COMMANDS[command];
  if (run === undefined) {
    process.stderr.write(
      `tokenproxy: unknown command '${command}' (commands: ${Object.keys(COMMANDS).join(', ')})\n`,
    );
    return 2;
  }
  return run(rest);
}
