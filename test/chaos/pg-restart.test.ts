// Chaos: PostgreSQL restarted mid-load. The service (all roles, the embedded devnet) runs on a
// PostgreSQL cluster of the test's own; transfers flow in lanes when the cluster is stopped
// (pg_ctl stop -m fast: the connections in use are cut). While it is down every request answers
// 503 NOT_READY with Retry-After, never a 500; once it is back the pool reconnects, the tracker
// and the deliverer resume, the wallets' resent transfers get their tickets (the first one for
// a transfer answered before), and every ticket reaches MINED with the invariants holding.
// CHAOS_PG_DOWN_MS sets how long the cluster stays down (default 3000).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { assertProblem, http } from '../e2e/e2e-http.js';
import { startTestService, type TestService } from '../e2e/support.js';
import {
  type Answer,
  type ChaosStream,
  mineUntilAllEnded,
  prepareChaosStream,
  submitTransfer,
} from './chaos-stream.js';
import { expectInvariants } from './invariants.js';
import { type PrivatePostgres, startPrivatePostgres } from './private-postgres.js';

const DOWN_MS = Number(process.env.CHAOS_PG_DOWN_MS ?? 3000);
const TRANSFERS = 24;
const BEFORE_STOP = 8;
const LANES = 4;

/** initdb runs as the postgres user: root, and PostgreSQL's binaries, are needed. */
function cannotRun(): string | false {
  if (process.getuid?.() !== 0) return 'needs root (initdb runs as the postgres user through runuser)';
  if (!existsSync('/usr/lib/postgresql')) return 'needs PostgreSQL under /usr/lib/postgresql';
  return false;
}

describe('chaos: PostgreSQL restarted mid-load', { skip: cannotRun() }, () => {
  let cluster: PrivatePostgres | undefined;
  let t: TestService | undefined;
  let stream: ChaosStream;

  before(async () => {
    cluster = await startPrivatePostgres();
    t = await startTestService([
      '--database-url',
      cluster.url,
      '--tracker-poll-ms',
      '200',
      '--no-rate-limit-enabled',
      '--log-level',
      'fatal',
    ]);
    stream = await prepareChaosStream(t.service, t.service.parts.devnet!, 'pg restart', TRANSFERS);
  });

  after(async () => {
    await t?.stop().catch(() => undefined);
    cluster?.remove();
  });

  it('answers 503 NOT_READY while it is down, then resumes and loses nothing', {
    timeout: 150_000,
  }, async (tc) => {
    const { url } = t!;
    const tickets = new Map<number, string>();
    const refused: { i: number; answer: Answer; phase: string }[] = [];
    const take = (i: number, answer: Answer, phase: string) => {
      if (answer.status === 200) {
        const earlier = tickets.get(i);
        if (earlier !== undefined) assert.equal(answer.text, earlier, `transfer ${i}: its first ticket`);
        tickets.set(i, answer.text);
      } else refused.push({ i, answer, phase });
    };

    // Under load: the cluster stops while the lanes are sending.
    let stopped: Promise<void> | undefined;
    const queue = Array.from({ length: BEFORE_STOP + LANES * 2 }, (_, i) => i);
    const lane = async () => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        take(i, await submitTransfer(url, stream.key, stream.rawtxs[i]!), 'stopping');
        if (tickets.size === BEFORE_STOP / 2 && stopped === undefined) stopped = cluster!.stop();
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    await stopped;
    assert.ok(tickets.size >= BEFORE_STOP / 2, 'transfers flowed before the stop');

    // Down: every request answers 503 NOT_READY with Retry-After.
    const downUntil = Date.now() + DOWN_MS;
    let probes = 0;
    for (let i = BEFORE_STOP + LANES * 2; Date.now() < downUntil && i < TRANSFERS; i++) {
      const answer = await submitTransfer(url, stream.key, stream.rawtxs[i]!);
      take(i, answer, 'down');
      const ticket = await http(url, 'GET', `/v2/ticket?ticketID=${[...tickets.values()][0]}`, {
        key: stream.key,
      });
      assertProblem(ticket, 503, 'NOT_READY');
      probes++;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(probes > 0);
    for (const { i, answer, phase } of refused) {
      assert.equal(answer.status, 503, `transfer ${i} (${phase}): ${answer.status} ${answer.text}`);
      assert.equal((JSON.parse(answer.text) as { code: string }).code, 'NOT_READY', answer.text);
      assert.ok(Number(answer.retryAfter) > 0, `Retry-After: ${answer.retryAfter}`);
    }
    assert.ok(
      refused.some((r) => r.phase === 'down'),
      'submissions during the outage were refused',
    );
    tc.diagnostic(`${tickets.size} tickets before the restart, ${refused.length} refused with 503`);

    // Back: the wallets send every transfer again (waiting on 503 as Retry-After says, shortened).
    await cluster!.start();
    for (const [i, rawtx] of stream.rawtxs.entries()) {
      for (let attempt = 0; ; attempt++) {
        const answer = await submitTransfer(url, stream.key, rawtx);
        if (answer.status === 200) {
          take(i, answer, 'back');
          break;
        }
        assert.equal(answer.status, 503, `transfer ${i} after the restart: ${answer.text}`);
        assert.ok(attempt < 50, `transfer ${i} still refused after the restart: ${answer.text}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    assert.equal(new Set(tickets.values()).size, TRANSFERS, 'one ticket per transfer');

    await mineUntilAllEnded(stream.observed, 'every ticket ended after the restart');
    await expectInvariants(stream.observed, { accepted: [...tickets.values()] });
  });
});
