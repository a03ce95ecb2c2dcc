// `devnet.checkpoint`: the devnet's live state at a position of its journal (the headers, the
// UTXO set, the mempool's transactions, the statuses of transactions that left), so an
// open reads this file and the journal after that position, not the whole journal. Written to a
// temporary file, synced and renamed over the last one, only once the journal and the index are
// durable up to its position. Any doubt about it at open (unreadable, another journal's, an
// index that lost entries) and the devnet replays the whole journal instead, rebuilding the index.

import { readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type { TxStatus } from '../port.js';
import { headerHash } from './block.js';
import { type ChainState, outpoint } from './chain-state.js';
import { hashToHex } from './hashing.js';
import { scriptTag } from './live-outputs.js';
import { parseRawTransaction } from './tx-format.js';

export const CHECKPOINT_FILE = 'devnet.checkpoint';

export interface CheckpointMeta {
  readonly v: 1;
  /** The journal position the state is at: replay goes on from there. */
  readonly offset: number;
  /** The next block serial. */
  readonly serial: number;
  /** Entries the index held: fewer at open means it lost some, so it is rebuilt. */
  readonly indexCount: number;
}

type Line =
  | readonly ['h', string, number, number, number, string]
  // A live outpoint and its script's tag (before ADR 0017: its amount and script, in hex).
  | readonly ['u', string, number]
  | readonly ['u', string, string, string]
  | readonly ['m', string, number, number, string, boolean, string]
  | readonly ['r', string, TxStatus]
  | readonly ['d', string, readonly string[]];

/** The state as checkpoint lines, taken at once (nothing changes it meanwhile). */
export function snapshotLines(state: ChainState, meta: CheckpointMeta): string[] {
  const lines: string[] = [JSON.stringify(meta)];
  const add = (line: Line) => lines.push(JSON.stringify(line));
  for (let height = 0; height < state.headers.length; height++) {
    const h = state.headers.at(height)!;
    add([
      'h',
      Buffer.from(h.header).toString('hex'),
      h.serial,
      h.pos.offset,
      h.pos.length,
      h.fees.toString(),
    ]);
  }
  // The bulk of a checkpoint, written as JSON.stringify(['u', op, tag]) would write it (an
  // outpoint is hex, a colon and digits; a tag a small integer), without an array a line.
  for (const [op, tag] of state.utxo.outpoints()) lines.push(`["u","${op}",${tag}]`);
  for (const e of state.mempool.values()) {
    add([
      'm',
      e.txid,
      e.pos.offset,
      e.pos.length,
      e.fee.toString(),
      e.staleBlock,
      Buffer.from(e.raw).toString('hex'),
    ]);
  }
  for (const [txid, status] of state.rejected) add(['r', txid, status]);
  for (const [txid, winners] of state.doubleSpends) add(['d', txid, winners]);
  return lines;
}

export async function writeCheckpoint(path: string, lines: readonly string[]): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(`${lines.join('\n')}\n`, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

/** The checkpoint's lines, or null when there is none or it cannot be read. */
export function readCheckpoint(path: string): { meta: CheckpointMeta; lines: Line[] } | null {
  try {
    const [first, ...rest] = readFileSync(path, 'utf8').split('\n');
    const meta = JSON.parse(first!) as CheckpointMeta;
    if (meta.v !== 1 || !Number.isSafeInteger(meta.offset) || !Number.isSafeInteger(meta.serial)) return null;
    return { meta, lines: rest.filter((l) => l !== '').map((l) => JSON.parse(l) as Line) };
  } catch {
    return null;
  }
}

/** Loads the checkpoint's state into a new `state` (whose history reads the journal); throws when it does not fit. */
export function restoreCheckpoint(state: ChainState, lines: readonly Line[]): void {
  const headers = state.history.headers;
  for (const line of lines) {
    switch (line[0]) {
      case 'h': {
        const header = new Uint8Array(Buffer.from(line[1], 'hex'));
        headers.push({
          hash: hashToHex(headerHash(header)),
          header,
          serial: line[2],
          pos: { offset: line[3], length: line[4] },
          fees: BigInt(line[5]),
        });
        break;
      }
      case 'u':
        state.utxo.addCold(
          line[1],
          line.length === 3 ? line[2] : scriptTag(new Uint8Array(Buffer.from(line[3], 'hex'))),
        );
        break;
      case 'm': {
        const pos = { offset: line[2], length: line[3] };
        const parsed = parseRawTransaction(new Uint8Array(Buffer.from(line[6], 'hex')));
        if (parsed.txid !== line[1])
          throw new Error(`checkpoint: ${line[1]} is not the transaction it holds`);
        const spends = parsed.tx.inputs.map((i) => outpoint(i.sourceTXID ?? '', i.sourceOutputIndex));
        state.mempool.set(parsed.txid, { ...parsed, fee: BigInt(line[4]), spends, staleBlock: line[5], pos });
        for (const op of spends) state.mempoolSpends.set(op, parsed.txid);
        break;
      }
      case 'r':
        state.remember(line[1], line[2]);
        break;
      case 'd':
        state.doubleSpends.set(line[1], line[2]);
        break;
      default:
        throw new Error(`checkpoint: unknown line ${JSON.stringify(line)}`);
    }
  }
  // The first and last blocks' entries are where the checkpoint says: this is the journal it was taken of.
  if (headers.length === 0) throw new Error('checkpoint: no blocks');
  state.history.block(0);
  state.history.block(headers.length - 1);
}
