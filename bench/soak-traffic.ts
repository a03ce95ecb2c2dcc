// bench:soak's traffic: wallets that transfer among themselves at a steady rate, and readers that
// read balances, unspent outputs, the change feed and tickets meanwhile, each balance answer
// checked against the store. A wallet picks a coin from its own unspent outputs (read from the
// service, as a wallet does) and sends it whole, less the fee, to another wallet: the coins keep
// their number and the wallets never run dry.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { pubKeyHashOf } from '../src/domain/address.js';
import type { RunningService } from '../src/service.js';
import { SPENDABLE } from '../src/store/wallets/spendable.js';
import { buildTransfer, tokenOutput } from '../test/support/build-transfer.js';
import type { Party } from '../test/support/token-world.js';

const FEE = 100n;

export interface Counts {
  transfers: number;
  refusedFunding: number;
  otherRefusals: Map<string, number>;
  /** A wallet had no coin free (all in transfers under way): no transfer sent. */
  noCoin: number;
  reads: number;
  readErrors: number;
  balanceReads: number;
  /** Balance answers that were no value the store held while the read ran. */
  balanceDisagreed: number;
  /** Of those, zero answered for a wallet the store says holds tokens. */
  balanceZeroForFunded: number;
  /** Answers not among the values before and after, while a transfer of the wallet ran: not checkable. */
  balanceUnchecked: number;
  transferMs: Reservoir;
  readMs: Reservoir;
}

export function newCounts(): Counts {
  return {
    transfers: 0,
    refusedFunding: 0,
    otherRefusals: new Map(),
    noCoin: 0,
    reads: 0,
    readErrors: 0,
    balanceReads: 0,
    balanceDisagreed: 0,
    balanceZeroForFunded: 0,
    balanceUnchecked: 0,
    transferMs: new Reservoir(),
    readMs: new Reservoir(),
  };
}

/**
 * Latencies kept: a reservoir sample of at most KEPT, in memory allocated up front, so that what
 * the bench keeps does not read as the service's memory growth.
 */
const KEPT = 20_000;
export class Reservoir {
  readonly #values = new Float64Array(KEPT);
  #seen = 0;

  add(value: number): void {
    const at = this.#seen < KEPT ? this.#seen : Math.floor(Math.random() * (this.#seen + 1));
    if (at < KEPT) this.#values[at] = value;
    this.#seen++;
  }

  /** The values kept, ascending. */
  sorted(): number[] {
    return [...this.#values.subarray(0, Math.min(this.#seen, KEPT))].sort((a, b) => a - b);
  }
}

/** Tickets kept for reads: a ring of this many, allocated up front. */
const TICKETS_KEPT = 256;

export class Traffic {
  readonly counts = newCounts();
  readonly #pool: Pool;
  readonly #auth: string;
  /** Outpoints in transfers under way. */
  readonly #busy = new Set<string>();
  /** Per wallet: transfers under way touching it, and a count of those answered. */
  readonly #touching = new Map<string, { running: number; answered: number }>();
  readonly #tickets: string[] = new Array<string>(TICKETS_KEPT).fill('');
  #ticketsSeen = 0;

  /** Each wallet's own API key (read and submit), by address: wallets do not share a key. */
  readonly #keys = new Map<string, string>();

  constructor(
    readonly service: RunningService,
    readonly wallets: readonly Party[],
    adminKey: string,
    walletKeys: readonly string[],
  ) {
    this.#pool = new Pool(service.url!, { connections: 64, pipelining: 1 });
    this.#auth = `Bearer ${adminKey}`;
    for (const [i, w] of wallets.entries()) this.#keys.set(w.address, `Bearer ${walletKeys[i]!}`);
    for (const w of wallets) this.#touching.set(w.address, { running: 0, answered: 0 });
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #post(path: string, body: unknown, as: Party): Promise<{ status: number; json: unknown }> {
    const res = await this.#pool.request({
      path,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: this.#keys.get(as.address)!,
      },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.statusCode, json };
  }

  async #get(path: string): Promise<number> {
    const res = await this.#pool.request({ path, method: 'GET', headers: { authorization: this.#auth } });
    await res.body.dump();
    return res.statusCode;
  }

  /** One transfer from `from` to `to`: a coin of `from`'s read from the service, sent whole less the fee. */
  async transfer(from: Party, to: Party): Promise<void> {
    const { token } = this.service.parts.ctx;
    const page = await this.#post('/v2/utxos?size=50&order=desc', [from.address], from);
    const listed = page.json as { outpoint: string; data: { bsv21: { amt: number } } }[];
    const coins = listed.map((c) => {
      const cut = c.outpoint.lastIndexOf('_');
      return {
        txid: c.outpoint.slice(0, cut),
        vout: Number(c.outpoint.slice(cut + 1)),
        amt: c.data.bsv21.amt,
      };
    });
    const coin = coins.find((c) => !this.#busy.has(`${c.txid}_${c.vout}`) && BigInt(c.amt) > 2n * FEE);
    if (coin === undefined) {
      this.counts.noCoin++;
      return;
    }
    const outpoint = `${coin.txid}_${coin.vout}`;
    this.#busy.add(outpoint);
    const touched = [this.#touching.get(from.address)!, this.#touching.get(to.address)!];
    for (const t of touched) t.running++;
    try {
      const stored = await this.service.parts.ctx.db.query<{ script: Uint8Array }>(
        'SELECT script FROM token_outputs WHERE txid = $1 AND vout = $2',
        [coin.txid, coin.vout],
      );
      const amount = BigInt(coin.amt);
      const known = {
        txid: coin.txid,
        vout: coin.vout,
        owner: from.address,
        amount,
        op: 'transfer' as const,
        lockingScript: stored[0]!.script,
        satoshis: 1n,
        state: 'unspent' as const,
      };
      const out = (o: Party | Uint8Array, amt: bigint) => tokenOutput(o, amt, token.tokenId, token.approver);
      const raw = buildTransfer({
        inputs: [known],
        outputs: [out(to, amount - FEE), out(pubKeyHashOf(token.feeAddress)!, FEE)],
        signer: from,
      });
      const started = performance.now();
      const res = await this.#post('/v2/transfer', { rawtx: Buffer.from(raw).toString('base64') }, from);
      const ms = performance.now() - started;
      if (res.status === 200) {
        this.counts.transfers++;
        this.counts.transferMs.add(ms);
        const id = (res.json as { ticketId?: string }).ticketId;
        if (id !== undefined) {
          this.#tickets[this.#ticketsSeen++ % TICKETS_KEPT] = id;
        }
      } else if (res.status === 503) this.counts.refusedFunding++;
      else {
        const code = `${res.status} ${(res.json as { code?: string }).code ?? ''}`;
        this.counts.otherRefusals.set(code, (this.counts.otherRefusals.get(code) ?? 0) + 1);
      }
    } finally {
      this.#busy.delete(outpoint);
      for (const t of touched) {
        t.running--;
        t.answered++;
      }
    }
  }

  /** The store's balance of `address`: the sum of its spendable outputs, read directly. */
  async #truth(address: string): Promise<bigint> {
    const rows = await this.service.parts.ctx.db.query<{ n: string }>(
      `SELECT coalesce(sum(o.amount), 0)::text AS n FROM token_outputs o WHERE o.owner = $1 AND ${SPENDABLE}`,
      [address],
    );
    return BigInt(rows[0]!.n);
  }

  /** A balance read through the service, checked against the store before and after it. */
  async #balanceRead(wallet: Party): Promise<void> {
    const touching = this.#touching.get(wallet.address)!;
    const quietBefore = touching.running === 0;
    const answeredBefore = touching.answered;
    const before = await this.#truth(wallet.address);
    const res = await this.#post('/v2/balance', [wallet.address], wallet);
    const after = await this.#truth(wallet.address);
    const quiet = quietBefore && touching.running === 0 && touching.answered === answeredBefore;
    if (res.status !== 200) throw new Error(`balance read answered ${res.status}`);
    const amt = BigInt((res.json as { amt: number }[])[0]!.amt);
    this.counts.balanceReads++;
    if (amt === before || amt === after) return;
    if (!quiet) {
      this.counts.balanceUnchecked++;
      return;
    }
    this.counts.balanceDisagreed++;
    if (amt === 0n && before > 0n) this.counts.balanceZeroForFunded++;
  }

  /** One read of a random kind about a random wallet. */
  async read(): Promise<void> {
    const wallet = this.wallets[Math.floor(Math.random() * this.wallets.length)]!;
    const kind = Math.floor(Math.random() * 4);
    const started = performance.now();
    try {
      if (kind === 0) await this.#balanceRead(wallet);
      else if (kind === 1) {
        const res = await this.#post('/v2/utxos?size=20', [wallet.address], wallet);
        if (res.status !== 200) throw new Error(`utxos answered ${res.status}`);
      } else if (kind === 2) {
        const res = await this.#post('/v1/sync?limit=20&order=desc', [wallet.address], wallet);
        if (res.status !== 200) throw new Error(`sync answered ${res.status}`);
      } else {
        const id = this.#tickets[Math.floor(Math.random() * Math.min(this.#ticketsSeen, TICKETS_KEPT))];
        if (id !== undefined && id !== '') {
          const status = await this.#get(`/v2/ticket?ticketID=${id}`);
          if (status !== 200) throw new Error(`ticket answered ${status}`);
        }
      }
      this.counts.reads++;
      this.counts.readMs.add(performance.now() - started);
    } catch {
      this.counts.readErrors++;
    }
  }
}

/**
 * Runs `act` `perSecond` times a second, without waiting for one to end, until `until()`; at most
 * `maxInFlight` at once (a due one is skipped, and counted, while that many run: a service that
 * falls behind is not buried under a queue it never catches up with). Returns the skipped count.
 */
export async function atRate(
  perSecond: number,
  maxInFlight: number,
  until: () => boolean,
  act: () => Promise<void>,
): Promise<number> {
  const running = new Set<Promise<void>>();
  const started = performance.now();
  let skipped = 0;
  for (let i = 0; !until(); i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (running.size >= maxInFlight) {
      skipped++;
      continue;
    }
    const one: Promise<void> = act()
      .catch(() => undefined)
      .finally(() => running.delete(one));
    running.add(one);
  }
  await Promise.all(running);
  return skipped;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
