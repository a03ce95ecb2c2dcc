// Process entry: parses argv and dispatches to a CLI command. Nothing else lives here.
import { runDevnetCommand } from './cli/devnet.js';
import { runStart } from './cli/start.js';

const COMMANDS: Record<string, (argv: readonly string[]) => Promise<number>> = {
  start: runStart,
  devnet: (argv) => runDevnetCommand([...argv]),
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
