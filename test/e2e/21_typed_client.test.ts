// A client generated from the service's own OpenAPI document (openapi-typescript +
// openapi-fetch) compiles (tsc, strict) and makes one call of each resource against a real
// server: config, balance, utxos, transfer (a real signed transfer), ticket, sync, history, a
// typed problem, and the admin mint and mine that fund it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { party } from '../support/token-world.js';
import { transferOf, utxosOf } from './e2e-http.js';
import { eventually, serviceForSuite } from './support.js';

const DIR = fileURLToPath(new URL('../typed-client/', import.meta.url));
const CALLS_MODULE: string = '../typed-client/calls.js';

/** What test/typed-client/calls.ts exports, as this test uses it. */
interface TypedCalls {
  typedClient(url: string, key?: string): unknown;
  readConfig(
    client: unknown,
  ): Promise<{ tokenId: string; decimals: number; feeFor(amount: number): number | undefined }>;
  mint(client: unknown, address: string, amount: string): Promise<unknown>;
  mine(client: unknown): Promise<number>;
  readBalance(client: unknown, address: string): Promise<number>;
  readUtxos(client: unknown, address: string): Promise<{ amount: number }[]>;
  submitTransfer(client: unknown, rawtx: string, idempotencyKey: string): Promise<string>;
  readTicket(client: unknown, ticketId: string): Promise<{ status: string }>;
  readFeed(client: unknown, address: string): Promise<number[]>;
  readHistory(client: unknown, address: string): Promise<string[]>;
  readMissingTicket(client: unknown): Promise<string>;
}
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('a typed client generated from /openapi.json', () => {
  const t = serviceForSuite();

  it('compiles against the generated types and calls each resource', async () => {
    const doc = await (await fetch(`${t.url}/openapi.json`)).json();
    const types = astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
    mkdirSync(`${DIR}generated`, { recursive: true });
    writeFileSync(`${DIR}generated/api.d.ts`, types);
    assert.match(types, /submitTransfer/);
    await promisify(execFile)(
      process.execPath,
      [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${DIR}tsconfig.json`],
      {
        cwd: ROOT,
      },
    ).catch((error: { stdout?: string; message: string }) => {
      assert.fail(`tsc failed on the typed client:\n${error.stdout ?? error.message}`);
    });

    // Loaded by a path the project's own type-check does not follow: calls.ts needs the types
    // generated above, which a fresh clone does not have (tsc -p typed-client checked it).
    const calls = (await import(CALLS_MODULE)) as TypedCalls;
    const admin = calls.typedClient(t.url, t.adminKey);
    const anonymous = calls.typedClient(t.url);
    const alice = party('typed alice');
    const bob = party('typed bob');

    const token = await calls.readConfig(anonymous);
    assert.equal(token.tokenId, t.service.parts.ctx.token.tokenId);

    await calls.mint(admin, alice.address, '50');
    assert.equal(await calls.mine(admin), 1);
    const minted = 50 * 10 ** token.decimals;
    await eventually(
      async () => ((await calls.readBalance(anonymous, alice.address)) === minted ? true : undefined),
      'the mint',
    );
    const outputs = await calls.readUtxos(anonymous, alice.address);
    assert.equal(outputs.length, 1);
    assert.equal(outputs[0]!.amount, minted);

    const amount = 1_000_000;
    const fee = token.feeFor(amount);
    assert.ok(fee !== undefined);
    const inputs = await utxosOf(t.url, t.adminKey, alice.address);
    const rawtx = transferOf(t.service.parts.ctx.token, {
      from: alice,
      inputs,
      to: bob,
      amount: BigInt(amount),
      fee: BigInt(fee),
    });
    const ticketId = await calls.submitTransfer(admin, rawtx, 'typed-client-1');
    assert.equal(
      await calls.submitTransfer(admin, rawtx, 'typed-client-1'),
      ticketId,
      'Idempotency-Key replays',
    );
    const ticket = await calls.readTicket(anonymous, ticketId);
    assert.ok(['BROADCASTING', 'SUCCESS', 'MINED'].includes(ticket.status), ticket.status);

    const scores = await calls.readFeed(anonymous, alice.address);
    assert.equal(scores.length, 2);
    assert.ok(scores[0]! > scores[1]!, 'desc');
    const history = await calls.readHistory(anonymous, bob.address);
    assert.deepEqual(history, [`receive:${amount}`]);
    assert.equal(await calls.readMissingTicket(anonymous), 'NOT_FOUND');
  });
});
