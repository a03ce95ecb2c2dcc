// The executable entry: runs main() on the process's arguments, sets the exit code, and prints
// an unexpected error as one line (no stack) on stderr. bin/tokenproxy.js loads the compiled
// copy; during development `node --import tsx src/cli/entry.ts <command>` runs the source.
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tokenproxy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
