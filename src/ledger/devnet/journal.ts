// The devnet's append-only journal: one JSON object per line. Entries are applied to the
// state in memory first and reach the disk in groups (group commit: one write and one fdatasync
// for every entry appended meanwhile); `sync()` resolves once everything appended before the
// call is on disk, and the devnet answers nothing before that. At open the file is read back;
// a torn last line (a crash in the middle of a write, so never acknowledged) is cut off.
import { type FileHandle, open, readFile, truncate } from 'node:fs/promises';

export interface Journal {
  append(entry: object): void;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export class JournalCorruptError extends Error {
  constructor(path: string, line: number) {
    super(`devnet journal ${path} is corrupt at line ${line}`);
    this.name = 'JournalCorruptError';
  }
}

export function memoryJournal(): Journal {
  return { append() {}, sync: async () => {}, close: async () => {} };
}

/** Reads the entries of the journal at `path` (none if missing) and opens it for appending. */
export async function openJournal(path: string): Promise<{ journal: Journal; entries: unknown[] }> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const entries: unknown[] = [];
  const lines = text.split('\n');
  lines.pop(); // what follows the last newline: nothing, or a write torn by a crash
  let goodBytes = 0;
  for (const [i, line] of lines.entries()) {
    try {
      entries.push(JSON.parse(line));
    } catch {
      // A whole line is written before its newline, so only the last one may be damaged by a crash.
      if (i === lines.length - 1) break;
      throw new JournalCorruptError(path, i + 1);
    }
    goodBytes += Buffer.byteLength(line, 'utf8') + 1;
  }
  if (goodBytes < Buffer.byteLength(text, 'utf8')) await truncate(path, goodBytes);
  const handle = await open(path, 'a');
  return { journal: new FileJournal(handle), entries };
}

class FileJournal implements Journal {
  private pending: string[] = [];
  private appended = 0;
  private durable = 0;
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private closed = false;

  constructor(private readonly handle: FileHandle) {}

  append(entry: object): void {
    if (this.closed) throw new Error('devnet journal is closed');
    if (this.failure !== null) throw this.failure;
    this.pending.push(`${JSON.stringify(entry)}\n`);
    this.appended++;
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
    this.pending = [];
    try {
      const data = Buffer.from(lines.join(''), 'utf8');
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await this.handle.write(data, written, data.length - written);
        written += bytesWritten;
      }
      await this.handle.datasync();
      this.durable = upTo;
    } catch (err) {
      this.failure = new Error('devnet journal write failed; the devnet must be restarted', { cause: err });
    }
  }
}
