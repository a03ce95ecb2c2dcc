// A transfer refused by a rule: a value, not an exception, with the registry code that names the rule.
import type { DomainErrorCode } from './domain-error.js';

export interface Refusal {
  readonly ok: false;
  readonly code: DomainErrorCode;
  readonly detail: string;
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
}
