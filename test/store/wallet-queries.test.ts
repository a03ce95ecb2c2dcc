// Balances, spendable outputs, outputs by outpoint and supply, on both adapters, through a
// history that covers every case: mined and unconfirmed outputs, inputs reserved by a live
// ticket, inputs of an accepted transfer, a failed ticket released, burns and amounts past 2^64.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import {
  balances,
  parseOutpoint,
  supply,
  tokenOutputsByOutpoint,
  type UnspentOutput,
  unspentOutputs,
} from '../../src/store/wallets/wallet-queries.js';
import { describeOnEachDb } from '../support/describe-on-each-db.js';
import {
  randomTxid,
  releaseReservation,
  restateTransaction,
  type SeededTransaction,
  seedTicket,
  seedTransaction,
} from '../support/seed-store.js';

const MINT = 'mint-address';
const BURN = 'burn-address';
const GENESIS = 2n ** 64n + 18_446_744_073_709_500_000n; // past 2^64: sums must stay exact

const outpointOf = (o: UnspentOutput) => `${o.txid}_${o.vout}`;

describeOnEachDb('wallet queries', (fresh) => {
  let genesis: SeededTransaction;
  let toA: SeededTransaction; // mint -> A 1000 + change to mint (accepted, then mined)
  let aToB: SeededTransaction; // A -> B 300 + A 700, live ticket reserving A's input
  let failed: SeededTransaction; // B... never: a failed ticket, undone
  let burn: SeededTransaction; // mint -> burn op 50 + burn address 25 + change to mint
  let liveTicket: string;
  const block = { height: 900_000, idx: 3, hash: 'ef'.repeat(32), time: 1_710_000_000 };

  const checkSupplyBalances = async () => {
    const s = await supply(fresh.db, { mintAddress: MINT, burnAddress: BURN });
    assert.equal(s.circulating + s.treasury + s.burned, GENESIS);
    return s;
  };

  before(async () => {
    genesis = await seedTransaction(fresh.db, {
      senders: [],
      outputs: [{ owner: MINT, amount: GENESIS, op: 'deploy+mint' }],
      block: { height: 899_000, idx: 0, hash: '01'.repeat(32), time: 1_709_000_000 },
    });
    const acceptedTicket = await seedTicket(fresh.db, { status: 'BROADCASTING' });
    toA = await seedTransaction(fresh.db, {
      spends: genesis.outpoints,
      ticketId: acceptedTicket,
      outputs: [
        { owner: 'A', amount: 1_000n },
        { owner: MINT, amount: GENESIS - 1_000n },
      ],
    });
    await releaseReservation(fresh.db, acceptedTicket); // the network accepted it
    await restateTransaction(fresh.db, toA.txid, 'mined', block);

    liveTicket = await seedTicket(fresh.db, { status: 'BROADCASTING' });
    aToB = await seedTransaction(fresh.db, {
      spends: [toA.outpoints[0]!],
      ticketId: liveTicket,
      outputs: [
        { owner: 'B', amount: 300n },
        { owner: 'A', amount: 700n },
      ],
    });

    // A ticket that failed: its inputs released, its outputs deleted (the write path's rule).
    const failedTicket = await seedTicket(fresh.db, { status: 'BROADCASTING' });
    failed = await seedTransaction(fresh.db, {
      spends: [aToB.outpoints[0]!],
      ticketId: failedTicket,
      outputs: [{ owner: 'C', amount: 300n }],
    });
    await fresh.db.query(
      'UPDATE token_outputs SET spent_by = NULL, reserved_by = NULL WHERE reserved_by = $1',
      [failedTicket],
    );
    await fresh.db.query('DELETE FROM token_outputs WHERE txid = $1', [failed.txid]);

    burn = await seedTransaction(fresh.db, {
      spends: [toA.outpoints[1]!],
      outputs: [
        { owner: MINT, amount: 50n, op: 'burn' },
        { owner: BURN, amount: 25n },
        { owner: MINT, amount: GENESIS - 1_075n },
      ],
    });
  });

  test('balances: spendable outputs, a live transfer already counted, zeros for the rest', async () => {
    const got = await balances(fresh.db, ['A', 'B', 'C', 'nobody', MINT, BURN, 'A']);
    assert.deepStrictEqual(
      got,
      new Map([
        ['A', 700n],
        ['B', 300n],
        ['C', 0n],
        ['nobody', 0n],
        [MINT, GENESIS - 1_075n],
        [BURN, 25n],
      ]),
    );
    assert.deepStrictEqual([...got.keys()], ['A', 'B', 'C', 'nobody', MINT, BURN], 'request order');
    assert.deepStrictEqual(await balances(fresh.db, []), new Map());
  });

  // Before the tests below add outputs out of nothing (which supply would rightly count).
  test('supply: circulating + treasury + burned + seized is the genesis amount', async () => {
    const s = await checkSupplyBalances();
    assert.deepStrictEqual(s, { circulating: 1_000n, treasury: GENESIS - 1_075n, burned: 75n, seized: 0n });
    // Other addresses: nothing owned by them counts as 0, burn outputs still count.
    assert.deepStrictEqual(await supply(fresh.db, { mintAddress: 'nobody-1', burnAddress: 'nobody-2' }), {
      circulating: GENESIS - 50n,
      treasury: 0n,
      burned: 50n,
      seized: 0n,
    });
  });

  test('balances move with the store: a spend removes, its outputs add', async () => {
    const local = await seedTransaction(fresh.db, {
      spends: [aToB.outpoints[1]!],
      outputs: [
        { owner: 'D', amount: 699n },
        { owner: 'E', amount: 1n },
      ],
    });
    assert.deepStrictEqual(
      await balances(fresh.db, ['A', 'D', 'E']),
      new Map([
        ['A', 0n],
        ['D', 699n],
        ['E', 1n],
      ]),
    );
    // Undo (as a failed ticket would) to leave the shared history as it was.
    await fresh.db.query('UPDATE token_outputs SET spent_by = NULL WHERE spent_by = $1', [local.txid]);
    await fresh.db.query('DELETE FROM transactions WHERE txid = $1', [local.txid]);
    assert.deepStrictEqual(
      await balances(fresh.db, ['A', 'D']),
      new Map([
        ['A', 700n],
        ['D', 0n],
      ]),
    );
  });

  test('unspentOutputs: spendable only, by (score, txid, vout), with height and idx of their transaction', async () => {
    const asc = await unspentOutputs(fresh.db, {
      addresses: ['A', 'B', MINT, BURN],
      page: 1,
      size: 100,
      order: 'asc',
    });
    assert.deepStrictEqual(asc.map(outpointOf), [
      `${aToB.txid}_0`,
      `${aToB.txid}_1`,
      `${burn.txid}_1`,
      `${burn.txid}_2`,
    ]);
    const [b] = asc;
    assert.deepStrictEqual(b, {
      txid: aToB.txid,
      vout: 0,
      owner: 'B',
      amount: 300n,
      op: 'transfer',
      script: b!.script,
      satoshis: 1n,
      score: aToB.score,
      height: 0,
      idx: 0,
    });
    assert.ok(b!.script instanceof Uint8Array && b!.script.length > 0);
    const desc = await unspentOutputs(fresh.db, {
      addresses: ['A', 'B', MINT, BURN],
      page: 1,
      size: 100,
      order: 'desc',
    });
    assert.deepStrictEqual(desc.map(outpointOf), asc.map(outpointOf).reverse());
  });

  test('unspentOutputs: mined outputs carry their block place and keep their score', async () => {
    const local = await seedTransaction(fresh.db, {
      senders: ['X'],
      outputs: [{ owner: 'miner', amount: 5n }],
    });
    await restateTransaction(fresh.db, local.txid, 'mined', block);
    const [mined] = await unspentOutputs(fresh.db, { addresses: ['miner'], page: 1, size: 10, order: 'asc' });
    assert.equal(mined?.height, block.height);
    assert.equal(mined?.idx, block.idx);
    assert.equal(mined!.score, local.score, 'the output keeps the score it was recorded with (ADR 0003)');
  });

  test('unspentOutputs: pages of one order tile the whole list, across addresses', async () => {
    const owner = 'paged';
    const other = 'paged too';
    for (let i = 0; i < 3; i++) {
      await seedTransaction(fresh.db, {
        senders: ['X'],
        outputs: Array.from({ length: 3 }, (_, k) => ({
          owner: (i + k) % 2 === 0 ? owner : other,
          amount: 1n,
        })),
      });
    }
    const addresses = [owner, other];
    for (const order of ['asc', 'desc'] as const) {
      const all = await unspentOutputs(fresh.db, { addresses, page: 1, size: 1000, order });
      assert.equal(all.length, 9);
      for (let i = 1; i < all.length; i++) {
        const [p, c] = [all[i - 1]!, all[i]!];
        const cmp =
          p.score !== c.score
            ? p.score < c.score
              ? -1
              : 1
            : p.txid !== c.txid
              ? p.txid < c.txid
                ? -1
                : 1
              : p.vout - c.vout;
        assert.ok(order === 'asc' ? cmp < 0 : cmp > 0, `${order} at ${i}`);
      }
      const pages = [];
      for (let page = 1; page <= 4; page++) {
        pages.push(...(await unspentOutputs(fresh.db, { addresses, page, size: 4, order })));
      }
      assert.deepStrictEqual(pages.map(outpointOf), all.map(outpointOf));
      assert.deepStrictEqual(new Set(all.map((o) => o.owner)), new Set(addresses));
    }
    assert.deepStrictEqual(
      await unspentOutputs(fresh.db, { addresses: [], page: 1, size: 10, order: 'asc' }),
      [],
    );
    await assert.rejects(
      unspentOutputs(fresh.db, { addresses: [owner], page: 0, size: 10, order: 'asc' }),
      RangeError,
    );
    await assert.rejects(
      unspentOutputs(fresh.db, { addresses: [owner], page: 1, size: 0, order: 'asc' }),
      RangeError,
    );
  });

  test('tokenOutputsByOutpoint: each state, unknown ones absent, in one call', async () => {
    const unknown = `${randomTxid()}_0`;
    const asked = [
      genesis.outpoints[0]!, // spent by an accepted transfer
      toA.outpoints[0]!, // reserved by the live ticket
      aToB.outpoints[0]!, // released by the failed ticket: unspent
      `${burn.txid.toUpperCase()}_0`, // a burn output, asked in upper case
      unknown,
      `${failed.txid}_0`, // deleted with its failed ticket
    ];
    const got = await tokenOutputsByOutpoint(fresh.db, asked);
    assert.deepStrictEqual(
      [...got.keys()].sort(),
      [genesis.outpoints[0]!, toA.outpoints[0]!, aToB.outpoints[0]!, `${burn.txid}_0`].sort(),
    );
    assert.deepStrictEqual(got.get(genesis.outpoints[0]!), {
      txid: genesis.txid,
      vout: 0,
      owner: MINT,
      amount: GENESIS,
      op: 'deploy+mint',
      lockingScript: got.get(genesis.outpoints[0]!)!.lockingScript,
      satoshis: 1n,
      state: 'spent',
      reservedBy: null,
      spentBy: toA.txid,
    });
    const reserved = got.get(toA.outpoints[0]!);
    assert.equal(reserved?.state, 'reserved');
    assert.equal(reserved?.reservedBy, liveTicket);
    assert.equal(reserved?.spentBy, aToB.txid);
    assert.equal(got.get(aToB.outpoints[0]!)?.state, 'unspent');
    assert.equal(got.get(`${burn.txid}_0`)?.op, 'burn');
    assert.deepStrictEqual(await tokenOutputsByOutpoint(fresh.db, []), new Map());
  });

  test('parseOutpoint: txid and vout, malformed ones refused', async () => {
    assert.deepStrictEqual(parseOutpoint('AB_12'), { txid: 'ab', vout: 12 });
    for (const bad of ['ab', '_1', 'ab_', 'ab_-1', 'ab_1.5', 'ab_0x1', 'ab_99999999999']) {
      assert.throws(() => parseOutpoint(bad), RangeError, bad);
    }
    await assert.rejects(tokenOutputsByOutpoint(fresh.db, ['nonsense']), RangeError);
  });
});
