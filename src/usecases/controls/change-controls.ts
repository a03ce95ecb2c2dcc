// The issuer changes a control (issue 32): pause or unpause transfers, blacklist an address or
// take it off. Each change and its record in control_events (who: the admin key id; why) are
// one database transaction; every instance's next submission batch reads the new state.
import {
  blacklistAddress,
  type Listing,
  type ListingChange,
  unblacklistAddress,
} from '../../store/controls/blacklist-store.js';
import { type PauseState, setPaused } from '../../store/controls/pause-store.js';
import type { ServiceContext } from '../context.js';

type ControlDeps = Pick<ServiceContext, 'db' | 'controls'>;

export interface PauseChange {
  readonly paused: boolean;
  readonly reason: string;
  readonly actor: string;
  readonly at: Date;
}

/** Pauses or unpauses; `changed: false` when it was so already (nothing recorded). */
export async function changePause(
  ctx: ControlDeps,
  change: PauseChange,
): Promise<{ state: PauseState; changed: boolean }> {
  const done = await setPaused(ctx.db, change);
  if (done.changed) ctx.controls?.counted?.change(change.paused ? 'pause' : 'unpause');
  return done;
}

/** Blacklists an address; `changed: false` when it was listed already (nothing recorded). */
export async function blacklist(
  ctx: ControlDeps,
  change: ListingChange,
): Promise<{ listing: Listing; changed: boolean }> {
  const done = await blacklistAddress(ctx.db, change);
  if (done.changed) ctx.controls?.counted?.change('blacklist');
  return done;
}

/** Takes an address off the blacklist; null when it was not on it. */
export async function unblacklist(ctx: ControlDeps, change: ListingChange): Promise<Listing | null> {
  const done = await unblacklistAddress(ctx.db, change);
  if (done !== null) ctx.controls?.counted?.change('unblacklist');
  return done;
}
