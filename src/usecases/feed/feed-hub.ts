// The live change feed's one reader per process (GET /v2/sync/stream): however many streams are
// open, one timer looks at the feed's bound (store/feed/feed-bound.ts, ADR 0020; on PGlite first
// at the count of local writes, which costs no query), reads what is new up to it once, and hands
// each stream the records that concern it. A quiet stream costs its socket and one small object:
// no timer, no query of its own. The database's feed rows are the truth (no record at or below a
// bound can appear later); the bound, read once a round for every stream, is both the wake-up and
// where the round's reads stop, so several instances need nothing but the database they share.
//
// A stream that joins with a cursor behind the hub's reads its own pages up to the hub first
// (the same statements as /v1/sync), each once the stream has taken the one before (a slow
// reader far behind is not sent every page at once), then joins at once, in the same tick as its
// last check:
// from then on it gets the hub's records above its cursor, so none is skipped and none is sent
// twice.

import type { Db } from '../../store/db/db.js';
import { hotReads } from '../../store/db/db.js';
import { type FeedPage, feedAfter } from '../../store/feed/feed-after.js';
import { feedBound } from '../../store/feed/feed-bound.js';
import type { SyncRecord } from '../../store/feed/feed-queries.js';

export interface FeedSubscriber {
  /** The score read up to (excluded from what comes next). */
  cursor: bigint;
  /** Addresses the stream follows; null: the whole token. */
  readonly addresses: ReadonlySet<string> | null;
  /** Records in score order, each above the cursor; the hub moves the cursor past them. */
  deliver(records: readonly SyncRecord[]): void;
  /**
   * A catch-up page, in place of `deliver`: resolves once the subscriber can take the next (a
   * socket that drained), so a stream far behind holds one page, not every page it is behind.
   */
  catchUp?(records: readonly SyncRecord[]): Promise<void>;
}

export interface FeedHubOptions {
  readonly db: Db;
  /** How often the stamp is looked at while a stream is open, milliseconds. */
  readonly pollMs: number;
  /** Records read per statement. */
  readonly pageSize?: number;
  /** Told of a failed read (the hub tries again at its next look). */
  readonly onError?: (err: unknown) => void;
}

const PAGE = 500;
/** Catch-up pages kept for streams that start from the same score, and for how long. */
const KEPT_PAGES = 64;
const KEEP_PAGE_MS = 1000;

interface CatchUpPage {
  readonly page: FeedPage;
  /** The hub's cursor when the page's read began. */
  readonly hubBefore: bigint | null;
}

export class FeedHub {
  readonly #db: Db;
  readonly #pollMs: number;
  readonly #page: number;
  readonly #onError: (err: unknown) => void;
  readonly #live = new Set<FeedSubscriber>();
  readonly #reads = new Map<bigint, Promise<CatchUpPage>>();
  /** The highest score the hub has read; null while it has not looked (no stream open). */
  #cursor: bigint | null = null;
  #starting: Promise<bigint> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #reading = false;
  #lastLocalWrites: number | null = null;
  #closed = false;

  constructor(options: FeedHubOptions) {
    this.#db = options.db;
    this.#pollMs = options.pollMs;
    this.#page = options.pageSize ?? PAGE;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Streams following the feed live. */
  get size(): number {
    return this.#live.size;
  }

  /** The feed's bound now: where a stream that asks for no history starts. */
  async tip(): Promise<bigint> {
    return feedBound(hotReads(this.#db));
  }

  /**
   * Catches the subscriber up to the hub, then follows it live until the returned function is
   * called. Resolves once it is live (the records before were delivered).
   */
  async subscribe(sub: FeedSubscriber, stillWanted: () => boolean = () => true): Promise<() => void> {
    const list = sub.addresses === null ? null : [...sub.addresses];
    for (;;) {
      await this.#start();
      if (this.#closed || !stillWanted()) return () => undefined;
      // Checked with no wait before joining: the hub's cursor is a score it read (visible), so
      // reading on reaches it.
      if (this.#cursor !== null && sub.cursor >= this.#cursor) break;
      // The hub's cursor when the read began was visible then: a read that reached the end saw
      // everything up to it, so the stream may follow from there.
      const { page, hubBefore } = await this.#pageAfter(sub.cursor, list);
      if (page.records.length > 0) {
        if (sub.catchUp === undefined) sub.deliver(page.records);
        else await sub.catchUp(page.records);
        sub.cursor = page.records.at(-1)!.score;
      }
      if (page.end && hubBefore !== null && sub.cursor < hubBefore) sub.cursor = hubBefore;
    }
    // Joined in the tick of the last check: the hub's next records are all above its cursor.
    this.#live.add(sub);
    this.#arm();
    return () => {
      this.#live.delete(sub);
      if (this.#live.size === 0) this.#idle();
    };
  }

  /**
   * A catch-up page, with the hub's cursor when its read began, read up to the feed's bound or that
   * cursor, whichever is higher: the hub read that cursor after a bound at least as high, so every
   * record up to it that will ever be visible is visible already (the bound read now may be
   * lower, while a writer that began after that read is open). Streams of the whole token
   * catching up from the same score (many clients resuming after a restart, say) share one read,
   * kept for a second after it ends, and the same record objects, whose event text the route
   * makes once. A kept page is as good as a fresh one: its `hubBefore` is that of its read.
   */
  #pageAfter(after: bigint, addresses: readonly string[] | null): Promise<CatchUpPage> {
    const read = async (): Promise<CatchUpPage> => {
      const hubBefore = this.#cursor;
      const reads = hotReads(this.#db);
      const now = await feedBound(reads);
      const bound = hubBefore !== null && hubBefore > now ? hubBefore : now;
      return { page: await feedAfter(reads, { after, addresses, limit: this.#page, bound }), hubBefore };
    };
    if (addresses !== null) return read();
    const kept = this.#reads.get(after);
    if (kept !== undefined) return kept;
    if (this.#reads.size >= KEPT_PAGES) this.#reads.delete(this.#reads.keys().next().value!);
    const reading = read();
    this.#reads.set(after, reading);
    const forget = () => {
      setTimeout(() => {
        if (this.#reads.get(after) === reading) this.#reads.delete(after);
      }, KEEP_PAGE_MS).unref?.();
    };
    reading.then(forget, () => this.#reads.delete(after));
    return reading;
  }

  /** Looks at the feed now (a process that wrote something may call it: a wake-up). */
  wake(): void {
    if (this.#live.size > 0 && this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
      void this.#look();
    }
  }

  close(): void {
    this.#closed = true;
    this.#live.clear();
    this.#idle();
  }

  #start(): Promise<bigint> {
    if (this.#cursor !== null) return Promise.resolve(this.#cursor);
    this.#starting ??= this.tip().then(
      (tip) => {
        this.#cursor ??= tip;
        this.#starting = null;
        return this.#cursor;
      },
      (err) => {
        this.#starting = null;
        throw err;
      },
    );
    return this.#starting;
  }

  #arm(): void {
    if (this.#timer !== null || this.#reading || this.#closed || this.#live.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#look();
    }, this.#pollMs);
    this.#timer.unref?.();
  }

  /** No stream left: no timer, and the next stream starts the hub at the stamp of then. */
  #idle(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#reading) this.#cursor = null;
    this.#lastLocalWrites = null;
  }

  async #look(): Promise<void> {
    if (this.#reading || this.#cursor === null) return this.#arm();
    this.#reading = true;
    try {
      const local = this.#db.localWrites?.();
      if (local !== undefined && local === this.#lastLocalWrites) return;
      const reads = hotReads(this.#db);
      const bound = await feedBound(reads);
      this.#lastLocalWrites = local ?? null;
      for (let guard = 0; this.#cursor !== null && bound > this.#cursor && guard < 100; guard++) {
        const page = await feedAfter(reads, {
          after: this.#cursor,
          addresses: null,
          limit: this.#page,
          bound,
        });
        if (page.records.length === 0) break;
        // Delivered in this tick with the cursor move: a stream joining now sees the new cursor.
        this.#cursor = page.records.at(-1)!.score;
        this.#fanOut(page.records);
        if (page.end) break;
      }
    } catch (err) {
      this.#lastLocalWrites = null;
      this.#onError(err);
    } finally {
      this.#reading = false;
      if (this.#live.size === 0) this.#idle();
      else this.#arm();
    }
  }

  #fanOut(records: readonly SyncRecord[]): void {
    for (const sub of this.#live) {
      const mine = records.filter(
        (r) =>
          r.score > sub.cursor &&
          (sub.addresses === null ||
            r.senders.some((a) => sub.addresses!.has(a)) ||
            r.receivers.some((a) => sub.addresses!.has(a))),
      );
      if (mine.length === 0) continue;
      sub.cursor = mine.at(-1)!.score;
      sub.deliver(mine);
    }
  }
}
