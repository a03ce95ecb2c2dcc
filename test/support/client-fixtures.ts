// Fixtures for checking history and parse against the reference client (@mnee/ts-sdk 1.1.2):
// script and transaction builders, a fake API answering the client from local data
// (/v1/config, POST /v1/sync, /v1/tx, /v2/utxos, /v2/balance), and a runner that swaps
// globalThis.fetch for it while a client works.
import { createHash } from 'node:crypto';
import Mnee from '@mnee/ts-sdk';
import { sha256d } from '../../src/crypto/hash.js';
import { p2pkhAddress } from '../../src/domain/address.js';
import { readClientTransaction } from '../../src/domain/client-transaction.js';
import type { HistoryOrder, HistorySyncRecord, SyncSelection } from '../../src/domain/history.js';
import { type SourceOutputs, sourceOutputsFrom } from '../../src/domain/parse-source-outputs.js';
import { concatBytes, fromHex, OP, pushData, toHex } from '../../src/domain/script-chunks.js';
import { parseTokenScript } from '../../src/domain/token-script.js';

export const SANDBOX_TOKEN_ID = '833a7720966a2a435db28d967385e8aa7284b6150ebb39482cc5228b73e1703f_0';
export const SANDBOX_APPROVER = '02bed35e894cc41cc9879b4002ad03d33533b615c1b476068c8dd6822a09f93f6c';
export const PRODUCTION_APPROVER = '020a177d6a5e6f3a8689acd2e313bd1cf0dcf5a243d1cc67b7218602aee9e04b2f';

export interface WireConfig {
  readonly approver: string;
  readonly feeAddress: string;
  readonly burnAddress: string;
  readonly mintAddress: string;
  readonly fees: readonly { fee: number; min: number; max: number }[];
  readonly decimals: number;
  readonly tokenId: string;
}

export const FEE_TIERS = [
  { fee: 100, min: 0, max: 1_000_000 },
  { fee: 1000, min: 1_000_001, max: 9_007_199_254_740_991 },
];

/** A 20-byte pubkey hash and its address, derived from a name. */
export function holder(name: string): { name: string; pkh: Uint8Array; address: string } {
  const pkh = new Uint8Array(createHash('sha256').update(`client fixtures ${name}`).digest()).subarray(0, 20);
  return { name, pkh, address: p2pkhAddress(pkh) };
}

const utf8 = new TextEncoder();

/** `OP_0 OP_IF "ord" OP_1 "application/bsv-20" OP_0 <content> OP_ENDIF`. */
export function envelope(content: string | Uint8Array): Uint8Array {
  return concatBytes([
    Uint8Array.of(OP.OP_0, OP.OP_IF),
    pushData(utf8.encode('ord')),
    Uint8Array.of(OP.OP_1),
    pushData(utf8.encode('application/bsv-20')),
    Uint8Array.of(OP.OP_0),
    pushData(typeof content === 'string' ? utf8.encode(content) : content),
    Uint8Array.of(OP.OP_ENDIF),
  ]);
}

export function cosignLock(pkh: Uint8Array, approverHex: string): Uint8Array {
  return concatBytes([
    Uint8Array.of(OP.OP_DUP, OP.OP_HASH160),
    pushData(pkh),
    Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIGVERIFY),
    pushData(fromHex(approverHex)),
    Uint8Array.of(OP.OP_CHECKSIG),
  ]);
}

export function p2pkhLock(pkh: Uint8Array): Uint8Array {
  return concatBytes([
    Uint8Array.of(OP.OP_DUP, OP.OP_HASH160),
    pushData(pkh),
    Uint8Array.of(OP.OP_EQUALVERIFY, OP.OP_CHECKSIG),
  ]);
}

export function opReturn(data: string): Uint8Array {
  return concatBytes([Uint8Array.of(OP.OP_0, OP.OP_RETURN), pushData(utf8.encode(data))]);
}

export function tokenJson(tokenId: string, amt: unknown, op = 'transfer', extra: object = {}): string {
  return JSON.stringify({ p: 'bsv-20', op, id: tokenId, amt, ...extra });
}

/** A cosigned token output script (envelope + cosign), the service's own shape. */
export function tokenScript(tokenId: string, amt: unknown, pkh: Uint8Array, approverHex: string): Uint8Array {
  return concatBytes([envelope(tokenJson(tokenId, amt)), cosignLock(pkh, approverHex)]);
}

export interface TxInputSpec {
  readonly txid: string;
  readonly vout: number;
  readonly unlockingScript?: Uint8Array;
  readonly sequence?: number;
}

export interface TxOutputSpec {
  readonly satoshis: bigint;
  readonly script: Uint8Array;
}

/** Serialises a version-1 transaction (dummy unlocking scripts: history and parse never check them). */
export function buildTx(
  inputs: readonly TxInputSpec[],
  outputs: readonly TxOutputSpec[],
  lockTime = 0,
): Uint8Array {
  const parts: Uint8Array[] = [u32(1), varint(inputs.length)];
  for (const input of inputs) {
    const unlocking = input.unlockingScript ?? dummyUnlock(input.txid, input.vout);
    parts.push(fromHex(input.txid).reverse(), u32(input.vout), varint(unlocking.length), unlocking);
    parts.push(u32(input.sequence ?? 0xffffffff));
  }
  parts.push(varint(outputs.length));
  for (const output of outputs) {
    const value = new Uint8Array(8);
    new DataView(value.buffer).setBigUint64(0, output.satoshis, true);
    parts.push(value, varint(output.script.length), output.script);
  }
  parts.push(u32(lockTime));
  return concatBytes(parts);
}

export function txidOf(raw: Uint8Array): string {
  return toHex(sha256d(raw).reverse());
}

function dummyUnlock(txid: string, vout: number): Uint8Array {
  const sig = createHash('sha256').update(`${txid}:${vout}`).digest();
  return concatBytes([
    pushData(concatBytes([Uint8Array.of(0x30), sig, sig, Uint8Array.of(0xc1)])),
    pushData(sig),
  ]);
}

function u32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
}

function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  return Uint8Array.of(0xfd, n & 0xff, n >> 8);
}

export interface WireUtxo {
  readonly txid: string;
  readonly vout: number;
  readonly owner: string;
  readonly amount: number;
  readonly script: Uint8Array;
}

/** The fake API: answers the client's requests from the transactions and records it holds. */
export class FakeMneeApi {
  readonly transactions = new Map<string, Uint8Array>();
  readonly records: HistorySyncRecord[] = [];
  readonly utxos: WireUtxo[] = [];

  private score = 1n;

  constructor(readonly config: WireConfig) {}

  /**
   * Records a transaction as the service would after cosigning it: its sync record (senders:
   * owners of the token outputs it spends, receivers: owners of its token outputs) and the
   * UTXO set the client's transfer reads.
   */
  settle(raw: Uint8Array, height: number): HistorySyncRecord {
    const txid = this.addTx(raw);
    const tx = readClientTransaction(raw);
    const senders: string[] = [];
    for (const input of tx.inputs) {
      const at = this.utxos.findIndex((u) => u.txid === input.sourceTxid && u.vout === input.sourceVout);
      if (at < 0) continue;
      if (!senders.includes(this.utxos[at]!.owner)) senders.push(this.utxos[at]!.owner);
      this.utxos.splice(at, 1);
    }
    const receivers: string[] = [];
    tx.outputs.forEach((o, vout) => {
      const script = o.lockingScriptBytes;
      const token = parseTokenScript(script);
      if (token === null || token.inscription.op !== 'transfer') return;
      const owner = p2pkhAddress(token.ownerPkh);
      if (!receivers.includes(owner)) receivers.push(owner);
      this.utxos.push({ txid, vout, owner, amount: Number(token.inscription.amt), script });
    });
    const record: HistorySyncRecord = { txid, rawtx: raw, senders, receivers, height, score: this.score };
    this.score += 1n;
    this.records.push(record);
    return record;
  }

  addTx(raw: Uint8Array): string {
    const txid = txidOf(raw);
    this.transactions.set(txid, raw);
    return txid;
  }

  /** The source outputs parseTransaction needs for `raw`, as /v1/tx lets the client see them. */
  sourceOutputs(raw: Uint8Array): SourceOutputs {
    return sourceOutputsFrom(raw, this.transactions);
  }

  /** POST /v1/sync as contract.md describes it: per-address limit, union in score order. */
  select(addresses: readonly string[], selection: SyncSelection): HistorySyncRecord[] {
    const { from, limit, order } = selection;
    const inRange = (r: HistorySyncRecord) =>
      order === 'asc' ? r.score >= from : from === 0n || r.score <= from;
    const sorted = this.records
      .filter(inRange)
      .sort((a, b) => (a.score < b.score ? -1 : 1) * (order === 'asc' ? 1 : -1));
    const chosen = new Set<HistorySyncRecord>();
    for (const address of addresses) {
      const mine = sorted.filter((r) => r.senders.includes(address) || r.receivers.includes(address));
      for (const r of limit > 0 ? mine.slice(0, limit) : mine) chosen.add(r);
    }
    return sorted.filter((r) => chosen.has(r));
  }

  fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    if (url.pathname === '/v1/config') return json(this.config);
    if (url.pathname.startsWith('/v1/tx/')) {
      const raw = this.transactions.get(url.pathname.slice('/v1/tx/'.length));
      if (raw === undefined) return new Response('{"message":"not found"}', { status: 404 });
      return json({ rawtx: Buffer.from(raw).toString('base64') });
    }
    const body = JSON.parse(String(init?.body ?? '[]')) as string[];
    if (url.pathname === '/v1/sync') {
      const q = url.searchParams;
      const selection: SyncSelection = {
        from: BigInt(q.get('from') ?? '0'),
        limit: Number(q.get('limit') ?? '0'),
        order: (q.get('order') ?? 'asc') as HistoryOrder,
      };
      return json(this.select(body, selection).map(wireRecord));
    }
    if (url.pathname === '/v2/balance') {
      return json(
        body.map((address) => {
          const amt = this.utxos.filter((u) => u.owner === address).reduce((s, u) => s + u.amount, 0);
          return { address, amt, precised: amt / 1e5 };
        }),
      );
    }
    if (url.pathname === '/v2/utxos') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const size = Number(url.searchParams.get('size') ?? '10');
      const mine = this.utxos.filter((u) => body.includes(u.owner));
      return json(mine.slice((page - 1) * size, page * size).map((u) => this.wireUtxo(u)));
    }
    return new Response('{"message":"unexpected request"}', { status: 500 });
  };

  private wireUtxo(u: WireUtxo): Record<string, unknown> {
    return {
      txid: u.txid,
      vout: u.vout,
      outpoint: `${u.txid}_${u.vout}`,
      satoshis: 1,
      script: Buffer.from(u.script).toString('base64'),
      owners: [u.owner],
      height: 0,
      idx: 0,
      score: 0,
      data: {
        bsv21: {
          amt: u.amount,
          dec: 5,
          icon: '',
          id: this.config.tokenId,
          op: 'transfer',
          sym: 'TEST',
          p: 'bsv-20',
        },
        cosign: { address: u.owner, cosigner: this.config.approver },
      },
    };
  }
}

export function wireRecord(r: HistorySyncRecord): Record<string, unknown> {
  return {
    txid: r.txid,
    rawtx: Buffer.from(r.rawtx).toString('base64'),
    senders: r.senders,
    receivers: r.receivers,
    height: r.height,
    idx: 0,
    blkHash: r.height > 0 ? '00'.repeat(32) : '',
    blkTime: r.height > 0 ? 1_700_000_000 : 0,
    outs: [],
    score: Number(r.score),
  };
}

/**
 * Runs `fn` with a client whose network is `api`: globalThis.fetch is swapped meanwhile, and
 * the client's console.error/warn chatter (e.g. on inscription JSON it cannot parse) muted.
 */
export async function withClient<T>(api: FakeMneeApi, fn: (client: Mnee) => Promise<T>): Promise<T> {
  const original = { fetch: globalThis.fetch, error: console.error, warn: console.warn };
  globalThis.fetch = api.fetch;
  console.error = () => {};
  console.warn = () => {};
  try {
    const client = new Mnee({ environment: 'sandbox', apiKey: 'test-key' });
    return await fn(client);
  } finally {
    globalThis.fetch = original.fetch;
    console.error = original.error;
    console.warn = original.warn;
  }
}

/**
 * Runs `fn` with one client per api, all at once: each client's API key names its api, and
 * the swapped fetch routes by it.
 */
export async function withClients<T>(
  apis: readonly FakeMneeApi[],
  fn: (clients: Mnee[]) => Promise<T>,
): Promise<T> {
  const router = new FakeMneeApi(apis[0]!.config);
  router.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const api = apis[Number(url.searchParams.get('auth_token')?.replace('api-', ''))];
    return api === undefined ? new Response('{}', { status: 401 }) : api.fetch(input, init);
  };
  return withClient(router, async () =>
    fn(apis.map((_a, i) => new Mnee({ environment: 'sandbox', apiKey: `api-${i}` }))),
  );
}

/**
 * A value as the client's JSON would carry it: bigint to number (exact within 2^53, rounded
 * beyond), undefined keys dropped, NaN and Infinity to null.
 */
export function asClientJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
