// The lease step both deliverers take (ticket callbacks, address webhooks): lease due events into
// the free room of the hand, skipping the receivers that have no room left (ReceiverRoom), and
// lease nothing while every receiver in hand is busy and the others had nothing due a moment
// ago: such a lease would only scan past the busy receivers' backlog again.
import type { LeaseRequest } from '../store/callbacks/receiver-lease.js';
import type { ReceiverRoom } from './receiver-room.js';
import type { ReceiverSlots, SlotEvent } from './receiver-slots.js';

export interface RoomLeaseSettings {
  /** Who holds the leases (one name per deliverer). */
  readonly owner: string;
  readonly leaseMs: number;
  /** Events of one receiver in hand at a time, unless its room says more. */
  readonly perOrigin: number;
  /** How long the others count as drained after a lease found nothing of theirs, ms. */
  readonly quietMs: number;
  readonly clock: () => Date;
}

export class RoomLease<E extends SlotEvent> {
  /** When (performance.now) a lease that skipped busy receivers found nothing else due. */
  #othersDrainedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly room: ReceiverRoom,
    private readonly slots: ReceiverSlots<E>,
    private readonly settings: RoomLeaseSettings,
    /** The outbox's lease statement. */
    private readonly lease: (req: LeaseRequest) => Promise<E[]>,
  ) {}

  /** Leases up to `asked` events into the hand; answers how many came (0 when it asked none). */
  async fill(asked: number): Promise<number> {
    if (asked <= 0) return 0;
    const { room, slots, settings } = this;
    const { busy, roomByOrigin } = room.plan(slots);
    const othersDrainedLately = performance.now() - this.#othersDrainedAt < settings.quietMs;
    if (busy.length > 0 && busy.length === slots.receiversInHand && othersDrainedLately) return 0;
    const events = await this.lease({
      owner: settings.owner,
      now: settings.clock(),
      leaseMs: settings.leaseMs,
      limit: asked,
      perOrigin: settings.perOrigin,
      busyOrigins: busy,
      roomByOrigin,
    });
    slots.admit(events);
    if (events.length < asked && busy.length > 0) this.#othersDrainedAt = performance.now();
    return events.length;
  }
}
