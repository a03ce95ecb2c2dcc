// Whether this process's roles are live, for /readyz and the `tokenproxy_role_*` series: the
// tracker and the deliverer are live while they finish a round within the bound (a hung loop,
// or one failing every round, goes not ready), the writer while it holds its registration, the
// api while the database answers. A role gets the bound from its start to finish its first round.
import type { Readiness } from '../http/health.js';

export type LoopRole = 'tracker' | 'deliverer';
export type WatchedRole = LoopRole | 'writer' | 'api';

export interface RoleState {
  readonly role: WatchedRole;
  readonly ready: boolean;
  /** Unix ms of its last finished round (the writer: its last renewal); null before any. */
  readonly lastRoundAt: number | null;
  readonly reason?: string;
}

export interface RoleLiveness {
  /** Declares a loop role started: it has `boundMs` from now to finish a round. */
  watchLoop(role: LoopRole): void;
  /** A loop role finished a round. */
  round(role: LoopRole): void;
  /** A role judged by a check of its own (the writer's registration, the api's database). */
  watchCheck(role: 'writer' | 'api', check: () => Promise<Readiness>): void;
  /** Each watched role's state now. */
  states(): Promise<RoleState[]>;
  /** Ready when every watched role is. */
  readiness(): Promise<Readiness>;
}

export function createRoleLiveness(options: {
  readonly boundMs: number;
  readonly now?: () => number;
}): RoleLiveness {
  const now = options.now ?? Date.now;
  const loops = new Map<LoopRole, { startedAt: number; lastRoundAt: number | null }>();
  const checks = new Map<'writer' | 'api', () => Promise<Readiness>>();
  const loopState = (role: LoopRole): RoleState => {
    const loop = loops.get(role)!;
    const since = loop.lastRoundAt ?? loop.startedAt;
    const quiet = now() - since;
    if (quiet <= options.boundMs) return { role, ready: true, lastRoundAt: loop.lastRoundAt };
    return {
      role,
      ready: false,
      lastRoundAt: loop.lastRoundAt,
      reason: `the ${role} has finished no round for ${Math.round(quiet / 1000)} s (bound ${options.boundMs / 1000} s)`,
    };
  };
  const states = async (): Promise<RoleState[]> => {
    const out: RoleState[] = [...loops.keys()].map(loopState);
    for (const [role, check] of checks) {
      const r = await check().catch(
        (err: unknown): Readiness => ({ ready: false, reason: `${role}: ${(err as Error).message}` }),
      );
      out.push({
        role,
        ready: r.ready,
        lastRoundAt: null,
        ...(r.reason !== undefined && { reason: r.reason }),
      });
    }
    return out;
  };
  return {
    watchLoop(role) {
      loops.set(role, { startedAt: now(), lastRoundAt: null });
    },
    round(role) {
      const loop = loops.get(role);
      if (loop !== undefined) loop.lastRoundAt = now();
    },
    watchCheck(role, check) {
      checks.set(role, check);
    },
    states,
    async readiness() {
      const notReady = (await states()).filter((s) => !s.ready);
      if (notReady.length === 0) return { ready: true };
      return { ready: false, reason: notReady.map((s) => s.reason ?? `${s.role} not ready`).join('; ') };
    },
  };
}
