// How many events of one receiver a deliverer may hold leased: as many as it can send within
// about a second at the speed that receiver answers, `perReceiver` at a time (at least
// `perReceiver`, at most the whole hand). A receiver not heard from yet, a slow one and one
// whose oldest attempt has been running long get `perReceiver`: their events stay in the
// outbox for other deliverers (and for later) instead of waiting in this one's hand past their
// lease. Answers are remembered (a moving average of the latency) for the last few thousand
// receivers.

export interface Hand {
  origins(): string[];
  inHand(origin: string): number;
  oldestSendMs(origin: string): number;
}

export interface LeasePlan {
  /** Receivers with no room left: the lease skips them. */
  readonly busy: string[];
  /** The room of receivers whose room is not the default `perReceiver`. */
  readonly roomByOrigin: Map<string, number>;
}

const REMEMBERED = 4096;
/** Most remembered fast receivers not in hand passed to one lease. */
const FAST_IN_LEASE = 256;

export class ReceiverRoom {
  /** Moving average of answer latency (ms) by origin, least recently answered first. */
  readonly #latency = new Map<string, number>();

  constructor(
    private readonly perReceiver: number,
    private readonly capacity: number,
    /** How long the events held for one receiver should take to send. */
    private readonly drainMs = 1_000,
  ) {}

  /** An attempt at `origin` ended after `latencyMs` (the deadline for one that got no answer). */
  answered(origin: string, latencyMs: number): void {
    const before = this.#latency.get(origin);
    this.#latency.delete(origin);
    this.#latency.set(origin, before === undefined ? latencyMs : 0.8 * before + 0.2 * latencyMs);
    if (this.#latency.size > REMEMBERED) this.#latency.delete(this.#latency.keys().next().value!);
  }

  /** Events of `origin` this deliverer may hold, given how long its oldest send has run. */
  allowance(origin: string, oldestSendMs: number): number {
    const average = this.#latency.get(origin);
    if (average === undefined) return this.perReceiver;
    // A send running longer than the whole budget says the receiver slowed down; shorter
    // ones say little (the event loop may just have been busy).
    const running = oldestSendMs > this.drainMs ? oldestSendMs : 0;
    const rounds = Math.floor(this.drainMs / Math.max(average, running, 1));
    return Math.min(this.capacity, Math.max(this.perReceiver, this.perReceiver * rounds));
  }

  /** The busy receivers and the room of the others, for the next lease. */
  plan(hand: Hand): LeasePlan {
    const busy: string[] = [];
    const roomByOrigin = new Map<string, number>();
    for (const origin of hand.origins()) {
      const room = this.allowance(origin, hand.oldestSendMs(origin)) - hand.inHand(origin);
      if (room <= 0) busy.push(origin);
      else roomByOrigin.set(origin, room);
    }
    let fast = 0;
    for (const origin of [...this.#latency.keys()].reverse()) {
      if (fast >= FAST_IN_LEASE) break;
      if (roomByOrigin.has(origin) || busy.includes(origin)) continue;
      const room = this.allowance(origin, 0);
      if (room > this.perReceiver) {
        roomByOrigin.set(origin, room);
        fast++;
      }
    }
    return { busy, roomByOrigin };
  }
}
