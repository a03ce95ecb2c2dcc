// The deliverer's hand: the events it holds leased, by receiver (origin). At most
// `concurrency` are being sent at once over all receivers and at most `perReceiver` to one
// receiver; the others wait in hand, and the receivers with events waiting take turns for
// the free sending slots. How many events of one receiver the deliverer may hold is its
// business (see deliverer.ts); this keeps the counts it needs: held, in hand per receiver,
// and how long the oldest send to a receiver has been running. Every send that ends is a
// change (`version`), which wakes the deliverer to lease again.

export interface SlotEvent {
  /** scheme://host[:port] of its callback URL. */
  readonly origin: string;
}

interface Receiver<E> {
  /** Start times (performance.now) of the sends running, oldest first. */
  readonly sending: number[];
  readonly waiting: E[];
  /** In the queue of receivers waiting for a sending slot. */
  queued: boolean;
}

export class ReceiverSlots<E extends SlotEvent> {
  readonly #receivers = new Map<string, Receiver<E>>();
  /** Receivers with events waiting and a receiver slot free, in turn. */
  readonly #turns: string[] = [];
  readonly #running = new Set<Promise<void>>();
  #held = 0;
  #sending = 0;
  #version = 0;
  readonly #waiters = new Set<() => void>();

  constructor(
    private readonly concurrency: number,
    private readonly perReceiver: number,
    /** Sends one event; never rejects (the caller logs its own failures). */
    private readonly send: (event: E) => Promise<void>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Events in hand: waiting or being sent. */
  get held(): number {
    return this.#held;
  }

  /** Events being sent. */
  get sending(): number {
    return this.#sending;
  }

  /** How many receivers have events in hand. */
  get receiversInHand(): number {
    return this.#receivers.size;
  }

  /** Events of one receiver in hand. */
  inHand(origin: string): number {
    const r = this.#receivers.get(origin);
    return r === undefined ? 0 : r.sending.length + r.waiting.length;
  }

  /** The receivers with events in hand. */
  origins(): string[] {
    return [...this.#receivers.keys()];
  }

  /** How long the oldest send to this receiver has been running (0 when none is). */
  oldestSendMs(origin: string): number {
    const started = this.#receivers.get(origin)?.sending[0];
    return started === undefined ? 0 : this.now() - started;
  }

  /** Takes leased events in hand and starts what the slots allow. */
  admit(events: readonly E[]): void {
    for (const event of events) {
      this.#held++;
      let receiver = this.#receivers.get(event.origin);
      if (receiver === undefined) {
        receiver = { sending: [], waiting: [], queued: false };
        this.#receivers.set(event.origin, receiver);
      }
      receiver.waiting.push(event);
      this.#queue(event.origin, receiver);
    }
    this.#startTurns();
  }

  /** Takes every waiting event out of hand (not the ones being sent), e.g. to give them back. */
  takeWaiting(): E[] {
    const taken: E[] = [];
    for (const [origin, receiver] of this.#receivers) {
      taken.push(...receiver.waiting.splice(0));
      if (receiver.sending.length === 0) this.#receivers.delete(origin);
    }
    this.#held -= taken.length;
    this.#turns.length = 0;
    for (const receiver of this.#receivers.values()) receiver.queued = false;
    if (taken.length > 0) this.#signal();
    return taken;
  }

  #queue(origin: string, receiver: Receiver<E>): void {
    if (!receiver.queued && receiver.waiting.length > 0 && receiver.sending.length < this.perReceiver) {
      receiver.queued = true;
      this.#turns.push(origin);
    }
  }

  #startTurns(): void {
    while (this.#sending < this.concurrency && this.#turns.length > 0) {
      const origin = this.#turns.shift()!;
      const receiver = this.#receivers.get(origin);
      if (receiver === undefined) continue;
      receiver.queued = false;
      const event = receiver.waiting.shift();
      if (event === undefined) continue;
      this.#start(origin, receiver, event);
      this.#queue(origin, receiver);
    }
  }

  #start(origin: string, receiver: Receiver<E>, event: E): void {
    const started = this.now();
    receiver.sending.push(started);
    this.#sending++;
    const running: Promise<void> = this.send(event).finally(() => {
      this.#running.delete(running);
      this.#held--;
      this.#sending--;
      receiver.sending.splice(receiver.sending.indexOf(started), 1);
      if (receiver.sending.length + receiver.waiting.length === 0) this.#receivers.delete(origin);
      else this.#queue(origin, receiver);
      this.#startTurns();
      this.#signal();
    });
    this.#running.add(running);
  }

  /** Tells whoever waits in changed() that something changed (a send ended, a write landed). */
  signal(): void {
    this.#signal();
  }

  #signal(): void {
    this.#version++;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Grows with every change; pass it to changed() to wait for the next one. */
  get version(): number {
    return this.#version;
  }

  /**
   * Resolves once the version is past `since`, after `timeoutMs` (null: none), or when
   * `signal` aborts.
   */
  changed(since: number, timeoutMs: number | null, signal: AbortSignal): Promise<void> {
    if (this.#version !== since || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = timeoutMs === null ? undefined : setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
    });
  }

  /** Resolves when every event in hand has been sent (or taken back). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
