// Where a devnet keeps itself: its data folder (the journal, the index, the checkpoint and the
// lock), or, without one, memory. Opening a folder restores the checkpoint's live state and
// replays the journal after it; or, without a checkpoint that fits (none yet, another
// journal's, an index that lost entries), the whole journal into a new index. Either way only
// the live state stays in memory. While open, a checkpoint is written once the journal has
// grown by `checkpointBytes` since the last one, and at close.
import { join } from 'node:path';
import { ChainHistory } from './chain-history.js';
import { ChainState } from './chain-state.js';
import {
  CHECKPOINT_FILE,
  readCheckpoint,
  restoreCheckpoint,
  snapshotLines,
  writeCheckpoint,
} from './checkpoint.js';
import { type DevnetEntry, replayEntry } from './devnet-entries.js';
import { lockFolder } from './folder-lock.js';
import { type FileJournal, type Journal, memoryJournal, openJournal } from './journal.js';
import { memoryTxIndex, openTxIndex, type TxIndex } from './tx-index.js';

export const DEFAULT_CHECKPOINT_BYTES = 4 * 1024 * 1024;

export interface DevnetStore {
  readonly journal: Journal;
  readonly state: ChainState;
  /** The next block serial. */
  readonly serial: number;
  /** Journal entries the open replayed. */
  readonly replayed: number;
  /** After each commit: a checkpoint, in the background, when the journal has grown enough. */
  committed(serial: number): void;
  /** A last checkpoint (none after a failed open), then everything closed and the folder unlocked. */
  close(serial: number | null): Promise<void>;
}

export function memoryStore(): DevnetStore {
  const journal = memoryJournal();
  const state = new ChainState(new ChainHistory(journal, memoryTxIndex()));
  return { journal, state, serial: 0, replayed: 0, committed() {}, close: () => journal.close() };
}

export async function openFolder(
  dataDir: string,
  checkpointBytes: number,
  onError: (err: unknown) => void,
): Promise<DevnetStore> {
  const lock = lockFolder(dataDir);
  try {
    const opened = await restore(dataDir);
    return new FolderStore(opened, join(dataDir, CHECKPOINT_FILE), checkpointBytes, onError, () =>
      lock.release(),
    );
  } catch (err) {
    lock.release();
    throw err;
  }
}

interface Restored {
  readonly journal: FileJournal;
  readonly index: TxIndex;
  readonly state: ChainState;
  readonly serial: number;
  /** The journal position the replay started from. */
  readonly from: number;
  readonly replayed: number;
}

async function restore(dataDir: string): Promise<Restored> {
  const journal = await openJournal(join(dataDir, 'devnet.journal'));
  const indexPath = join(dataDir, 'devnet.index');
  const checkpoint = readCheckpoint(join(dataDir, CHECKPOINT_FILE));
  let index = openTxIndex(indexPath, checkpoint === null);
  try {
    let state = new ChainState(new ChainHistory(journal, index));
    let from = 0;
    let serial = 0;
    if (checkpoint !== null) {
      try {
        const { meta } = checkpoint;
        if (index.count < meta.indexCount || !journal.startsLine(meta.offset)) throw new Error('stale');
        restoreCheckpoint(state, checkpoint.lines);
        from = meta.offset;
        serial = meta.serial;
      } catch {
        index.close();
        index = openTxIndex(indexPath, true);
        state = new ChainState(new ChainHistory(journal, index));
      }
    }
    let replayed = 0;
    await journal.replay(from, (entry, pos) => {
      serial = Math.max(serial, replayEntry(state, entry as DevnetEntry, pos) + 1);
      replayed++;
    });
    return { journal, index, state, serial, from, replayed };
  } catch (err) {
    index.close();
    await journal.close();
    throw err;
  }
}

class FolderStore implements DevnetStore {
  readonly journal: FileJournal;
  readonly state: ChainState;
  readonly serial: number;
  readonly replayed: number;
  private readonly index: TxIndex;
  /** The journal position of the last checkpoint (or where the open started replaying). */
  private at: number;
  private writing: Promise<void> | null = null;

  constructor(
    opened: Restored,
    private readonly path: string,
    private readonly everyBytes: number,
    private readonly onError: (err: unknown) => void,
    private readonly unlock: () => void,
  ) {
    ({ journal: this.journal, state: this.state, serial: this.serial, replayed: this.replayed } = opened);
    this.index = opened.index;
    this.at = opened.from;
  }

  committed(serial: number): void {
    if (this.writing !== null || this.journal.end - this.at < this.everyBytes) return;
    this.writing = this.checkpoint(serial)
      .catch(this.onError)
      .finally(() => {
        this.writing = null;
      });
  }

  async close(serial: number | null): Promise<void> {
    await this.writing;
    // At the journal's end: the next open replays nothing.
    if (serial !== null && this.at < this.journal.end) await this.checkpoint(serial).catch(() => {});
    await this.journal.close();
    this.index.close();
    this.unlock();
  }

  /** The state as it is now, written once the journal and the index hold everything it reflects. */
  private async checkpoint(serial: number): Promise<void> {
    const offset = this.journal.end;
    const lines = snapshotLines(this.state, { v: 1, offset, serial, indexCount: this.index.count });
    await this.journal.sync();
    this.index.sync();
    await writeCheckpoint(this.path, lines);
    this.at = offset;
  }
}
