// Chaos: a reorg of 3 blocks, on the embedded service (its own devnet) and on ARC (the devnet
// behind its ARC server). Transfers are mined across three blocks, each ticket with a callback
// receiver. First reorg: the new chain's blocks are empty (leaveInMempool), so every ticket of
// the three blocks goes back from MINED to SUCCESS (the change feed shows them unconfirmed), then
// re-reaches MINED in the next block (the feed shows that block); the receiver hears SUCCESS and
// MINED again. Second reorg: a rival spending one transfer's funding input is mined in the new
// chain; that transfer is dropped and double-spent, its ticket ends FAILED (its token input free
// again), the others re-reach MINED. The invariants hold after each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { signP2pkhInputs } from '../../src/domain/sign-p2pkh.js';
import { buildP2pkhScript } from '../../src/domain/token-script.js';
import type { Devnet } from '../../src/ledger/devnet/devnet.js';
import { startWebhookReceiver, type WebhookReceiver } from '../callbacks/webhook-receiver.js';
import { http } from '../e2e/e2e-http.js';
import { eventually, startTestService, type TestService } from '../e2e/support.js';
import { type Ledger, startLedger } from '../support/ledger-world.js';
import { party } from '../support/token-world.js';
import {
  type ChaosStream,
  mineUntilAllEnded,
  prepareChaosStream,
  submitTransfer,
  ticketStatus,
} from './chaos-stream.js';
import { expectInvariants } from './invariants.js';

const FLAGS = [
  '--tracker-poll-ms',
  '200',
  '--no-rate-limit-enabled',
  '--log-level',
  'fatal',
  '--callback-allow',
  '127.0.0.1',
];
const PER_BLOCK = 3;
const TRANSFERS = PER_BLOCK * 4;

interface SyncRecord {
  readonly txid: string;
  readonly height: number;
  readonly blkHash: string;
}

for (const on of ['embedded', 'arc'] as const) {
  describe(`chaos: a 3-block reorg (${on === 'arc' ? 'ARC' : 'embedded devnet'})`, () => {
    let ledger: Ledger | undefined;
    let t: TestService | undefined;
    let devnet: Devnet;
    let receiver: WebhookReceiver | undefined;
    let stream: ChaosStream;
    const tickets: string[] = [];
    const txids: string[] = [];

    const waitStatus = (ids: readonly string[], status: string, what: string) =>
      eventually(
        async () => {
          for (const id of ids) if ((await ticketStatus(t!.url, stream.key, id)) !== status) return undefined;
          return true;
        },
        what,
        300,
      );
    const syncRecords = async () => {
      const res = await http(t!.url, 'GET', '/v1/sync?from=0&limit=5000', { key: stream.key });
      assert.equal(res.status, 200, res.text);
      return new Map((res.json as SyncRecord[]).map((r) => [r.txid, r]));
    };
    const callbackStatuses = (i: number) =>
      receiver!.received.filter((r) => r.path === `/t${i}`).map((r) => (r.json as { status: string }).status);

    before(async () => {
      if (on === 'arc') {
        ledger = await startLedger('reorg arc');
        t = await startTestService([...ledger.flags, ...FLAGS]);
        devnet = ledger.devnet;
        await devnet.mine(1);
      } else {
        t = await startTestService(FLAGS);
        devnet = t.service.parts.devnet!;
      }
      receiver = await startWebhookReceiver();
      stream = await prepareChaosStream(t.service, devnet, `reorg ${on}`, TRANSFERS);
    });

    after(async () => {
      await t?.stop().catch(() => undefined);
      await ledger?.close();
      await receiver?.close();
    });

    it('tickets of the reorged blocks go back to SUCCESS, then re-reach MINED in the new block', {
      timeout: 90_000,
    }, async () => {
      // Three blocks of three transfers each.
      for (let block = 0; block < 3; block++) {
        const group: string[] = [];
        for (let j = 0; j < PER_BLOCK; j++) {
          const i = block * PER_BLOCK + j;
          const answer = await submitTransfer(t!.url, stream.key, stream.rawtxs[i]!, {
            callback_url: receiver!.url(`/t${i}`),
          });
          assert.equal(answer.status, 200, answer.text);
          group.push(answer.text);
        }
        await waitStatus(group, 'SUCCESS', `block ${block}'s tickets SUCCESS`);
        await devnet.mine(1);
        await waitStatus(group, 'MINED', `block ${block}'s tickets MINED`);
        tickets.push(...group);
      }
      const rows = await stream.observed.db.query<{ id: string; txid: string }>(
        'SELECT id, txid FROM tickets',
      );
      const txidOf = new Map(rows.map((r) => [r.id, r.txid]));
      txids.push(...tickets.map((id) => txidOf.get(id)!));
      const before = await syncRecords();
      const oldBlocks = new Set(
        devnet
          .blocks()
          .slice(-3)
          .map((b) => b.hash),
      );
      for (const txid of txids)
        assert.ok(oldBlocks.has(before.get(txid)!.blkHash), `${txid} in one of the last 3 blocks`);

      const reorg = await devnet.reorg(3, { leaveInMempool: true });
      assert.equal(reorg.disconnected.length, 3);
      assert.deepEqual(new Set(devnet.mempoolTxids()), new Set(txids));
      await waitStatus(tickets, 'SUCCESS', 'every reorged ticket back to SUCCESS');
      const unmined = await syncRecords();
      for (const txid of txids) assert.equal(unmined.get(txid)!.height, 0, `${txid} unconfirmed in the feed`);

      const [next] = await devnet.mine(1);
      await waitStatus(tickets, 'MINED', 'every reorged ticket MINED again');
      const remined = await syncRecords();
      for (const txid of txids) {
        assert.equal(remined.get(txid)!.blkHash, next!.hash, `${txid} in the new block in the feed`);
        assert.equal(remined.get(txid)!.height, next!.height);
      }
      await eventually(
        async () => (tickets.every((_, i) => callbackStatuses(i).length >= 5) ? true : undefined),
        'the callbacks of the reorg',
        300,
      );
      for (const [i] of tickets.entries())
        assert.deepEqual(
          callbackStatuses(i),
          ['BROADCASTING', 'SUCCESS', 'MINED', 'SUCCESS', 'MINED'],
          `ticket ${i}`,
        );
      await expectInvariants(stream.observed, { accepted: tickets });
    });

    it('a transfer double-spent in the new chain ends FAILED; the rest re-reach MINED', {
      timeout: 90_000,
    }, async () => {
      const group: string[] = [];
      for (let i = 3 * PER_BLOCK; i < TRANSFERS; i++) {
        const answer = await submitTransfer(t!.url, stream.key, stream.rawtxs[i]!, {
          callback_url: receiver!.url(`/t${i}`),
        });
        assert.equal(answer.status, 200, answer.text);
        group.push(answer.text);
      }
      await waitStatus(group, 'SUCCESS', 'the last transfers SUCCESS');
      await devnet.mine(2);
      await waitStatus(group, 'MINED', 'the last transfers MINED');

      // The rival: the victim's funding input, signed by the operator's funding key, paid elsewhere.
      const { db } = stream.observed;
      const victim = group[0]!;
      const [row] = await db.query<{ txid: string; raw_tx: Uint8Array }>(
        'SELECT k.txid, t.raw_tx FROM tickets k JOIN transactions t ON t.txid = k.txid WHERE k.id = $1',
        [victim],
      );
      const victimTx = Transaction.fromBinary(Array.from(row!.raw_tx));
      const funding = await db.query<{ txid: string; vout: number; satoshis: string; script: Uint8Array }>(
        'SELECT txid, vout, satoshis, script FROM funding_outputs',
      );
      const input = victimTx.inputs
        .map((inp) => funding.find((f) => f.txid === inp.sourceTXID && f.vout === inp.sourceOutputIndex))
        .find((f) => f !== undefined);
      assert.ok(input !== undefined, "the victim's funding input");
      const fundingKey = t!.service.parts.keys.funding;
      assert.deepEqual(new Uint8Array(input.script), buildP2pkhScript(hash160(publicKeyOf(fundingKey))));
      const rival = new Transaction(1, [], [], 0);
      rival.addInput({ sourceTXID: input.txid, sourceOutputIndex: input.vout, sequence: 0xffffffff });
      rival.addOutput({
        // About 200 bytes at the ledger's rate.
        satoshis: Number(BigInt(input.satoshis) - (devnet.policy.feeRateSatPerKb * 200n) / 1000n - 1n),
        lockingScript: lockingScriptOf(buildP2pkhScript(hash160(party('reorg thief').publicKey))),
      });
      signP2pkhInputs(rival, [{ lockingScript: input.script, satoshis: BigInt(input.satoshis) }], fundingKey);

      const reorg = await devnet.reorg(3, { include: [rival.toUint8Array()] });
      assert.deepEqual(reorg.evicted, [row!.txid]);
      assert.equal(reorg.included[0]?.ok, true, JSON.stringify(reorg.included[0]));
      await waitStatus([victim], 'FAILED', 'the double-spent ticket FAILED');
      await waitStatus([...tickets, ...group.slice(1)], 'MINED', 'every other ticket MINED');
      const held = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM token_outputs WHERE spent_by = $1',
        [row!.txid],
      );
      assert.equal(held[0]?.n, '0', "the victim's token input is free again");
      await eventually(
        async () => (callbackStatuses(3 * PER_BLOCK).at(-1) === 'FAILED' ? true : undefined),
        'the FAILED callback',
        300,
      );
      await mineUntilAllEnded(stream.observed, 'every ticket ended');
      await expectInvariants(stream.observed, {
        accepted: [...tickets, ...group],
        mayFail: new Set([victim]),
        outsiders: new Set([rival.id('hex')]),
      });
    });
  });
}
