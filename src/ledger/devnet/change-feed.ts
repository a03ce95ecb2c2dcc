// Status changes on their way to subscribers: queued as the state changes, told only once the
// journal holds what they report (`deliverAfter`), in the order they happened.
import type { StatusChange } from './chain-state.js';

export type ChangeListener = (change: StatusChange) => void;

export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  /** Changes not yet told: queued = delivered + queue.length. */
  private readonly queue: StatusChange[] = [];
  private queued = 0;
  private delivered = 0;

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  enqueue(changes: readonly StatusChange[]): void {
    this.queue.push(...changes);
    this.queued += changes.length;
  }

  /** Waits for `durable` (the journal's sync), then tells what was queued before the call. */
  async deliverAfter(durable: Promise<void>): Promise<void> {
    const upTo = this.queued;
    await durable;
    while (this.delivered < upTo) {
      const change = this.queue.shift()!;
      this.delivered++;
      for (const listener of this.listeners) {
        try {
          listener(change);
        } catch {
          // A subscriber's failure is its own.
        }
      }
    }
  }
}
