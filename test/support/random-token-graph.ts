// Random transfer graphs for checking history and parse against the reference client: a
// genesis, then transfers between holders, the mint, fee and burn addresses, with fees, change,
// several senders, burns, unconfirmed and confirmed records, and (in "odd" mode) the outputs the
// client reads loosely: OP_RETURNs anywhere, plain P2PKH, P2PKH-locked inscriptions, other
// tokens and approvers, non-canonical amounts, redeem metadata, broken JSON.
import { pubKeyHashOf } from '../../src/domain/address.js';
import { CLIENT_BUILTIN_MINT_ADDRESSES } from '../../src/domain/client-script-reading.js';
import type { HistorySyncRecord } from '../../src/domain/history.js';
import { concatBytes } from '../../src/domain/script-chunks.js';
import {
  buildTx,
  cosignLock,
  envelope,
  FakeMneeApi,
  FEE_TIERS,
  holder,
  opReturn,
  PRODUCTION_APPROVER,
  p2pkhLock,
  prng,
  SANDBOX_APPROVER,
  type TxInputSpec,
  type TxOutputSpec,
  tokenJson,
  txidOf,
} from './client-fixtures.js';

export interface GraphOptions {
  readonly seed: number;
  readonly steps: number;
  readonly odd: boolean;
  readonly supply?: bigint;
}

export interface TokenGraph {
  readonly api: FakeMneeApi;
  readonly addresses: readonly string[];
  readonly txids: readonly string[];
  readonly maxScore: bigint;
}

interface Party {
  readonly address: string;
  readonly pkh: Uint8Array;
}

interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly owner: Party;
  readonly amount: bigint;
}

const ODD_AMOUNTS: unknown[] = [' 7', '0x10', '+8', '007', '1e3', '12abc', 5, 2.5, '-3', 'abc', null, ['9']];

export function randomTokenGraph(options: GraphOptions): TokenGraph {
  const rand = prng(options.seed);
  const int = (n: number) => Math.floor(rand() * n);
  const chance = (p: number) => rand() < p;
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const party = (name: string): Party => holder(`${options.seed} ${name}`);
  const builtin = CLIENT_BUILTIN_MINT_ADDRESSES[1]!;
  const mint = party('mint');
  const fee = party('fee');
  const burn = party('burn');
  const holders = [0, 1, 2, 3, 4, 5].map((i) => party(`holder ${i}`));
  const everyone: Party[] = [...holders, mint, fee, burn, { address: builtin, pkh: pubKeyHashOf(builtin)! }];
  const supply = options.supply ?? 1_000_000_000_000n;

  const genesis = buildTx(
    [{ txid: 'ee'.repeat(32), vout: options.seed % 7 }],
    [
      {
        satoshis: 1n,
        script: concatBytes([
          envelope(
            JSON.stringify({ p: 'bsv-20', op: 'deploy+mint', sym: 'TST', amt: supply.toString(), dec: '5' }),
          ),
          chance(0.5) ? cosignLock(mint.pkh, SANDBOX_APPROVER) : p2pkhLock(mint.pkh),
        ]),
      },
    ],
  );
  const genesisTxid = txidOf(genesis);
  const tokenId = `${genesisTxid}_0`;
  const api = new FakeMneeApi({
    approver: SANDBOX_APPROVER,
    feeAddress: fee.address,
    burnAddress: burn.address,
    mintAddress: mint.address,
    fees: FEE_TIERS,
    decimals: 5,
    tokenId,
  });
  let score = BigInt(1 + int(5));
  const record = (raw: Uint8Array, senders: string[], receivers: string[]): string => {
    const txid = api.addTx(raw);
    const r: HistorySyncRecord = {
      txid,
      rawtx: raw,
      senders,
      receivers,
      height: chance(0.3) ? 0 : 800_000 + int(1000),
      score,
    };
    api.records.push(r);
    score += BigInt(1 + int(3));
    return txid;
  };
  const txids = [record(genesis, [], [mint.address])];
  let coins: Coin[] = [{ txid: genesisTxid, vout: 0, owner: mint, amount: supply }];

  for (let step = 0; step < options.steps && coins.length > 0; step++) {
    const primary = pick(coins).owner;
    const own = coins.filter((c) => c.owner === primary).slice(0, 1 + int(3));
    const others = coins.filter((c) => c.owner !== primary);
    const spent = chance(0.15) && others.length > 0 ? [...own, pick(others)] : own;
    if (chance(0.1)) spent.reverse();
    const inTotal = spent.reduce((s, c) => s + c.amount, 0n);
    const outputs: (TxOutputSpec & { coin?: Omit<Coin, 'txid' | 'vout'> })[] = [];
    const token = (owner: Party, amount: bigint, op = 'transfer', extra: object = {}) =>
      outputs.push({
        satoshis: 1n,
        script: concatBytes([
          envelope(tokenJson(tokenId, amount.toString(), op, extra)),
          cosignLock(owner.pkh, SANDBOX_APPROVER),
        ]),
        coin: op === 'burn' ? undefined : { owner, amount },
      });
    let left = inTotal;
    const feePaid = chance(0.8) && left > 100n ? 100n : 0n;
    left -= feePaid;
    if (feePaid > 0n && chance(0.1)) token(fee, feePaid);
    for (let i = 1 + int(3); i > 0 && left > 0n; i--) {
      const amount = 1n + BigInt(int(Number(left < 1_000_000n ? left : 1_000_000n)));
      const to = chance(0.7) ? pick(holders) : pick(everyone);
      token(
        to,
        amount,
        chance(0.08) ? 'burn' : 'transfer',
        chance(0.04) ? { metadata: { action: 'redeem' } } : {},
      );
      left -= amount;
    }
    if (feePaid > 0n && !outputs.some((o) => o.coin?.owner === fee && o.coin.amount === feePaid))
      token(fee, feePaid);
    if (left > 0n) token(spent[0]!.owner, chance(0.1) ? left - 1n : left);
    if (options.odd) addOddOutputs(outputs, { tokenId, everyone, chance, pick, int });

    const inputs: TxInputSpec[] = spent.map((c) => ({ txid: c.txid, vout: c.vout }));
    if (chance(0.4)) {
      const funding = 'f0'.repeat(31) + (step % 256).toString(16).padStart(2, '0');
      inputs.push({ txid: funding, vout: 0, sequence: chance(0.5) ? 0 : 0xffffffff });
    }
    const raw = buildTx(inputs, outputs);
    const senders = [...new Set(spent.map((c) => c.owner.address))];
    if (chance(0.1)) senders.reverse();
    const receivers = [...new Set(outputs.flatMap((o) => (o.coin ? [o.coin.owner.address] : [])))];
    const txid = record(raw, senders, receivers);
    txids.push(txid);
    coins = coins.filter((c) => !spent.includes(c));
    outputs.forEach((o, vout) => {
      if (o.coin && o.coin.amount > 0n) coins.push({ txid, vout, ...o.coin });
    });
  }
  return { api, addresses: everyone.map((p) => p.address), txids, maxScore: score };
}

interface OddTools {
  readonly tokenId: string;
  readonly everyone: readonly Party[];
  readonly chance: (p: number) => boolean;
  readonly pick: <T>(items: readonly T[]) => T;
  readonly int: (n: number) => number;
}

function addOddOutputs(outputs: TxOutputSpec[], t: OddTools): void {
  const at = () => t.int(outputs.length + 1);
  const insert = (o: TxOutputSpec) => outputs.splice(at(), 0, o);
  const someone = () => t.pick(t.everyone);
  if (t.chance(0.15)) insert({ satoshis: 0n, script: opReturn('memo') });
  if (t.chance(0.08)) insert({ satoshis: 1000n, script: p2pkhLock(someone().pkh) });
  if (t.chance(0.08)) {
    insert({
      satoshis: 1n,
      script: concatBytes([envelope(tokenJson(t.tokenId, '500')), p2pkhLock(someone().pkh)]),
    });
  }
  if (t.chance(0.06)) {
    const other = `${'ab'.repeat(32)}_0`;
    insert({
      satoshis: 1n,
      script: concatBytes([envelope(tokenJson(other, '77')), cosignLock(someone().pkh, SANDBOX_APPROVER)]),
    });
  }
  if (t.chance(0.06)) {
    insert({
      satoshis: 1n,
      script: concatBytes([
        envelope(tokenJson(t.tokenId, '33')),
        cosignLock(someone().pkh, PRODUCTION_APPROVER),
      ]),
    });
  }
  if (t.chance(0.1)) {
    const amt = t.pick(ODD_AMOUNTS);
    insert({
      satoshis: 1n,
      script: concatBytes([envelope(tokenJson(t.tokenId, amt)), cosignLock(someone().pkh, SANDBOX_APPROVER)]),
    });
  }
  if (t.chance(0.05)) {
    insert({
      satoshis: 1n,
      script: concatBytes([envelope('{"p":"bsv-20",'), cosignLock(someone().pkh, SANDBOX_APPROVER)]),
    });
  }
}
