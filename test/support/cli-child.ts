// `tokenproxy ...args` as a child process of the test (src/cli/main.ts through tsx), with no data
// folder from the environment: its exit code, stdout and stderr.
import { execFile } from 'node:child_process';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";

export function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', ENTRY, ...args],
      { cwd: ROOT, env: { ...process.env, TOKENPROXY_DATA_DIR: '' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
