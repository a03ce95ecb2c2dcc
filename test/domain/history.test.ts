// History agrees, entry by entry, with the reference client's recentTxHistory /
// recentTxHistories over the same POST /v1/sync records: real sandbox transactions, transfers
// the client itself builds, random transfer graphs; plus the rules spelled out by hand.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PrivateKey } from '@bsv/sdk';
import type Mnee from '@mnee/ts-sdk';
import {
  groupHistories,
  type HistoryConfig,
  type HistoryParams,
  type HistoryQuery,
  type HistorySyncRecord,
  historyEntry,
  historyFor,
  historyGroups,
  historySelection,
} from '../../src/domain/history.js';
import { fromHex } from '../../src/domain/script-chunks.js';
import { AppError } from '../../src/errors/registry.js';
import { agrees } from '../support/client-agreement.js';
import {
  asClientJson,
  buildTx,
  envelope,
  FakeMneeApi,
  FEE_TIERS,
  holder,
  opReturn,
  prng,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenScript,
  withClient,
} from '../support/client-fixtures.js';
import { randomTokenGraph } from '../support/random-token-graph.js';

const vectors = JSON.parse(
  readFileSync(new URL('../../../shared/vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as Record<string, string | string[]>;

const configOf = (api: FakeMneeApi): HistoryConfig => ({
  tokenId: api.config.tokenId,
  feeAddress: api.config.feeAddress,
});

/** One single-form query, client and ours; returns whether the numbers were all exact. */
async function checkSingle(
  api: FakeMneeApi,
  client: Mnee,
  address: string,
  query: HistoryQuery,
): Promise<boolean> {
  const from = query.fromScore === undefined ? undefined : Number(query.fromScore);
  const theirs = await outcome(() => client.recentTxHistory(address, from, query.limit, query.order));
  const ours = await outcome(async () =>
    historyFor(address, api.select([address], historySelection(query)), configOf(api), query),
  );
  return agrees(ours, theirs, `${address} ${JSON.stringify(query, (_k, v) => String(v))}`);
}

async function checkMulti(api: FakeMneeApi, client: Mnee, params: HistoryParams[]): Promise<boolean> {
  const wire = params.map((p) => ({
    ...p,
    fromScore: p.fromScore === undefined ? undefined : Number(p.fromScore),
  }));
  const theirs = await outcome(() => client.recentTxHistories(wire));
  const ours = await outcome(async () =>
    historyGroups(params).flatMap((g) =>
      groupHistories(g, api.select(g.addresses, g.selection), configOf(api)),
    ),
  );
  return agrees(ours, theirs, JSON.stringify(wire));
}

async function outcome<T>(fn: () => Promise<T>): Promise<{ value: unknown } | { threw: true }> {
  try {
    return { value: asClientJson(await fn()) };
  } catch {
    return { threw: true };
  }
}

describe('history agrees with the reference client', () => {
  it('on the real sandbox transactions (amounts beyond 2^53 included)', async () => {
    const mint = '1AZNdbFYBDFTAEgzZMfPzANxyNrpGJZAUY';
    const api = new FakeMneeApi({
      approver: SANDBOX_APPROVER,
      feeAddress: '1H9wgHCTHjmgBw4PAbQ4PQBQhGFrHWhjbU',
      burnAddress: '1HNuPi9Y7nMV6x8crJ6DnD1wJtkLym8EFE',
      mintAddress: mint,
      fees: FEE_TIERS,
      decimals: 5,
      tokenId: SANDBOX_TOKEN_ID,
    });
    const valid = vectors.clientValid as string[];
    const invalid = vectors.clientInvalid as string[];
    const add = (hex: string, senders: string[], receivers: string[], height: number, score: bigint) => {
      const rawtx = fromHex(hex);
      api.records.push({ txid: api.addTx(rawtx), rawtx, senders, receivers, height, score });
    };
    add(vectors.sandboxDeploy as string, [], [mint], 880_000, 10n);
    add(valid[0]!, [mint], ['1FUTPrD61CjeiymauPy1n2B4CKj4vw4Dno', mint], 880_001, 11n);
    const sixReceivers = [
      '1NiBojngK6iYT2CM4jHyV7GyEXoZxYkdxR',
      '1KcogHPpvzDnVFALeV3ZP699VUScHfSbab',
      '1PeG4CweqYqg6KvpXJG2B9zw6i6SF3jpmT',
      '12UtKd7HqjNZKgVh4z5ZKcsCxpHFcK4GFc',
      '1H9wgHCTHjmgBw4PAbQ4PQBQhGFrHWhjbU',
      '1ERN5r4A8Ur6T4XQgaxQLmWtRAmusga5xZ',
    ];
    add(valid[1]!, ['1ERN5r4A8Ur6T4XQgaxQLmWtRAmusga5xZ'], sixReceivers, 0, 12n);
    add(valid[1]!, ['1KcogHPpvzDnVFALeV3ZP699VUScHfSbab'], sixReceivers, 880_002, 13n);
    add(vectors.sandboxBurn as string, ['1HNuPi9Y7nMV6x8crJ6DnD1wJtkLym8EFE'], [], 880_003, 14n);
    add(invalid[1]!, ['19AkgoZQZBfhuXUxrQzXR3i8sUw9PYgomi'], ['19Vq2TV8aVhFNLQkhDMdnEQ7zT96x6F3PK'], 0, 15n);
    add(invalid[0]!, ['1En9LnwNfD1mao6qeWKDMTS7zPSGX47Rzo'], ['1Be99Kp8LVB99491BQ1ktq2WUVQxyfNns6'], 0, 16n);
    // As if 1FUTPr... had sent it: the mint's 18446744073704500000 becomes a counterparty amount.
    add(valid[0]!, ['1FUTPrD61CjeiymauPy1n2B4CKj4vw4Dno'], [mint], 880_004, 17n);
    const addresses = [...new Set(api.records.flatMap((r) => [...r.senders, ...r.receivers]))];
    const queries: HistoryQuery[] = [
      {},
      { order: 'desc' },
      { limit: 1 },
      { fromScore: 12n },
      { fromScore: 13n, order: 'desc' },
    ];
    let inexact = 0;
    await withClient(api, async (client) => {
      for (const address of addresses) {
        for (const query of queries) if (!(await checkSingle(api, client, address, query))) inexact++;
      }
      await checkMulti(
        api,
        client,
        addresses.map((address) => ({ address })),
      );
    });
    // The mint's change of 18446744073704500000 is beyond 2^53: the client's numbers are doubles.
    assert.ok(inexact > 0, 'the huge real amounts were compared approximately');
  });

  it('on transfers the client builds itself (sends, fees, change, several recipients, mint, burn)', async () => {
    const key = (name: string) =>
      PrivateKey.fromHex(Buffer.from(holder(name).pkh).toString('hex').padEnd(64, '1'));
    const [alice, bob, carol, mintKey] = ['alice', 'bob', 'carol', 'mint'].map(key) as [
      PrivateKey,
      PrivateKey,
      PrivateKey,
      PrivateKey,
    ];
    const addr = (k: PrivateKey) => k.toAddress();
    const fee = holder('fee');
    const burn = holder('burn');
    const api = new FakeMneeApi({
      approver: SANDBOX_APPROVER,
      feeAddress: fee.address,
      burnAddress: burn.address,
      mintAddress: addr(mintKey),
      fees: FEE_TIERS,
      decimals: 5,
      tokenId: SANDBOX_TOKEN_ID,
    });
    const pkh = (k: PrivateKey) => Uint8Array.from(k.toPublicKey().toHash() as number[]);
    api.settle(
      buildTx(
        [{ txid: 'aa'.repeat(32), vout: 0 }],
        [
          { satoshis: 1n, script: tokenScript(SANDBOX_TOKEN_ID, '3000000', pkh(alice), SANDBOX_APPROVER) },
          { satoshis: 1n, script: tokenScript(SANDBOX_TOKEN_ID, '500000', pkh(alice), SANDBOX_APPROVER) },
          {
            satoshis: 1n,
            script: tokenScript(SANDBOX_TOKEN_ID, '100000000000', pkh(mintKey), SANDBOX_APPROVER),
          },
        ],
      ),
      870_000,
    );
    const transfers: [PrivateKey, { address: string; amount: number }[], object, number][] = [
      [alice, [{ address: addr(bob), amount: 1 }], {}, 870_001],
      [
        alice,
        [
          { address: addr(bob), amount: 0.5 },
          { address: addr(carol), amount: 0.25 },
        ],
        {},
        0,
      ],
      [
        bob,
        [{ address: addr(alice), amount: 0.3 }],
        { extraData: { type: 'utf8', data: 'invoice 7' } },
        870_002,
      ],
      [mintKey, [{ address: addr(carol), amount: 20 }], {}, 870_003],
      [carol, [{ address: burn.address, amount: 0.1 }], {}, 0],
      [alice, [{ address: addr(alice), amount: 0.01 }], {}, 870_004],
      [
        carol,
        [
          { address: fee.address, amount: 0.02 },
          { address: addr(bob), amount: 12 },
        ],
        {},
        0,
      ],
    ];
    await withClient(api, async (client) => {
      for (const [from, to, options, height] of transfers) {
        const built = await client.transfer(to, from.toWif(), { broadcast: false, ...options });
        api.settle(fromHex(built.rawtx!), height);
      }
      const addresses = [alice, bob, carol, mintKey].map(addr).concat(fee.address, burn.address);
      for (const address of addresses) {
        for (const query of [
          {},
          { order: 'desc' },
          { limit: 2 },
          { fromScore: 4n },
          { fromScore: 5n, order: 'desc', limit: 2 },
        ] as HistoryQuery[]) {
          assert.ok(await checkSingle(api, client, address, query));
        }
      }
      await checkMulti(api, client, [
        { address: addr(alice) },
        { address: addr(bob), limit: 2 },
        { address: addr(carol), fromScore: 3n },
        { address: addr(alice), order: 'desc' },
        { address: addr(bob), fromScore: 3n },
      ]);
    });
    const sends = historyFor(addr(alice), api.records, configOf(api)).history.filter(
      (h) => h.type === 'send',
    );
    assert.deepEqual(
      sends.map((h) => [h.amount, h.fee]),
      [
        [100_000n, 100n],
        [75_000n, 100n],
        [0n, 100n],
      ],
    );
  });

  it('on random transfer graphs (single and multi form)', async () => {
    let cases = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const graph = randomTokenGraph({ seed, steps: 14, odd: seed % 2 === 0 });
      const rand = prng(seed * 7919);
      const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
      const randomQuery = (): HistoryQuery => ({
        ...(rand() < 0.4 && { fromScore: BigInt(Math.floor(rand() * Number(graph.maxScore))) }),
        ...(rand() < 0.4 && { limit: 1 + Math.floor(rand() * 5) }),
        ...(rand() < 0.5 && { order: pick(['asc', 'desc'] as const) }),
      });
      await withClient(graph.api, async (client) => {
        for (const address of graph.addresses) {
          for (const query of [{}, randomQuery(), randomQuery()]) {
            assert.ok(await checkSingle(graph.api, client, address, query), `seed ${seed}`);
            cases++;
          }
        }
        for (let i = 0; i < 3; i++) {
          const params = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ({
            address: pick(graph.addresses),
            ...randomQuery(),
          }));
          assert.ok(await checkMulti(graph.api, client, params), `seed ${seed}`);
          cases++;
        }
      });
    }
    assert.ok(cases > 700, `${cases} cases`);
  });

  it('where the client throws on a record (an inscription of JSON null), so does history', async () => {
    const a = holder('a');
    const api = new FakeMneeApi({
      approver: SANDBOX_APPROVER,
      feeAddress: holder('fee').address,
      burnAddress: holder('burn').address,
      mintAddress: holder('mint').address,
      fees: FEE_TIERS,
      decimals: 5,
      tokenId: SANDBOX_TOKEN_ID,
    });
    const rawtx = buildTx([{ txid: 'cc'.repeat(32), vout: 1 }], [{ satoshis: 1n, script: envelope('null') }]);
    api.records.push({
      txid: api.addTx(rawtx),
      rawtx,
      senders: [a.address],
      receivers: [],
      height: 0,
      score: 1n,
    });
    await withClient(api, async (client) => {
      await assert.rejects(client.recentTxHistory(a.address));
    });
    assert.throws(() => historyFor(a.address, api.records, configOf(api)), AppError);
  });
});

describe('history rules', () => {
  const [alice, bob, carol, fee] = ['alice', 'bob', 'carol', 'fee'].map(holder) as [
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
    ReturnType<typeof holder>,
  ];
  const config: HistoryConfig = { tokenId: SANDBOX_TOKEN_ID, feeAddress: fee.address };
  const out = (who: { pkh: Uint8Array }, amt: string) => ({
    satoshis: 1n,
    script: tokenScript(SANDBOX_TOKEN_ID, amt, who.pkh, SANDBOX_APPROVER),
  });
  const record = (
    outputs: ReturnType<typeof out>[],
    senders: string[],
    height = 0,
    score = 1n,
  ): HistorySyncRecord => ({
    txid: `${score}`.padStart(64, '0'),
    rawtx: buildTx([{ txid: 'dd'.repeat(32), vout: 0 }], outputs),
    senders,
    receivers: [],
    height,
    score,
  });

  it('a send counts what left the first sender, net of change, with the fee apart', () => {
    const r = record(
      [out(bob, '700'), out(carol, '200'), out(fee, '100'), out(alice, '5000')],
      [alice.address],
      5,
    );
    const entry = historyEntry(r, alice.address, config)!;
    assert.equal(entry.type, 'send');
    assert.equal(entry.status, 'confirmed');
    assert.equal(entry.fee, 100n);
    assert.equal(entry.amount, 900n);
    assert.deepEqual(entry.counterparties, [
      { address: bob.address, amount: 700n },
      { address: carol.address, amount: 200n },
    ]);
  });

  it('a receive names the first sender; the fee is not the receiver`s', () => {
    const r = record([out(bob, '700'), out(fee, '100'), out(bob, '50')], [alice.address, carol.address]);
    const entry = historyEntry(r, bob.address, config)!;
    assert.equal(entry.type, 'receive');
    assert.equal(entry.status, 'unconfirmed');
    assert.equal(entry.fee, 0n);
    assert.deepEqual(entry.counterparties, [{ address: alice.address, amount: 750n }]);
  });

  it('an unrecognised output before a token output shifts the owners the client reads', () => {
    const rawtx = buildTx(
      [{ txid: 'dd'.repeat(32), vout: 0 }],
      [{ satoshis: 0n, script: opReturn('memo') }, out(bob, '700'), out(carol, '200')],
    );
    const entry = historyEntry({ ...record([], [alice.address]), rawtx }, alice.address, config)!;
    // output 1 (bob's) is read as owned by carol; output 2 by nobody known (undefined)
    assert.deepEqual(entry.counterparties, [
      { address: carol.address, amount: 700n },
      { address: undefined, amount: 200n },
    ]);
  });

  it('slices to the limit but takes nextScore from the last entry before slicing', () => {
    const records = [1n, 2n, 3n].map((score) => record([out(bob, '1')], [alice.address], 0, score));
    const answer = historyFor(alice.address, records, config, { limit: 2 });
    assert.deepEqual(
      answer.history.map((h) => h.score),
      [1n, 2n],
    );
    assert.equal(answer.nextScore, 3n);
    assert.equal(historyFor(carol.address, records, config, { fromScore: 7n }).nextScore, 7n);
  });

  it('groups multi-form parameters by (from, limit or 100, order), de-duplicating by txid', () => {
    const groups = historyGroups([
      { address: alice.address },
      { address: bob.address, order: 'desc' },
      { address: carol.address, limit: 100 },
    ]);
    assert.deepEqual(
      groups.map((g) => [g.addresses, g.selection]),
      [
        [[alice.address, carol.address], { from: 0n, limit: 100, order: 'asc' }],
        [[bob.address], { from: 0n, limit: 100, order: 'desc' }],
      ],
    );
    const r = record([out(bob, '1')], [alice.address]);
    const [first] = groupHistories(groups[0]!, [r, r], config);
    assert.equal(first!.history.length, 1);
    assert.equal(historyFor(alice.address, [r, r], config).history.length, 2);
  });
});
