// The shell every admin command runs in: parse, call, print the answer on stdout and exit 0;
// or print the error on stderr and exit 1. --help prints the usage and exits 0. The answer is
// JSON for scripts (--json, or whenever stdout is not a terminal) and indented lines for a
// person on a terminal.

import { CliError, CONNECTION_USAGE, type CommandOptions, type ParsedCommand, parseCommand } from './args.js';
import { humanText } from './human-output.js';

export interface CommandSpec {
  /** As typed, e.g. `keys create`. */
  readonly name: string;
  /** Synopsis and the command's own options. */
  readonly usage: string;
  readonly options: CommandOptions;
  readonly maxPositionals?: number;
}

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** A person reads stdout (a terminal): answers print as text unless --json. */
  readonly isTTY: boolean;
}

const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
};

export async function runCommand(
  argv: readonly string[],
  spec: CommandSpec,
  action: (parsed: ParsedCommand) => Promise<unknown>,
  io: CommandIo = processIo,
): Promise<number> {
  try {
    const parsed = parseCommand(argv, spec.options, spec.maxPositionals ?? 0);
    if (parsed.help) {
      io.stdout(usageOf(spec));
      return 0;
    }
    const result = await action(parsed);
    const json = parsed.values.json === true || !io.isTTY;
    io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : humanText(result));
    return 0;
  } catch (err) {
    const message = err instanceof CliError ? err.message : `unexpected error: ${String(err)}`;
    io.stderr(`tokenproxy ${spec.name}: ${message}\n`);
    return 1;
  }
}

export function usageOf(spec: CommandSpec): string {
  return `usage: tokenproxy ${spec.usage}\n${CONNECTION_USAGE}`;
}
