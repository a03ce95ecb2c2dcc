// The console's JSON read models against a real service (embedded: PGlite + devnet): admin
// only, their figures agree with the admin status and funding routes, the supply history ends
// at today's split, tickets and deliveries seeded in the store show up, mining moves the tip,
// and the search box recognises addresses, txids, ticket IDs and outpoints (400 otherwise).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { seedTicket } from '../support/seed-store.js';
import { party } from '../support/token-world.js';
import { assertProblem, http } from './e2e-http.js';
import { startTestService, type TestService } from './support.js';

type Amount = { atomic: number; tokens: string };
interface Supply {
  genesis: Amount;
  circulating: Amount;
  treasury: Amount;
  burned: Amount;
  redeemed: Amount;
  history: {
    bucketSeconds: number;
    points: { at: number; circulating: Amount; treasury: Amount; burned: Amount }[];
  };
}
type Counts = Record<'BROADCASTING' | 'SUCCESS' | 'MINED' | 'FAILED', number>;
interface Tickets {
  counts: Counts;
  bucketSeconds: number;
  timeline: { at: number; counts: Counts }[];
  failed: { id: string; txid: string; errors: string | null }[];
}

const ROUTES = ['supply', 'tickets', 'funding', 'deliveries', 'chain', 'search?q=x'].map(
  (r) => `/v2/admin/console/${r}`,
);

describe('console read models (e2e)', () => {
  let t: TestService;
  let readKey: string;
  const get = async <T>(path: string) => {
    const res = await http(t.url, 'GET', path, { key: t.adminKey });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.json as T;
  };
  const holder = party(`console ${randomUUID()}`);
  let minted: { ticketId: string; txid: string };

  before(async () => {
    t = await startTestService();
    const { parts } = t.service;
    readKey = (await createApiKey(parts.db, parts.masterKey, { name: 'reader', scopes: ['read', 'submit'] }))
      .key;
  });
  after(async () => {
    await t?.stop();
  });

  it('answers admin keys only: 401 without a key or with a wrong one, 403 for a read key', async () => {
    for (const path of ROUTES) {
      assertProblem(await http(t.url, 'GET', path), 401, 'UNAUTHORIZED');
      assertProblem(await http(t.url, 'GET', path, { key: 'tp_wrong' }), 401, 'UNAUTHORIZED');
      assertProblem(await http(t.url, 'GET', path, { key: readKey }), 403, 'FORBIDDEN');
    }
  });

  it('supply equals the status route, balances, and its history ends at today', async () => {
    const supply = await get<Supply>('/v2/admin/console/supply');
    const status = await get<{ supply: Record<string, Amount> }>('/v2/admin/status');
    for (const k of ['genesis', 'circulating', 'treasury', 'burned', 'redeemed'] as const) {
      assert.deepEqual(supply[k], status.supply[k], k);
    }
    assert.equal(
      supply.circulating.atomic + supply.treasury.atomic + supply.burned.atomic,
      supply.genesis.atomic,
    );
    const last = supply.history.points.at(-1)!;
    assert.deepEqual(
      [last.circulating, last.treasury, last.burned],
      [supply.circulating, supply.treasury, supply.burned],
    );
    assert.ok(supply.history.bucketSeconds >= 1);
    const ats = supply.history.points.map((p) => p.at);
    assert.deepEqual(
      ats,
      [...ats].sort((a, b) => a - b),
    );
    for (const p of supply.history.points) {
      assert.equal(p.circulating.atomic + p.treasury.atomic + p.burned.atomic, supply.genesis.atomic);
    }
  });

  it('a mint moves treasury to circulating, now and at the end of the history', async () => {
    const before = await get<Supply>('/v2/admin/console/supply');
    const res = await http(t.url, 'POST', '/v2/admin/mint', {
      key: t.adminKey,
      body: { to: holder.address, amount: '42.5' },
    });
    assert.equal(res.status, 200, res.text);
    minted = res.json as { ticketId: string; txid: string };
    const after = await get<Supply>('/v2/admin/console/supply');
    assert.equal(after.circulating.atomic, before.circulating.atomic + 4_250_000);
    assert.equal(after.treasury.atomic, before.treasury.atomic - 4_250_000);
    assert.equal(after.history.points.at(-1)!.circulating.atomic, after.circulating.atomic);
    // Moved an hour back, everything before the mint charts as its own earlier buckets.
    await t.service.parts.db.query(
      "UPDATE transactions SET created_at = created_at - interval '1 hour' WHERE txid <> $1",
      [minted.txid],
    );
    const spread = await get<Supply>('/v2/admin/console/supply');
    assert.ok(spread.history.bucketSeconds >= 61, '3601+ seconds in at most 60 buckets');
    const steps = spread.history.points.map((p) => p.circulating.atomic);
    const rise = steps.indexOf(after.circulating.atomic);
    assert.ok(rise > 0, 'the mint is not in the first bucket');
    assert.deepEqual(steps.slice(0, rise), Array(rise).fill(before.circulating.atomic));
    assert.deepEqual(steps.slice(rise), Array(steps.length - rise).fill(after.circulating.atomic));
    // A window shorter than the history starts from the split at its start.
    const recent = await get<Supply>('/v2/admin/console/supply?window=600');
    assert.ok(recent.history.bucketSeconds <= 11);
    assert.equal(recent.history.points[0]!.treasury.atomic, before.treasury.atomic);
    assert.equal(recent.history.points.at(-1)!.treasury.atomic, after.treasury.atomic);
  });

  it('tickets: counts as the status route, a timeline that sums to them, failed ones with errors', async () => {
    const db = t.service.parts.db;
    const failedId = await seedTicket(db, { status: 'FAILED', errors: 'ARC 465: fee too low' });
    const tickets = await get<Tickets>('/v2/admin/console/tickets');
    const status = await get<{ tickets: Counts }>('/v2/admin/status');
    assert.deepEqual(tickets.counts, status.tickets);
    assert.ok(
      tickets.counts.FAILED >= 1 &&
        tickets.counts.BROADCASTING + tickets.counts.SUCCESS + tickets.counts.MINED >= 1,
    );
    for (const s of ['BROADCASTING', 'SUCCESS', 'MINED', 'FAILED'] as const) {
      assert.equal(
        tickets.timeline.reduce((sum, p) => sum + p.counts[s], 0),
        tickets.counts[s],
        `timeline sum of ${s}`,
      );
    }
    const failed = tickets.failed.find((f) => f.id === failedId);
    assert.equal(failed?.errors, 'ARC 465: fee too low');
    const bad = await http(t.url, 'GET', '/v2/admin/console/tickets?window=5', { key: t.adminKey });
    assertProblem(bad, 400, 'INVALID_PARAMETER');
  });

  it('funding: the pool as the funding route sees it, with transfers left and a level', async () => {
    const f = await get<{
      address: string;
      outputs: { available: number; usable: number; reserved: number };
      satoshis: { available: number; reserve: number };
      feeRate: { satoshisPerKb: number; typicalTransferFee: number };
      transfersLeft: number;
      fromReserve: number;
      lowWater: number;
      level: string;
    }>('/v2/admin/console/funding');
    const pool = await get<{
      address: string;
      pool: { available: number; availableSatoshis: number; lowWater: number };
      reserveSatoshis: number;
    }>('/v2/admin/funding');
    assert.equal(f.address, pool.address);
    assert.equal(f.outputs.available, pool.pool.available);
    assert.equal(f.satoshis.available, pool.pool.availableSatoshis);
    assert.equal(f.lowWater, pool.pool.lowWater);
    assert.ok(pool.reserveSatoshis > 0, 'the deploy left change in the reserve');
    assert.equal(f.satoshis.reserve, pool.reserveSatoshis);
    assert.ok(f.outputs.usable > 0 && f.outputs.usable <= f.outputs.available);
    assert.equal(f.transfersLeft, f.outputs.usable + f.fromReserve);
    assert.equal(f.level, f.outputs.available >= f.lowWater ? 'ok' : f.level === 'ok' ? 'not ok' : f.level);
    assert.ok(f.feeRate.typicalTransferFee >= 1);
  });

  it('deliveries: success rate, latency percentiles and the failing receivers by origin', async () => {
    const db = t.service.parts.db;
    const good = await seedTicket(db, { status: 'MINED', callbackUrl: 'https://good.example/hook' });
    const bad = await seedTicket(db, { status: 'MINED', callbackUrl: 'https://bad.example:8443/a/b?c=d' });
    const event = async (ticket: string, state: string) => {
      const rows = await db.query<{ id: string }>(
        `INSERT INTO events (ticket_id, webhook_id, seq, payload, state) VALUES ($1, $2, 1, '{"status":"MINED"}', $3)
         RETURNING id::text AS id`,
        [ticket, `msg_${randomUUID()}`, state],
      );
      return rows[0]!.id;
    };
    let secondsAgo = 60;
    const attempt = (eventId: string, statusCode: number | null, latency: number, error: string | null) =>
      db.query(
        'INSERT INTO delivery_attempts (event_id, attempted_at, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5)',
        [eventId, new Date(Date.now() - 1000 * secondsAgo--), statusCode, latency, error],
      );
    const goodEvent = await event(good, 'delivered');
    const badEvent = await event(bad, 'dead');
    await attempt(goodEvent, 200, 10, null);
    await attempt(goodEvent, 204, 20, null);
    await attempt(goodEvent, 200, 30, null);
    await attempt(badEvent, 500, 40, null);
    await attempt(badEvent, null, 1000, 'connect ECONNREFUSED');
    const d = await get<{
      attempts: number;
      succeeded: number;
      successRate: number | null;
      latencyMs: { p50: number; p90: number; p99: number } | null;
      events: Record<string, number>;
      failingReceivers: { origin: string; failures: number; attempts: number; lastError: string | null }[];
    }>('/v2/admin/console/deliveries');
    assert.equal(d.attempts, 5);
    assert.equal(d.succeeded, 3);
    assert.equal(d.successRate, 0.6);
    assert.deepEqual(d.latencyMs, { p50: 30, p90: 616, p99: 962 });
    assert.ok(d.events.delivered! >= 1 && d.events.dead! >= 1);
    assert.deepEqual(
      d.failingReceivers.map((r) => [r.origin, r.failures, r.attempts, r.lastError]),
      [['https://bad.example:8443', 2, 2, 'connect ECONNREFUSED']],
    );
  });

  it('chain: the tip and the last blocks; mining adds one on top', async () => {
    type Chain = {
      ledger: string;
      canMine: boolean;
      tip: { height: number; hash: string };
      blocks: { height: number; hash: string; transactions: number }[];
    };
    const before = await get<Chain>('/v2/admin/console/chain');
    assert.equal(before.ledger, 'devnet');
    assert.equal(before.canMine, true);
    assert.equal(before.blocks[0]?.hash, before.tip.hash);
    const status = await get<{ tip: { height: number; hash: string } }>('/v2/admin/status');
    assert.equal(status.tip.height, before.tip.height);
    const mined = await http(t.url, 'POST', '/v2/admin/mine', { key: t.adminKey });
    assert.equal(mined.status, 200, mined.text);
    const after = await get<Chain>('/v2/admin/console/chain');
    assert.equal(after.tip.height, before.tip.height + 1);
    assert.equal(after.blocks[0]?.height, after.tip.height);
    assert.ok(after.blocks[0]!.transactions >= 2, 'the mint is in the new block with its coinbase');
    assert.ok(after.blocks.length <= 10);
  });

  it('search: an address shows its balance and outputs', async () => {
    type R = {
      kind: string;
      found: boolean;
      address: {
        balance: Amount;
        unspentCount: number;
        unspent: { outpoint: string }[];
        transactions: { txid: string }[];
      };
    };
    const r = await get<R>(`/v2/admin/console/search?q=${holder.address}`);
    assert.equal(r.kind, 'address');
    assert.equal(r.found, true);
    assert.deepEqual(r.address.balance, { atomic: 4_250_000, tokens: '42.5' });
    assert.equal(r.address.unspentCount, 1);
    assert.ok(r.address.unspent[0]!.outpoint.startsWith(`${minted.txid}_`));
    assert.deepEqual(
      r.address.transactions.map((x) => x.txid),
      [minted.txid],
    );
    const stranger = await get<R>(`/v2/admin/console/search?q=${party(`nobody ${randomUUID()}`).address}`);
    assert.equal(stranger.found, false);
    assert.equal(stranger.address.balance.atomic, 0);
  });

  it('search: a txid shows the transaction, its outputs and its ticket; a ticket ID its ticket', async () => {
    type R = {
      kind: string;
      found: boolean;
      transaction: { txid: string; state: string; receivers: string[] } | null;
      outputs: { outpoint: string; owner: string; amount: Amount }[];
      ticket: { id: string; txid: string; status: string; events: unknown[] } | null;
    };
    const r = await get<R>(`/v2/admin/console/search?q=${minted.txid.toUpperCase()}`);
    assert.equal(r.kind, 'txid');
    assert.equal(r.found, true);
    assert.equal(r.transaction?.txid, minted.txid);
    assert.ok(r.transaction?.receivers.includes(holder.address));
    assert.ok(r.outputs.some((o) => o.owner === holder.address && o.amount.atomic === 4_250_000));
    assert.equal(r.ticket?.id, minted.ticketId);
    const byTicket = await get<R>(`/v2/admin/console/search?q=${minted.ticketId}`);
    assert.equal(byTicket.kind, 'ticket');
    assert.equal(byTicket.ticket?.txid, minted.txid);
    assert.ok(['SUCCESS', 'MINED'].includes(byTicket.ticket!.status));
    const unknown = await get<R>(`/v2/admin/console/search?q=${'ab'.repeat(32)}`);
    assert.deepEqual([unknown.found, unknown.transaction, unknown.ticket], [false, null, null]);
    const noTicket = await get<R>(`/v2/admin/console/search?q=${randomUUID()}`);
    assert.deepEqual([noTicket.kind, noTicket.found, noTicket.ticket], ['ticket', false, null]);
  });

  it('search: an outpoint in both forms shows the token output; a funding outpoint its state', async () => {
    type R = {
      kind: string;
      found: boolean;
      output: { outpoint: string; owner: string; state: string } | null;
      fundingOutput: { outpoint: string; state: string; satoshis: number } | null;
    };
    const tx = await get<{ outputs: { outpoint: string; owner: string }[] }>(
      `/v2/admin/console/search?q=${minted.txid}`,
    );
    const mine = tx.outputs.find((o) => o.owner === holder.address)!;
    const vout = mine.outpoint.split('_')[1]!;
    for (const q of [`${minted.txid}:${vout}`, `${minted.txid}_${vout}`]) {
      const r = await get<R>(`/v2/admin/console/search?q=${encodeURIComponent(q)}`);
      assert.equal(r.kind, 'outpoint');
      assert.deepEqual(r.output, {
        ...r.output,
        outpoint: mine.outpoint,
        owner: holder.address,
        state: 'unspent',
      });
      assert.equal(r.fundingOutput, null);
    }
    const [funding] = await t.service.parts.db.query<{
      txid: string;
      vout: number;
      state: string;
      satoshis: string;
    }>(
      "SELECT txid, vout, state, satoshis::text AS satoshis FROM funding_outputs WHERE state = 'available' LIMIT 1",
    );
    const r = await get<R>(`/v2/admin/console/search?q=${funding!.txid}:${funding!.vout}`);
    assert.equal(r.found, true);
    assert.equal(r.output, null);
    assert.deepEqual(r.fundingOutput, {
      outpoint: `${funding!.txid}_${funding!.vout}`,
      satoshis: Number(funding!.satoshis),
      state: 'available',
      reservedBy: null,
    });
  });

  it('search: anything else is 400 INVALID_PARAMETER; so is an empty or missing q', async () => {
    for (const q of [
      'hello',
      '1BoatSLRHtKNngkdXEeobR76b53LETtpyX',
      `${'ab'.repeat(32)}:x`,
      `${'ab'.repeat(31)}`,
      '<script>',
    ]) {
      assertProblem(
        await http(t.url, 'GET', `/v2/admin/console/search?q=${encodeURIComponent(q)}`, { key: t.adminKey }),
        400,
        'INVALID_PARAMETER',
        /q must be an address, a txid/,
      );
    }
    assertProblem(
      await http(t.url, 'GET', '/v2/admin/console/search?q=', { key: t.adminKey }),
      400,
      'INVALID_PARAMETER',
    );
    assertProblem(
      await http(t.url, 'GET', '/v2/admin/console/search', { key: t.adminKey }),
      400,
      'INVALID_PARAMETER',
    );
  });

  it('serves the page without a key, framed by nobody, with a same-origin-only CSP', async () => {
    const page = await http(t.url, 'GET', '/console');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe/);
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)/, 'no inline script');
    assert.doesNotMatch(page.text, /\sstyle=|<style|https?:\/\//, 'no inline style, nothing from elsewhere');
    const script = await http(t.url, 'GET', '/console/app.js');
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.doesNotMatch(script.text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    const css = await http(t.url, 'GET', '/console/app.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    const icon = await fetch(`${t.url}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/x-icon');
    const bytes = Buffer.from(await icon.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'an ICO header');
    assert.equal(bytes.readUInt16LE(4), 1, 'one image');
  });
});
