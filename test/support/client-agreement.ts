// Agreement between our answers and the reference client's, both as JSON values (see
// asClientJson): equal, except that where a number is beyond 2^53 on either side (the client
// computes in doubles, we in bigint) the two must agree to 1e-9 relative. Both throwing agrees.
// The check* functions ask the client (through its fake API) and us the same question.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type Mnee from '@mnee/ts-sdk';
import type { ClientTokenConfig } from '../../src/domain/client-script-reading.js';
import {
  groupHistories,
  type HistoryConfig,
  type HistoryParams,
  type HistoryQuery,
  historyFor,
  historyGroups,
  historySelection,
} from '../../src/domain/history.js';
import type { ParseResponse } from '../../src/domain/parse-response.js';
import { parseTransaction } from '../../src/domain/parse-tx.js';
import { toHex } from '../../src/domain/script-chunks.js';
import { asClientJson, type FakeMneeApi, txidOf } from './client-fixtures.js';

/** The real transactions of test/vectors/mnee-real-transactions.json, by name. */
export const realVectors = JSON.parse(
  readFileSync(new URL('../vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as Record<string, string | string[]>;

export type Outcome = { value: unknown } | { threw: true };

/** Asserts agreement; answers true when every number compared was exact. */
export function agrees(ours: Outcome, theirs: Outcome, label: string): boolean {
  assert.equal(
    'threw' in ours,
    'threw' in theirs,
    `${label}: one side threw\nours ${show(ours)}\ntheirs ${show(theirs)}`,
  );
  if ('threw' in ours || 'threw' in theirs) return true;
  const state = { exact: true };
  try {
    compare(ours.value, theirs.value, '$', state);
  } catch (err) {
    assert.fail(`${label}: ${(err as Error).message}\nours ${show(ours)}\ntheirs ${show(theirs)}`);
  }
  return state.exact;
}

function compare(a: unknown, b: unknown, path: string, state: { exact: boolean }): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      if (a !== b) throw new Error(`${path}: ${a} != ${b}`);
      return;
    }
    state.exact = false;
    if (Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b))) throw new Error(`${path}: ${a} !~ ${b}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) throw new Error(`${path}: length ${a.length} != ${b.length}`);
    for (const [i, x] of a.entries()) compare(x, b[i], `${path}[${i}]`, state);
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) throw new Error(`${path}: keys ${ka} != ${kb}`);
    for (const k of ka)
      compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, state);
    return;
  }
  if (a !== b) throw new Error(`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

function show(o: Outcome): string {
  return JSON.stringify(o).slice(0, 4000);
}

export const historyConfigOf = (api: FakeMneeApi): HistoryConfig => ({
  tokenId: api.config.tokenId,
  feeAddress: api.config.feeAddress,
});

/** One single-form query, client and ours; returns whether the numbers were all exact. */
export async function checkHistory(
  api: FakeMneeApi,
  client: Mnee,
  address: string,
  query: HistoryQuery,
): Promise<boolean> {
  const from = query.fromScore === undefined ? undefined : Number(query.fromScore);
  const theirs = await jsonOutcome(() => client.recentTxHistory(address, from, query.limit, query.order));
  const ours = await jsonOutcome(async () =>
    historyFor(address, api.select([address], historySelection(query)), historyConfigOf(api), query),
  );
  return agrees(ours, theirs, `${address} ${JSON.stringify(query, (_k, v) => String(v))}`);
}

export async function checkHistories(
  api: FakeMneeApi,
  client: Mnee,
  params: HistoryParams[],
): Promise<boolean> {
  const wire = params.map((p) => ({
    ...p,
    fromScore: p.fromScore === undefined ? undefined : Number(p.fromScore),
  }));
  const theirs = await jsonOutcome(() => client.recentTxHistories(wire));
  const ours = await jsonOutcome(async () =>
    historyGroups(params).flatMap((g) =>
      groupHistories(g, api.select(g.addresses, g.selection), historyConfigOf(api)),
    ),
  );
  return agrees(ours, theirs, JSON.stringify(wire));
}

async function jsonOutcome<T>(fn: () => Promise<T>): Promise<Outcome> {
  try {
    return { value: asClientJson(await fn()) };
  } catch {
    return { threw: true };
  }
}

export const parseConfigOf = (api: FakeMneeApi): ClientTokenConfig => ({
  tokenId: api.config.tokenId,
  approver: api.config.approver,
  feeAddress: api.config.feeAddress,
  mintAddress: api.config.mintAddress,
});

export function parseOurs(api: FakeMneeApi, raw: Uint8Array, includeRaw = true): ParseResponse {
  return parseTransaction(raw, api.sourceOutputs(raw), parseConfigOf(api), 'sandbox', { includeRaw });
}

/** Our answer without what the client does not produce (environment aside, compared by nobody). */
function comparable(response: ParseResponse): unknown {
  const { environment: _e, raw, ...rest } = response;
  if (raw === undefined) return asClientJson(rest);
  const { version, lockTime, size, hash, ...clientRaw } = raw;
  assert.equal(hash, response.txid);
  assert.equal(size * 2, raw.txHex.length);
  assert.equal(version, Number.parseInt(raw.txHex.slice(0, 8).match(/../g)!.reverse().join(''), 16));
  assert.equal(lockTime, Number.parseInt(raw.txHex.slice(-8).match(/../g)!.reverse().join(''), 16));
  return asClientJson({ ...rest, raw: clientRaw });
}

async function outcome(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { value: await fn() };
  } catch {
    return { threw: true };
  }
}

export async function checkParse(
  api: FakeMneeApi,
  client: Mnee,
  raw: Uint8Array,
  via: 'rawtx' | 'txid',
  includeRaw = true,
): Promise<{ exact: boolean; answer?: ParseResponse }> {
  const theirs = await outcome(async () => {
    const parsed =
      via === 'rawtx'
        ? await client.parseTxFromRawTx(toHex(raw), { includeRaw })
        : await client.parseTx(txidOf(raw), { includeRaw });
    const { environment: _e, ...rest } = parsed;
    return asClientJson(rest);
  });
  let answer: ParseResponse | undefined;
  const mine = await outcome(async () => {
    answer = parseOurs(api, raw, includeRaw);
    return comparable(answer);
  });
  const exact = agrees(mine, theirs, `${via} ${toHex(raw)}`);
  return answer === undefined ? { exact } : { exact, answer };
}
