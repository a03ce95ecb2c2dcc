// The restart scenarios of 06_restart.test.ts: a stream of independent transfers (each spends
// its own mined output), sent in lanes until the service goes away; the wallets' resending
// to the next service; and the checks that nothing was lost.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { apiContextOf } from '../../src/compose.js';
import { parseTokenScript } from '../../src/domain/token-script.js';
import type { RunningService } from '../../src/service.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { startServiceOn } from '../support/service-in-temp.js';
import { expectNoOutputBothSpentAndUnspent as expectSpendsConsistent } from '../support/store-invariants.js';
import { party } from '../support/token-world.js';
import { http, type TokenFacts, transferOf, utxosOf } from './e2e-http.js';
import { eventually } from './support.js';

const HOLDERS = [party('restart holder 0'), party('restart holder 1'), party('restart holder 2')];
const RECIPIENTS = [party('restart recipient 0'), party('restart recipient 1')];
const OUTPUTS_PER_HOLDER = 8;
const FEE = 100n;
const LANES = 4;
const SERVICE_FLAGS = ['--port', '0', '--block-interval-ms', '0', '--log-level', 'error'];

export interface Planned {
  readonly rawtx: string;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

export type Outcome =
  | { readonly kind: 'ticket'; readonly id: string }
  | { readonly kind: 'none'; readonly why: string };

export interface Stream {
  readonly key: string;
  readonly token: TokenFacts;
  readonly supply: bigint;
  readonly mintAddress: string;
  readonly planned: readonly Planned[];
  /** Tickets of the mints made before the stream. */
  readonly mintTickets: number;
}

export function startOn(dataDir: string): Promise<RunningService> {
  return startServiceOn(dataDir, SERVICE_FLAGS);
}

export interface StreamRun {
  readonly dataDir: string;
  readonly stream: Stream;
  /** The service the suite runs on the folder now: stopped in the suite's `after`, if set. */
  service: RunningService | undefined;
}

/**
 * A data folder `tokenproxy-<label>-*` with a prepared stream, made in the calling suite's
 * `before` (by a service stopped again); its service stopped and the folder removed in its `after`.
 */
export function streamInDataDir(label: string): StreamRun {
  const dataDir = mkdtempSync(join(tmpdir(), `tokenproxy-${label}-`));
  let stream: Stream | undefined;
  const run: StreamRun = {
    dataDir,
    get stream() {
      if (stream === undefined) throw new Error(`${label}: the stream is prepared in the suite's before`);
      return stream;
    },
    service: undefined,
  };
  before(async () => {
    run.service = await startOn(dataDir);
    stream = await prepareStream(run.service);
    await run.service.stop();
    run.service = undefined;
  });
  after(async () => {
    await run.service?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return run;
}

/** `tokenproxy start` in its own process; resolves with its base URL and a kill -9 (awaits the exit). */
export function startProcess(dataDir: string): Promise<{ url: string; kill(): Promise<void> }> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const args = JSON.stringify(['--data-dir', dataDir, ...SERVICE_FLAGS]);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '-e', `import('./src/cli/start.ts').then((m) => m.runStart(${args}))`],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    // The banner is on stderr (stdout carries the log records).
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const url = /running at (http:\/\/[0-9.:]+)/.exec(err)?.[1];
      if (url !== undefined) resolve({ url, kill });
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`service process exited (${code ?? signal}): ${err || out}`)),
    );
  });
}

/** Sends the stream to a new service process on `dataDir` and kills it (SIGKILL) after `killAfter` tickets. */
export async function sendUntilKilled(
  dataDir: string,
  stream: Stream,
  killAfter: number,
): Promise<Outcome[]> {
  const running = await startProcess(dataDir);
  try {
    return await sendStream(running.url, stream, killAfter, running.kill);
  } finally {
    await running.kill();
  }
}

/** Mints each holder its outputs, mines them, and signs one transfer per output. */
export async function prepareStream(service: RunningService): Promise<Stream> {
  const { parts } = service;
  const key = (await createApiKey(parts.db, parts.masterKey, { name: 'wallets', scopes: ['submit'] })).key;
  for (const holder of HOLDERS)
    for (let i = 0; i < OUTPUTS_PER_HOLDER; i++)
      await mintTokens(apiContextOf(parts), parts.keys.mint, {
        to: holder.address,
        amount: BigInt(1_000_000 + i),
      });
  await parts.devnet!.mine(1);
  await eventually(async () => {
    const rows = await parts.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
    );
    return rows[0]?.n === '0' ? true : undefined;
  }, 'the mints MINED');
  const token = parts.ctx.token;
  const planned: Planned[] = [];
  for (const [h, holder] of HOLDERS.entries()) {
    const outputs = await utxosOf(service.url!, key, holder.address);
    assert.equal(outputs.length, OUTPUTS_PER_HOLDER);
    for (const [i, output] of outputs.entries()) {
      const to = RECIPIENTS[(h + i) % RECIPIENTS.length]!;
      const amount = BigInt(10_000 * (i + 1) + h);
      const rawtx = transferOf(token, { from: holder, inputs: [output], to, amount, fee: FEE });
      planned.push({ rawtx, from: holder.address, to: to.address, amount });
    }
  }
  return {
    key,
    token,
    supply: BigInt(parts.token.supply),
    mintAddress: parts.token.mintAddress,
    planned,
    mintTickets: HOLDERS.length * OUTPUTS_PER_HOLDER,
  };
}

export async function submit(url: string, key: string, rawtx: string): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/v2/transfer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rawtx }),
    });
    const text = await res.text();
    assert.notEqual(res.status, 500, text);
    if (res.status === 200)
      return { kind: 'ticket', id: (JSON.parse(text) as { ticketId: string }).ticketId };
    return { kind: 'none', why: `${res.status} ${text}` };
  } catch (err) {
    return { kind: 'none', why: String(err) };
  }
}

/** Sends the stream in lanes; `interrupt` runs once `after` transfers were answered. */
export async function sendStream(
  url: string,
  stream: Stream,
  after: number,
  interrupt: () => Promise<void>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let answered = 0;
  let interrupted: Promise<void> | undefined;
  const queue = stream.planned.map((_, i) => i);
  const lane = async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const outcome = await submit(url, stream.key, stream.planned[i]!.rawtx);
      outcomes[i] = outcome;
      if (outcome.kind === 'ticket' && ++answered === after) interrupted = interrupt();
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  await interrupted;
  return outcomes;
}

/** The wallets send every transfer again; an answered one gets its first ticket back. */
export async function resend(
  service: RunningService,
  stream: Stream,
  first: readonly Outcome[],
): Promise<string[]> {
  const tickets: string[] = [];
  for (const [i, p] of stream.planned.entries()) {
    const outcome = await submit(service.url!, stream.key, p.rawtx);
    assert.equal(outcome.kind, 'ticket', `transfer ${i} after the restart: ${JSON.stringify(outcome)}`);
    if (outcome.kind !== 'ticket') continue;
    const earlier = first[i];
    if (earlier?.kind === 'ticket') assert.equal(outcome.id, earlier.id, `transfer ${i}: its first ticket`);
    tickets.push(outcome.id);
  }
  assert.equal(new Set(tickets).size, stream.planned.length, 'one ticket per transfer');
  return tickets;
}

/** Every ticket reaches SUCCESS; after a block, MINED; none FAILED. */
export async function expectAllMined(service: RunningService, stream: Stream, tickets: readonly string[]) {
  const status = async (id: string) => {
    const res = await http(service.url!, 'GET', `/v2/ticket?ticketID=${id}`, { key: stream.key });
    assert.equal(res.status, 200, `ticket ${id}: ${res.text}`);
    return (res.json as { status: string }).status;
  };
  for (const id of tickets) {
    const accepted = async () => (['SUCCESS', 'MINED'].includes(await status(id)) ? true : undefined);
    await eventually(accepted, `ticket ${id} SUCCESS`, 300);
  }
  await service.parts.devnet!.mine(1);
  for (const id of tickets)
    await eventually(
      async () => ((await status(id)) === 'MINED' ? true : undefined),
      `ticket ${id} MINED`,
      300,
    );
  const rows = await service.parts.db.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM tickets GROUP BY status',
  );
  // One ticket more than mints and transfers: the token's deploy is tracked to MINED by a ticket too.
  assert.deepEqual(
    rows.map((r) => [r.status, Number(r.n)]),
    [['MINED', 1 + stream.mintTickets + stream.planned.length]],
  );
}

/** Balances are what the transfers make them (over the API), and they sum to the supply. */
export async function expectBalances(service: RunningService, stream: Stream) {
  const expected = new Map<string, bigint>();
  const add = (address: string, amount: bigint) =>
    expected.set(address, (expected.get(address) ?? 0n) + amount);
  for (const holder of HOLDERS)
    for (let i = 0; i < OUTPUTS_PER_HOLDER; i++) add(holder.address, BigInt(1_000_000 + i));
  for (const p of stream.planned) {
    add(p.from, -(p.amount + FEE));
    add(p.to, p.amount);
    add(stream.token.feeAddress, FEE);
  }
  const minted = [...expected.values()].reduce((a, b) => a + b, 0n);
  add(stream.mintAddress, stream.supply - minted);
  const owners = await service.parts.db.query<{ owner: string }>('SELECT DISTINCT owner FROM token_outputs');
  for (const { owner } of owners) if (!expected.has(owner)) expected.set(owner, 0n);
  const res = await http(service.url!, 'POST', '/v2/balance', {
    key: stream.key,
    body: [...expected.keys()],
  });
  assert.equal(res.status, 200, res.text);
  const got = new Map(
    (res.json as { address: string; amt: number }[]).map((b) => [b.address, BigInt(b.amt)]),
  );
  assert.deepEqual(got, expected);
  assert.equal(
    [...got.values()].reduce((a, b) => a + b, 0n),
    stream.supply,
  );
}

/** Each output is spent by the one transaction that spends it, or by none; all are mined. */
export async function expectNoOutputBothSpentAndUnspent(service: RunningService) {
  const { db } = service.parts;
  await expectSpendsConsistent(db);
  const unmined = await db.query<{ n: string }>(
    "SELECT count(*) AS n FROM transactions WHERE state <> 'mined'",
  );
  assert.equal(unmined[0]?.n, '0');
}

/** The devnet's unspent token outputs are exactly the index's. */
export async function expectLedgerAndIndexAgree(service: RunningService, stream: Stream) {
  const { db, devnet } = service.parts;
  assert.deepEqual(devnet!.mempoolTxids(), []);
  const onChain = devnet!
    .utxos()
    .flatMap((u) => {
      const inscription = parseTokenScript(u.lockingScript)?.inscription;
      const outpoint = `${u.txid}_${u.vout}`;
      if (inscription === undefined || inscription.op === 'burn') return [];
      const id = inscription.op === 'deploy+mint' ? outpoint : inscription.id;
      return id === stream.token.tokenId ? [outpoint] : [];
    })
    .sort();
  const indexed = (
    await db.query<{ txid: string; vout: number }>(
      "SELECT txid, vout FROM token_outputs WHERE spent_by IS NULL AND op <> 'burn'",
    )
  )
    .map((o) => `${o.txid}_${o.vout}`)
    .sort();
  assert.ok(indexed.length >= stream.planned.length * 2);
  assert.deepEqual(onChain, indexed);
}

/** The balances of every owner the index knows, summed over the API (live tickets included). */
export async function balanceSum(service: RunningService, stream: Stream): Promise<bigint> {
  const owners = await service.parts.db.query<{ owner: string }>('SELECT DISTINCT owner FROM token_outputs');
  const body = owners.map((o) => o.owner);
  const res = await http(service.url!, 'POST', '/v2/balance', { key: stream.key, body });
  assert.equal(res.status, 200, res.text);
  return (res.json as { amt: number }[]).reduce((sum, b) => sum + BigInt(b.amt), 0n);
}

/** Tickets recorded beyond the mints (right after a restart: those recorded before it). */
export async function recordedTransfers(service: RunningService, stream: Stream): Promise<number> {
  const rows = await service.parts.db.query<{ n: string }>('SELECT count(*) AS n FROM tickets');
  return Number(rows[0]?.n) - stream.mintTickets;
}
