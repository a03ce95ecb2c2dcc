// Chaos: kill -9 of the deployment's writer (ADR 0007) in the middle of a stream of transfers
// sent to two api processes on one PostgreSQL database. The writer runs in a process of its own;
// the api processes and the tracker in this one. Every transfer is still answered with a ticket
// (the api processes write themselves once the writer is gone), no answered ticket is lost, no
// output is both spent and unspent, and every ticket reaches MINED in agreement with the ledger.
// Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { liveWriter } from '../../src/store/submissions/writer-registry.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { freePort, type RoleProcess, startRoleProcess } from '../support/role-process.js';
import { expectNoOutputBothSpentAndUnspent } from '../support/store-invariants.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { party } from '../support/token-world.js';
import { expectStoreAndLedgerAgree } from './invariants.js';

const HOLDERS = Array.from({ length: 4 }, (_, i) => party(`writer kill holder ${i}`));
const RECIPIENT = party('writer kill recipient');
const OUTPUTS_PER_HOLDER = 10;
const LANES = 6;
const KILL_AFTER = 12;

describe('chaos: kill -9 of the writer in a stream of transfers', {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('writer kill');
  const apis: Instance[] = [];
  let writer: RoleProcess | null = null;
  const writerDir = mkdtempSync(join(tmpdir(), 'tokenproxy-writer-'));

  const killWriter = async () => {
    if (writer !== null && writer.child.exitCode === null && writer.child.signalCode === null)
      writer.child.kill('SIGKILL');
    await writer?.exited;
  };

  before(async () => {
    apis.push(await world.start('api'));
    await world.ledger.devnet.mine(1);
    await world.start('tracker');
    apis.push(await world.start('api'));
    writer = await startRoleProcess('writer', world.databaseUrl, world.ledger.flags, {
      port: await freePort(),
      dataDir: writerDir,
    });
    const db = apis[0]!.service.parts.db;
    await eventually(
      async () => ((await liveWriter(db, new Date())) === null ? undefined : true),
      'the writer registered',
      600,
    );
    for (const api of apis) await api.service.parts.writerLink!.refresh();
  });
  after(async () => {
    await killWriter();
    rmSync(writerDir, { recursive: true, force: true });
  });

  it('every transfer is answered with a ticket, none is lost, and store and ledger agree', async () => {
    const first = apis[0]!.service.parts;
    assert.ok(
      apis.every((a) => a.service.parts.writerLink!.current() !== null),
      'both api processes found the writer',
    );
    const key = (
      await createApiKey(first.db, first.masterKey, { name: 'wallets', scopes: ['read', 'submit'] })
    ).key;
    for (const holder of HOLDERS)
      for (let i = 0; i < OUTPUTS_PER_HOLDER; i++)
        await mintTokens(apiContextOf(first), first.keys.mint, {
          to: holder.address,
          amount: BigInt(100_000 + i),
        });
    await world.ledger.devnet.mine(1);
    const live = async () =>
      Number(
        (await first.db.query<{ n: string }>("SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'"))[0]!
          .n,
      );
    await eventually(async () => ((await live()) === 0 ? true : undefined), 'the mints MINED', 600);

    const planned: string[] = [];
    for (const holder of HOLDERS)
      for (const output of await utxosOf(apis[0]!.url, key, holder.address))
        planned.push(
          transferOf(first.ctx.token, {
            from: holder,
            inputs: [output],
            to: RECIPIENT,
            amount: 1_000n,
            fee: 100n,
          }),
        );
    assert.equal(planned.length, HOLDERS.length * OUTPUTS_PER_HOLDER);

    const answers: { status: number; text: string }[] = [];
    let answered = 0;
    let viaWriterAtKill = 0;
    let killing: Promise<void> | null = null;
    let next = 0;
    const lane = async (l: number) => {
      while (next < planned.length) {
        const n = next++;
        const res = await http(apis[(n + l) % apis.length]!.url, 'POST', '/v2/transfer', {
          key,
          body: { rawtx: planned[n]! },
        });
        answers[n] = { status: res.status, text: res.status === 200 ? ticketIdOf(res) : res.text };
        if (++answered === KILL_AFTER && killing === null) {
          viaWriterAtKill = apis.reduce((sum, a) => sum + a.service.parts.writerLink!.counts().viaWriter, 0);
          killing = killWriter();
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, l) => lane(l)));
    await killing;

    assert.ok(viaWriterAtKill > 0, 'the writer wrote transfers before it was killed');
    const local = apis.reduce((sum, a) => sum + a.service.parts.writerLink!.counts().local, 0);
    assert.ok(local > 0, 'the api processes wrote the rest themselves');
    const refused = answers.filter((a) => a.status !== 200);
    assert.deepEqual(refused, [], 'every transfer answered with a ticket');
    const tickets = answers.map((a) => a.text);
    assert.equal(new Set(tickets).size, planned.length, 'one ticket each');
    const stored = await first.db.query<{ id: string }>(
      'SELECT id::text AS id FROM tickets WHERE id = ANY($1::uuid[])',
      [tickets],
    );
    assert.equal(stored.length, tickets.length, 'every answered ticket is stored');

    await eventually(
      async () => {
        await world.ledger.devnet.mine(1);
        return (await live()) === 0 ? true : undefined;
      },
      'every ticket MINED',
      600,
    );
    // On the quiet service: no reservation is left behind, nothing is spent twice.
    await expectNoOutputBothSpentAndUnspent(first.db);
    await expectStoreAndLedgerAgree(
      {
        url: apis[0]!.url,
        key,
        db: first.db,
        devnet: world.ledger.devnet,
        tokenId: first.ctx.token.tokenId,
        supply: BigInt(first.token.supply),
      },
      undefined,
    );
    const ok = await http(apis[1]!.url, 'GET', '/v1/config');
    assert.equal(ok.status, 200);
  });
});
