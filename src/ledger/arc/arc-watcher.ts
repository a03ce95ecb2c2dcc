// Polling of watched txids, the guarantee behind ARC's callbacks (which ARC may skip, or drop
// for good after one network error). Each txid is polled after `initialMs`, then ever less often
// (doubling up to `maxMs`) while nothing changes; a change (from a poll or a callback) brings it
// back to `initialMs`. A failed poll counts as "nothing changed".
export interface WatcherOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Jitter source in [0, 1). */
  readonly random: () => number;
}

/** Polls one txid; answers whether its status changed. */
export type Poll = (txid: string) => Promise<boolean>;

interface Watch {
  delayMs: number;
  timer: NodeJS.Timeout | null;
  polling: boolean;
}

export class ArcWatcher {
  private readonly watches = new Map<string, Watch>();
  private closed = false;

  constructor(
    private readonly poll: Poll,
    private readonly opts: WatcherOptions,
  ) {}

  watch(txid: string): void {
    if (this.closed || this.watches.has(txid)) return;
    const entry: Watch = { delayMs: this.opts.initialMs, timer: null, polling: false };
    this.watches.set(txid, entry);
    this.schedule(txid, entry);
  }

  unwatch(txid: string): void {
    const entry = this.watches.get(txid);
    if (entry?.timer) clearTimeout(entry.timer);
    this.watches.delete(txid);
  }

  watching(): string[] {
    return [...this.watches.keys()];
  }

  /** A change learnt elsewhere (a callback): poll soon again. */
  changed(txid: string): void {
    const entry = this.watches.get(txid);
    if (entry === undefined || entry.polling) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.delayMs = this.opts.initialMs;
    this.schedule(txid, entry);
  }

  close(): void {
    this.closed = true;
    for (const entry of this.watches.values()) if (entry.timer) clearTimeout(entry.timer);
    this.watches.clear();
  }

  private schedule(txid: string, entry: Watch): void {
    const jittered = entry.delayMs * (0.9 + 0.2 * this.opts.random());
    entry.timer = setTimeout(() => void this.run(txid, entry), jittered);
    entry.timer.unref();
  }

  private async run(txid: string, entry: Watch): Promise<void> {
    entry.timer = null;
    entry.polling = true;
    let changed = false;
    try {
      changed = await this.poll(txid);
    } catch {
      changed = false;
    } finally {
      entry.polling = false;
    }
    if (this.closed || this.watches.get(txid) !== entry) return;
    entry.delayMs = changed ? this.opts.initialMs : Math.min(entry.delayMs * 2, this.opts.maxMs);
    this.schedule(txid, entry);
  }
}
