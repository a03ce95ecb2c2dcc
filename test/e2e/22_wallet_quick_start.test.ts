// The README's wallet quick start ("A wallet developer's first hour"), run as written, command by
// command, against a real service: every shell block through bash (curl for real), the
// reference client's script and the generated client's script saved and run as the README says.
// The only changes are where the service is: `TP=` gets this service's URL, and each
// `npx tokenproxy` command runs this checkout's CLI with `--url` and `--data-dir` of this service
// (the README's reader has it at the defaults). A README edit that breaks a step fails here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serviceForSuite } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A working folder inside the repository, so the scripts resolve its node_modules as a reader's would. */
const WORK = join(ROOT, 'test', 'e2e', `.quick-start-${process.pid}`);
const run = promisify(execFile);

interface Block {
  readonly lang: string;
  readonly code: string;
}

/** The fenced blocks of the README's wallet quick start, in order. */
export function quickStartBlocks(readme: string): Block[] {
  const start = readme.indexOf("## A wallet developer's first hour");
  assert.ok(start >= 0, 'the README has its wallet quick start');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

/** The README's shell as it runs here: this service's URL and data folder, this checkout's CLI. */
export function localized(code: string, url: string): string {
  return code
    .replace(/^TP=.*$/m, `TP=${url}`)
    .replace(
      /npx tokenproxy ([^|&)\n]*?)(\s*(?:\||&&|\)|$))/gm,
      `node --import tsx ${ROOT}src/cli/entry.ts $1 --url "$TP" --data-dir "$DATA_DIR"$2`,
    )
    .replaceAll('<the ticket ID>', '$TICKET');
}

const VARIABLES = ['TP', 'KEY', 'WIF', 'ADDRESS'] as const;

/** The JSON values curl printed one after the other (curl adds no newline). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if ((c === '}' || c === ']') && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

describe("the README's wallet quick start, command by command", () => {
  const t = serviceForSuite();
  const env: Record<string, string> = {};
  const blocks = quickStartBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  const outputs: string[] = [];

  after(() => rmSync(WORK, { recursive: true, force: true }));

  /** Runs a shell block of the README; its variables are kept for the next ones. */
  async function shell(block: Block): Promise<string> {
    assert.equal(block.lang, 'sh');
    const script = `set -euo pipefail\n${localized(block.code, t.url)}\necho ---vars---\n${VARIABLES.map((v) => `echo "${v}=\${${v}:-}"`).join('\n')}\n`;
    const { stdout } = await run('bash', ['-c', script], {
      cwd: WORK,
      env: { ...process.env, ...env, DATA_DIR: t.dataDir },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) =>
      assert.fail(`${block.code}\nfailed: ${error.stderr ?? ''}${error.stdout ?? ''}${error.message}`),
    );
    const [output, vars] = stdout.split('---vars---\n');
    for (const line of vars!.trim().split('\n')) {
      const [name, ...value] = line.split('=');
      if (value.join('=') !== '') env[name!] = value.join('=');
    }
    outputs.push(output!);
    return output!;
  }

  it('has the blocks the steps below follow', () => {
    assert.deepEqual(
      blocks.map((b) => b.lang),
      ['sh', 'sh', 'js', 'sh', 'sh', 'ts'],
    );
    mkdirSync(WORK, { recursive: true });
  });

  it('a key and a wallet: the CLI makes an API key, test funds are minted and mined', async () => {
    const out = await shell(blocks[0]!);
    assert.match(env.KEY ?? '', /^\S{20,}$/, 'an API key');
    assert.match(env.ADDRESS ?? '', /^1[1-9A-HJ-NP-Za-km-z]{25,34}$/);
    assert.match(out, /"ticketId"/, 'the mint');
    assert.match(out, /"blocks"/, 'the block');
  });

  it('the first balance with curl: config, balance, unspent outputs', async () => {
    const out = await shell(blocks[1]!);
    const [config, balance, utxos] = jsonValues(out) as [{ decimals: number }, unknown, unknown[]];
    assert.equal(config.decimals, 5);
    assert.deepEqual(balance, [{ address: env.ADDRESS, amt: 1_000_000, precised: 10 }]);
    assert.equal(utxos.length, 1);
  });

  it('the first transfer with the reference client, its key made as the README says', async () => {
    writeFileSync(join(WORK, 'first-transfer.mjs'), blocks[2]!.code);
    const { stdout } = await run(process.execPath, ['first-transfer.mjs'], {
      cwd: WORK,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    const [ticketId, status] = stdout.trim().split(' ');
    assert.match(ticketId ?? '', /^[0-9a-f-]{36}$/);
    assert.ok(['BROADCASTING', 'SUCCESS', 'MINED'].includes(status ?? ''), stdout);
    env.TICKET = ticketId!;
  });

  it('the ticket and the history with curl', async () => {
    const out = await shell(blocks[3]!);
    const [ticket, history] = jsonValues(out) as [{ id: string }, { history: unknown }];
    assert.equal(ticket.id, env.TICKET);
    assert.ok(Array.isArray(history.history), JSON.stringify(history));
  });

  it('the generated client, with its defaults', async () => {
    await shell(blocks[4]!);
    assert.match(readFileSync(join(WORK, 'api.d.ts'), 'utf8'), /"\/v2\/balance"/);
    writeFileSync(join(WORK, 'client.ts'), blocks[5]!.code);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'client.ts'], {
      cwd: WORK,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    assert.match(stdout, new RegExp(`address: '${env.ADDRESS}'`));
    // 10 tokens minted, 1.5 sent and the fee of its tier (100): the balance the client reads.
    assert.match(stdout, /amt: 849900\b/);
  });
});
