// History agrees, entry by entry, with the reference client's recentTxHistory /
// recentTxHistories over the same POST /v1/sync records: real sandbox transactions, transfers
// the client itself builds, random transfer graphs (the rules spelled out by hand: history-rules.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrivateKey } from '@bsv/sdk';
import { DomainError } from '../../src/domain/domain-error.js';
import { groupHistories, type HistoryQuery, historyFor, historyGroups } from '../../src/domain/history.js';
import { fromHex } from '../../src/domain/script-chunks.js';
import { checkHistories, checkHistory, historyConfigOf, realVectors } from '../support/client-agreement.js';
import {
  buildTx,
  envelope,
  FakeMneeApi,
  FEE_TIERS,
  holder,
  prng,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenScript,
  withClient,
} from '../support/client-fixtures.js';
import { randomTokenGraph } from '../support/random-token-graph.js';

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
    const valid = realVectors.clientValid as string[];
    const invalid = realVectors.clientInvalid as string[];
    const add = (hex: string, senders: string[], receivers: string[], height: number, score: bigint) => {
      const rawtx = fromHex(hex);
      api.records.push({ txid: api.addTx(rawtx), rawtx, senders, receivers, height, score });
    };
    add(realVectors.sandboxDeploy as string, [], [mint], 880_000, 10n);
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
    add(realVectors.sandboxBurn as string, ['1HNuPi9Y7nMV6x8crJ6DnD1wJtkLym8EFE'], [], 880_003, 14n);
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
        for (const query of queries) if (!(await checkHistory(api, client, address, query))) inexact++;
      }
      await checkHistories(
        api,
        client,
        addresses.map((address) => ({ address })),
      );
      // An address asked several times is answered each time, as the client answers it.
      await checkHistories(
        api,
        client,
        [mint, mint, addresses[1]!, mint].map((address) => ({ address })),
      );
    });
    // An address asked many times is worked out once: its records' bytes are read as often as
    // for one ask.
    let reads = 0;
    const counted = api.records.map((r) => ({
      ...r,
      get rawtx() {
        reads++;
        return r.rawtx;
      },
    }));
    const readsFor = (asks: number) => {
      reads = 0;
      const [group] = historyGroups(Array.from({ length: asks }, () => ({ address: mint })));
      const answers = groupHistories(group!, counted, historyConfigOf(api));
      assert.equal(answers.length, asks);
      assert.ok(answers.every((a) => a === answers[0]));
      return reads;
    };
    const once = readsFor(1);
    assert.ok(once > 0);
    assert.equal(readsFor(50), once);
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
          assert.ok(await checkHistory(api, client, address, query));
        }
      }
      await checkHistories(api, client, [
        { address: addr(alice) },
        { address: addr(bob), limit: 2 },
        { address: addr(carol), fromScore: 3n },
        { address: addr(alice), order: 'desc' },
        { address: addr(bob), fromScore: 3n },
      ]);
    });
    const sends = historyFor(addr(alice), api.records, historyConfigOf(api)).history.filter(
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
            assert.ok(await checkHistory(graph.api, client, address, query), `seed ${seed}`);
            cases++;
          }
        }
        for (let i = 0; i < 3; i++) {
          const params = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ({
            address: pick(graph.addresses),
            ...randomQuery(),
          }));
          assert.ok(await checkHistories(graph.api, client, params), `seed ${seed}`);
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
    assert.throws(() => historyFor(a.address, api.records, historyConfigOf(api)), DomainError);
  });
});
