// Process entry: parses argv and dispatches to a CLI command. Nothing else lives here.
export async function main(argv: readonly string[]): Promise<number> {
  const [command = 'start'] = argv;
  process.stderr.write(`tokenproxy: unknown command '${command}'\n`);
  return 2;
}
