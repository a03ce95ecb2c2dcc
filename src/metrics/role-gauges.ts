// The roles this process runs, as series: whether each is ready (what /readyz decides) and when
// its loop last finished a round (the tracker's sweep, the deliverer's look at the outbox). Every
// process exports its own (labelled by role; Prometheus adds the instance): an alert fires on any
// 0, and `time() - tokenproxy_role_last_round_timestamp_seconds` is how long a loop has hung.
import { Gauge } from 'prom-client';
import type { RoleLiveness } from '../roles/role-liveness.js';
import type { ServiceMetrics } from './service-metrics.js';

export const ROLE_GAUGE_NAMES = [
  'tokenproxy_role_ready',
  'tokenproxy_role_last_round_timestamp_seconds',
] as const;

export function registerRoleGauges(metrics: ServiceMetrics, liveness: RoleLiveness): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'tokenproxy_role_ready',
    help: 'Whether a role of this process is ready (1) or not (0), by role: what /readyz answers.',
    labelNames: ['role'],
    registers,
    async collect() {
      for (const state of await liveness.states()) this.set({ role: state.role }, state.ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tokenproxy_role_last_round_timestamp_seconds',
    help: 'Unix time a loop role (tracker, deliverer) last finished a round; absent before its first.',
    labelNames: ['role'],
    registers,
    async collect() {
      for (const state of await liveness.states())
        if (state.lastRoundAt !== null) this.set({ role: state.role }, state.lastRoundAt / 1000);
    },
  });
}
