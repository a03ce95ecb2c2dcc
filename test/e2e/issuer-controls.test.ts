// Issue 32, the issuer's controls at the cosignature, over a real server on each database
// (PGlite; PostgreSQL with TEST_DATABASE_URL): the pause, the blacklist, the amount limits and
// the screening hook (a fake screener on loopback), each on /v2/transfer and /v1/transfer, and
// the control record (append-only, with the admin key that made each change).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { createApiKey, listApiKeys } from '../../src/store/access/api-keys-store.js';
import { cli } from '../support/cli-child.js';
import { fundHolders } from '../support/fund-holders.js';
import { describeServiceOnEachDb } from '../support/service-on-each-db.js';
import { type Party, party } from '../support/token-world.js';
import { assertProblem, http, transferOf, utxosOf } from './e2e-http.js';
import { eventually } from './support.js';

const PATHS = ['/v2/transfer', '/v1/transfer'] as const;
/** The limits the suite's service runs with (atomic units). */
const TRANSFER_LIMIT = 50_000n;
const DAILY_LIMIT = 80_000n;

/** The fake screener: denies a transfer paying `sanctioned`, answers late for `slow`. */
const sanctioned = party('controls sanctioned');
const slow = party('controls slow');
const screened: { txid: string; outputs: { address: string; amount: string }[] }[] = [];
let screener: Server;
let screenerUrl: string;

before(async () => {
  screener = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const asked = JSON.parse(body) as (typeof screened)[number];
      screened.push(asked);
      const to = asked.outputs.map((o) => o.address);
      const answer = to.includes(sanctioned.address)
        ? { decision: 'deny', reason: 'OFAC SDN match 4411' }
        : { decision: 'allow' };
      const send = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (to.includes(slow.address)) setTimeout(send, 1500);
      else send();
    });
  });
  await new Promise<void>((r) => screener.listen(0, '127.0.0.1', r));
  screenerUrl = `http://127.0.0.1:${(screener.address() as AddressInfo).port}/screen`;
});
after(() => new Promise<void>((r) => screener.close(() => r())));

describeServiceOnEachDb(
  'issuer controls at the cosignature',
  () => [
    '--transfer-limit',
    String(TRANSFER_LIMIT),
    '--daily-limit-per-address',
    String(DAILY_LIMIT),
    '--screening-url',
    screenerUrl,
    '--screening-timeout-ms',
    '300',
  ],
  (suite) => {
    let key: string;
    let adminId: string;
    const url = () => suite.t.url;
    const admin = (method: string, path: string, body?: unknown) =>
      http(url(), method, path, { key: suite.t.adminKey, body });

    const fund = (holders: readonly Party[], amount: bigint) => fundHolders(suite.t, key, holders, amount);
    const send = async (path: string, from: Party, to: Party, amount = 1_000n) => {
      const inputs = await utxosOf(url(), key, from.address);
      const rawtx = transferOf(suite.t.service.parts.ctx.token, { from, inputs, to, amount, fee: 100n });
      return http(url(), 'POST', path, { key, body: { rawtx } });
    };

    before(async () => {
      const { parts } = suite.t.service;
      ({ key } = await createApiKey(parts.db, parts.masterKey, {
        name: 'wallet',
        scopes: ['read', 'submit'],
      }));
      adminId = (await listApiKeys(parts.db)).find((k) => k.scopes.includes('admin'))!.id;
    });

    it('pause: no transfer is cosigned on v1 or v2, nor a mint; reads, freezes, burns and unpause work', async () => {
      const holder = party(`pause holder ${suite.target}`);
      const other = party(`pause other ${suite.target}`);
      await fund([holder], 10_000n);
      const paused = await admin('PUT', '/v2/admin/pause', { paused: true, reason: 'incident 17' });
      assert.equal(paused.status, 200, paused.text);
      assert.deepEqual(
        [(paused.json as { paused: boolean }).paused, (paused.json as { changedBy: string }).changedBy],
        [true, adminId],
      );
      for (const path of PATHS) assertProblem(await send(path, holder, other), 403, 'TRANSFERS_PAUSED');
      assertProblem(
        await admin('POST', '/v2/admin/mint', { to: other.address, amount: '1' }),
        403,
        'TRANSFERS_PAUSED',
      );
      // Reads work; the refused transfers reserved nothing.
      assert.equal((await utxosOf(url(), key, holder.address)).length, 1);
      await eventually(async () => {
        const config = await http(url(), 'GET', '/v1/config');
        return (config.json as { paused?: boolean }).paused === true ? true : undefined;
      }, '/v1/config says paused');
      // The issuer's other powers still work while paused.
      const frozen = await admin('POST', '/v2/admin/freezes', {
        address: other.address,
        reason: 'while paused',
      });
      assert.equal(frozen.status, 201, frozen.text);
      assert.equal(
        (await admin('DELETE', `/v2/admin/freezes/${other.address}`, { reason: 'done' })).status,
        200,
      );
      const burned = await admin('POST', '/v2/admin/burn', { amount: '0.00001' });
      assert.equal(burned.status, 200, burned.text);
      const again = await admin('PUT', '/v2/admin/pause', { paused: true, reason: 'twice' });
      assert.equal((again.json as { changed: boolean }).changed, false);

      const un = await admin('PUT', '/v2/admin/pause', { paused: false, reason: 'incident 17 closed' });
      assert.equal(un.status, 200, un.text);
      const passed = await send('/v2/transfer', holder, other);
      assert.equal(passed.status, 200, passed.text);
    });

    it('blacklist: an address on it can neither send nor receive (v1, v2, mint)', async () => {
      const sender = party(`bl sender ${suite.target}`);
      const listed = party(`bl listed ${suite.target}`);
      await fund([sender, listed], 10_000n);
      const added = await admin('POST', '/v2/admin/blacklist', {
        address: listed.address,
        reason: 'sanctions 4411',
      });
      assert.equal(added.status, 201, added.text);
      assert.equal((added.json as { listedBy: string }).listedBy, adminId);
      for (const path of PATHS) {
        assertProblem(
          await send(path, sender, listed),
          403,
          'ADDRESS_BLACKLISTED',
          new RegExp(listed.address),
        );
        assertProblem(await send(path, listed, sender), 403, 'ADDRESS_BLACKLISTED');
      }
      assertProblem(
        await admin('POST', '/v2/admin/mint', { to: listed.address, amount: '1' }),
        403,
        'ADDRESS_BLACKLISTED',
      );
      // Addresses no token output can be locked to: a listing would do nothing.
      for (const address of [
        '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
        'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      ])
        assertProblem(
          await admin('POST', '/v2/admin/blacklist', { address, reason: 'no' }),
          400,
          'ADDRESS_CANNOT_OWN_TOKENS',
        );
      const list = (await admin('GET', '/v2/admin/blacklist')).json as {
        listed: { address: string; balance: { atomic: number } }[];
      };
      assert.deepEqual(
        list.listed.map((l) => [l.address, l.balance.atomic]),
        [[listed.address, 10_000]],
      );
      assertProblem(
        await admin('POST', '/v2/admin/blacklist', {
          address: suite.t.service.parts.ctx.token.mintAddress,
          reason: 'x',
        }),
        400,
        'INVALID_PARAMETER',
      );
      const removed = await admin('DELETE', `/v2/admin/blacklist/${listed.address}`, { reason: 'delisted' });
      assert.equal(removed.status, 200, removed.text);
      assert.equal((await send('/v2/transfer', sender, listed)).status, 200);
    });

    it('limits: a transfer above the per-transfer limit, and past the daily limit, is refused (v1, v2)', async () => {
      const big = party(`limit big ${suite.target}`);
      const daily = party(`limit daily ${suite.target}`);
      const to = party(`limit to ${suite.target}`);
      await fund([big, daily], 200_000n);
      for (const path of PATHS)
        assertProblem(await send(path, big, to, TRANSFER_LIMIT), 403, 'TRANSFER_LIMIT_EXCEEDED');
      // 40,000 + 100 fee, twice, is 80,200: the second passes the daily limit of 80,000.
      assert.equal((await send('/v2/transfer', daily, to, 39_000n)).status, 200);
      for (const path of PATHS)
        assertProblem(await send(path, daily, to, 41_000n), 403, 'DAILY_LIMIT_EXCEEDED');
      assert.equal((await send('/v1/transfer', daily, to, 40_000n)).status, 200);
    });

    it('limits: two transfers of one address sent at once never pass the daily limit together', async () => {
      const twice = party(`limit twice ${suite.target}`);
      const to = party(`limit twice to ${suite.target}`);
      await fund([twice, twice], 50_000n);
      const coins = await eventually(async () => {
        const found = await utxosOf(url(), key, twice.address);
        return found.length === 2 ? found : undefined;
      }, 'two outputs');
      // Each is 40,000 + 100 fee, within the limit alone; together 80,200, past 80,000. Sent at
      // once, both are screened before either commits: the write refuses the second.
      const answers = await Promise.all(
        coins.map((coin) =>
          http(url(), 'POST', '/v2/transfer', {
            key,
            body: {
              rawtx: transferOf(suite.t.service.parts.ctx.token, {
                from: twice,
                inputs: [coin],
                to,
                amount: 40_000n,
                fee: 100n,
              }),
            },
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status).sort(),
        [200, 403],
        answers.map((a) => a.text).join('\n'),
      );
      assertProblem(answers.find((a) => a.status === 403)!, 403, 'DAILY_LIMIT_EXCEEDED');
    });

    it('screening: a denial refuses the transfer with its reason (v1, v2), recorded; a late answer refuses', async () => {
      const holder = party(`screen holder ${suite.target}`);
      await fund([holder], 10_000n);
      for (const path of PATHS)
        assertProblem(await send(path, holder, sanctioned), 403, 'SCREENING_DENIED', /OFAC SDN match 4411/);
      assertProblem(await send('/v2/transfer', holder, slow), 503, 'SCREENING_UNAVAILABLE');
      assert.ok(
        screened.some((s) => s.outputs.some((o) => o.address === sanctioned.address && o.amount === '1000')),
      );
      const events = (await admin('GET', '/v2/admin/controls/events')).json as {
        events: { action: string; reason: string; actor: string }[];
      };
      assert.ok(
        events.events.some((e) => e.action === 'screening-deny' && e.reason === 'OFAC SDN match 4411'),
      );
      assert.ok(events.events.some((e) => e.action === 'screening-timeout'));
      const metrics = await http(url(), 'GET', '/metrics', { key: suite.t.adminKey });
      assert.match(metrics.text, /tokenproxy_screening_duration_seconds_count\{outcome="deny"\} [1-9]/);
      assert.match(metrics.text, /tokenproxy_control_refusals_total\{code="SCREENING_DENIED"\} [1-9]/);
    });

    it('seize and reissue: frozen outputs are never cosigned again, their value minted to the owner; supply balances', async () => {
      const thief = party(`seize thief ${suite.target}`);
      const owner = party(`seize owner ${suite.target}`);
      await fund([thief], 7_000n);
      const status = async () => {
        const s = (await admin('GET', '/v2/admin/status')).json as {
          supply: Record<'genesis' | 'circulating' | 'treasury' | 'burned' | 'seized', { atomic: number }>;
        };
        const p = s.supply;
        // The invariant: genesis = treasury + circulating + burned + seized.
        assert.equal(
          p.genesis.atomic,
          p.treasury.atomic + p.circulating.atomic + p.burned.atomic + p.seized.atomic,
        );
        return p;
      };
      const before = await status();
      const [stolen] = await utxosOf(url(), key, thief.address);
      const outpoint = `${stolen!.txid}_${stolen!.vout}`;
      const order = {
        reference: `order ${suite.target}`,
        reason: 'stolen',
        outpoints: [outpoint],
        reissueTo: owner.address,
      };
      // Only outputs of a frozen or blacklisted address can be seized.
      assertProblem(
        await admin('POST', '/v2/admin/seizures', order),
        409,
        'SEIZURE_REFUSED',
        /neither frozen/,
      );
      await admin('POST', '/v2/admin/freezes', { address: thief.address, reason: 'stolen' });
      // A reissue its mint would refuse (into the burn address) is refused before anything is seized.
      assertProblem(
        await admin('POST', '/v2/admin/seizures', {
          ...order,
          reissueTo: suite.t.service.parts.token.burnAddress,
        }),
        400,
        'INVALID_ADDRESS',
        /burn address/,
      );
      const listedBefore = (await admin('GET', '/v2/admin/seizures')).json as { seizures: unknown[] };
      assert.equal(listedBefore.seizures.length, 0, 'nothing seized by the refused order');
      const seized = await admin('POST', '/v2/admin/seizures', order);
      assert.equal(seized.status, 201, seized.text);
      const done = seized.json as { amount: { atomic: number }; reissueTxid: string | null; actor: string };
      assert.equal(done.amount.atomic, 7_000);
      assert.equal(done.actor, adminId);
      assert.ok(done.reissueTxid !== null);
      // The same order again is answered, not done twice.
      const again = await admin('POST', '/v2/admin/seizures', order);
      assert.equal(again.status, 200, again.text);
      assert.equal((again.json as { reissueTxid: string }).reissueTxid, done.reissueTxid);
      assertProblem(
        await admin('POST', '/v2/admin/seizures', { ...order, reference: 'other' }),
        409,
        'SEIZURE_REFUSED',
        /seized already/,
      );
      const after = await status();
      assert.equal(after.seized.atomic - before.seized.atomic, 7_000);
      assert.equal(before.treasury.atomic - after.treasury.atomic, 7_000);
      assert.equal(after.circulating.atomic, before.circulating.atomic);
      // Unfrozen, the seized output is still never cosigned, on either path.
      await admin('DELETE', `/v2/admin/freezes/${thief.address}`, { reason: 'seized' });
      for (const path of PATHS) assertProblem(await send(path, thief, owner), 403, 'OUTPUT_SEIZED');
      await suite.t.service.parts.devnet!.mine(1);
      await eventually(
        async () =>
          (await utxosOf(url(), key, owner.address)).some((o) => o.amount === 7_000n) ? true : undefined,
        'the reissue seen',
      );
      const audit = (await admin('GET', '/v2/admin/audit')).json as {
        ok: boolean;
        supply: { index: { seized: { atomic: number } } };
      };
      assert.equal(audit.ok, true, JSON.stringify(audit));
      assert.equal(audit.supply.index.seized.atomic, after.seized.atomic);
      const listed = (await admin('GET', '/v2/admin/seizures')).json as { seizures: { reference: string }[] };
      assert.ok(listed.seizures.some((z) => z.reference === order.reference));
    });

    it('scopes: each narrow admin key does its one thing and reads; admin keeps all; no key grants beyond itself', async () => {
      const { parts } = suite.t.service;
      const keyOf = async (scopes: Parameters<typeof createApiKey>[2]['scopes']) =>
        (await createApiKey(parts.db, parts.masterKey, { name: scopes.join('+'), scopes })).key;
      const [freezer, auditor, pauser, keeper] = [
        await keyOf(['freeze']),
        await keyOf(['audit']),
        await keyOf(['pause']),
        await keyOf(['keys']),
      ];
      const as = (k: string, method: string, path: string, body?: unknown) =>
        http(url(), method, path, { key: k, body });
      const someone = party(`scopes ${suite.target}`).address;
      assert.equal(
        (await as(freezer, 'POST', '/v2/admin/blacklist', { address: someone, reason: 'x' })).status,
        201,
      );
      assert.equal(
        (await as(freezer, 'DELETE', `/v2/admin/blacklist/${someone}`, { reason: 'x' })).status,
        200,
      );
      assertProblem(
        await as(freezer, 'POST', '/v2/admin/mint', { to: someone, amount: '1' }),
        403,
        'FORBIDDEN',
      );
      assertProblem(
        await as(freezer, 'PUT', '/v2/admin/pause', { paused: true, reason: 'x' }),
        403,
        'FORBIDDEN',
      );
      assert.equal((await as(auditor, 'GET', '/v2/admin/status')).status, 200);
      assert.equal((await as(auditor, 'GET', '/v2/admin/controls/events')).status, 200);
      assertProblem(
        await as(auditor, 'POST', '/v2/admin/freezes', { address: someone, reason: 'x' }),
        403,
        'FORBIDDEN',
      );
      assertProblem(await as(auditor, 'POST', '/v2/admin/burn', { amount: '1' }), 403, 'FORBIDDEN');
      assertProblem(await as(auditor, 'GET', '/v2/admin/keys'), 403, 'FORBIDDEN');
      const who = (await as(pauser, 'GET', '/v2/admin/whoami')).json as { may: Record<string, boolean> };
      assert.deepEqual(
        Object.entries(who.may)
          .filter(([, v]) => v)
          .map(([k]) => k)
          .sort(),
        ['audit', 'pause'],
      );
      assertProblem(
        await as(pauser, 'POST', '/v2/admin/seizures', {
          reference: 'r',
          reason: 'r',
          outpoints: [`${'a'.repeat(64)}_0`],
          reissueTo: someone,
        }),
        403,
        'FORBIDDEN',
      );
      // A keys key makes wallet keys, not stronger ones.
      assert.equal(
        (await as(keeper, 'POST', '/v2/admin/keys', { name: 'w', scopes: ['read', 'submit'] })).status,
        201,
      );
      assertProblem(
        await as(keeper, 'POST', '/v2/admin/keys', { name: 'a', scopes: ['admin'] }),
        403,
        'FORBIDDEN',
      );
      assertProblem(
        await as(keeper, 'POST', '/v2/admin/keys', { name: 'm', scopes: ['mint'] }),
        403,
        'FORBIDDEN',
      );
      const minter = await admin('POST', '/v2/admin/keys', { name: 'm', scopes: ['mint'] });
      assert.equal(minter.status, 201);
      // Nor does it revoke or throttle a stronger key; a wallet key it may.
      const { id: minterId } = minter.json as { id: string };
      const wallet = (await as(keeper, 'POST', '/v2/admin/keys', { name: 'w2' })).json as { id: string };
      for (const [method, body] of [
        ['DELETE', undefined],
        ['PATCH', { rateLimit: 1 }],
      ] as const) {
        const refused = await as(keeper, method, `/v2/admin/keys/${minterId}`, body);
        assertProblem(refused, 403, 'FORBIDDEN');
        assert.match(refused.text, /scopes it does not hold: mint/);
      }
      const [adminKeyRow] = await parts.db.query<{ id: string }>(
        "SELECT id FROM api_keys WHERE 'admin' = ANY(scopes) AND revoked_at IS NULL LIMIT 1",
      );
      assertProblem(await as(keeper, 'DELETE', `/v2/admin/keys/${adminKeyRow!.id}`), 403, 'FORBIDDEN');
      assert.equal((await as(keeper, 'PATCH', `/v2/admin/keys/${wallet.id}`, { rateLimit: 5 })).status, 200);
      assert.equal((await as(keeper, 'DELETE', `/v2/admin/keys/${wallet.id}`)).status, 200);
      assert.equal((await admin('DELETE', `/v2/admin/keys/${minterId}`)).status, 200);
    });

    it('tokenproxy pause / unpause / blacklist / blacklisted / unblacklist / controls', {
      skip: suite.target !== 'pglite',
    }, async () => {
      const connection = ['--url', url(), '--admin-key', suite.t.adminKey];
      const paused = await cli(['pause', '--reason', 'cli drill', ...connection]);
      assert.equal(paused.code, 0, paused.stderr);
      assert.equal(JSON.parse(paused.stdout).paused, true);
      const controls = await cli(['controls', ...connection]);
      assert.equal(controls.code, 0, controls.stderr);
      const shown = JSON.parse(controls.stdout) as {
        pause: { paused: boolean };
        events: { action: string; reason: string }[];
      };
      assert.equal(shown.pause.paused, true);
      assert.ok(
        shown.events.some((e) => e.action === 'pause' && e.reason === 'cli drill'),
        controls.stdout,
      );
      const un = await cli(['unpause', '--reason', 'cli drill over', ...connection]);
      assert.equal(JSON.parse(un.stdout).paused, false);
      const listed = party(`cli listed ${suite.target}`).address;
      assert.equal((await cli(['blacklist', listed, '--reason', 'cli', ...connection])).code, 0);
      const list = JSON.parse((await cli(['blacklisted', ...connection])).stdout) as {
        listed: { address: string }[];
      };
      assert.ok(list.listed.some((l) => l.address === listed));
      assert.equal((await cli(['unblacklist', listed, '--reason', 'cli', ...connection])).code, 0);
      const missing = await cli([
        'seize',
        `${'a'.repeat(64)}_0`,
        '--reason',
        'x',
        '--to',
        listed,
        ...connection,
      ]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /--reference/);
    });

    it('the control record holds every change with its key and reason, append-only; /metrics counts them', async () => {
      const events = (await admin('GET', '/v2/admin/controls/events')).json as {
        events: { action: string; reason: string; actor: string }[];
      };
      const mine = events.events.filter((e) => e.actor === adminId).map((e) => [e.action, e.reason]);
      for (const expected of [
        ['pause', 'incident 17'],
        ['unpause', 'incident 17 closed'],
        ['blacklist', 'sanctions 4411'],
        ['unblacklist', 'delisted'],
        ['seize', 'stolen'],
      ])
        assert.ok(
          mine.some((m) => m[0] === expected[0] && m[1] === expected[1]),
          `${expected} recorded`,
        );
      const { db } = suite.t.service.parts;
      await assert.rejects(db.query("UPDATE control_events SET reason = 'edited'"), /append-only/);
      await assert.rejects(db.query('DELETE FROM control_events'), /append-only/);
      const metrics = await http(url(), 'GET', '/metrics', { key: suite.t.adminKey });
      assert.match(metrics.text, /tokenproxy_control_changes_total\{action="pause"\} [1-9]/);
      assert.match(metrics.text, /tokenproxy_control_refusals_total\{code="TRANSFERS_PAUSED"\} 3/);
    });
  },
);
