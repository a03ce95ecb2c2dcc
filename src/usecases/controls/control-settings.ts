// What a process's issuer controls are set to (limits, screening) and told to count, in a
// module of its own: the service context carries them (context.ts) and the controls read the
// context (transfer-controls.ts), so the shapes cannot live with either without an import circle.
import type { AmountLimits } from '../../domain/issuer-controls.js';

export interface ScreeningSettings {
  readonly url: string;
  readonly timeoutMs: number;
  /** What a timeout or a failed answer means. */
  readonly onTimeout: 'refuse' | 'allow';
}

/** What the controls are told to count (metrics: control-metrics.ts). */
export interface ControlCounters {
  change(action: string): void;
  refused(code: string): void;
  screened(outcome: 'allow' | 'deny' | 'timeout', seconds: number): void;
}

export interface IssuerControls {
  readonly limits: AmountLimits;
  readonly screening: ScreeningSettings | null;
  readonly counted?: ControlCounters;
}
