// The production ledger: ARC over HTTP. Broadcast is POST /v1/tx (hex), several at once POST
// /v1/txs (hex lines), status GET /v1/tx/{txid},
// fee GET /v1/policy. Status changes reach subscribers from ARC's callbacks (handleArcCallback,
// the fast path) and from polling the watched txids (the guarantee). Limits, documented in
// src/ledger/arc/README.md: ARC serves no raw transactions (rawTransaction answers from a cache
// of what this process broadcast) and no chain tip: tip() asks the Block Headers Service ARC
// itself uses (arc-tip.ts), never the blocks this process happened to see; ARC gives no block
// time (see blockTime).
import { sha256d } from '../../crypto/hash.js';
import { bearerMatches } from '../../crypto/same-secret.js';
import type { BroadcastResult, ChainTip, FeePolicy, Ledger, StatusListener, TxStatus } from '../port.js';
import { LedgerUnavailableError } from '../port.js';
import { type ArcCallbackResult, callbackItems, timestampMs } from './arc-callback.js';
import { ArcHttpClient, type ArcHttpOptions } from './arc-http-client.js';
import { type ArcStatusFields, isArcTxStatus, txStatusFromArc } from './arc-status.js';
import { headersClient, headersTip } from './arc-tip.js';
import { ArcWatcher } from './arc-watcher.js';

export interface ArcLedgerOptions extends ArcHttpOptions {
  /** Sent as X-CallbackUrl with every broadcast (where the service mounts handleArcCallback). */
  readonly callbackUrl?: string;
  /** Sent as X-CallbackToken; callbacks must carry it as `Authorization: Bearer`. Required for callbacks. */
  readonly callbackToken?: string;
  /** X-FullStatusUpdates (callbacks for SEEN_ON_NETWORK too). Default true. */
  readonly fullStatusUpdates?: boolean;
  /** First poll of a watched txid, and the delay after a change. Default 5000 ms. */
  readonly pollIntervalMs?: number;
  /** Longest delay between polls of an unchanged txid. Default 300000 ms. */
  readonly maxPollIntervalMs?: number;
  /** How long GET /v1/policy's answer is reused. Default 60000 ms. */
  readonly policyCacheMs?: number;
  /** Raw transactions kept for rawTransaction(). Default 10000. */
  readonly rawCacheSize?: number;
  /** Chain tip source. Default: GET {tipUrl}/api/v1/chain/tip/longest (a Block Headers Service). */
  readonly tip?: () => Promise<ChainTip>;
  /** Base URL of the Block Headers Service asked for the tip. Default: `url` (ARC's). */
  readonly tipUrl?: string;
  /** Its bearer token. Default: `apiKey`. */
  readonly tipApiKey?: string;
  /** Block time (Unix seconds) of a block. Default: the timestamp of the first MINED status seen for it. */
  readonly blockTime?: (blockHash: string, height: number) => Promise<number | undefined>;
  readonly now?: () => number;
}

export interface ArcLedger extends Ledger {
  /** Polls `txid` with backoff until unwatch(); changes go to subscribers. */
  watch(txid: string): void;
  unwatch(txid: string): void;
  /** ARC's callback into the service: checks the bearer token, feeds subscribers. Never throws. */
  handleArcCallback(body: unknown, authorization: string | undefined): Promise<ArcCallbackResult>;
}

const RETRYABLE_CODES = new Set([409, 460, 462, 467, 475]);
const MEMORY = 10_000;

export function createArcLedger(opts: ArcLedgerOptions): ArcLedger {
  return new HttpArcLedger(opts);
}

class HttpArcLedger implements ArcLedger {
  private readonly client: ArcHttpClient;
  /** The chain tip's source (arc-tip.ts). */
  private readonly headers: ArcHttpClient;
  private readonly watcher: ArcWatcher;
  private readonly listeners = new Set<StatusListener>();
  private readonly raws = new Map<string, Uint8Array>();
  private readonly inflight = new Map<string, Promise<BroadcastResult>>();
  /** Last status told to subscribers, and the ARC timestamp it came with, per txid. */
  private readonly last = new Map<string, { key: string; at: number }>();
  private readonly blockTimes = new Map<string, number>();
  private policy: { value: FeePolicy; at: number } | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: ArcLedgerOptions) {
    this.client = new ArcHttpClient(opts);
    this.headers = headersClient(opts);
    this.now = opts.now ?? Date.now;
    this.watcher = new ArcWatcher((txid) => this.poll(txid), {
      initialMs: opts.pollIntervalMs ?? 5000,
      maxMs: opts.maxPollIntervalMs ?? 300_000,
      random: opts.random ?? Math.random,
    });
  }

  broadcast(rawTx: Uint8Array): Promise<BroadcastResult> {
    const txid = txidOf(rawTx);
    const pending = this.inflight.get(txid);
    if (pending !== undefined) return pending;
    remember(this.raws, txid, rawTx.slice(), this.opts.rawCacheSize ?? MEMORY);
    const hex = Buffer.from(rawTx).toString('hex');
    const sending = this.send(txid, hex).finally(() => this.inflight.delete(txid));
    this.inflight.set(txid, sending);
    return sending;
  }

  async status(txid: string): Promise<TxStatus> {
    return (await this.fetchStatus(txid)).status;
  }

  async rawTransaction(txid: string): Promise<Uint8Array | null> {
    return this.raws.get(txid)?.slice() ?? null;
  }

  async tip(): Promise<ChainTip> {
    if (this.opts.tip !== undefined) return this.opts.tip();
    return headersTip(this.headers, this.opts.tipUrl ?? this.opts.url);
  }

  async feePolicy(): Promise<FeePolicy> {
    const cached = this.policy;
    if (cached !== null && this.now() - cached.at < (this.opts.policyCacheMs ?? 60_000)) return cached.value;
    const reply = await this.client.request('GET', '/v1/policy');
    const fee = (reply.body as { policy?: { miningFee?: { satoshis?: unknown; bytes?: unknown } } } | null)
      ?.policy?.miningFee;
    if (reply.status !== 200 || !isCount(fee?.satoshis) || !isCount(fee?.bytes) || fee.bytes === 0) {
      throw new LedgerUnavailableError(`ARC answered GET /v1/policy with ${reply.status} and no mining fee`);
    }
    // Satoshis per 1000 bytes, rounded up so a fee computed from it never falls short.
    const value = {
      satoshisPerKb: (BigInt(fee.satoshis) * 1000n + BigInt(fee.bytes) - 1n) / BigInt(fee.bytes),
    };
    this.policy = { value, at: this.now() };
    return value;
  }

  subscribe(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  watch(txid: string): void {
    this.watcher.watch(txid);
  }

  unwatch(txid: string): void {
    this.watcher.unwatch(txid);
  }

  async handleArcCallback(body: unknown, authorization: string | undefined): Promise<ArcCallbackResult> {
    const token = this.opts.callbackToken;
    if (token === undefined || !bearerMatches(authorization, token)) {
      return { status: 401, error: 'missing or wrong callback token' };
    }
    const items = callbackItems(body);
    if (items === null) return { status: 400, error: 'not an ARC callback' };
    let accepted = 0;
    for (const item of items) {
      const txid = typeof item.txid === 'string' ? item.txid.toLowerCase() : '';
      const status = /^[0-9a-f]{64}$/.test(txid) ? await this.statusOf(txid, item) : null;
      if (status === null) continue;
      accepted++;
      if (this.observe(txid, status, timestampMs(item.timestamp))) this.watcher.changed(txid);
    }
    return { status: 200, accepted, ignored: items.length - accepted };
  }

  async close(): Promise<void> {
    this.watcher.close();
    this.client.close();
    this.headers.close();
    this.listeners.clear();
  }

  /**
   * POST /v1/txs with the transactions as hex lines. ARC answers an array of statuses and
   * problems, successes first (not in the order sent), so items are matched by txid. An item the
   * answer leaves out is sent alone (POST /v1/tx, the same bytes); a whole-request refusal (one
   * unreadable transaction makes ARC refuse the batch) or a missing route sends each alone too, so
   * one bad transaction never fails the others. Retries resend the same body byte for byte.
   */
  broadcastMany(rawTxs: readonly Uint8Array[]): Promise<BroadcastResult[]> {
    const answers: Promise<BroadcastResult>[] = [];
    const batch = new Map<string, { hex: string; answer: Promise<BroadcastResult> }>();
    let release!: (results: Map<string, Promise<BroadcastResult>>) => void;
    const sent = new Promise<Map<string, Promise<BroadcastResult>>>((resolve) => {
      release = resolve;
    });
    for (const raw of rawTxs) {
      const txid = txidOf(raw);
      const pending = this.inflight.get(txid) ?? batch.get(txid)?.answer;
      if (pending !== undefined) {
        answers.push(pending);
        continue;
      }
      remember(this.raws, txid, raw.slice(), this.opts.rawCacheSize ?? MEMORY);
      const answer = sent.then((results) => results.get(txid)!).finally(() => this.inflight.delete(txid));
      this.inflight.set(txid, answer);
      batch.set(txid, { hex: Buffer.from(raw).toString('hex'), answer });
      answers.push(answer);
    }
    if (batch.size > 0) {
      const items = [...batch].map(([txid, { hex }]) => ({ txid, hex }));
      this.sendMany(items).then(
        (results) => release(results),
        (err: unknown) => release(new Map(items.map((i) => [i.txid, Promise.reject(err)]))),
      );
    }
    return Promise.all(answers);
  }

  private async sendMany(
    items: readonly { txid: string; hex: string }[],
  ): Promise<Map<string, Promise<BroadcastResult>>> {
    const alone = (item: { txid: string; hex: string }) => this.sendAlone(item.txid, item.hex);
    const reply = await this.client.request('POST', '/v1/txs', {
      body: items.map((i) => i.hex).join('\n'),
      headers: this.broadcastHeaders(),
    });
    const results = new Map<string, Promise<BroadcastResult>>();
    const answered = new Map<string, BroadcastFields>();
    if (reply.status === 200 && Array.isArray(reply.body)) {
      for (const entry of reply.body as unknown[]) {
        const fields = (entry ?? {}) as BroadcastFields;
        if (typeof fields.txid === 'string') answered.set(fields.txid.toLowerCase(), fields);
      }
    }
    for (const item of items) {
      const fields = answered.get(item.txid);
      results.set(
        item.txid,
        fields === undefined
          ? alone(item)
          : this.resultOf(item.txid, typeof fields.status === 'number' ? fields.status : 200, fields),
      );
    }
    await Promise.allSettled(results.values());
    return results;
  }

  /** One transaction by POST /v1/tx; ARC out of reach becomes a retryable refusal of it alone. */
  private async sendAlone(txid: string, hex: string): Promise<BroadcastResult> {
    try {
      return await this.send(txid, hex);
    } catch (err) {
      if (!(err instanceof LedgerUnavailableError)) throw err;
      return { ok: false, txid, arcCode: 409, reason: err.message, retryable: true };
    }
  }

  private broadcastHeaders(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (this.opts.callbackUrl !== undefined) {
      headers['x-callbackurl'] = this.opts.callbackUrl;
      if (this.opts.callbackToken !== undefined) headers['x-callbacktoken'] = this.opts.callbackToken;
      headers['x-fullstatusupdates'] = String(this.opts.fullStatusUpdates ?? true);
      // Statuses posted in batches ({count, callbacks}): one request for many transactions.
      headers['x-callbackbatch'] = 'true';
    }
    return headers;
  }

  private async send(txid: string, hex: string): Promise<BroadcastResult> {
    const reply = await this.client.request('POST', '/v1/tx', {
      body: hex,
      headers: this.broadcastHeaders(),
    });
    if (reply.status === 404) throw new LedgerUnavailableError(`ARC has no POST /v1/tx at ${this.opts.url}`);
    return this.resultOf(txid, reply.status, (reply.body ?? {}) as BroadcastFields);
  }

  /** A broadcast's answer (POST /v1/tx, or one item of POST /v1/txs) as the port's result. */
  private async resultOf(
    txid: string,
    httpStatus: number,
    fields: BroadcastFields,
  ): Promise<BroadcastResult> {
    if (httpStatus === 200) {
      const status = await this.statusOf(txid, fields);
      if (status === null) return { ok: true, txid, status: { kind: 'unknown' } };
      // A broadcast's answer goes to its caller (applied as such: its mempool never takes a
      // mined ticket back), not to subscribers: told as a push, an answer ARC gave before the
      // block came could land after another process recorded the block, and undo it.
      this.observe(txid, status, timestampMs(fields.timestamp), true, false);
      if (status.kind === 'rejected') {
        const code = /\b(4[67]\d)\b/.exec(status.reason)?.[1];
        return {
          ok: false,
          txid,
          arcCode: code === undefined ? 409 : Number(code),
          reason: status.reason,
          retryable: false,
        };
      }
      return { ok: true, txid, status };
    }
    const arcCode = typeof fields.status === 'number' ? fields.status : httpStatus;
    const reason = [fields.extraInfo, fields.detail, fields.title].find(
      (t) => typeof t === 'string' && t !== '',
    );
    return {
      ok: false,
      txid,
      arcCode,
      reason: typeof reason === 'string' ? reason : `ARC answered ${httpStatus}`,
      retryable: RETRYABLE_CODES.has(arcCode),
    };
  }

  private async fetchStatus(txid: string): Promise<{ status: TxStatus; changed: boolean }> {
    const reply = await this.client.request('GET', `/v1/tx/${txid}`);
    if (reply.status !== 200) return { status: { kind: 'unknown' }, changed: false };
    const fields = (reply.body ?? {}) as ArcStatusFields;
    const status = (await this.statusOf(txid, fields)) ?? { kind: 'unknown' };
    // A poll is the current truth: applied whatever the timestamps of earlier callbacks, and a
    // callback stamped (by ARC's clock) before the poll's answer is then older news.
    const changed =
      status.kind !== 'unknown' && this.observe(txid, status, timestampMs(fields.timestamp), true);
    return { status, changed };
  }

  private async poll(txid: string): Promise<boolean> {
    return (await this.fetchStatus(txid)).changed;
  }

  private async statusOf(txid: string, fields: ArcStatusFields): Promise<TxStatus | null> {
    if (!isArcTxStatus(fields.txStatus)) return null;
    let blockTime = 0;
    if (fields.txStatus === 'MINED' && typeof fields.blockHash === 'string') {
      blockTime = await this.blockTimeOf(fields.blockHash, fields.blockHeight, fields.timestamp);
    }
    return txStatusFromArc(txid, fields, blockTime);
  }

  private async blockTimeOf(hash: string, height: unknown, timestamp: unknown): Promise<number> {
    const known = this.blockTimes.get(hash);
    if (known !== undefined) return known;
    const fromSource =
      this.opts.blockTime !== undefined && typeof height === 'number'
        ? await this.opts.blockTime(hash, height).catch(() => undefined)
        : undefined;
    const time = fromSource ?? Math.floor((timestampMs(timestamp) ?? this.now()) / 1000);
    remember(this.blockTimes, hash, time, MEMORY);
    return time;
  }

  /**
   * Tells subscribers about a status unless it is the one they already have, or (unless `current`)
   * older than it by ARC's timestamps: callbacks may arrive out of order.
   */
  private observe(
    txid: string,
    status: TxStatus,
    at: number | null,
    current = false,
    notify = true,
  ): boolean {
    const key = statusKey(status);
    const previous = this.last.get(txid);
    if (previous !== undefined && previous.key === key) {
      if (at !== null && at > previous.at) previous.at = at;
      return false;
    }
    if (previous !== undefined && !current && at !== null && at < previous.at) return false;
    remember(this.last, txid, { key, at: at ?? previous?.at ?? 0 }, MEMORY);
    if (!notify) return true;
    for (const listener of this.listeners) {
      try {
        listener(txid, status);
      } catch {
        // A subscriber's failure is its own.
      }
    }
    return true;
  }
}

type BroadcastFields = ArcStatusFields & { status?: unknown; detail?: unknown; title?: unknown };

function txidOf(rawTx: Uint8Array): string {
  return Buffer.from(sha256d(rawTx)).reverse().toString('hex');
}

function statusKey(status: TxStatus): string {
  switch (status.kind) {
    case 'mined':
      return `mined:${status.blockHash}`;
    case 'rejected':
      return 'rejected';
    case 'double-spend':
      return `double-spend:${[...status.competingTxids].sort().join(',')}`;
    default:
      return status.kind;
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}
