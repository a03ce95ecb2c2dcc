// A restart in the middle of a stream of transfers loses no ticket and no output. Transfers go
// to /v2/transfer in four lanes; the service goes away while they are in flight (an orderly
// stop, or kill -9 of a service process); a new service starts on the same data folder and
// the wallets send everything again. Then: every answered ticket is answered again and reaches
// MINED, each transfer has exactly one ticket, balances are what the transfers make them and
// sum to the supply, no output is both spent and unspent, and the devnet and the index agree
// on the unspent token outputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  balanceSum,
  expectAllMined,
  expectBalances,
  expectLedgerAndIndexAgree,
  expectNoOutputBothSpentAndUnspent,
  type Outcome,
  recordedTransfers,
  resend,
  type Stream,
  sendStream,
  sendUntilKilled,
  startOn,
  streamInDataDir,
} from './restart-support.js';

/** The service goes away once this many transfers were answered. */
const STOP_AFTER = 7;

function describeRestart(
  name: string,
  /** Runs the stream against a service on `dataDir` and makes that service go away mid-stream. */
  interrupted: (dataDir: string, stream: Stream) => Promise<Outcome[]>,
) {
  describe(name, () => {
    const run = streamInDataDir('e2e-restart');
    let tickets: string[] = [];

    it('the new service answers every transfer, each answered one with its first ticket', async (t) => {
      const { dataDir, stream } = run;
      const first = await interrupted(dataDir, stream);
      const answered = first.filter((o) => o.kind === 'ticket').length;
      assert.ok(answered >= STOP_AFTER, `answered before the restart: ${answered}`);
      assert.ok(answered < stream.planned.length, 'the service went away in the middle of the stream');
      const failures = new Set(first.flatMap((o) => (o.kind === 'none' ? [o.why.slice(0, 60)] : [])));
      t.diagnostic(`answered before the restart: ${answered} of ${stream.planned.length}`);
      t.diagnostic(`unanswered: ${[...failures].join('; ')}`);

      const service = await startOn(dataDir);
      run.service = service;
      const recorded = await recordedTransfers(service, stream);
      t.diagnostic(`recorded before the restart: ${recorded}`);
      assert.ok(recorded >= answered, 'every answered transfer was recorded');
      assert.equal(await balanceSum(service, stream), stream.supply, 'the supply, with tickets still live');
      tickets = await resend(service, stream, first);
      assert.equal(await balanceSum(service, stream), stream.supply, 'the supply, with every transfer live');
    });

    it('every ticket reaches SUCCESS, then MINED', async () => {
      await expectAllMined(run.service!, run.stream, tickets);
    });

    it('balances are what the transfers make them, and sum to the supply', async () => {
      await expectBalances(run.service!, run.stream);
    });

    it('no output is both spent and unspent, and nothing stays reserved', async () => {
      await expectNoOutputBothSpentAndUnspent(run.service!);
    });

    it('the devnet and the index agree on which token outputs are unspent', async () => {
      await expectLedgerAndIndexAgree(run.service!, run.stream);
    });
  });
}

describeRestart(
  'restart: the service stopped in the middle of a stream of transfers',
  async (dataDir, stream) => {
    const service = await startOn(dataDir);
    return sendStream(service.url!, stream, STOP_AFTER, () => service.stop());
  },
);

describeRestart(
  'restart: the service process killed (SIGKILL) in the middle of a stream',
  (dataDir, stream) => sendUntilKilled(dataDir, stream, STOP_AFTER),
);
