// Chaos across roles (issue 34): a production-shaped deployment on PostgreSQL, every process
// its own (two api processes, the tracker, the writer, the deliverer, each on its --port with
// /readyz), the devnet behind its ARC API and a callback receiver in this process. Under a steady
// stream of transfers with callbacks, kill -9 of a random process at a random moment once the
// deployment is whole again, each restarted by the supervisor after a short delay on its port and
// data folder. Afterwards: every answered ticket reached MINED, every callback event reached the
// receiver at least once (each ticket's outbox events against the receiver's), the chaos
// invariants hold, and `tokenproxy audit` is clean; no process exited but those killed.
// CHAOS_ROLE_KILLS sets the kills (default 4: the suite's bounded run; `npm run chaos:roles`
// runs 100), CHAOS_SEED the kill moments and victims. Runs only when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openPostgresDb } from '../../src/store/db/postgres-db.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { eventually } from '../e2e/support.js';
import { prng } from '../support/client-fixtures.js';
import { type Instance, sharedWorld } from '../support/ledger-world.js';
import { expectNoOutputBothSpentAndUnspent } from '../support/store-invariants.js';
import { testDatabaseUrl } from '../support/test-databases.js';
import { expectEveryEventDelivered } from './callbacks-delivered.js';
import { type ChaosStream, mineUntilAllEnded, prepareChaosStream, submitTransfer } from './chaos-stream.js';
import {
  expectNoTicketLost,
  expectStoreAndLedgerAgree,
  expectSupplyUnchanged,
  type Observed,
} from './invariants.js';
import { type Supervised, supervise, type UnexpectedExit } from './supervised-roles.js';

const KILLS = Number(process.env.CHAOS_ROLE_KILLS ?? 4);
/** Transfers signed up front: a dozen per kill, spread over the drill (a kill every 10-15 s here; two lanes, one a second each at most). */
const TRANSFERS = Math.max(40, KILLS * 12);
const LANES = 2;
const PACE_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe(`chaos: kill -9 of a random process of the deployment, ${KILLS} times`, {
  skip: testDatabaseUrl === undefined,
}, () => {
  const world = sharedWorld('any role kill');
  const unexpected: UnexpectedExit[] = [];
  const processes: Supervised[] = [];
  let receiver: WebhookReceiver;
  let setup: Instance | undefined;
  let stream: ChaosStream;
  let adminKey: string;

  before(async () => {
    receiver = await startWebhookReceiver(() => ({ status: 204 }), 'restartable');
    // The first start deploys the token and mints the stream's outputs; it is stopped before
    // the drill, which runs on the five processes alone.
    setup = await world.start('api', ['--callback-allow', '127.0.0.1']);
    adminKey = setup.adminKey;
    await world.ledger.devnet.mine(1);
    const flags = [
      '--tracker-poll-ms',
      '200',
      '--callback-allow',
      '127.0.0.1',
      '--no-rate-limit-enabled',
      ...world.ledger.flags,
    ];
    const shape = [
      ['api-1', 'api'],
      ['api-2', 'api'],
      ['tracker', 'tracker'],
      ['writer', 'writer'],
      ['deliverer', 'deliverer'],
    ] as const;
    for (const [name, roles] of shape)
      processes.push(await supervise(name, roles, world.databaseUrl, flags, unexpected));
    for (const p of processes)
      await eventually(async () => ((await p.ready()) ? true : undefined), `${p.name} ready`, 1_800);
    // At most 50 outputs a holder: chaos-stream's amounts outgrow a minted output past about 100.
    const holders = Math.max(4, Math.ceil(TRANSFERS / 50));
    stream = await prepareChaosStream(
      setup.service,
      world.ledger.devnet,
      'any role kill',
      TRANSFERS,
      holders,
    );
    await setup.stop();
    setup = undefined;
  });
  after(async () => {
    for (const p of processes) await p.stop().catch(() => undefined);
    await setup?.stop().catch(() => undefined);
    await receiver?.close();
  });

  it('every answered ticket reaches MINED, every callback arrives, the audit is clean', async (t) => {
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000_007);
    t.diagnostic(`CHAOS_SEED=${seed} CHAOS_ROLE_KILLS=${KILLS} transfers=${TRANSFERS}`);
    const random = prng(seed);
    const started = Date.now();
    const db = await openPostgresDb(world.databaseUrl, { max: 4 });
    const apis = processes.filter((p) => p.roles === 'api');
    const observed: Observed = { ...stream.observed, db, url: apis[0]!.url };
    // Set false at the end, or on a failure: the lanes and the miner stop, and the runner exits.
    let drilling = true;
    let sending = true;
    try {
      // The ledger mines a block every second or so while anything waits in its mempool.
      const miner = (async () => {
        while (drilling) {
          if (world.ledger.devnet.mempoolTxids().length > 0) await world.ledger.devnet.mine(1);
          await sleep(1_000);
        }
      })();

      // Wallets: each transfer sent to a random api process; one that got no ticket (refused
      // connection, a reset, a 503 while the process starts) is sent again later, as a wallet would.
      const tickets = new Map<number, string>();
      const lastAnswer = new Map<number, string>();
      const retry: number[] = [];
      let next = 0;
      const send = async (n: number, url: string) => {
        const answer = await submitTransfer(url, stream.key, stream.rawtxs[n]!, {
          callback_url: receiver.url('/hook'),
        });
        if (answer.status === 200) {
          const earlier = tickets.get(n);
          if (earlier !== undefined) assert.equal(answer.text, earlier, `transfer ${n}: its first ticket`);
          tickets.set(n, answer.text);
        } else {
          // Sent again: no answer (a killed process), 5xx (starting, writer gone), 409 or 429.
          const again = answer.status === 0 || answer.status >= 500 || [409, 429].includes(answer.status);
          assert.ok(again, `transfer ${n} refused for good: ${answer.status} ${answer.text.slice(0, 300)}`);
          lastAnswer.set(n, `${answer.status} ${answer.text.slice(0, 200)}`);
          retry.push(n);
        }
      };
      // The signed transfers are spread over the whole drill: a new one is sent only while fewer
      // have gone than the kills so far allow (TRANSFERS / KILLS a kill), so the last kills meet
      // traffic too (sent as fast as the lanes go, 1,200 were gone by kill 70 of 100).
      let killsDone = 0;
      const allowed = () => Math.min(TRANSFERS, Math.ceil(((killsDone + 1) * TRANSFERS) / KILLS));
      const lane = async () => {
        while (sending) {
          const fresh = next < allowed();
          const n =
            retry.length > 0 && (!fresh || random() < 0.5) ? retry.shift() : fresh ? next++ : undefined;
          if (n === undefined) {
            if (next >= TRANSFERS) break;
            await sleep(PACE_MS);
            continue;
          }
          await send(n, apis[Math.floor(random() * apis.length)]!.url);
          await sleep(PACE_MS);
        }
      };
      // A lane that fails (an answer the API document does not allow, a 500) ends the drill early.
      let laneFailed = false;
      const lanes = Promise.all(Array.from({ length: LANES }, lane)).catch((err: unknown) => {
        laneFailed = true;
        throw err;
      });
      lanes.catch(() => undefined);

      // The drill: one fault at a time, as a deployment meets them. Once every process is ready
      // again, a random one is killed at a random moment and restarted after a short delay. (Kills
      // every few seconds regardless kept all five restarting at once on this loaded machine,
      // where a start takes 5-15 s: next to no traffic got through.)
      const killed: Record<string, number> = {};
      const backMs: number[] = [];
      let killedAt = 0;
      const whole = async (what: string) => {
        await eventually(
          async () =>
            (await Promise.all(processes.map((p) => p.ready()))).every(Boolean) ? true : undefined,
          what,
          1_800,
        );
        if (killedAt > 0) backMs.push(Date.now() - killedAt);
      };
      for (let k = 0; k < KILLS && !laneFailed; k++) {
        await whole(`every process ready before kill ${k + 1}`);
        await sleep(500 + Math.floor(random() * 2_500));
        const victim = processes[Math.floor(random() * processes.length)]!;
        killedAt = Date.now();
        await victim.kill(300 + Math.floor(random() * 1_200));
        killed[victim.name] = (killed[victim.name] ?? 0) + 1;
        killsDone = k + 1;
        // The long mode says how far it is, kill by kill, while it runs (the runner prints
        // diagnostics only at the end): a run cut short still shows what it did.
        if (KILLS > 10)
          process.stderr.write(
            `# kill-any-role: kill ${k + 1}/${KILLS} (${victim.name}) at ${Math.round((Date.now() - started) / 1000)} s, ${tickets.size} tickets: ${JSON.stringify(killed)}\n`,
          );
      }
      const drillMs = Date.now() - started;
      const sentInDrill = next;
      sending = false;
      await lanes;
      t.diagnostic(
        `kills ${JSON.stringify(killed)} in ${drillMs} ms; ${sentInDrill} transfers sent meanwhile`,
      );

      // Everyone back; the wallets send what got no ticket again until it does.
      await whole('every process ready after the last kill');
      const sorted = [...backMs].sort((a, b) => a - b);
      t.diagnostic(
        `back ready after a kill: median ${sorted[sorted.length >> 1]} ms, max ${sorted.at(-1)} ms`,
      );
      const unanswered = [...new Set(retry)].filter((n) => !tickets.has(n));
      for (const n of unanswered)
        await eventually(
          async () => {
            await send(n, apis[n % apis.length]!.url);
            return tickets.has(n) ? true : undefined;
          },
          `transfer ${n} answered (last: ${lastAnswer.get(n)})`,
          300,
        );
      drilling = false;
      await miner;
      assert.deepEqual(unexpected, [], 'no process exited but those killed');

      const answered = [...tickets.values()];
      assert.equal(new Set(answered).size, answered.length, 'one ticket per transfer');
      await mineUntilAllEnded(observed, 'every ticket ended', 1_800);
      await expectNoTicketLost(db, { accepted: answered });
      await eventually(
        async () => {
          const rows = await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM events WHERE state = 'pending'",
          );
          return rows[0]?.n === '0' ? true : undefined;
        },
        'every callback event delivered',
        1_800,
      );
      const tally = await expectEveryEventDelivered(db, receiver, answered);
      await expectNoOutputBothSpentAndUnspent(db);
      await expectStoreAndLedgerAgree(observed);
      await expectSupplyUnchanged(observed);
      const audit = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'src/cli/entry.ts', 'audit', '--url', apis[0]!.url, '--admin-key', adminKey],
        { cwd: ROOT, timeout: 120_000 },
      ).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
        assert.fail(`tokenproxy audit exited ${err.code}: ${err.stdout} ${err.stderr}`);
      });
      assert.equal((JSON.parse(audit.stdout) as { ok: boolean }).ok, true, audit.stdout);
      const starts = Object.fromEntries(processes.map((p) => [p.name, p.starts]));
      t.diagnostic(
        `${answered.length} tickets MINED; callbacks: ${tally.events} events, ${tally.requests} requests, ${tally.repeated} delivered more than once; starts ${JSON.stringify(starts)}; ${Math.round((Date.now() - started) / 1000)} s`,
      );
    } finally {
      sending = false;
      drilling = false;
      await db.close();
    }
  });
});
