// A restart in the middle of a stream of transfers loses no ticket and no output: transfers go
// to /v2/transfer in four lanes, the service is stopped while they are in flight, a new service
// starts on the same data folder and the wallets send again what got no answer. Then: every
// answered ticket exists and is MINED, each transfer has exactly one ticket, balances are what
// the transfers make them and sum to the supply, no output is both spent and unspent, and the
// devnet and the index agree on the unspent token outputs.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { loadConfig } from '../../src/config.js';
import { parseTokenScript } from '../../src/domain/token-script.js';
import { type RunningService, startService } from '../../src/service.js';
import { createApiKey } from '../../src/store/api-keys-store.js';
import { mintTokens } from '../../src/usecases/mint-tokens.js';
import { party } from '../support/token-world.js';
import { http, type TokenFacts, transferOf, utxosOf } from './e2e-http.js';
import { eventually } from './support.js';

const HOLDERS = [party('restart holder 0'), party('restart holder 1'), party('restart holder 2')];
const RECIPIENTS = [party('restart recipient 0'), party('restart recipient 1')];
const OUTPUTS_PER_HOLDER = 8;
const FEE = 100n;
const LANES = 4;
/** The service is stopped once this many transfers were answered. */
const STOP_AFTER = 7;

interface Planned {
  readonly rawtx: string;
  readonly from: string;
  readonly to: string;
  readonly amount: bigint;
}

type Outcome =
  | { readonly kind: 'ticket'; readonly id: string }
  | { readonly kind: 'none'; readonly why: string };

async function startOn(dataDir: string): Promise<RunningService> {
  const config = loadConfig({
    argv: ['--data-dir', dataDir, '--port', '0', '--block-interval-ms', '0', '--log-level', 'error'],
    env: {},
  });
  return startService(config);
}

async function submit(url: string, key: string, rawtx: string): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/v2/transfer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rawtx }),
    });
    const text = await res.text();
    assert.notEqual(res.status, 500, text);
    if (res.status === 200) return { kind: 'ticket', id: text };
    return { kind: 'none', why: `${res.status} ${text}` };
  } catch (err) {
    return { kind: 'none', why: String(err) };
  }
}

describe('restart in the middle of a stream of transfers', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenproxy-e2e-restart-'));
  let service: RunningService | undefined;
  let key: string;
  let token: TokenFacts;
  let supply: bigint;
  const planned: Planned[] = [];
  const firstAnswers: Outcome[] = [];
  const finalTickets: string[] = [];

  before(async () => {
    service = await startOn(dataDir);
    const { parts } = service;
    token = parts.ctx.token;
    supply = BigInt(parts.token.supply);
    key = (await createApiKey(parts.db, parts.masterKey, { name: 'wallets', scopes: ['submit'] })).key;
    for (const holder of HOLDERS)
      for (let i = 0; i < OUTPUTS_PER_HOLDER; i++)
        await mintTokens(parts.ctx, parts.keys.mint, { to: holder.address, amount: BigInt(1_000_000 + i) });
    await parts.devnet!.mine(1);
    const url = service.url!;
    await eventually(async () => {
      const rows = await parts.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
      );
      return rows[0]?.n === '0' ? true : undefined;
    }, 'the mints MINED');
    for (const [h, holder] of HOLDERS.entries()) {
      const outputs = await utxosOf(url, key, holder.address);
      assert.equal(outputs.length, OUTPUTS_PER_HOLDER);
      for (const [i, output] of outputs.entries()) {
        const to = RECIPIENTS[(h + i) % RECIPIENTS.length]!;
        const amount = BigInt(10_000 * (i + 1) + h);
        const rawtx = transferOf(token, { from: holder, inputs: [output], to, amount, fee: FEE });
        planned.push({ rawtx, from: holder.address, to: to.address, amount });
      }
    }
  });

  after(async () => {
    await service?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the service while transfers are in flight, and the new one answers every transfer', async (t) => {
    const first = service!;
    const url = first.url!;
    let answered = 0;
    let stopping: Promise<void> | undefined;
    const queue = planned.map((_, i) => i);
    const lane = async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const outcome = await submit(url, key, planned[i]!.rawtx);
        firstAnswers[i] = outcome;
        if (outcome.kind === 'ticket' && ++answered === STOP_AFTER) stopping = first.stop();
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    await stopping;
    const before = firstAnswers.filter((o) => o.kind === 'ticket').length;
    assert.ok(before >= STOP_AFTER, `answered before the stop: ${before}`);
    assert.ok(before < planned.length, 'the stop came in the middle of the stream');

    const unanswered = firstAnswers.filter((o) => o.kind === 'none').map((o) => o.why.slice(0, 60));
    t.diagnostic(`answered before the restart: ${before} of ${planned.length}`);
    t.diagnostic(`unanswered: ${[...new Set(unanswered)].join('; ')}`);

    service = await startOn(dataDir);
    const second = service;
    const tickets = await second.parts.db.query<{ n: string }>('SELECT count(*) AS n FROM tickets');
    const recordedBefore = Number(tickets[0]?.n) - HOLDERS.length * OUTPUTS_PER_HOLDER;
    for (const [i, p] of planned.entries()) {
      const outcome = await submit(second.url!, key, p.rawtx);
      assert.equal(outcome.kind, 'ticket', `transfer ${i} after the restart: ${JSON.stringify(outcome)}`);
      const earlier = firstAnswers[i];
      if (earlier?.kind === 'ticket' && outcome.kind === 'ticket')
        assert.equal(outcome.id, earlier.id, `transfer ${i}: the ticket answered before the restart`);
      if (outcome.kind === 'ticket') finalTickets.push(outcome.id);
    }
    assert.equal(new Set(finalTickets).size, planned.length, 'one ticket per transfer');
    assert.ok(recordedBefore >= before, 'every answered transfer was recorded before the stop');
    t.diagnostic(`recorded before the stop: ${recordedBefore} (answered: ${before})`);
  });

  it('every answered ticket reaches SUCCESS, then MINED', async () => {
    const s = service!;
    const status = async (id: string) => {
      const res = await http(s.url!, 'GET', `/v2/ticket?ticketID=${id}`, { key });
      assert.equal(res.status, 200, `ticket ${id}: ${res.text}`);
      return (res.json as { status: string }).status;
    };
    for (const id of finalTickets) {
      await eventually(
        async () => (['SUCCESS', 'MINED'].includes(await status(id)) ? true : undefined),
        `ticket ${id} SUCCESS`,
        300,
      );
    }
    await s.parts.devnet!.mine(1);
    for (const id of finalTickets)
      await eventually(
        async () => ((await status(id)) === 'MINED' ? true : undefined),
        `ticket ${id} MINED`,
        300,
      );
    const failed = await s.parts.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM tickets WHERE status = 'FAILED'",
    );
    assert.equal(failed[0]?.n, '0');
  });

  it('balances are what the transfers make them, and sum to the supply', async () => {
    const s = service!;
    const expected = new Map<string, bigint>();
    const add = (address: string, amount: bigint) =>
      expected.set(address, (expected.get(address) ?? 0n) + amount);
    for (const holder of HOLDERS)
      for (let i = 0; i < OUTPUTS_PER_HOLDER; i++) add(holder.address, BigInt(1_000_000 + i));
    for (const p of planned) {
      add(p.from, -(p.amount + FEE));
      add(p.to, p.amount);
      add(token.feeAddress, FEE);
    }
    const minted = [...expected.values()].reduce((a, b) => a + b, 0n);
    add(s.parts.token.mintAddress, supply - minted);
    const owners = await s.parts.db.query<{ owner: string }>('SELECT DISTINCT owner FROM token_outputs');
    for (const { owner } of owners) if (!expected.has(owner)) expected.set(owner, 0n);
    const addresses = [...expected.keys()];
    const res = await http(s.url!, 'POST', '/v2/balance', { key, body: addresses });
    assert.equal(res.status, 200, res.text);
    const got = new Map(
      (res.json as { address: string; amt: number }[]).map((b) => [b.address, BigInt(b.amt)]),
    );
    assert.deepEqual(got, expected);
    assert.equal(
      [...got.values()].reduce((a, b) => a + b, 0n),
      supply,
    );
  });

  it('no output is both spent and unspent, and nothing stays reserved', async () => {
    const { db } = service!.parts;
    const live = await db.query<{ txid: string; raw_tx: Uint8Array }>(
      "SELECT txid, raw_tx FROM transactions WHERE state <> 'failed'",
    );
    const spentBy = new Map<string, string>();
    for (const row of live) {
      const tx = Transaction.fromBinary(Array.from(row.raw_tx));
      assert.equal(tx.id('hex'), row.txid);
      for (const input of tx.inputs) {
        const outpoint = `${input.sourceTXID}_${input.sourceOutputIndex}`;
        assert.equal(spentBy.get(outpoint), undefined, `${outpoint} spent by two transactions`);
        spentBy.set(outpoint, row.txid);
      }
    }
    const outputs = await db.query<{
      txid: string;
      vout: number;
      spent_by: string | null;
      reserved_by: string | null;
    }>('SELECT txid, vout, spent_by, reserved_by FROM token_outputs');
    for (const o of outputs) {
      const outpoint = `${o.txid}_${o.vout}`;
      assert.equal(
        o.spent_by,
        spentBy.get(outpoint) ?? null,
        `${outpoint}: spent_by and the transactions disagree`,
      );
      assert.equal(o.reserved_by, null, `${outpoint} still reserved`);
    }
    const funding = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM funding_outputs WHERE state = 'reserved'",
    );
    assert.equal(funding[0]?.n, '0', 'no funding output stays reserved');
    const unmined = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM transactions WHERE state <> 'mined'",
    );
    assert.equal(unmined[0]?.n, '0');
  });

  it('the devnet and the index agree on which token outputs are unspent', async () => {
    const { db, devnet } = service!.parts;
    assert.deepEqual(devnet!.mempoolTxids(), []);
    const onChain = devnet!
      .utxos()
      .flatMap((u) => {
        const inscription = parseTokenScript(u.lockingScript)?.inscription;
        const outpoint = `${u.txid}_${u.vout}`;
        if (inscription === undefined || inscription.op === 'burn') return [];
        const id = inscription.op === 'deploy+mint' ? outpoint : inscription.id;
        return id === token.tokenId ? [outpoint] : [];
      })
      .sort();
    const indexed = (
      await db.query<{ txid: string; vout: number }>(
        "SELECT txid, vout FROM token_outputs WHERE spent_by IS NULL AND op <> 'burn'",
      )
    )
      .map((o) => `${o.txid}_${o.vout}`)
      .sort();
    assert.ok(indexed.length >= planned.length * 2);
    assert.deepEqual(onChain, indexed);
  });
});
