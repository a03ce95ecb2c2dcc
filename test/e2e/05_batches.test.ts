// The reference client's batch operations (mnee.batch(), @mnee/ts-sdk 1.1.2) on 200 addresses
// against a real tokenproxy: balances and UTXOs in the client's chunks of 20, compared with
// what the service answers address by address; and the 1000-address limit of a request.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import { apiContextOf } from '../../src/compose.js';
import { p2pkhAddress } from '../../src/domain/address.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { party } from '../support/token-world.js';
import { assertProblem, http, utxosOf } from './e2e-http.js';
import { redirectClientTo, startTestService, type TestService } from './support.js';

const ADDRESSES = Array.from({ length: 200 }, (_, i) => party(`batch ${i}`).address);
const CHUNK = 20;
/** Every fourth address is funded; every eighth gets a second mint (at most 8 UTXOs per chunk). */
const mintsFor = (i: number): bigint[] =>
  i % 4 !== 0 ? [] : i % 8 === 0 ? [BigInt(100_000 + i), BigInt(7 + i)] : [BigInt(100_000 + i)];

/** Valid addresses that own nothing (distinct from the 200 above). */
function emptyAddresses(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) =>
    p2pkhAddress(new Uint8Array(createHash('sha256').update(`${tag} ${i}`).digest().subarray(0, 20))),
  );
}

describe('reference client batch operations on 200 addresses', () => {
  let t: TestService;
  let restore: () => void;
  let mnee: Mnee;
  const expected = new Map<string, bigint>();

  before(async () => {
    t = await startTestService();
    restore = redirectClientTo(t.url);
    mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    const { parts } = t.service;
    for (const [i, address] of ADDRESSES.entries()) {
      let total = 0n;
      for (const amount of mintsFor(i)) {
        await mintTokens(apiContextOf(parts), parts.keys.mint, { to: address, amount });
        total += amount;
      }
      expected.set(address, total);
    }
  });

  after(async () => {
    restore?.();
    await t?.stop();
  });

  it('getBalances: one entry per address, in chunks of 20, equal to what was minted', async () => {
    const progress: number[] = [];
    const result = await mnee.batch().getBalances(ADDRESSES, {
      requestsPerSecond: 10,
      onProgress: (completed, total, errors) => {
        assert.equal(total, ADDRESSES.length / CHUNK);
        assert.equal(errors, 0);
        progress.push(completed);
      },
    });
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errors));
    assert.equal(result.totalProcessed, ADDRESSES.length / CHUNK);
    assert.deepEqual(
      progress.sort((a, b) => a - b),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    assert.equal(result.results.length, ADDRESSES.length);
    const seen = new Map(result.results.map((b) => [b.address, b]));
    assert.equal(seen.size, ADDRESSES.length);
    for (const address of ADDRESSES) {
      const balance = seen.get(address);
      assert.ok(balance, `no balance for ${address}`);
      assert.equal(balance.amount, Number(expected.get(address)));
      assert.equal(balance.decimalAmount, Number(expected.get(address)) / 100_000);
    }
    const funded = result.results.filter((b) => b.amount > 0).length;
    assert.equal(funded, ADDRESSES.filter((_, i) => mintsFor(i).length > 0).length);
  });

  it('getUtxos: each address gets exactly the outputs the service lists for it', async () => {
    const result = await mnee.batch().getUtxos(ADDRESSES, { requestsPerSecond: 10 });
    assert.equal(result.totalErrors, 0, JSON.stringify(result.errors));
    assert.equal(result.results.length, ADDRESSES.length);
    const byAddress = new Map(result.results.map((r) => [r.address, r.utxos]));
    let outputs = 0;
    for (const [i, address] of ADDRESSES.entries()) {
      const fromBatch = byAddress.get(address);
      assert.ok(fromBatch, `no entry for ${address}`);
      const direct = await utxosOf(t.url, t.adminKey, address);
      assert.deepEqual(
        fromBatch.map((u) => u.outpoint).sort(),
        direct.map((u) => `${u.txid}_${u.vout}`).sort(),
        address,
      );
      assert.deepEqual(fromBatch.map((u) => BigInt(u.data.bsv21.amt)).sort(), [...mintsFor(i)].sort());
      for (const u of fromBatch) {
        assert.deepEqual(u.owners, [address]);
        assert.equal(u.data.bsv21.id, t.service.parts.token.tokenId);
      }
      outputs += fromBatch.length;
    }
    assert.equal(
      outputs,
      ADDRESSES.reduce((n, _, i) => n + mintsFor(i).length, 0),
    );
  });

  it("getUtxos asks for one page of the server's default size (10) per chunk", async () => {
    // The client sends no page or size: a chunk whose addresses hold more than 10 outputs
    // gets the first 10 by score, as the spec's default says.
    const { parts } = t.service;
    const crowded = emptyAddresses(3, 'crowded');
    for (const address of crowded)
      for (const amount of [11n, 12n, 13n, 14n])
        await mintTokens(apiContextOf(parts), parts.keys.mint, { to: address, amount });
    const result = await mnee.batch().getUtxos(crowded, { requestsPerSecond: 10 });
    const got = result.results.flatMap((r) => r.utxos.map((u) => u.outpoint));
    assert.equal(got.length, 10);
    const page = await http(t.url, 'POST', '/v2/utxos', { key: t.adminKey, body: crowded });
    assert.deepEqual(got.sort(), (page.json as { outpoint: string }[]).map((u) => u.outpoint).sort());
  });

  it('POST /v2/balance takes 1000 addresses, in request order, and refuses 1001', async () => {
    const thousand = [...ADDRESSES, ...emptyAddresses(800, 'thousand')];
    assert.equal(new Set(thousand).size, 1000);
    const answer = await http(t.url, 'POST', '/v2/balance', { key: t.adminKey, body: thousand });
    assert.equal(answer.status, 200, answer.text);
    const balances = answer.json as { address: string; amt: number; precised: number }[];
    assert.deepEqual(
      balances.map((b) => b.address),
      thousand,
    );
    for (const b of balances) {
      const amt = expected.get(b.address) ?? 0n;
      assert.equal(b.amt, Number(amt));
      assert.equal(b.precised, Number(amt) / 100_000);
    }
    const over = [...thousand, emptyAddresses(1, 'one more')[0]!];
    assertProblem(
      await http(t.url, 'POST', '/v2/balance', { key: t.adminKey, body: over }),
      400,
      'INVALID_REQUEST',
    );
    assertProblem(
      await http(t.url, 'POST', '/v2/utxos', { key: t.adminKey, body: over }),
      400,
      'INVALID_REQUEST',
    );
    assertProblem(
      await http(t.url, 'POST', '/v1/sync', { key: t.adminKey, body: over }),
      400,
      'INVALID_REQUEST',
    );
    const utxos = await http(t.url, 'POST', '/v2/utxos?size=1000', { key: t.adminKey, body: thousand });
    assert.equal(utxos.status, 200);
  });
});
