// A small token world for core tests: operator keys, holders, token outputs the index "holds",
// and a fake network answering the reference client (@mnee/ts-sdk) from that data, so the
// client builds and signs real transfers (broadcast: false) without a server.
import { createHash } from 'node:crypto';
import { type LockingScript, PrivateKey, Transaction, UnlockingScript } from '@bsv/sdk';
import { hash160 } from '../../src/crypto/hash.js';
import { lockingScriptOf } from '../../src/crypto/script-objects.js';
import { publicKeyOf } from '../../src/crypto/secp256k1.js';
import { p2pkhAddress } from '../../src/domain/address.js';
import { DEFAULT_FEE_TIERS } from '../../src/domain/fee-tiers.js';
import { toHex } from '../../src/domain/script-chunks.js';
import { DEFAULT_LIMITS, type TokenConfig } from '../../src/domain/token-config.js';
import { buildP2pkhScript, buildTokenScript, parseTokenScript } from '../../src/domain/token-script.js';
import type { KnownTokenOutput } from '../../src/domain/validate-transfer.js';

export interface Party {
  readonly name: string;
  readonly privateKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly pkh: Uint8Array;
  readonly address: string;
  readonly wif: string;
}

export function party(name: string): Party {
  const privateKey = new Uint8Array(createHash('sha256').update(`tokenproxy test party ${name}`).digest());
  const publicKey = publicKeyOf(privateKey);
  const pkh = hash160(publicKey);
  return {
    name,
    privateKey,
    publicKey,
    pkh,
    address: p2pkhAddress(pkh),
    wif: PrivateKey.fromHex(toHex(privateKey)).toWif(),
  };
}

export class TokenWorld {
  readonly approver = party('approver');
  readonly mint = party('mint');
  readonly fee = party('fee');
  readonly burn = party('burn');
  readonly funding = party('funding');
  readonly config: TokenConfig;
  readonly outputs = new Map<string, KnownTokenOutput>();
  readonly transactions = new Map<string, Transaction>();
  private nonce = 0;

  constructor(overrides: Partial<TokenConfig> = {}) {
    this.config = {
      tokenId: `${'ab'.repeat(32)}_0`,
      approver: this.approver.publicKey,
      decimals: 5,
      symbol: 'TEST',
      icon: '',
      feeAddress: this.fee.address,
      burnAddress: this.burn.address,
      mintAddress: this.mint.address,
      feeTiers: DEFAULT_FEE_TIERS,
      limits: DEFAULT_LIMITS,
      ...overrides,
    };
  }

  /** A transaction creating token outputs of `amounts` for `owner` (its input is not checked here). */
  credit(owner: Party, amounts: readonly bigint[]): KnownTokenOutput[] {
    const tx = new Transaction(1, [], [], 0);
    tx.addInput({
      sourceTXID: createHash('sha256')
        .update(`credit ${this.nonce++}`)
        .digest('hex'),
      sourceOutputIndex: 0,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
    for (const amt of amounts) {
      const script = buildTokenScript({
        inscription: { op: 'transfer', id: this.config.tokenId, amt },
        ownerPkh: owner.pkh,
        approver: this.config.approver,
      });
      tx.addOutput({ satoshis: 1, lockingScript: lockingFrom(script) });
    }
    return this.record(tx);
  }

  /** Records a transaction's token outputs as unspent (its inputs as spent). */
  record(tx: Transaction): KnownTokenOutput[] {
    const txid = tx.id('hex');
    this.transactions.set(txid, tx);
    for (const input of tx.inputs) {
      const key = `${input.sourceTXID}_${input.sourceOutputIndex}`;
      const known = this.outputs.get(key);
      if (known !== undefined) this.outputs.set(key, { ...known, state: 'spent' });
    }
    const created: KnownTokenOutput[] = [];
    for (const [vout, output] of tx.outputs.entries()) {
      const script = output.lockingScript.toUint8Array();
      const parsed = parseOwnerAmount(script, this.config.tokenId);
      if (parsed === null) continue;
      const known: KnownTokenOutput = {
        txid,
        vout,
        owner: parsed.owner,
        amount: parsed.amount,
        op: parsed.op,
        lockingScript: script,
        satoshis: BigInt(output.satoshis ?? 0),
        state: 'unspent',
      };
      this.outputs.set(`${txid}_${vout}`, known);
      created.push(known);
    }
    return created;
  }

  fundingOutput(satoshis: bigint): {
    txid: string;
    vout: number;
    satoshis: bigint;
    lockingScript: Uint8Array;
  } {
    const lockingScript = buildP2pkhScript(this.funding.pkh);
    const txid = createHash('sha256')
      .update(`funding ${this.nonce++}`)
      .digest('hex');
    return { txid, vout: 0, satoshis, lockingScript };
  }

  unspentOf(address: string): KnownTokenOutput[] {
    return [...this.outputs.values()].filter((o) => o.owner === address && o.state === 'unspent');
  }

  /** The wire config (GET /v1/config) the client reads. */
  wireConfig(): Record<string, unknown> {
    return {
      approver: toHex(this.config.approver),
      decimals: this.config.decimals,
      feeAddress: this.config.feeAddress,
      burnAddress: this.config.burnAddress,
      mintAddress: this.config.mintAddress,
      fees: this.config.feeTiers.map((t) => ({ fee: Number(t.fee), min: Number(t.min), max: Number(t.max) })),
      tokenId: this.config.tokenId,
    };
  }

  /** A fetch that answers the reference client from this world's data. */
  fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const json = (body: unknown) =>
      new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    if (url.pathname === '/v1/config') return json(this.wireConfig());
    if (url.pathname.startsWith('/v1/tx/')) {
      const tx = this.transactions.get(url.pathname.slice('/v1/tx/'.length));
      if (tx === undefined) return new Response('{"message":"not found"}', { status: 404 });
      return json({ rawtx: Buffer.from(tx.toUint8Array()).toString('base64') });
    }
    const addresses = JSON.parse(String(init?.body ?? '[]')) as string[];
    if (url.pathname === '/v2/balance') {
      return json(
        addresses.map((address) => {
          const amt = this.unspentOf(address).reduce((s, o) => s + o.amount, 0n);
          return { address, amt: Number(amt), precised: Number(amt) / 1e5 };
        }),
      );
    }
    if (url.pathname === '/v2/utxos') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const size = Number(url.searchParams.get('size') ?? '10');
      const all = addresses.flatMap((a) => this.unspentOf(a));
      return json(all.slice((page - 1) * size, page * size).map((o) => this.wireUtxo(o)));
    }
    return new Response('{"message":"unexpected request"}', { status: 500 });
  };

  wireUtxo(o: KnownTokenOutput): Record<string, unknown> {
    return {
      txid: o.txid,
      vout: o.vout,
      outpoint: `${o.txid}_${o.vout}`,
      satoshis: Number(o.satoshis),
      script: Buffer.from(o.lockingScript).toString('base64'),
      owners: [o.owner],
      height: 0,
      idx: 0,
      score: 0,
      data: {
        bsv21: {
          amt: Number(o.amount),
          dec: 5,
          icon: '',
          id: this.config.tokenId,
          op: o.op,
          sym: 'TEST',
          p: 'bsv-20',
        },
        cosign: { address: o.owner, cosigner: toHex(this.config.approver) },
      },
    };
  }
}

function parseOwnerAmount(script: Uint8Array, tokenId: string) {
  const token = parseTokenScript(script);
  if (token === null) return null;
  const { inscription } = token;
  if (inscription.op !== 'deploy+mint' && inscription.id !== tokenId) return null;
  return { owner: p2pkhAddress(token.ownerPkh), amount: inscription.amt, op: inscription.op };
}

export function lockingFrom(script: Uint8Array): LockingScript {
  return lockingScriptOf(script);
}

/** Runs `fn` with globalThis.fetch answered by `fetchImpl`, restoring it afterwards. */
export async function withFetch<T>(fetchImpl: typeof globalThis.fetch, fn: () => Promise<T>): Promise<T> {
  const original = globalThis.fetch;
  globalThis.fetch = fetchImpl;
  try {
    return await fn();
  } finally {
    globalThis.fetch = original;
  }
}
