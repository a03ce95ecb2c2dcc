// The journal's entries: each one of ChainState's operations, as JSON. A reorg is one `batch`
// entry, so a crash leaves it whole or absent. Blocks carry their hash, checked at replay.
import { type CoinbaseOutput, MINER_SCRIPT } from './block.js';
import type { BlockSpec, ChainState } from './chain-state.js';
import type { LinePos } from './journal.js';
import { parseRawTransaction } from './tx-format.js';

export type DevnetEntry =
  | { readonly e: 'tx'; readonly raw: string }
  | {
      readonly e: 'block';
      readonly time: number;
      readonly serial: number;
      readonly txids: readonly string[];
      readonly hash: string;
      /** Genesis only: the coinbase's outputs. */
      readonly outputs?: ReadonlyArray<{ readonly script: string; readonly satoshis: string }>;
    }
  | { readonly e: 'disconnect' }
  | { readonly e: 'evict'; readonly txids: readonly string[]; readonly reason: string }
  | { readonly e: 'batch'; readonly entries: readonly DevnetEntry[] };

export function encodeBlockEntry(spec: BlockSpec, hash: string): DevnetEntry {
  return {
    e: 'block',
    time: spec.time,
    serial: spec.serial,
    txids: spec.txids,
    hash,
    ...(spec.coinbaseOutputs !== undefined && {
      outputs: spec.coinbaseOutputs.map((o) => ({
        script: Buffer.from(o.lockingScript).toString('hex'),
        satoshis: o.satoshis.toString(),
      })),
    }),
  };
}

/** The genesis block's coinbase needs an output: the miner's, when no genesis outputs are asked for. */
export function coinbaseOutputsOfGenesis(genesis: readonly CoinbaseOutput[]): readonly CoinbaseOutput[] {
  return genesis.length > 0 ? genesis : [{ lockingScript: MINER_SCRIPT, satoshis: 0n }];
}

/**
 * Applies one journal entry, read at `pos`, to the state; answers the highest block serial it
 * holds (-1 if none).
 */
export function replayEntry(state: ChainState, entry: DevnetEntry, pos: LinePos): number {
  const serial = applyEntry(state, entry, pos);
  state.indexConnected();
  return serial;
}

function applyEntry(state: ChainState, entry: DevnetEntry, pos: LinePos): number {
  switch (entry.e) {
    case 'tx':
      state.accept(parseRawTransaction(new Uint8Array(Buffer.from(entry.raw, 'hex'))), pos);
      return -1;
    case 'block': {
      const coinbaseOutputs = entry.outputs?.map((o) => ({
        lockingScript: new Uint8Array(Buffer.from(o.script, 'hex')),
        satoshis: BigInt(o.satoshis),
      }));
      state.connect(
        {
          time: entry.time,
          serial: entry.serial,
          txids: entry.txids,
          ...(coinbaseOutputs && { coinbaseOutputs }),
        },
        pos,
      );
      const hash = state.tip!.hash;
      if (hash !== entry.hash)
        throw new Error(`devnet journal: block ${entry.serial} replays as ${hash}, not ${entry.hash}`);
      return entry.serial;
    }
    case 'disconnect':
      state.disconnect();
      return -1;
    case 'evict':
      state.evict(entry.txids, entry.reason);
      return -1;
    case 'batch':
      return Math.max(-1, ...entry.entries.map((sub) => applyEntry(state, sub, pos)));
    default:
      throw new Error(`devnet journal: unknown entry ${JSON.stringify(entry)}`);
  }
}

/** The outputs the genesis coinbase was created with (the miner's placeholder left out). */
export function genesisOutputsOf(state: ChainState): CoinbaseOutput[] {
  if (state.headers.length === 0) return [];
  const coinbase = parseRawTransaction(state.history.coinbaseRaw(0));
  const outputs = coinbase.tx.outputs.map((out) => ({
    lockingScript: out.lockingScript.toUint8Array(),
    satoshis: BigInt(out.satoshis ?? 0),
  }));
  const placeholder =
    outputs.length === 1 &&
    outputs[0]!.satoshis === 0n &&
    Buffer.from(outputs[0]!.lockingScript).equals(Buffer.from(MINER_SCRIPT));
  return placeholder ? [] : outputs;
}
