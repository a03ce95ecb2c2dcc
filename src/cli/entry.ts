// The executable entry: runs main() on the process's arguments, sets the exit code, and prints
// an unexpected error as one line (no stack) on stderr, then exits. bin/tokenproxy.js loads the compiled
// copy; during development `node --import tsx src/cli/entry.ts <command>` runs the source.
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tokenproxy: ${err instanceof Error ? err.message : String(err)}\n`);
    // At once: a command that failed must not linger on what it had started (a service whose
    // start failed halfway kept timers and sockets alive, listening nowhere).
    process.exit(1);
  },
);
