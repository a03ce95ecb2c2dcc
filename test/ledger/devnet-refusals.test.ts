// The devnet takes what the network takes and refuses the rest with ARC's numbers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Beef, LockingScript } from '@bsv/sdk';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import type { BroadcastResult } from '../../src/ledger/port.js';
import { alice, bob, genesisCoins, genesisOption, type Spendable, spend } from './fixtures.js';

function refused(result: BroadcastResult): { arcCode: number; reason: string; retryable: boolean } {
  assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
  if (result.ok) throw new Error('unreachable');
  return result;
}

describe('devnet refusals', () => {
  let devnet: Devnet;
  let coins: Spendable[];

  before(async () => {
    devnet = await createDevnet({ genesis: genesisOption, blockIntervalMs: 0 });
    coins = genesisCoins(devnet);
  });
  after(() => devnet.close());

  it('accepts a valid spend into the mempool and answers a second broadcast with its status', async () => {
    const tx = await spend([coins[1]!], [{ to: bob, satoshis: 49_000n }]);
    const first = await devnet.broadcast(tx.raw);
    assert.deepEqual(first, { ok: true, txid: tx.txid, status: { kind: 'mempool' } });
    assert.deepEqual(await devnet.broadcast(tx.raw), first);
    assert.deepEqual(await devnet.status(tx.txid), { kind: 'mempool' });
    assert.deepEqual(await devnet.rawTransaction(tx.txid), tx.raw);
    // A chain of unconfirmed transactions is allowed, as on BSV.
    const child = await spend([tx.out(0)], [{ to: alice, satoshis: 48_000n }]);
    assert.equal((await devnet.broadcast(child.raw)).ok, true);
  });

  it('refuses a script that fails (signed by another key) with 461', async () => {
    const tx = await spend([coins[0]!], [{ to: bob, satoshis: 90_000n }], { signer: bob });
    const r = refused(await devnet.broadcast(tx.raw));
    assert.equal(r.arcCode, 461);
    assert.match(r.reason, /input 0 script failed/);
    assert.deepEqual(await devnet.status(tx.txid), { kind: 'unknown' });
  });

  it('refuses an input whose parent is unknown with 462, retryable', async () => {
    const ghost = { txid: 'ab'.repeat(32), vout: 0, satoshis: 1000n, key: alice };
    const r = refused(await devnet.broadcast((await spend([ghost], [{ to: bob, satoshis: 500n }])).raw));
    assert.equal(r.arcCode, 462);
    assert.equal(r.retryable, true);
  });

  it('refuses an output index the parent does not have with 462, not retryable', async () => {
    const missing = { ...coins[0]!, vout: 9 };
    const r = refused(await devnet.broadcast((await spend([missing], [{ to: bob, satoshis: 500n }])).raw));
    assert.equal(r.arcCode, 462);
    assert.equal(r.retryable, false);
  });

  it('refuses a double spend against the mempool with 466; it is rejected once the winner is mined', async () => {
    const winner = await spend([coins[2]!], [{ to: alice, satoshis: 99_000n }]);
    const loser = await spend([coins[2]!], [{ to: bob, satoshis: 98_000n }]);
    assert.equal((await devnet.broadcast(winner.raw)).ok, true);
    const r = refused(await devnet.broadcast(loser.raw));
    assert.equal(r.arcCode, 466);
    assert.deepEqual(await devnet.status(loser.txid), {
      kind: 'double-spend',
      competingTxids: [winner.txid],
    });
    await devnet.mine();
    const after = await devnet.status(loser.txid);
    assert.equal(after.kind, 'rejected');
    assert.equal((await devnet.status(winner.txid)).kind, 'mined');
  });

  it('refuses a double spend against the chain with 466', async () => {
    // coins[2] was spent by a transaction mined in the previous test.
    const again = await spend([coins[2]!], [{ to: alice, satoshis: 10_000n }]);
    const r = refused(await devnet.broadcast(again.raw));
    assert.equal(r.arcCode, 466);
    assert.match(r.reason, /chain/);
  });

  it('refuses outputs above the inputs with 465', async () => {
    const tx = await spend([coins[3]!], [{ to: alice, satoshis: 20_001n }]);
    const r = refused(await devnet.broadcast(tx.raw));
    assert.equal(r.arcCode, 465);
    assert.match(r.reason, /exceed/);
  });

  it('refuses bytes that are not a transaction with 463', async () => {
    const r = refused(await devnet.broadcast(Uint8Array.of(1, 0, 0, 0, 7, 7)));
    assert.equal(r.arcCode, 463);
    const tx = await spend([coins[3]!], [{ to: alice, satoshis: 10_000n }]);
    const trailing = refused(await devnet.broadcast(Uint8Array.from([...tx.raw, 0])));
    assert.equal(trailing.arcCode, 463);
  });

  it('refuses a 0-satoshi output that is not data with 464', async () => {
    const tx = await spend([coins[3]!], [{ to: alice, satoshis: 0n }]);
    assert.equal(refused(await devnet.broadcast(tx.raw)).arcCode, 464);
  });

  it('refuses a transaction that is not final yet with 463', async () => {
    const tx = await spend([coins[3]!], [{ to: alice, satoshis: 10_000n }], { lockTime: 500, sequence: 0 });
    const r = refused(await devnet.broadcast(tx.raw));
    assert.equal(r.arcCode, 463);
    assert.match(r.reason, /not final/);
  });

  it('takes the extended format (BRC-30) and BEEF with unmined parents', async () => {
    const parent = await spend([coins[3]!], [{ to: bob, satoshis: 19_000n }]);
    const child = await spend([parent.out(0)], [{ to: alice, satoshis: 18_000n }]);
    child.tx.inputs[0]!.sourceTransaction = parent.tx;
    const beef = new Beef();
    beef.mergeTransaction(parent.tx);
    beef.mergeTransaction(child.tx);
    const r = await devnet.broadcast(Uint8Array.from(beef.toBinary()));
    assert.deepEqual(r, { ok: true, txid: child.txid, status: { kind: 'mempool' } });
    assert.deepEqual(await devnet.status(parent.txid), { kind: 'mempool' });
    const grandchild = await spend([child.out(0)], [{ to: bob, satoshis: 17_000n }]);
    grandchild.tx.inputs[0]!.sourceTransaction = child.tx;
    const ef = Uint8Array.from(grandchild.tx.toEF());
    assert.deepEqual(await devnet.broadcast(ef), {
      ok: true,
      txid: grandchild.txid,
      status: { kind: 'mempool' },
    });
  });
});

describe('devnet policy limits', () => {
  it('refuses a fee below the policy with 465 and a transaction above the size limit with 474', async () => {
    const devnet = await createDevnet({
      genesis: genesisOption,
      blockIntervalMs: 0,
      feeRateSatPerKb: 500n,
      maxTxSizeBytes: 300,
    });
    try {
      const coins = genesisCoins(devnet);
      assert.deepEqual(await devnet.feePolicy(), { satoshisPerKb: 500n });
      // ~191 bytes at 500 sat/kB owes 96 satoshis.
      const cheap = await spend([coins[0]!], [{ to: bob, satoshis: 99_950n }]);
      const r = refused(await devnet.broadcast(cheap.raw));
      assert.equal(r.arcCode, 465);
      assert.match(r.reason, /fee 50 below/);
      const paid = await spend([coins[0]!], [{ to: bob, satoshis: 99_800n }]);
      assert.equal((await devnet.broadcast(paid.raw)).ok, true);
      const big = await spend(
        [coins[1]!, coins[3]!],
        [
          { to: alice, satoshis: 30_000n },
          { to: LockingScript.fromHex('6a'.padEnd(400, '00')), satoshis: 0n },
        ],
      );
      assert.equal(refused(await devnet.broadcast(big.raw)).arcCode, 474);
    } finally {
      await devnet.close();
    }
  });
});
