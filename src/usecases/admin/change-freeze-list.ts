// The freeze list changed by an operator: an address frozen (the service then cosigns no
// transfer spending its outputs and mints nothing to it) or unfrozen, each change recorded
// with who made it (the admin key id) and why.
import {
  type Freeze,
  type FreezeChange,
  freezeAddress,
  unfreezeAddress,
} from '../../store/controls/freeze-store.js';
import type { ServiceContext } from '../context.js';

type FreezeDeps = Pick<ServiceContext, 'db'>;

/** Freezes `change.address`; `changed: false` when it was frozen already (nothing recorded). */
export function freeze(ctx: FreezeDeps, change: FreezeChange): Promise<{ freeze: Freeze; changed: boolean }> {
  return freezeAddress(ctx.db, change);
}

/** Unfreezes `change.address`; null when it was not frozen (nothing recorded). */
export function unfreeze(ctx: FreezeDeps, change: FreezeChange): Promise<Freeze | null> {
  return unfreezeAddress(ctx.db, change);
}
