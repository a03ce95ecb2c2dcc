// SPV over real sockets, checked by @bsv/sdk: a transfer served as Atomic BEEF (BRC-95) verifies
// with Transaction.fromAtomicBEEF(...).verify(chainTracker) before and after it is mined, every
// unspent output of an address served in one request verifies, the same after a reorg (the new
// block's path is served), and a tampered path fails. A failed transaction has none. The chain tracker reads the service's
// GET /v2/headers (a careful wallet would use headers of its own).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ChainTracker, MerklePath, Transaction } from '@bsv/sdk';
import Mnee from '@mnee/ts-sdk';
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import { party } from '../support/token-world.js';
import { trackerContext } from '../support/tracker-context.js';
import { http } from './e2e-http.js';
import { eventually, redirectClientTo, startTestService, type TestService } from './support.js';

interface Header {
  readonly height: number;
  readonly hash: string;
  readonly merkleRoot: string;
}

/** A chain tracker over the service's headers. */
function trackerOf(url: string): ChainTracker {
  return {
    async isValidRootForHeight(root: string, height: number) {
      const answer = await http(url, 'GET', `/v2/headers?from=${height}&limit=1`);
      const [header] = (answer.json as { headers: Header[] }).headers;
      return header !== undefined && header.height === height && header.merkleRoot === root;
    },
    async currentHeight() {
      return (
        (await http(url, 'GET', '/v2/headers?limit=1')).json as {
          tip: { height: number };
        }
      ).tip.height;
    },
  };
}

describe('SPV: merkle paths and Atomic BEEF', () => {
  let t: TestService;
  let restore: () => void;
  let mnee: Mnee;
  let tracker: ChainTracker;
  const alice = party('spv alice');
  const bob = party('spv bob');
  let transferTxid: string;

  before(async () => {
    t = await startTestService(['--block-interval-ms', '0']);
    restore = redirectClientTo(t.url);
    mnee = new Mnee({ environment: 'sandbox', apiKey: t.adminKey });
    tracker = trackerOf(t.url);
    const { parts } = t.service;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 5_000_000n });
  });
  after(async () => {
    restore?.();
    await t?.stop();
  });

  const beefOf = async (txid: string) => {
    const answer = await http(t.url, 'GET', `/v2/tx/${txid}/beef`);
    assert.equal(answer.status, 200, answer.text);
    return (answer.json as { beef: string }).beef;
  };
  const verifies = async (beefHex: string) => {
    const tx = Transaction.fromAtomicBEEF(Buffer.from(beefHex, 'hex'));
    return tx.verify(tracker);
  };
  const mined = (txid: string) =>
    eventually(async () => {
      const r = (await http(t.url, 'POST', '/v1/sync', { body: [bob.address] })).json as {
        txid: string;
        height: number;
      }[];
      return r.find((x) => x.txid === txid && x.height > 0);
    }, `${txid} mined`);

  it('an unmined transfer verifies through its ancestors; mined, it carries its own path', async () => {
    const { ticketId } = await mnee.transfer([{ address: bob.address, amount: 1 }], alice.wif);
    assert.ok(ticketId);
    const ticket = await eventually(async () => {
      const s = await mnee.getTxStatus(ticketId!);
      return s.status === 'SUCCESS' ? s : undefined;
    }, 'SUCCESS');
    transferTxid = ticket.tx_id;
    const unmined = Transaction.fromAtomicBEEF(Buffer.from(await beefOf(transferTxid), 'hex'));
    assert.equal(unmined.id('hex'), transferTxid);
    assert.equal(unmined.merklePath, undefined);
    assert.ok(unmined.inputs.every((i) => i.sourceTransaction !== undefined));
    assert.equal(await unmined.verify(tracker), true);

    await t.service.parts.devnet!.mine(1);
    await mined(transferTxid);
    const proof = await http(t.url, 'GET', `/v2/tx/${transferTxid}/proof`);
    assert.equal(proof.status, 200, proof.text);
    const { merklePath, merkleRoot, height } = proof.json as {
      merklePath: string;
      merkleRoot: string;
      height: number;
    };
    assert.equal(MerklePath.fromHex(merklePath).computeRoot(transferTxid), merkleRoot);
    assert.equal(await tracker.isValidRootForHeight(merkleRoot, height), true);
    // The MINED ticket carries the same path.
    const minedTicket = await eventually(async () => {
      const answer = await http(t.url, 'GET', `/v2/ticket?ticketID=${ticketId}`);
      const body = answer.json as { status: string; merklePath?: string };
      return body.status === 'MINED' ? body : undefined;
    }, 'MINED');
    assert.equal(minedTicket.merklePath, merklePath);
    const minedTx = Transaction.fromAtomicBEEF(Buffer.from(await beefOf(transferTxid), 'hex'));
    assert.ok(minedTx.merklePath !== undefined);
    assert.equal(await minedTx.verify(tracker), true);
  });

  it("every unspent output of an address in one request verifies, and alice's too", async () => {
    for (const who of [bob, alice]) {
      const answer = await http(t.url, 'POST', '/v2/beef', { body: { address: who.address } });
      assert.equal(answer.status, 200, answer.text);
      const { outputs } = answer.json as { outputs: { txid: string; vout: number; beef: string }[] };
      assert.ok(outputs.length > 0);
      for (const o of outputs) {
        const tx = Transaction.fromAtomicBEEF(Buffer.from(o.beef, 'hex'));
        assert.equal(tx.id('hex'), o.txid);
        assert.ok(tx.outputs[o.vout] !== undefined);
        assert.equal(await tx.verify(tracker), true, `${o.txid}_${o.vout}`);
      }
    }
    const listed = await http(t.url, 'POST', '/v2/beef', { body: { outpoints: [`${transferTxid}_0`] } });
    assert.equal(listed.status, 200, listed.text);
    // An outpoint the token does not have (past the transaction's outputs) gets no BEEF.
    const past = await http(t.url, 'POST', '/v2/beef', {
      body: { outpoints: [`${transferTxid}_0`, `${transferTxid}_999`] },
    });
    assert.equal(past.status, 404, past.text.slice(0, 200));
    assert.match(past.text, /_999 is no output of this token/);
  });

  it('a height past what a block height can be is a bad request, not a 500', async () => {
    const answer = await http(t.url, 'GET', '/v2/headers?from=3000000000');
    assert.equal(answer.status, 400);
    assert.equal((answer.json as { code: string }).code, 'INVALID_PARAMETER');
  });

  it('a tampered path fails', async () => {
    const tx = Transaction.fromAtomicBEEF(Buffer.from(await beefOf(transferTxid), 'hex'));
    const path = tx.merklePath!;
    const sibling = path.path[0]!.find((leaf) => leaf.hash !== transferTxid && leaf.hash !== undefined)!;
    sibling.hash = sibling.hash!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const verdict = await tx.verify(tracker).catch(() => false);
    assert.equal(verdict, false);
  });

  it('after a reorg the new block path is served, and verifies', async () => {
    const before = (await http(t.url, 'GET', `/v2/tx/${transferTxid}/proof`)).json as { blockHash: string };
    await t.service.parts.devnet!.reorg(1);
    await t.service.parts.devnet!.mine(1);
    const moved = await eventually(
      async () => {
        const r = (await http(t.url, 'POST', '/v1/sync', { body: [bob.address] })).json as {
          txid: string;
          blkHash: string;
        }[];
        const rec = r.find((x) => x.txid === transferTxid);
        return rec !== undefined && rec.blkHash !== '' && rec.blkHash !== before.blockHash ? rec : undefined;
      },
      'the record moved to the new block',
      300,
    );
    const after = (await http(t.url, 'GET', `/v2/tx/${transferTxid}/proof`)).json as { blockHash: string };
    assert.equal(after.blockHash, moved.blkHash);
    assert.equal(await verifies(await beefOf(transferTxid)), true);
    const answer = await http(t.url, 'POST', '/v2/beef', { body: { address: bob.address } });
    for (const o of (answer.json as { outputs: { beef: string }[] }).outputs)
      assert.equal(await verifies(o.beef), true);
  });

  it('a failed transaction has no BEEF: 409 TX_FAILED', async () => {
    const { ticketId } = await mnee.transfer([{ address: bob.address, amount: 2 }], alice.wif);
    const ticket = await eventually(async () => {
      const s = await mnee.getTxStatus(ticketId!);
      return s.status === 'SUCCESS' ? s : undefined;
    }, 'SUCCESS');
    assert.equal((await http(t.url, 'GET', `/v2/tx/${ticket.tx_id}/beef`)).status, 200);
    // The network rejects it (a double spend seen elsewhere): the tracker fails its ticket.
    await applyLedgerStatus(trackerContext(t.service.parts.db, new Date()), ticket.tx_id, {
      status: { kind: 'rejected', reason: 'double spend' },
    });
    const answer = await http(t.url, 'GET', `/v2/tx/${ticket.tx_id}/beef`);
    assert.equal(answer.status, 409, answer.text);
    assert.equal((answer.json as { code: string }).code, 'TX_FAILED');
  });
});
