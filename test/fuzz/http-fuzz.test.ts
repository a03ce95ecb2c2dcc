// Fuzz over real HTTP against one running service (embedded default): every answer is a 2xx or
// a 4xx with a problem body whose code is in the registry, never a 5xx; afterwards the balances
// and the supply are what they were (but for transfers the service accepted).
// FUZZ_RUNS sets the number of requests (default 10,000; LONG=1: 100,000), FUZZ_SECONDS the time
// after which no new run starts (default 75; LONG=1: 1,800), FUZZ_SEED the seed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { apiContextOf } from '../../src/compose.js';
import { ERRORS } from '../../src/http/error-statuses.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';
import { type FuzzRequest, type FuzzWorld, requestArb } from './http-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.LONG === '1' ? 100_000 : 10_000));
const SECONDS = Number(process.env.FUZZ_SECONDS ?? (process.env.LONG === '1' ? 1800 : 75));
/** Requests sent at once in one property run. */
const BATCH = 8;

const holder = party('fuzz holder');
const recipient = party('fuzz recipient');
const stranger = party('fuzz stranger');

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly text: string;
}

describe(`HTTP fuzz (${RUNS} requests)`, () => {
  let t: TestService;
  let world: FuzzWorld;
  let owners: string[];
  // A request that never answers fails the run rather than hang it.
  const agent = new Agent({
    connections: BATCH,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const accepted: FuzzRequest[] = [];
  const tally = new Map<string, number>();

  const balances = async () => {
    const res = await http(t.url, 'POST', '/v2/balance', { key: world.key, body: owners });
    assert.equal(res.status, 200, res.text);
    return res.json as { address: string; amt: number }[];
  };
  const status = async () => {
    const res = await http(t.url, 'GET', '/v2/admin/status', { key: t.adminKey });
    assert.equal(res.status, 200, res.text);
    const { supply } = res.json as { supply: unknown };
    return supply;
  };

  before(async () => {
    t = await startTestService(['--no-rate-limit-enabled']);
    const { parts } = t.service;
    const key = (await createApiKey(parts.db, parts.masterKey, { name: 'fuzz', scopes: ['read', 'submit'] }))
      .key;
    const tickets: string[] = [];
    for (let i = 0; i < 3; i++)
      tickets.push(
        (
          await mintTokens(apiContextOf(parts), parts.keys.mint, {
            to: holder.address,
            amount: BigInt(500_000 + i),
          })
        ).ticketId,
      );
    await parts.devnet!.mine(1);
    await eventually(async () => {
      const rows = await parts.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
      );
      return rows[0]?.n === '0' ? true : undefined;
    }, 'the mints MINED');
    const outputs = await utxosOf(t.url, key, holder.address);
    assert.equal(outputs.length, 3);
    const token = parts.ctx.token;
    const transfers = outputs.map((o, i) =>
      Buffer.from(
        transferOf(token, { from: holder, inputs: [o], to: recipient, amount: BigInt(1000 + i), fee: 100n }),
        'base64',
      ),
    );
    const spec = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(spec.paths).map(([path, ops]) => ({
      path,
      methods: Object.keys(ops).map((m) => m.toUpperCase()),
    }));
    assert.ok(routes.length >= 15, `the OpenAPI document lists the routes: ${routes.length}`);
    world = {
      routes,
      validAddresses: [
        holder.address,
        recipient.address,
        stranger.address,
        token.feeAddress,
        token.mintAddress,
      ],
      transfers,
      key,
      adminKey: t.adminKey,
      ticketIds: tickets,
      txids: outputs.map((o) => o.txid),
    };
    const rows = await parts.db.query<{ owner: string }>('SELECT DISTINCT owner FROM token_outputs');
    owners = [...new Set([...rows.map((r) => r.owner), ...world.validAddresses])].sort();
  });

  after(async () => {
    await agent.close();
    await t?.stop();
  });

  const send = async (r: FuzzRequest): Promise<Answer> => {
    const res = await request(`${t.url}${r.path}`, {
      method: r.method as 'GET',
      headers: r.headers,
      ...(r.body !== undefined && { body: r.body }),
      dispatcher: agent,
    });
    const type = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null;
    // A live feed (GET /v2/sync/stream) answers with an endless body: its status and type are
    // the answer, and the stream is closed here.
    if (type?.startsWith('text/event-stream') === true) {
      res.body.destroy();
      return { status: res.statusCode, type, text: '' };
    }
    return { status: res.statusCode, type, text: await res.body.text() };
  };

  const check = (r: FuzzRequest, a: Answer) => {
    const what = `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers)} ${(r.body ?? '').slice(0, 300)}\n-> ${a.status} ${a.text.slice(0, 500)}`;
    assert.ok(a.status >= 200 && a.status < 500 && (a.status < 300 || a.status >= 400), what);
    if (a.status < 400) {
      tally.set(String(a.status), (tally.get(String(a.status)) ?? 0) + 1);
      if (r.method === 'POST' && /^\/v[12]\/transfer/.test(r.path)) accepted.push(r);
      return;
    }
    assert.equal(a.type, 'application/problem+json', what);
    const problem = JSON.parse(a.text) as { code?: string; status?: number };
    const spec = ERRORS[problem.code as keyof typeof ERRORS];
    assert.ok(spec !== undefined, `a registered code: ${what}`);
    assert.equal(spec.status, a.status, what);
    assert.equal(problem.status, a.status, what);
    tally.set(problem.code!, (tally.get(problem.code!) ?? 0) + 1);
  };

  it('answers every request with a 2xx or a registered 4xx problem, never a 5xx', async () => {
    const before = { balances: await balances(), supply: await status() };
    const started = Date.now();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb(world), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        sent += batch.length;
        const answers = await Promise.all(batch.map(send));
        for (const [i, r] of batch.entries()) check(r, answers[i]!);
      }),
      {
        numRuns: Math.ceil(RUNS / BATCH),
        interruptAfterTimeLimit: SECONDS * 1000,
        markInterruptAsFailure: false,
        ...(process.env.FUZZ_SEED !== undefined && { seed: Number(process.env.FUZZ_SEED) }),
      },
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`# fuzz: ${sent} requests in ${seconds.toFixed(1)} s; ${accepted.length} transfers accepted`);
    console.log(
      `# answers: ${[...tally]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}`,
    );

    assert.ok(sent >= Math.min(RUNS, 1000), `at least 1,000 requests in ${SECONDS} s: ${sent}`);
    const afterwards = await balances();
    assert.deepEqual(await status(), before.supply, 'the supply is unchanged');
    const sum = (list: { amt: number }[]) => list.reduce((s, b) => s + BigInt(b.amt), 0n);
    assert.equal(sum(afterwards), sum(before.balances), 'no token made or lost');
    if (accepted.length === 0) assert.deepEqual(afterwards, before.balances, 'the balances are unchanged');
  });
});
