// The devnet's append-only journal: one JSON object per line, and the store of everything the
// devnet no longer holds in memory (old raw transactions, old blocks' txids), read back a line
// at a time by position. Entries are applied to the state in memory first and reach the disk in
// groups (group commit: one synchronous write, O_DSYNC, for every entry appended meanwhile);
// `sync()` resolves once everything appended before the call is on disk, and the devnet answers
// nothing before that. At open the file is read from a position on (the checkpoint's, or the
// start), a line at a time; a torn last line (a crash in the middle of a write, so never
// acknowledged) is cut off.
import { constants, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** Where one journal line is: bytes in a file, or the entry's number in a journal in memory. */
export interface LinePos {
  offset: number;
  length: number;
}

export interface Journal {
  /** Queues the entry and answers the line it will be. */
  append(entry: object): LinePos;
  sync(): Promise<void>;
  close(): Promise<void>;
  /** The entry at `pos` (written or still queued). */
  readLine(pos: LinePos): unknown;
  /** The position after everything appended so far. */
  readonly end: number;
}

export class JournalCorruptError extends Error {
  constructor(path: string, offset: number) {
    super(`devnet journal ${path} is corrupt at byte ${offset}`);
    this.name = 'JournalCorruptError';
  }
}

/** A devnet without a data folder keeps its entries in memory (its history with them). */
export function memoryJournal(): Journal {
  const entries: object[] = [];
  return {
    append(entry) {
      entries.push(entry);
      return { offset: entries.length - 1, length: 0 };
    },
    sync: async () => {},
    close: async () => {},
    readLine: (pos) => entries[pos.offset],
    get end() {
      return entries.length;
    },
  };
}

const CHUNK = 1 << 20;

/** Opens the journal at `path` (created if missing); `replay` reads it back before anything is appended. */
export async function openJournal(path: string): Promise<FileJournal> {
  // 'a+' with O_DSYNC: a write returns once its data is on disk, as a write and an fdatasync
  // would, in one call to the thread pool instead of two.
  const { O_RDWR, O_APPEND, O_CREAT, O_DSYNC } = constants;
  const handle = await open(path, O_RDWR | O_APPEND | O_CREAT | O_DSYNC);
  try {
    const { size } = await handle.stat();
    return new FileJournal(path, handle, size);
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export class FileJournal implements Journal {
  private pending: string[] = [];
  private pendingBytes = 0;
  /** Queued lines not written yet, by offset (what `readLine` may be asked for before a sync). */
  private queued = new Map<number, string>();
  private appended = 0;
  private durable = 0;
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
    private size: number,
  ) {}

  /**
   * Hands every entry from byte `from` on to `onEntry` with its position, and cuts a torn last
   * line off. `from` must be the start of a line (a checkpoint's position, or 0).
   */
  async replay(from: number, onEntry: (entry: unknown, pos: LinePos) => void): Promise<void> {
    const good = replayLines(this.handle.fd, this.path, from, this.size, onEntry);
    if (good < this.size) await this.handle.truncate(good);
    this.size = good;
  }

  /** True when `offset` is the start of a line of the file (a checkpoint taken of this journal). */
  startsLine(offset: number): boolean {
    if (offset === 0) return true;
    if (offset > this.size) return false;
    const byte = Buffer.alloc(1);
    return readSync(this.handle.fd, byte, 0, 1, offset - 1) === 1 && byte[0] === 10;
  }

  get end(): number {
    return this.size;
  }

  append(entry: object): LinePos {
    if (this.closed) throw new Error('devnet journal is closed');
    if (this.failure !== null) throw this.failure;
    const line = `${JSON.stringify(entry)}\n`;
    const pos = { offset: this.size, length: Buffer.byteLength(line, 'utf8') };
    this.pending.push(line);
    this.pendingBytes += pos.length;
    this.queued.set(pos.offset, line);
    this.size += pos.length;
    this.appended++;
    return pos;
  }

  readLine(pos: LinePos): unknown {
    const queued = this.queued.get(pos.offset);
    if (queued !== undefined) return JSON.parse(queued);
    const bytes = Buffer.alloc(pos.length);
    const read = readSync(this.handle.fd, bytes, 0, pos.length, pos.offset);
    if (read !== pos.length) throw new Error(`devnet journal: short read at byte ${pos.offset}`);
    return JSON.parse(bytes.toString('utf8'));
  }

  async sync(): Promise<void> {
    const target = this.appended;
    while (this.durable < target) {
      if (this.failure !== null) throw this.failure;
      if (this.flushing === null) {
        this.flushing = this.flush().finally(() => {
          this.flushing = null;
        });
      }
      await this.flushing;
    }
    if (this.failure !== null) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.sync().catch(() => {});
    this.closed = true;
    await this.handle.close();
  }

  private async flush(): Promise<void> {
    const lines = this.pending;
    const upTo = this.appended;
    const first = this.size - this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      const data = Buffer.from(lines.join(''), 'utf8');
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await this.handle.write(data, written, data.length - written);
        written += bytesWritten;
      }
      // On disk already: the file is open with O_DSYNC.
      this.durable = upTo;
      // Written: readable from the file from now on.
      for (let at = first, i = 0; i < lines.length; i++) {
        this.queued.delete(at);
        at += Buffer.byteLength(lines[i]!, 'utf8');
      }
    } catch (err) {
      this.failure = new Error('devnet journal write failed; the devnet must be restarted', { cause: err });
    }
  }
}

/** Reads the lines of [from, size); answers where the last whole, readable line ends. */
function replayLines(
  fd: number,
  path: string,
  from: number,
  size: number,
  onEntry: (entry: unknown, pos: LinePos) => void,
): number {
  let offset = from; // start of the line being read
  let carry = Buffer.alloc(0);
  let unreadable: number | null = null;
  for (let at = from; at < size; ) {
    const chunk = Buffer.alloc(Math.min(CHUNK, size - at));
    const read = readSync(fd, chunk, 0, chunk.length, at);
    if (read === 0) break;
    at += read;
    let data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
    for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10)) {
      // A whole line is written before its newline, so only the last one may be damaged by a crash.
      if (unreadable !== null) throw new JournalCorruptError(path, unreadable);
      const length = nl + 1;
      let entry: unknown;
      try {
        entry = JSON.parse(data.toString('utf8', 0, nl));
      } catch {
        unreadable = offset;
      }
      if (unreadable === null) {
        onEntry(entry, { offset, length });
        offset += length;
      }
      data = data.subarray(length);
    }
    carry = Buffer.from(data);
  }
  return offset;
}
