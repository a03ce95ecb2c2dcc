// The issuer's controls in /metrics (issue 32): control changes by action, transfers the
// controls refused by code, and the screening service's latency by outcome.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ControlCounters } from '../usecases/controls/transfer-controls.js';

export function controlMetrics(registry: Registry): ControlCounters {
  const changes = new Counter({
    name: 'tokenproxy_control_changes_total',
    help: 'Issuer control changes made through this process, by action (pause, blacklist, seize, ...).',
    labelNames: ['action'],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'tokenproxy_control_refusals_total',
    help: "Transfers the issuer's controls refused before cosigning, by code.",
    labelNames: ['code'],
    registers: [registry],
  });
  const screening = new Histogram({
    name: 'tokenproxy_screening_duration_seconds',
    help: 'Latency the screening service added to a transfer, seconds, by outcome (allow, deny, timeout).',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    change: (action) => changes.inc({ action }),
    refused: (code) => refused.inc({ code }),
    screened: (outcome, seconds) => screening.observe({ outcome }, seconds),
  };
}
