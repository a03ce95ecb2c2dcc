// The deliverer's slots: at most `total` leased events in hand, at most `perReceiver` of them
// being sent to one receiver (origin) at once; the others of that receiver wait their turn in
// hand. A receiver with `perReceiver` events in hand is busy: the deliverer leases no more of
// its events, so a slow or dead receiver can take at most 2 x perReceiver - 1 of the slots.
// `changed()` wakes the deliverer when leasing more could help: a receiver stopped being busy,
// or the slots were full and one came free.

export interface SlotEvent {
  /** scheme://host[:port] of its callback URL. */
  readonly origin: string;
}

export class ReceiverSlots<E extends SlotEvent> {
  readonly #receivers = new Map<string, { sending: number; waiting: E[] }>();
  readonly #running = new Set<Promise<void>>();
  #held = 0;
  #changed = true;
  readonly #waiters = new Set<() => void>();

  constructor(
    private readonly total: number,
    private readonly perReceiver: number,
    /** Sends one event; never rejects (the caller logs its own failures). */
    private readonly send: (event: E) => Promise<void>,
  ) {}

  get held(): number {
    return this.#held;
  }

  get free(): number {
    return Math.max(0, this.total - this.#held);
  }

  /** How many receivers have events in hand. */
  get receiversInHand(): number {
    return this.#receivers.size;
  }

  /** Receivers with `perReceiver` events in hand. */
  busyOrigins(): string[] {
    return [...this.#receivers]
      .filter(([, r]) => r.sending + r.waiting.length >= this.perReceiver)
      .map(([o]) => o);
  }

  /** Takes leased events in hand and starts what the receivers' slots allow. */
  admit(events: readonly E[]): void {
    for (const event of events) {
      this.#held++;
      const receiver = this.#receivers.get(event.origin) ?? { sending: 0, waiting: [] };
      this.#receivers.set(event.origin, receiver);
      receiver.waiting.push(event);
      this.#start(event.origin);
    }
  }

  #start(origin: string): void {
    const receiver = this.#receivers.get(origin);
    if (receiver === undefined) return;
    while (receiver.sending < this.perReceiver && receiver.waiting.length > 0) {
      const event = receiver.waiting.shift()!;
      receiver.sending++;
      const running: Promise<void> = this.send(event).finally(() => {
        this.#running.delete(running);
        const wasFull = this.#held === this.total;
        this.#held--;
        receiver.sending--;
        const inHand = receiver.sending + receiver.waiting.length;
        if (inHand === 0) this.#receivers.delete(origin);
        else this.#start(origin);
        if (wasFull || inHand < this.perReceiver) this.#signal();
      });
      this.#running.add(running);
    }
  }

  #signal(): void {
    this.#changed = true;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Whether a change came since consumeChange(). */
  get hasChanged(): boolean {
    return this.#changed;
  }

  /** Forgets earlier changes: the caller is about to lease with what it knows now. */
  consumeChange(): void {
    this.#changed = false;
  }

  /** Resolves on the next change, after `timeoutMs` (null: none), or when `signal` aborts. */
  changed(timeoutMs: number | null, signal: AbortSignal): Promise<void> {
    if (this.#changed || signal.aborted) return Promise.resolve();
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

  /** Resolves when every event in hand has been sent (or given back). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }
}
