// The admin routes over a real server on a real port, and the CLI commands run as child
// processes against it: keys (create, list, revoke at once), mint (balance follows), mine
// (tickets go MINED), status (genesis = circulating + treasury + burned), and their errors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { ADMIN_KEY_FILE_NAME } from '../../src/cli/args.js';
import { apiContextOf } from '../../src/compose.js';
import { buildApp } from '../../src/http/app.js';
import { adminRoutes } from '../../src/http/routes/admin-routes.js';
import { ADMIN_KEY_FILE } from '../../src/service.js';
import { storeApiKeyVerifier } from '../../src/store/access/api-keys-store.js';
import { party } from '../support/token-world.js';
import { eventually, startTestService, type TestService } from './support.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY =
  "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));";

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: Record<string, unknown>;
}

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `tokenproxy ...args` as a child process (asynchronously: the server is in this process). */
function cli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', ENTRY, ...args],
      { cwd: ROOT, env: { ...process.env, TOKENPROXY_DATA_DIR: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function json(run: CliRun): Record<string, unknown> {
  assert.equal(run.code, 0, `exit 0 expected; stderr: ${run.stderr}`);
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

function failed(run: CliRun, pattern: RegExp): void {
  assert.equal(run.code, 1, `exit 1 expected; stdout: ${run.stdout}`);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, pattern);
}

describe('admin routes and the CLI', () => {
  let t: TestService;
  const alice = party('admin e2e alice');
  const bob = party('admin e2e bob');
  const carol = party('admin e2e carol');

  async function api(method: string, path: string, opts: { key?: string | null; body?: unknown } = {}) {
    const key = opts.key === undefined ? t.adminKey : opts.key;
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        ...(key !== null && { authorization: `Bearer ${key}` }),
        ...(opts.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(opts.body !== undefined && { body: JSON.stringify(opts.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    } satisfies Answer;
  }

  async function balanceOf(address: string): Promise<number> {
    const answer = await api('POST', '/v2/balance', { body: [address] });
    assert.equal(answer.status, 200);
    return (answer.body as unknown as { amt: number }[])[0]!.amt;
  }

  async function status() {
    const answer = await api('GET', '/v2/admin/status');
    assert.equal(answer.status, 200);
    return answer.body as unknown as StatusJson;
  }

  const connection = () => ['--url', t.url, '--data-dir', t.dataDir];

  before(async () => {
    t = await startTestService();
  });

  after(async () => {
    await t?.stop();
  });

  describe('routes', () => {
    const routes: [string, string, unknown?][] = [
      ['POST', '/v2/admin/keys', {}],
      ['GET', '/v2/admin/keys'],
      ['DELETE', '/v2/admin/keys/0190a0b0-0000-7000-8000-000000000000'],
      ['PATCH', '/v2/admin/keys/0190a0b0-0000-7000-8000-000000000000', { rateLimit: 5 }],
      ['POST', '/v2/admin/mint', { to: 'x', amount: '1' }],
      ['POST', '/v2/admin/mine', {}],
      ['GET', '/v2/admin/status'],
    ];

    it('answer 401 without a key and 403 with a read or submit key', async () => {
      const reader = await api('POST', '/v2/admin/keys', { body: { name: 'reader', scopes: ['read'] } });
      const submitter = await api('POST', '/v2/admin/keys', { body: { scopes: ['submit'] } });
      assert.equal(reader.status, 201);
      assert.equal(submitter.status, 201);
      for (const [method, path, body] of routes) {
        const none = await api(method, path, { key: null, body });
        assert.equal(none.status, 401, `${method} ${path}`);
        assert.equal(none.body.code, 'UNAUTHORIZED');
        assert.match(none.type, /^application\/problem\+json/);
        for (const key of [reader.body.key, submitter.body.key]) {
          const forbidden = await api(method, path, { key: key as string, body });
          assert.equal(forbidden.status, 403, `${method} ${path}`);
          assert.equal(forbidden.body.code, 'FORBIDDEN');
        }
      }
    });

    it('create a key (201, shown once), list keys without secrets, revoke at once', async () => {
      const created = await api('POST', '/v2/admin/keys', {
        body: { name: 'wallet', scopes: ['read', 'submit'] },
      });
      assert.equal(created.status, 201);
      const { id, key, webhookSecret } = created.body as { id: string; key: string; webhookSecret: string };
      assert.match(key, /^tp_/);
      assert.match(webhookSecret, /^whsec_/);
      assert.equal(created.body.name, 'wallet');
      assert.deepEqual(created.body.scopes, ['read', 'submit']);

      // used once, so the verifier remembers it: the revocation must make it forget
      assert.equal((await api('POST', '/v2/balance', { key, body: [alice.address] })).status, 200);

      const listed = await api('GET', '/v2/admin/keys');
      assert.equal(listed.status, 200);
      const entry = (listed.body.keys as Record<string, unknown>[]).find((k) => k.id === id);
      assert.deepEqual(Object.keys(entry ?? {}).sort(), [
        'createdAt',
        'id',
        'lastUsedAt',
        'name',
        'rateLimit',
        'revokedAt',
        'scopes',
      ]);
      assert.equal(entry?.rateLimit, null);
      assert.equal(entry?.revokedAt, null);
      assert.ok(!JSON.stringify(listed.body).includes(key));
      assert.ok(!JSON.stringify(listed.body).includes(webhookSecret));

      const revoked = await api('DELETE', `/v2/admin/keys/${id}`);
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.id, id);
      const refused = await api('POST', '/v2/balance', { key, body: [alice.address] });
      assert.equal(refused.status, 401);
      const again = await api('DELETE', `/v2/admin/keys/${id}`);
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'NOT_FOUND');
      const after = (await api('GET', '/v2/admin/keys')).body.keys as Record<string, unknown>[];
      assert.equal(typeof after.find((k) => k.id === id)?.revokedAt, 'string');
    });

    it('an admin key cannot revoke itself (409 KEY_IN_USE); another admin key can', async () => {
      const second = await api('POST', '/v2/admin/keys', {
        body: { name: 'second admin', scopes: ['admin'] },
      });
      assert.equal(second.status, 201);
      const { id, key } = second.body as { id: string; key: string };
      const self = await api('DELETE', `/v2/admin/keys/${id}`, { key });
      assert.equal(self.status, 409);
      assert.equal(self.body.code, 'KEY_IN_USE');
      assert.equal((await api('GET', '/v2/admin/keys', { key })).status, 200, 'the key still works');
      const byOther = await api('DELETE', `/v2/admin/keys/${id}`);
      assert.equal(byOther.status, 200);
      assert.equal((await api('GET', '/v2/admin/keys', { key })).status, 401);
    });

    it('refuse unknown keys to revoke, unknown scopes and an empty scope list', async () => {
      const unknown = await api('DELETE', '/v2/admin/keys/no-such-key');
      assert.equal(unknown.status, 404);
      assert.match(unknown.type, /^application\/problem\+json/);
      assert.match(String(unknown.body.detail), /no-such-key/);
      const badScope = await api('POST', '/v2/admin/keys', { body: { scopes: ['read', 'root'] } });
      assert.equal(badScope.status, 400);
      const noScope = await api('POST', '/v2/admin/keys', { body: { scopes: [] } });
      assert.equal(noScope.status, 400);
    });

    it('mint out of the treasury: the balance shows it and status moves it to circulating', async () => {
      const before = await status();
      const minted = await api('POST', '/v2/admin/mint', { body: { to: alice.address, amount: '12.5' } });
      assert.equal(minted.status, 200, JSON.stringify(minted.body));
      assert.deepEqual(Object.keys(minted.body).sort(), ['ticketId', 'txid']);
      assert.match(String(minted.body.txid), /^[0-9a-f]{64}$/);
      assert.equal(await balanceOf(alice.address), 1_250_000);
      const ticket = await api('GET', `/v2/ticket?ticketID=${minted.body.ticketId}`);
      assert.equal(ticket.body.tx_id, minted.body.txid);

      const after = await status();
      assert.equal(after.supply.circulating.atomic - before.supply.circulating.atomic, 1_250_000);
      assert.equal(before.supply.treasury.atomic - after.supply.treasury.atomic, 1_250_000);
      assertBalances(after);
    });

    it('refuse a mint to a bad address or of a bad amount', async () => {
      const cases: [unknown, string][] = [
        [{ to: 'not-an-address', amount: '1' }, 'INVALID_ADDRESS'],
        [{ to: alice.address, amount: '1.234567' }, 'INVALID_AMOUNT'],
        [{ to: alice.address, amount: '0' }, 'INVALID_AMOUNT'],
        [{ to: alice.address, amount: '-1' }, 'INVALID_AMOUNT'],
        [{ to: alice.address, amount: '99999999999999' }, 'INVALID_AMOUNT'],
        [{ to: alice.address }, 'INVALID_REQUEST'],
      ];
      for (const [body, code] of cases) {
        const answer = await api('POST', '/v2/admin/mint', { body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.body.code, code, JSON.stringify(body));
      }
    });

    it('mine blocks on the devnet: the tip follows and a minted ticket goes MINED', async () => {
      const minted = await api('POST', '/v2/admin/mint', { body: { to: bob.address, amount: '1' } });
      const tip = (await status()).tip;
      const mined = await api('POST', '/v2/admin/mine', { body: { blocks: 2 } });
      assert.equal(mined.status, 200);
      const blocks = mined.body.blocks as { height: number; hash: string }[];
      assert.deepEqual(
        blocks.map((b) => b.height),
        [tip.height + 1, tip.height + 2],
      );
      assert.deepEqual((await status()).tip.hash, blocks[1]?.hash);
      await eventually(async () => {
        const ticket = await api('GET', `/v2/ticket?ticketID=${minted.body.ticketId}`);
        return ticket.body.status === 'MINED' ? ticket : undefined;
      }, 'MINED');
      assert.ok(((await status()).tickets.MINED ?? 0) >= 1);

      const one = await api('POST', '/v2/admin/mine', { body: {} });
      assert.equal((one.body.blocks as unknown[]).length, 1);
      const bare = await api('POST', '/v2/admin/mine');
      assert.equal(bare.status, 200, JSON.stringify(bare.body));
      assert.equal((bare.body.blocks as unknown[]).length, 1);
      const tooMany = await api('POST', '/v2/admin/mine', { body: { blocks: 0 } });
      assert.equal(tooMany.status, 400);
    });

    it('refuse to mine when the ledger is not the devnet (404 with a clear detail)', async () => {
      const { parts } = t.service;
      const app = buildApp({
        config: parts.config,
        logger: pino({ level: 'silent' }),
        apiKeys: storeApiKeyVerifier(parts.db),
        readiness: async () => ({ ready: true }),
        routes: [
          adminRoutes({
            ctx: apiContextOf(parts),
            masterKey: parts.masterKey,
            environment: parts.config.env,
            maxAddresses: parts.config.maxAddresses,
            mintKey: parts.keys.mint,
            miner: null,
            genesisSupply: BigInt(parts.token.supply),
          }),
        ],
      });
      try {
        const answer = await app.inject({
          method: 'POST',
          url: '/v2/admin/mine',
          headers: { authorization: `Bearer ${t.adminKey}` },
          payload: {},
        });
        assert.equal(answer.statusCode, 404);
        assert.equal(answer.json().code, 'NOT_FOUND');
        assert.match(answer.json().detail, /devnet/);
      } finally {
        await app.close();
      }
    });

    it('status reports the tip, the supply balancing to genesis, the funding pool and tickets', async () => {
      const s = await status();
      assert.equal(s.tokenId, t.service.parts.token.tokenId);
      assert.equal(s.supply.genesis.atomic, Number(t.service.parts.token.supply));
      assert.equal(s.supply.genesis.tokens, (BigInt(t.service.parts.token.supply) / 100_000n).toString());
      assertBalances(s);
      assert.equal(s.tip.height, (await t.service.parts.ledger.tip()).height);
      assert.ok(s.fundingPool.available > 0);
      for (const st of ['SUCCESS', 'MINED', 'FAILED']) assert.equal(typeof s.tickets[st], 'number', st);
    });
  });

  describe('CLI', () => {
    it('reads the admin key from the file the service writes', () => {
      assert.equal(ADMIN_KEY_FILE_NAME, ADMIN_KEY_FILE);
    });

    it('keys create, list and revoke', async () => {
      const created = json(
        await cli(['keys', 'create', '--scopes', 'read', '--name', 'cli reader', ...connection()]),
      );
      assert.match(String(created.key), /^tp_/);
      assert.match(String(created.webhookSecret), /^whsec_/);
      assert.deepEqual(created.scopes, ['read']);
      assert.equal(created.name, 'cli reader');
      const key = String(created.key);
      assert.equal((await api('POST', '/v2/balance', { key, body: [alice.address] })).status, 200);
      assert.equal((await api('POST', '/v2/admin/mine', { key, body: {} })).status, 403);

      const defaults = json(await cli(['keys', 'create', ...connection()]));
      assert.deepEqual(defaults.scopes, ['read', 'submit']);

      // the key given on the command line instead of the data folder
      const listed = json(await cli(['keys', 'list', '--url', t.url, '--admin-key', t.adminKey]));
      const ids = (listed.keys as { id: string }[]).map((k) => k.id);
      assert.ok(ids.includes(String(created.id)) && ids.includes(String(defaults.id)));
      assert.ok(!JSON.stringify(listed).includes(key));

      const revoked = json(await cli(['keys', 'revoke', String(created.id), ...connection()]));
      assert.equal(revoked.id, created.id);
      assert.equal((await api('POST', '/v2/balance', { key, body: [alice.address] })).status, 401);
      failed(
        await cli(['keys', 'revoke', String(created.id), ...connection()]),
        /404 NOT_FOUND: .*no live API key/,
      );
      failed(await cli(['keys', 'create', '--scopes', 'read,root', ...connection()]), /400/);
      failed(await cli(['keys', 'rotate', ...connection()]), /unknown subcommand 'rotate'/);
    });

    it('keys create --rate-limit, keys limit ID N|default, shown in keys list', async () => {
      const created = json(await cli(['keys', 'create', '--rate-limit', '7', ...connection()]));
      assert.equal(created.rateLimit, 7);
      const rateOf = async () =>
        (
          json(await cli(['keys', 'list', ...connection()])).keys as { id: string; rateLimit: unknown }[]
        ).find((k) => k.id === created.id)?.rateLimit;
      assert.equal(await rateOf(), 7);
      const changed = json(await cli(['keys', 'limit', String(created.id), '9', ...connection()]));
      assert.equal(changed.rateLimit, 9);
      assert.equal(await rateOf(), 9);
      json(await cli(['keys', 'limit', String(created.id), 'default', ...connection()]));
      assert.equal(await rateOf(), null);
      failed(await cli(['keys', 'limit', String(created.id), '0', ...connection()]), /positive integer/);
      failed(await cli(['keys', 'create', '--rate-limit', 'many', ...connection()]), /positive integer/);
      failed(
        await cli(['keys', 'limit', '0190a0b0-0000-7000-8000-000000000000', '5', ...connection()]),
        /404 NOT_FOUND/,
      );
    });

    it('mint, then the balance and status show it', async () => {
      const before = await status();
      const minted = json(await cli(['mint', '--to', carol.address, '--amount', '3.25', ...connection()]));
      assert.deepEqual(Object.keys(minted).sort(), ['ticketId', 'txid']);
      assert.match(String(minted.txid), /^[0-9a-f]{64}$/);
      assert.equal(await balanceOf(carol.address), 325_000);

      const shown = json(await cli(['status', ...connection()])) as unknown as StatusJson;
      assertBalances(shown);
      assert.equal(shown.supply.circulating.atomic - before.supply.circulating.atomic, 325_000);
      assert.equal(shown.supply.genesis.tokens, before.supply.genesis.tokens);
    });

    it('mine, with the data folder from TOKENPROXY_DATA_DIR', async () => {
      const tip = (await status()).tip;
      const mined = json(
        await cli(['mine', '--blocks', '3', '--url', t.url], { TOKENPROXY_DATA_DIR: t.dataDir }),
      );
      assert.deepEqual(
        (mined.blocks as { height: number }[]).map((b) => b.height),
        [tip.height + 1, tip.height + 2, tip.height + 3],
      );
      const single = json(await cli(['mine', ...connection()]));
      assert.equal((single.blocks as unknown[]).length, 1);
      failed(await cli(['mine', '--blocks', 'two', ...connection()]), /--blocks must be a positive integer/);
    });

    it('errors go to stderr with exit 1', async () => {
      failed(
        await cli(['mint', '--to', 'not-an-address', '--amount', '1', ...connection()]),
        /400 INVALID_ADDRESS/,
      );
      failed(await cli(['mint', '--to', carol.address, ...connection()]), /--amount is required/);
      failed(
        await cli(['mint', '--to', carol.address, '--amount', '1', '--colour', 'red', ...connection()]),
        /colour/,
      );
      failed(await cli(['status', '--url', t.url, '--admin-key', 'tp_wrong']), /401 UNAUTHORIZED/);

      const empty = mkdtempSync(join(tmpdir(), 'tokenproxy-cli-'));
      try {
        failed(
          await cli(['status', '--url', t.url, '--data-dir', empty]),
          /no admin key: cannot read .*admin\.key/,
        );
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
      const closed = await closedPort();
      failed(
        await cli(['status', '--url', `http://127.0.0.1:${closed}`, '--admin-key', t.adminKey]),
        /cannot reach the service .*ECONNREFUSED/,
      );
    });

    it('prints usage on --help with exit 0', async () => {
      const run = await cli(['mint', '--help']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /usage: tokenproxy mint --to ADDRESS --amount TOKENS/);
    });
  });
});

interface AmountJson {
  readonly atomic: number;
  readonly tokens: string;
}

interface StatusJson {
  readonly tokenId: string;
  readonly tip: { height: number; hash: string };
  readonly supply: Record<'genesis' | 'circulating' | 'treasury' | 'burned', AmountJson>;
  readonly fundingPool: { available: number };
  readonly tickets: Record<string, number>;
}

function assertBalances(s: StatusJson): void {
  const { genesis, circulating, treasury, burned } = s.supply;
  assert.equal(
    BigInt(genesis.atomic),
    [circulating, treasury, burned].reduce((sum, a) => sum + BigInt(a.atomic), 0n),
  );
}

/** A port nothing listens on (a server bound it, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
