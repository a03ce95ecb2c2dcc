// bench:devnet — the devnet's CPU per transfer against the CPU of the verifications it runs
// itself, over its ARC API as the service uses it: `tokenproxy devnet` in a process of its own
// (journal on disk in a fresh data folder, mining a block a second while its mempool holds
// anything), transfers posted as hex lines to POST /v1/txs in batches (the service's
// broadcastMany) and one by one to POST /v1/tx, each with X-CallbackUrl, X-FullStatusUpdates and
// X-CallbackBatch as the service sends them; a phase ends when every transfer's MINED callback
// has come back. The transfers have the service's shape: a token input (the cosign script behind
// a BSV-21 envelope: 2 verifies) and a P2PKH funding input (1 verify), two token outputs and a
// funding change. Everything is built and signed in this process before the phase, which only
// posts bytes and reads answers; the devnet's CPU is its process's user + system time from
// /proc (not wall time), its verifies its own counter (GET /v1/devnet/counts), and a verify's
// CPU is sampled in this process with the same libsecp256k1 call every 250 ms of the phase (the
// median), so the ratio means the same on a loaded machine. Prints, per phase, one line a script can read:
//   devnet x<ratio> of its verifies
//   BENCH_DEVNET_TRANSFERS  transfers per measured phase (default 3000; a warm-up of a third before)
//   BENCH_DEVNET_BATCH      transfers per POST /v1/txs (default 12)
//   BENCH_DEVNET_CONCURRENCY  requests in flight (default 4)
//   BENCH_DEVNET_MEMORY=1   the devnet without a data folder (journal in memory)
//   BENCH_DEVNET_PROFILE=<dir>  the devnet's CPU profile (node --cpu-prof) written there at exit
//   BENCH_DEVNET_ROOT=<dir> run the devnet of another checkout (a before/after comparison)
//   BENCH_DEVNET_PHASES     batch,single (default both), or one of them
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockingScript, Transaction, UnlockingScript } from '@bsv/sdk';
import { hash160, sha256 } from '../src/crypto/hash.js';
import { publicKeyOf, signDigest, verifyDigest } from '../src/crypto/secp256k1.js';
import { sighashDigest } from '../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../src/crypto/signature-encoding.js';
import { buildP2pkhScript, buildTokenScript } from '../src/domain/token-script.js';
import { startChild, stopAllChildren } from './load/processes.js';

const N = Number(process.env.BENCH_DEVNET_TRANSFERS ?? 3000);
const WARMUP = Math.ceil(N / 3);
const BATCH = Number(process.env.BENCH_DEVNET_BATCH ?? 12);
const CONCURRENCY = Number(process.env.BENCH_DEVNET_CONCURRENCY ?? 4);
const MEMORY = process.env.BENCH_DEVNET_MEMORY === '1';
const PROFILE = process.env.BENCH_DEVNET_PROFILE;
const ROOT = process.env.BENCH_DEVNET_ROOT;
const PHASES = (process.env.BENCH_DEVNET_PHASES ?? 'batch,single').split(',');
const FANOUT = 400; // transfers funded per fan-out transaction
const FUNDING_SATS = 2_000n;
const TOKEN_ID = `${'ab'.repeat(32)}_0`;

interface Key {
  readonly priv: Uint8Array;
  readonly pub: Uint8Array;
  readonly pkh: Uint8Array;
}

const keyOf = (n: number): Key => {
  const priv = new Uint8Array(32);
  new DataView(priv.buffer).setUint32(28, n);
  const pub = publicKeyOf(priv);
  return { priv, pub, pkh: hash160(pub) };
};
const FUNDER = keyOf(7);
const APPROVER = keyOf(11);
const OWNERS = Array.from({ length: 16 }, (_, i) => keyOf(1000 + i));
const p2pkh = (key: Key) => LockingScript.fromBinary([...buildP2pkhScript(key.pkh)]);
const token = (owner: Key, amt: bigint) =>
  LockingScript.fromBinary([
    ...buildTokenScript({
      inscription: { op: 'transfer', id: TOKEN_ID, amt },
      ownerPkh: owner.pkh,
      approver: APPROVER.pub,
    }),
  ]);

const push = (data: Uint8Array): number[] => {
  if (data.length > 75) throw new RangeError('push too long');
  return [data.length, ...data];
};
const sigOf = (digest: Uint8Array, key: Key) =>
  Uint8Array.from([...signDigest(digest, key.priv), SIGHASH_ALL_FORKID]);

interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly script: LockingScript;
  readonly satoshis: bigint;
}

/** Signs every input (P2PKH by FUNDER, or a token input by its owner and the approver). */
function signAll(tx: Transaction, coins: readonly Coin[], owners: readonly (Key | null)[]): string {
  const cache = {};
  const unlocks = coins.map((coin, i) => {
    const digest = sighashDigest(tx, i, coin.script, coin.satoshis, SIGHASH_ALL_FORKID, cache);
    const owner = owners[i];
    return owner === null || owner === undefined
      ? UnlockingScript.fromBinary([...push(sigOf(digest, FUNDER)), ...push(FUNDER.pub)])
      : UnlockingScript.fromBinary([
          ...push(sigOf(digest, APPROVER)),
          ...push(sigOf(digest, owner)),
          ...push(owner.pub),
        ]);
  });
  unlocks.forEach((u, i) => {
    tx.inputs[i]!.unlockingScript = u;
  });
  return tx.toHex();
}

function newTx(coins: readonly Coin[]): Transaction {
  const tx = new Transaction(1, [], [], 0);
  for (const c of coins) {
    tx.addInput({
      sourceTXID: c.txid,
      sourceOutputIndex: c.vout,
      unlockingScript: new UnlockingScript(),
      sequence: 0xffffffff,
    });
  }
  return tx;
}

/**
 * Fan-outs from the genesis coin (each a token and a funding output per transfer, and the change
 * for the next fan-out), then the transfers spending them. All hex, txids known.
 */
function build(
  coinbase: string,
  genesisSats: bigint,
  count: number,
): { fanouts: string[]; transfers: string[] } {
  let change: Coin = { txid: coinbase, vout: 0, script: p2pkh(FUNDER), satoshis: genesisSats };
  const fanouts: string[] = [];
  const transfers: string[] = [];
  for (let start = 0; start < count; start += FANOUT) {
    const n = Math.min(FANOUT, count - start);
    const tx = newTx([change]);
    const funded: Array<{ token: Coin; funding: Coin; owner: Key }> = [];
    for (let i = 0; i < n; i++) {
      const owner = OWNERS[(start + i) % OWNERS.length]!;
      tx.addOutput({ satoshis: 1, lockingScript: token(owner, 1000n) });
      tx.addOutput({ satoshis: Number(FUNDING_SATS), lockingScript: p2pkh(FUNDER) });
    }
    const spent = BigInt(n) * (FUNDING_SATS + 1n) + 1_000n;
    tx.addOutput({ satoshis: Number(change.satoshis - spent), lockingScript: p2pkh(FUNDER) });
    fanouts.push(signAll(tx, [change], [null]));
    const txid = tx.id('hex');
    for (let i = 0; i < n; i++) {
      const owner = OWNERS[(start + i) % OWNERS.length]!;
      funded.push({
        owner,
        token: { txid, vout: 2 * i, script: tx.outputs[2 * i]!.lockingScript, satoshis: 1n },
        funding: { txid, vout: 2 * i + 1, script: p2pkh(FUNDER), satoshis: FUNDING_SATS },
      });
    }
    change = { txid, vout: 2 * n, script: p2pkh(FUNDER), satoshis: change.satoshis - spent };
    for (const [i, f] of funded.entries()) {
      const to = OWNERS[(start + i + 1) % OWNERS.length]!;
      const t = newTx([f.token, f.funding]);
      t.addOutput({ satoshis: 1, lockingScript: token(to, 400n) });
      t.addOutput({ satoshis: 1, lockingScript: token(f.owner, 600n) });
      t.addOutput({ satoshis: Number(FUNDING_SATS - 1n - 10n), lockingScript: p2pkh(FUNDER) });
      transfers.push(signAll(t, [f.token, f.funding], [f.owner, null]));
    }
  }
  return { fanouts, transfers };
}

/** MINED callbacks by txid, from the devnet's batched callbacks. */
class Callbacks {
  readonly mined = new Set<string>();
  private waiters: Array<() => void> = [];
  server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          callbacks?: Array<{ txid: string; txStatus: string }>;
          txid?: string;
          txStatus?: string;
        };
        for (const cb of body.callbacks ?? [body as { txid: string; txStatus: string }]) {
          if (cb.txStatus === 'MINED') this.mined.add(cb.txid);
        }
        res.writeHead(200).end();
        for (const w of this.waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  async allMined(txids: readonly string[], timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!txids.every((t) => this.mined.has(t))) {
      if (Date.now() > deadline) throw new Error('transfers not all MINED in time');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  }
}

const txidOfHex = (hex: string) => Transaction.fromHex(hex).id('hex');

async function post(url: string, path: string, body: string, callbackUrl: string): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'text/plain',
      'x-callbackurl': callbackUrl,
      'x-fullstatusupdates': 'true',
      'x-callbackbatch': 'true',
    },
  });
  const json = (await res.json()) as unknown;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`);
  const items = (Array.isArray(json) ? json : [json]) as Array<{ txStatus?: string; status?: number }>;
  for (const item of items) {
    if (item.status !== 200 && item.status !== undefined)
      throw new Error(`${path} refused: ${JSON.stringify(item)}`);
  }
  return json;
}

/** Posts `hexes` in requests of `batch` (1: POST /v1/tx), `CONCURRENCY` at a time. */
async function send(
  url: string,
  hexes: readonly string[],
  batch: number,
  callbackUrl: string,
): Promise<void> {
  const requests: string[][] = [];
  for (let i = 0; i < hexes.length; i += batch) requests.push(hexes.slice(i, i + batch) as string[]);
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const items = requests[next++]!;
      if (batch === 1) await post(url, '/v1/tx', items[0]!, callbackUrl);
      else await post(url, '/v1/txs', items.join('\n'), callbackUrl);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function cpuSeconds(pid: number): { user: number; kernel: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, kernel: Number(fields[12]) / 100 };
}

async function counts(url: string): Promise<{ verifies: number }> {
  const res = await fetch(`${url}/v1/devnet/counts`);
  return (await res.json()) as { verifies: number };
}

interface Phase {
  readonly transfers: number;
  readonly cpuMs: number;
  readonly kernelMs: number;
  readonly verifies: number;
  /** CPU of one verification, sampled during the phase. */
  readonly verifyMs: number;
}

/**
 * CPU seconds of one verification (the devnet's libsecp256k1 call), sampled in this process
 * every 250 ms while `during` runs: the median, so that the machine's state over the phase (a
 * loaded machine makes every instruction dearer) weighs on both sides of the ratio alike.
 */
async function verifyCpuDuring<T>(during: Promise<T>): Promise<{ result: T; verify: number }> {
  const key = new Uint8Array(32).fill(3);
  const pub = publicKeyOf(key);
  const digests = Array.from({ length: 100 }, (_, i) => sha256(Uint8Array.of(i)));
  const sigs = digests.map((d) => signDigest(d, key));
  const samples: number[] = [];
  const sample = () => {
    const t = process.cpuUsage();
    for (const [i, d] of digests.entries()) if (!verifyDigest(sigs[i]!, d, pub)) throw new Error('verify');
    const used = process.cpuUsage(t);
    samples.push((used.user + used.system) / 1e6 / digests.length);
  };
  sample();
  const timer = setInterval(sample, 250);
  try {
    const result = await during;
    sample();
    samples.sort((a, b) => a - b);
    return { result, verify: samples[Math.floor(samples.length / 2)]! };
  } finally {
    clearInterval(timer);
  }
}

async function phase(
  pid: number,
  url: string,
  callbacks: Callbacks,
  hexes: readonly string[],
  batch: number,
): Promise<Phase> {
  const txids = hexes.map(txidOfHex);
  const c0 = await counts(url);
  const t0 = cpuSeconds(pid);
  const { verify } = await verifyCpuDuring(
    (async () => {
      await send(url, hexes, batch, callbacks.url);
      await callbacks.allMined(txids);
    })(),
  );
  const t1 = cpuSeconds(pid);
  const c1 = await counts(url);
  return {
    transfers: hexes.length,
    cpuMs: (t1.user + t1.kernel - t0.user - t0.kernel) * 1000,
    kernelMs: (t1.kernel - t0.kernel) * 1000,
    verifies: c1.verifies - c0.verifies,
    verifyMs: verify * 1000,
  };
}

async function main(): Promise<void> {
  const dataDir = MEMORY ? undefined : await mkdtemp(join(tmpdir(), 'bench-devnet-'));
  const callbacks = new Callbacks();
  await callbacks.start();
  const genesisSats = 1_000_000_000n;
  try {
    const devnet = await startChild(
      'devnet',
      join(ROOT ?? '.', 'src/cli/entry.ts'),
      [
        'devnet',
        '--port',
        '0',
        '--block-interval',
        '1000',
        ...(dataDir === undefined ? [] : ['--data-dir', dataDir]),
        '--genesis',
        `${Buffer.from(buildP2pkhScript(FUNDER.pkh)).toString('hex')}:${genesisSats}`,
      ],
      /ARC API on http:\/\/\S+ .*genesis coinbase [0-9a-f]{64}/,
      undefined,
      PROFILE === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILE],
    );
    const url = /(http:\/\/\S+)/.exec(devnet.announced)![1]!;
    const coinbase = /genesis coinbase ([0-9a-f]{64})/.exec(devnet.announced)![1]!;
    const total = WARMUP + 2 * N;
    const { fanouts, transfers } = build(coinbase, genesisSats, total);
    const bytes = transfers.reduce((s, h) => s + h.length / 2, 0) / transfers.length;
    process.stdout.write(
      `bench:devnet — ${N} transfers a phase (${bytes.toFixed(0)} bytes, 2 inputs, 3 signatures), ` +
        `${MEMORY ? 'journal in memory' : 'journal on disk'}, ${CONCURRENCY} requests in flight, a block a second\n`,
    );
    // In one request, in order: each spends the one before.
    await post(url, '/v1/txs', fanouts.join('\n'), callbacks.url);
    await callbacks.allMined(fanouts.map(txidOfHex));
    await phase(devnet.pid, url, callbacks, transfers.slice(0, WARMUP), BATCH);
    const phases: Array<[string, Phase]> = [];
    if (PHASES.includes('batch')) {
      const p = await phase(devnet.pid, url, callbacks, transfers.slice(WARMUP, WARMUP + N), BATCH);
      phases.push([`POST /v1/txs, ${BATCH} a request`, p]);
    }
    if (PHASES.includes('single')) {
      const p = await phase(devnet.pid, url, callbacks, transfers.slice(WARMUP + N), 1);
      phases.push(['POST /v1/tx, one a request', p]);
    }
    for (const [label, p] of phases) {
      const perTransfer = p.cpuMs / p.transfers;
      const verifyMs = (p.verifies / p.transfers) * p.verifyMs;
      process.stdout.write(
        `${label}: ${perTransfer.toFixed(3)} ms CPU a transfer (kernel ${(p.kernelMs / p.transfers).toFixed(3)}), ` +
          `${(p.verifies / p.transfers).toFixed(2)} verifies a transfer at ${(p.verifyMs * 1000).toFixed(0)} us = ` +
          `${verifyMs.toFixed(3)} ms; devnet x${(perTransfer / verifyMs).toFixed(2)} of its verifies\n`,
      );
    }
    await devnet.stop();
  } finally {
    await stopAllChildren();
    callbacks.server.close();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
