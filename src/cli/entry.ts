// The executable entry: runs main() on the process's arguments and sets the exit code, exiting
// at once on a failure; an unexpected error is printed as one line (no stack) on stderr first.
// bin/tokenproxy.js loads the compiled copy; during development
// `node --import tsx src/cli/entry.ts <command>` runs the source.
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A command that ended in failure exits at once, as one that threw does: a service whose
    // stop was cut by its deadline still has the stop's sockets and timers alive.
    if (code !== 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`tokenproxy: ${err instanceof Error ? err.message : String(err)}\n`);
    // At once: a command that failed must not linger on what it had started (a service whose
    // start failed halfway kept timers and sockets alive, listening nowhere).
    process.exit(1);
  },
);
