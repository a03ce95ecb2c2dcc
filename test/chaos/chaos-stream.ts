// A stream of independent transfers for the chaos scenarios on an in-process service (embedded
// devnet or the devnet behind ARC): holders get mined outputs, and each output is spent by one
// signed transfer; the scenario sends them while it breaks something.
import assert from 'node:assert/strict';
import { apiContextOf } from '../../src/compose.js';
import type { Devnet } from '../../src/ledger/devnet/devnet.js';
import type { RunningService } from '../../src/service.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually } from '../e2e/support.js';
import { party } from '../support/token-world.js';
import type { Observed } from './invariants.js';

export const FEE = 100n;

export interface ChaosStream {
  readonly key: string;
  /** Base64 transfers, each spending its own mined output. */
  readonly rawtxs: readonly string[];
  readonly observed: Observed;
}

/** Mints `count` outputs over `holders` holders, mines them, and signs one transfer per output. */
export async function prepareChaosStream(
  service: RunningService,
  devnet: Devnet,
  label: string,
  count: number,
  holders = 3,
): Promise<ChaosStream> {
  const { parts } = service;
  const key = (
    await createApiKey(parts.db, parts.masterKey, { name: `${label} wallets`, scopes: ['read', 'submit'] })
  ).key;
  const people = Array.from({ length: holders }, (_, h) => party(`${label} holder ${h}`));
  for (let i = 0; i < count; i++)
    await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: people[i % holders]!.address,
      amount: BigInt(1_000_000 + i),
    });
  await devnet.mine(1);
  await eventually(
    async () => {
      const rows = await parts.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status <> 'MINED'",
      );
      return rows[0]?.n === '0' ? true : undefined;
    },
    'the mints MINED',
    600,
  );
  const rawtxs: string[] = [];
  for (const [h, holder] of people.entries()) {
    const outputs = await utxosOf(service.url!, key, holder.address);
    assert.equal(outputs.length, Math.ceil((count - h) / holders));
    for (const [i, output] of outputs.entries())
      rawtxs.push(
        transferOf(parts.ctx.token, {
          from: holder,
          inputs: [output],
          to: party(`${label} recipient ${(h + i) % 2}`),
          amount: BigInt(10_000 * (i + 1) + h),
          fee: FEE,
        }),
      );
  }
  return {
    key,
    rawtxs,
    observed: {
      url: service.url!,
      key,
      db: parts.db,
      devnet,
      tokenId: parts.ctx.token.tokenId,
      supply: BigInt(parts.token.supply),
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly retryAfter: string | null;
}

/** POST /v2/transfer; a refused connection answers status 0. A 500 fails the test. */
export async function submitTransfer(
  url: string,
  key: string,
  rawtx: string,
  extra: Record<string, string> = {},
): Promise<Answer> {
  try {
    const res = await http(url, 'POST', '/v2/transfer', { key, body: { rawtx, ...extra } });
    // On a 200, `text` is the ticket ID (the answer is JSON for a caller with a Bearer key).
    const text = res.status === 200 ? ticketIdOf(res) : res.text;
    return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    return { status: 0, text: String(err), retryAfter: null };
  }
}

/** The status of a ticket over the API. */
export async function ticketStatus(url: string, key: string, id: string): Promise<string> {
  const res = await http(url, 'GET', `/v2/ticket?ticketID=${id}`, { key });
  assert.equal(res.status, 200, `ticket ${id}: ${res.text}`);
  return (res.json as { status: string }).status;
}

/** Mines a block whenever the mempool holds something, until it is empty and every ticket of the store has ended. */
export async function mineUntilAllEnded(observed: Observed, what: string, tries = 600): Promise<void> {
  await eventually(
    async () => {
      const rows = await observed.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM tickets WHERE status NOT IN ('MINED', 'FAILED')",
      );
      const pending = observed.devnet.mempoolTxids().length > 0;
      if (rows[0]?.n === '0' && !pending) return true;
      if (pending) await observed.devnet.mine(1);
      return undefined;
    },
    what,
    tries,
  );
}

/** Rejects after `ms` (the scenario's own deadline, on top of the runner's). */
export function deadline<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: over its deadline of ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
