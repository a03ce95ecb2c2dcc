// What the devnet answers about its chain without changing it: a block, its transactions, the
// live outputs (a cold coin read back from its transaction on disk), what memory holds, and the
// checks of a reorg request before anything is disconnected (devnet.ts runs the reorg).
import type { ChainState } from './chain-state.js';
import type { DevnetBlock, DevnetFootprint, DevnetUtxo, MinedBlock, ReorgOptions } from './devnet-types.js';
import { scriptTag } from './live-outputs.js';
import { decodeSubmission, type ParsedTx, parseRawTransaction } from './tx-format.js';

export function blockInfoOf(state: ChainState, height: number): MinedBlock {
  const header = state.headers.at(height)!;
  const { txids } = state.history.block(height);
  return { height, hash: header.hash, time: header.time, txids: [...txids] };
}

export function blockOf(state: ChainState, height: number): DevnetBlock | undefined {
  const header = state.headers.at(height);
  if (header === undefined) return undefined;
  return { ...blockInfoOf(state, height), header: Buffer.from(header.header).toString('hex') };
}

export function footprintOf(state: ChainState, replayedAtOpen: number): DevnetFootprint {
  return {
    headers: state.headers.length,
    utxos: state.utxo.size,
    hotCoins: state.utxo.hotSize,
    mempool: state.mempool.size,
    mempoolSpends: state.mempoolSpends.size,
    recentBlocks: state.history.recentBlocks,
    rejected: state.rejected.size,
    doubleSpends: state.doubleSpends.size,
    replayedAtOpen,
  };
}

export function utxosOf(state: ChainState, lockedBy?: Uint8Array): DevnetUtxo[] {
  // A cold coin is read back from its transaction, each parent read once for the listing; with
  // `lockedBy`, only the coins whose script's tag matches are read.
  const parents = new Map<string, ParsedTx>();
  const tag = lockedBy === undefined ? undefined : scriptTag(lockedBy);
  const listed = [...state.utxo.outpoints(tag)].map(([op]): DevnetUtxo => {
    const sep = op.indexOf(':');
    const txid = op.slice(0, sep);
    const vout = Number(op.slice(sep + 1));
    const hot = state.utxo.hot(op);
    if (hot !== undefined) return { txid, vout, satoshis: hot.satoshis, lockingScript: hot.script.slice() };
    let parent = parents.get(txid);
    if (parent === undefined) {
      parent = parseRawTransaction(state.history.rawOf(txid)!);
      parents.set(txid, parent);
    }
    const out = parent.tx.outputs[vout]!;
    return {
      txid,
      vout,
      satoshis: BigInt(out.satoshis ?? 0),
      lockingScript: out.lockingScript.toUint8Array().slice(),
    };
  });
  return lockedBy === undefined
    ? listed
    : listed.filter((u) => Buffer.from(u.lockingScript).equals(Buffer.from(lockedBy)));
}

/**
 * Checks a reorg request against the chain before anything changes (RangeError when it cannot
 * be done): the blocks it would disconnect, and the transactions to include, decoded.
 */
export function checkReorg(
  state: ChainState,
  depth: number,
  opts: ReorgOptions,
): { disconnected: MinedBlock[]; include: ParsedTx[] } {
  const tipHeight = state.tip!.height;
  if (!Number.isSafeInteger(depth) || depth < 1 || depth > tipHeight) {
    throw new RangeError(`depth must be between 1 and ${tipHeight} (the genesis block stays)`);
  }
  const disconnected = Array.from({ length: depth }, (_, i) => blockInfoOf(state, tipHeight - i));
  const inDisconnected = new Set(disconnected.flatMap((b) => b.txids));
  for (const txid of opts.drop ?? []) {
    if (!inDisconnected.has(txid) && !state.mempool.has(txid)) {
      throw new RangeError(`cannot drop ${txid}: not in the mempool nor in the last ${depth} blocks`);
    }
  }
  if (opts.leaveInMempool === true && (opts.include ?? []).length > 0) {
    throw new RangeError(
      'include mines transactions in the new chain; leaveInMempool leaves its blocks empty',
    );
  }
  const include: ParsedTx[] = (opts.include ?? []).map((raw) => {
    const decoded = decodeSubmission(raw);
    if (!decoded.ok) throw new RangeError(decoded.reason);
    return decoded.tx;
  });
  return { disconnected, include };
}
