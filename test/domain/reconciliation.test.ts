// The reconciliation's arithmetic: what the ledger holds against what the database holds, the
// differences, and only the repairs derived from the transactions' own bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transaction, UnlockingScript } from '@bsv/sdk';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import {
  type DatabaseView,
  type DbOutput,
  type DbTicket,
  type LedgerTransaction,
  type LedgerWord,
  reconcile,
  touchesService,
} from '../../src/domain/reconciliation.js';
import { buildP2pkhScript, buildTokenScript } from '../../src/domain/token-script.js';
import { party } from '../support/token-world.js';

const approver = party('reconcile approver');
const mint = party('reconcile mint');
const alice = party('reconcile alice');
const bob = party('reconcile bob');
const funding = party('reconcile funding');
const TOKEN_ID = `${'cd'.repeat(32)}_0`;
const token = { tokenId: TOKEN_ID, fundingAddress: funding.address };
const MINED: LedgerWord = {
  kind: 'mined',
  blockHash: 'ee'.repeat(32),
  height: 7,
  index: 2,
  blockTime: 1_700_000_000,
};
const TREASURY = `${'11'.repeat(32)}_1`;
const FUNDING_A = `${'22'.repeat(32)}_0`;
const FUNDING_B = `${'22'.repeat(32)}_1`;

type Out =
  | { to: typeof alice; amt: bigint; op?: 'transfer' | 'burn' }
  | { pays: typeof funding; sats: number };

function tx(inputs: readonly string[], outputs: readonly Out[]): { txid: string; raw: Uint8Array } {
  const t = new Transaction(1, [], [], 0);
  for (const outpoint of inputs) {
    const [txid, vout] = outpoint.split('_');
    t.addInput({
      sourceTXID: txid!,
      sourceOutputIndex: Number(vout),
      sequence: 0xffffffff,
      unlockingScript: new UnlockingScript(),
    });
  }
  for (const o of outputs) {
    const script =
      'to' in o
        ? buildTokenScript({
            inscription: { op: o.op ?? 'transfer', id: TOKEN_ID, amt: o.amt },
            ownerPkh: o.to.pkh,
            approver: approver.publicKey,
          })
        : buildP2pkhScript(o.pays.pkh);
    t.addOutput({ satoshis: 'to' in o ? 1 : o.sats, lockingScript: lockingScriptOf(script) });
  }
  return { txid: t.id('hex'), raw: new Uint8Array(t.toBinary()) };
}

const treasury: DbOutput = { owner: mint.address, amount: 1_000n, op: 'transfer', spentBy: null };

function dbView(over: Partial<DatabaseView> = {}): DatabaseView {
  return {
    tickets: [],
    records: new Set(),
    outputs: new Map([[TREASURY, treasury]]),
    freeFunding: [
      { outpoint: FUNDING_A, table: 'pool', state: 'available' },
      { outpoint: FUNDING_B, table: 'pool', state: 'available' },
    ],
    fundingTxids: new Set(['22'.repeat(32)]),
    ...over,
  };
}

const held = (t: { txid: string; raw: Uint8Array }, word: LedgerWord = MINED): LedgerTransaction => ({
  ...t,
  word,
});

describe('reconcile: transactions the ledger holds', () => {
  const mintTx = tx(
    [TREASURY, FUNDING_A],
    [
      { to: alice, amt: 250n },
      { to: mint, amt: 750n },
    ],
  );

  it('reports a mint missing from the database and ingests it from its bytes', () => {
    const r = reconcile(dbView(), { ticketWords: new Map(), transactions: [held(mintTx)] }, token);
    assert.deepEqual(r.differences, [
      { kind: 'missing-transaction', txid: mintTx.txid, ledger: 'mined', refusal: null },
      { kind: 'funding-spent', outpoint: FUNDING_A, table: 'pool', spentBy: mintTx.txid },
    ]);
    assert.equal(r.ingest.length, 1);
    const ingest = r.ingest[0]!;
    assert.equal(ingest.txid, mintTx.txid);
    assert.deepEqual(ingest.inputs, [TREASURY, FUNDING_A]);
    assert.deepEqual(
      ingest.outputs.map((o) => [o.vout, o.owner, o.amount, o.op, o.satoshis]),
      [
        [0, alice.address, 250n, 'transfer', 1n],
        [1, mint.address, 750n, 'transfer', 1n],
      ],
    );
    assert.deepEqual(ingest.senders, [mint.address]);
    assert.deepEqual(ingest.receivers, [alice.address, mint.address]);
    assert.deepEqual(ingest.word, MINED);
    assert.deepEqual(r.fundingSpent, [{ outpoint: FUNDING_A, table: 'pool' }]);
  });

  it('finds nothing once the database holds the transaction and its funding is spent', () => {
    const after = dbView({
      records: new Set([mintTx.txid]),
      outputs: new Map([[TREASURY, { ...treasury, spentBy: mintTx.txid }]]),
      freeFunding: [{ outpoint: FUNDING_B, table: 'pool', state: 'available' }],
    });
    const r = reconcile(after, { ticketWords: new Map(), transactions: [held(mintTx)] }, token);
    assert.deepEqual(r.differences, []);
    assert.deepEqual(r.ingest, []);
    assert.deepEqual(r.fundingSpent, []);
  });

  it('ingests a parent before its child whatever order the ledger lists them in', () => {
    const child = tx(
      [`${mintTx.txid}_0`, FUNDING_B],
      [
        { to: bob, amt: 100n },
        { to: alice, amt: 150n },
      ],
    );
    const r = reconcile(
      dbView(),
      { ticketWords: new Map(), transactions: [held(child), held(mintTx)] },
      token,
    );
    assert.deepEqual(
      r.ingest.map((i) => i.txid),
      [mintTx.txid, child.txid],
    );
    assert.deepEqual(
      r.ingest[1]!.senders,
      [alice.address],
      "the child's sender comes from the parent's bytes",
    );
    assert.equal(
      r.differences.filter((d) => d.kind === 'missing-transaction' && d.refusal === null).length,
      2,
    );
  });

  it('refuses what it cannot derive safely: unbalanced, unknown inputs, an input spent by another', () => {
    const unbalanced = tx([TREASURY], [{ to: alice, amt: 1_001n }]);
    const unknownInputs = tx([`${'33'.repeat(32)}_0`], [{ to: alice, amt: 5n }]);
    const refusals = (db: DatabaseView, t: { txid: string; raw: Uint8Array }) =>
      reconcile(db, { ticketWords: new Map(), transactions: [held(t)] }, token).differences.flatMap((d) =>
        d.kind === 'missing-transaction' ? [d.refusal] : [],
      );
    assert.match(refusals(dbView(), unbalanced)[0] ?? '', /amounts: .* 1000, the outputs 1001/);
    assert.match(refusals(dbView(), unknownInputs)[0] ?? '', /spends no token output the index holds/);
    const takenDb = dbView({ outputs: new Map([[TREASURY, { ...treasury, spentBy: 'ff'.repeat(32) }]]) });
    assert.match(refusals(takenDb, mintTx)[0] ?? '', /spent by f{64}/);
    const r = reconcile(dbView(), { ticketWords: new Map(), transactions: [held(unbalanced)] }, token);
    assert.deepEqual(r.ingest, [], 'nothing refused is ingested');
  });

  it('reports a held transaction given by txid alone, without bytes to ingest it from', () => {
    const r = reconcile(
      dbView(),
      {
        ticketWords: new Map(),
        transactions: [],
        unread: [
          { txid: mintTx.txid, word: MINED },
          { txid: 'ab'.repeat(32), word: { kind: 'unknown' } },
        ],
      },
      token,
    );
    assert.deepEqual(r.differences, [
      {
        kind: 'missing-transaction',
        txid: mintTx.txid,
        ledger: 'mined',
        refusal: 'the ledger serves no raw bytes of it: give them (--raw-file)',
      },
    ]);
    assert.deepEqual(r.ingest, []);
    const known = reconcile(
      dbView({ records: new Set([mintTx.txid]) }),
      { ticketWords: new Map(), transactions: [], unread: [{ txid: mintTx.txid, word: MINED }] },
      token,
    );
    assert.deepEqual(known.differences, [], 'the database has it: nothing to read');
  });

  it('leaves out what the ledger does not hold, and bytes that are not the txid they claim', () => {
    const rejected = held(mintTx, { kind: 'rejected' });
    const forged = { txid: 'ab'.repeat(32), raw: mintTx.raw, word: MINED };
    const r = reconcile(dbView(), { ticketWords: new Map(), transactions: [rejected, forged] }, token);
    assert.deepEqual(r.differences, []);
  });

  it('reports a transaction paying the funding address the database has no record of, and writes nothing', () => {
    const split = tx(
      [`${'44'.repeat(32)}_0`],
      [
        { pays: funding, sats: 1000 },
        { pays: funding, sats: 1000 },
      ],
    );
    assert.equal(touchesService(split.raw, split.txid, token), true);
    const other = tx([`${'44'.repeat(32)}_1`], [{ pays: bob, sats: 1000 }]);
    assert.equal(touchesService(other.raw, other.txid, token), false);
    const r = reconcile(
      dbView(),
      { ticketWords: new Map(), transactions: [held(split, { kind: 'mempool' })] },
      token,
    );
    assert.deepEqual(r.differences, [
      { kind: 'untracked-funding-transaction', txid: split.txid, ledger: 'mempool' },
    ]);
    assert.deepEqual(r.ingest, []);
    const known = reconcile(
      dbView({ fundingTxids: new Set([split.txid]) }),
      { ticketWords: new Map(), transactions: [held(split)] },
      token,
    );
    assert.deepEqual(known.differences, []);
  });
});

describe('reconcile: tickets against the ledger', () => {
  const ticket = (id: string, status: DbTicket['status'], tracked: boolean): DbTicket => ({
    id,
    txid: id.padEnd(64, '0'),
    status,
    tracked,
  });
  const words = (...pairs: [DbTicket, LedgerWord['kind']][]) =>
    new Map(pairs.map(([t, kind]) => [t.txid, kind === 'mined' ? MINED : ({ kind } as LedgerWord)]));

  it('passes tickets the ledger bears out, and leaves the ones the tracker follows to it', () => {
    const tickets = [
      ticket('a1', 'MINED', false),
      ticket('a2', 'SUCCESS', true),
      ticket('a3', 'BROADCASTING', true),
      ticket('a4', 'FAILED', false),
      ticket('a5', 'SUCCESS', true),
      ticket('a6', 'MINED', true),
    ];
    const r = reconcile(
      dbView({ tickets }),
      {
        ticketWords: words(
          [tickets[0]!, 'mined'],
          [tickets[1]!, 'mempool'],
          [tickets[2]!, 'unknown'],
          [tickets[3]!, 'rejected'],
          [tickets[4]!, 'mined'],
          [tickets[5]!, 'unknown'],
        ),
        transactions: [],
      },
      token,
    );
    assert.deepEqual(r.differences, []);
    assert.deepEqual(r.retrack, []);
  });

  it('reports the untracked others and re-tracks the live ones, never a FAILED one', () => {
    const tickets = [
      ticket('b1', 'MINED', false),
      ticket('b2', 'SUCCESS', false),
      ticket('b3', 'BROADCASTING', false),
      ticket('b4', 'FAILED', false),
    ];
    const r = reconcile(
      dbView({ tickets }),
      {
        ticketWords: words(
          [tickets[0]!, 'unknown'],
          [tickets[1]!, 'mined'],
          [tickets[2]!, 'mempool'],
          [tickets[3]!, 'mined'],
        ),
        transactions: [],
      },
      token,
    );
    assert.deepEqual(
      r.differences.map((d) => (d.kind === 'ticket-status' ? [d.ticketId, d.database, d.ledger] : d.kind)),
      [
        ['b1', 'MINED', 'unknown'],
        ['b2', 'SUCCESS', 'mined'],
        ['b3', 'BROADCASTING', 'mempool'],
        ['b4', 'FAILED', 'mined'],
      ],
    );
    assert.deepEqual(r.retrack, ['b1', 'b2', 'b3'], 'b4 is terminal: the audit reports it');
  });
});
