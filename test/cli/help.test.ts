// The command line as a newcomer meets it, run as child processes: `tokenproxy` alone, --help,
// -h, `help`, --version, and --help on every command (start and migrate answered "unknown flag
// --help" before). A bare `tokenproxy` prints the help and starts nothing. Every command's two
// help forms run in one child process, through the same main() the entry calls (a child each
// cost two seconds of loading, sixty times over).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { COMMAND_SUMMARIES } from '../../src/cli/help.js';
import { COMMANDS } from '../../src/cli/main.js';
import { CONFIG_KEYS, flagNameOf } from '../../src/config-schema.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/entry.ts', ...args],
      {
        cwd: ROOT,
        timeout: 60_000,
        env: { ...process.env, TOKENPROXY_DATA_DIR: '/nonexistent/tokenproxy-help' },
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * `<name> --help` and `help <name>` of every command in `names`, each through main() in one child
 * process: its exit code and what it wrote to stdout and stderr.
 */
async function helpOfEach(names: readonly string[]): Promise<Map<string, { flag: Run; viaHelp: Run }>> {
  const script = `
    import { main } from './src/cli/main.ts';
    const run = async (args) => {
      let stdout = '';
      let stderr = '';
      const [out, err] = [process.stdout.write, process.stderr.write];
      process.stdout.write = (chunk) => ((stdout += chunk), true);
      process.stderr.write = (chunk) => ((stderr += chunk), true);
      try {
        return { code: await main(args), stdout, stderr };
      } finally {
        [process.stdout.write, process.stderr.write] = [out, err];
      }
    };
    const each = [];
    for (const name of ${JSON.stringify(names)})
      each.push([name, { flag: await run([name, '--help']), viaHelp: await run(['help', name]) }]);
    process.stdout.write(JSON.stringify(each));
  `;
  const run = await new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', script],
      {
        cwd: ROOT,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, TOKENPROXY_DATA_DIR: '/nonexistent/tokenproxy-help' },
      },
      (err, stdout, stderr) => resolve({ code: err === null ? 0 : -1, stdout, stderr }),
    );
  });
  assert.equal(run.code, 0, run.stderr);
  return new Map(JSON.parse(run.stdout) as [string, { flag: Run; viaHelp: Run }][]);
}

describe('tokenproxy help and version', () => {
  it('a bare `tokenproxy` prints the help (every command) and exits 0 without starting', async () => {
    const run = await cli([]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /^tokenproxy \S+: /);
    for (const [name] of COMMAND_SUMMARIES) assert.match(run.stdout, new RegExp(`^  ${name} `, 'm'));
    assert.doesNotMatch(run.stdout, /running at/);
  });

  for (const args of [['--help'], ['-h'], ['help']]) {
    it(`\`tokenproxy ${args.join(' ')}\` prints the same help`, async () => {
      const [bare, run] = await Promise.all([cli([]), cli(args)]);
      assert.equal(run.code, 0);
      assert.equal(run.stdout, bare.stdout);
    });
  }

  it('--version prints the package version alone', async () => {
    const run = await cli(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${VERSION}\n`);
  });

  it('every command the dispatcher knows has a line in the help, and no line names an unknown command', () => {
    assert.deepEqual(COMMAND_SUMMARIES.map(([n]) => n).sort(), Object.keys(COMMANDS).sort());
  });

  const commands = COMMAND_SUMMARIES.map(([n]) => n).filter((n) => n !== 'help');
  let helps: Promise<Map<string, { flag: Run; viaHelp: Run }>> | undefined;
  for (const name of commands) {
    it(`\`tokenproxy ${name} --help\` and \`tokenproxy help ${name}\` print its usage and exit 0`, async () => {
      helps ??= helpOfEach(commands);
      const { flag, viaHelp } = (await helps).get(name)!;
      assert.equal(flag.code, 0, flag.stderr);
      assert.equal(flag.stderr, '');
      assert.match(flag.stdout, new RegExp(`usage: tokenproxy ${name}\\b`));
      assert.equal(viaHelp.stdout, flag.stdout);
    });
  }

  it('`start --help` lists every setting as a flag (generated from the schema)', async () => {
    const run = await cli(['start', '-h']);
    assert.equal(run.code, 0);
    for (const key of CONFIG_KEYS)
      assert.match(run.stdout, new RegExp(`^  --${flagNameOf(key)}\\b`, 'm'), key);
  });

  it('an unknown command exits 2 naming the help', async () => {
    const run = await cli(['strat']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /unknown command 'strat'.*tokenproxy --help/);
  });

  it('a bad start flag exits 2 pointing at start --help', async () => {
    const run = await cli(['start', '--prot', '1']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown flag --prot/);
    assert.match(run.stderr, /tokenproxy start --help/);
  });
});
