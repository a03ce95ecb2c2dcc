// bench:ledger — 2-input transfers (P2PKH) accepted per second by the embedded devnet, in memory
// and on disk (journal with fsync, group commit under concurrent broadcasts), against the
// crypto-only ceiling measured in the same run: the 2 signature verifications each transfer
// needs, timed with libsecp256k1's ecdsaVerify alone (secp256k1/bindings). The transfers are
// built and signed beforehand, untimed.
//   BENCH_LEDGER_TRANSFERS (default 2000), BENCH_LEDGER_CONCURRENCY (default 64)
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { P2PKH, PrivateKey, Transaction, UnlockingScript } from '@bsv/sdk';
import type * as Secp256k1 from 'secp256k1';
import { signDigest } from '../src/crypto/secp256k1.js';
import { sighashDigest } from '../src/crypto/sighash.js';
import { SIGHASH_ALL_FORKID } from '../src/crypto/signature-encoding.js';
import { createDevnet, type Devnet, type GenesisOutput } from '../src/ledger/devnet/devnet.js';

const secp = createRequire(import.meta.url)('secp256k1/bindings') as typeof Secp256k1;

const N = Number(process.env.BENCH_LEDGER_TRANSFERS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_LEDGER_CONCURRENCY ?? 64);
const COIN = 2000n;
const KEYS = Array.from({ length: 16 }, (_, i) => {
  const key = new PrivateKey(10_000 + i);
  return {
    lock: new P2PKH().lock(key.toAddress()),
    privateKey: Uint8Array.from(key.toArray('be', 32)),
    publicKey: Uint8Array.from(key.toPublicKey().encode(true) as number[]),
  };
});

interface Signature {
  readonly compact: Uint8Array;
  readonly digest: Uint8Array;
  readonly publicKey: Uint8Array;
}

const push = (data: Uint8Array): number[] => [data.length, ...data];

/** Genesis outputs (2 per transfer) and the transfers spending them, signed with libsecp256k1. */
async function prepare(): Promise<{
  genesis: GenesisOutput[];
  transfers: Uint8Array[];
  signatures: Signature[];
}> {
  const owners = Array.from({ length: 2 * N }, (_, i) => KEYS[i % KEYS.length]!);
  const genesis = owners.map((key) => ({
    lockingScript: key.lock.toUint8Array(),
    satoshis: COIN,
  }));
  // The genesis coinbase depends only on its outputs (height 0, serial 0): any devnet opened
  // with them has the same txid, so the transfers are built once for every run.
  const coinbase = await genesisTxid(genesis);
  const transfers: Uint8Array[] = [];
  const signatures: Signature[] = [];
  for (let i = 0; i < N; i++) {
    const tx = new Transaction(1, [], [], 0);
    for (const vout of [2 * i, 2 * i + 1]) {
      tx.addInput({
        sourceTXID: coinbase,
        sourceOutputIndex: vout,
        unlockingScript: new UnlockingScript(),
        sequence: 0xffffffff,
      });
    }
    tx.addOutput({
      satoshis: Number(2n * COIN - 100n),
      lockingScript: KEYS[(i + 1) % KEYS.length]!.lock,
    });
    const cache = {};
    const unlocks = [0, 1].map((j) => {
      const key = owners[2 * i + j]!;
      const digest = sighashDigest(tx, j, key.lock, COIN, SIGHASH_ALL_FORKID, cache);
      const der = signDigest(digest, key.privateKey);
      signatures.push({ compact: secp.signatureImport(der), digest, publicKey: key.publicKey });
      return UnlockingScript.fromBinary([
        ...push(Uint8Array.from([...der, SIGHASH_ALL_FORKID])),
        ...push(key.publicKey),
      ]);
    });
    unlocks.forEach((script, j) => {
      tx.inputs[j]!.unlockingScript = script;
    });
    transfers.push(Uint8Array.from(tx.toBinary()));
  }
  return { genesis, transfers, signatures };
}

async function genesisTxid(genesis: GenesisOutput[]): Promise<string> {
  const devnet = await createDevnet({ genesis, blockIntervalMs: 0 });
  const txid = devnet.blocks()[0]!.txids[0]!;
  await devnet.close();
  return txid;
}

function verifiesPerSecond(signatures: readonly Signature[]): number {
  const t = performance.now();
  let ok = 0;
  for (const s of signatures) if (secp.ecdsaVerify(s.compact, s.digest, s.publicKey)) ok++;
  const seconds = (performance.now() - t) / 1000;
  if (ok !== signatures.length) throw new Error('ceiling: a signature failed to verify');
  return signatures.length / seconds;
}

async function acceptedPerSecond(
  devnet: Devnet,
  transfers: readonly Uint8Array[],
  concurrency: number,
): Promise<number> {
  let next = 0;
  let refused = 0;
  const worker = async () => {
    while (next < transfers.length) {
      const result = await devnet.broadcast(transfers[next++]!);
      if (!result.ok) refused++;
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t) / 1000;
  if (refused > 0) throw new Error(`${refused} transfers refused`);
  return transfers.length / seconds;
}

async function main(): Promise<void> {
  process.stdout.write(`bench:ledger — ${N} transfers of 2 P2PKH inputs, built beforehand\n`);
  const { genesis, transfers, signatures } = await prepare();
  const ceilingVerifies = verifiesPerSecond(signatures);
  const ceiling = ceilingVerifies / 2;

  const memory = await createDevnet({ genesis, blockIntervalMs: 0 });
  const inMemory = await acceptedPerSecond(memory, transfers, 1);
  let t = performance.now();
  const [block] = await memory.mine();
  const mineMs = performance.now() - t;
  await memory.close();

  const dir = mkdtempSync(join(tmpdir(), 'bench-ledger-'));
  try {
    const disk = await createDevnet({ dataDir: dir, genesis, blockIntervalMs: 0 });
    const onDisk = await acceptedPerSecond(disk, transfers, CONCURRENCY);
    await disk.close();
    t = performance.now();
    const reopened = await createDevnet({ dataDir: dir, blockIntervalMs: 0 });
    const replayMs = performance.now() - t;
    await reopened.close();

    const fmt = (n: number) => n.toFixed(0).padStart(7);
    const ratio = (n: number) => `${((n / ceiling) * 100).toFixed(1)}% of the ceiling`;
    process.stdout.write(
      [
        `crypto-only ceiling  ${fmt(ceiling)} transfers/s  (${ceilingVerifies.toFixed(0)} ecdsaVerify/s, 2 per transfer)`,
        `devnet, in memory    ${fmt(inMemory)} transfers/s  ${ratio(inMemory)}  (one at a time)`,
        `devnet, data folder  ${fmt(onDisk)} transfers/s  ${ratio(onDisk)}  (${CONCURRENCY} concurrent, fsync per group)`,
        `mining a block of ${block!.txids.length - 1} transfers: ${mineMs.toFixed(0)} ms; replaying the journal at open: ${replayMs.toFixed(0)} ms`,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
