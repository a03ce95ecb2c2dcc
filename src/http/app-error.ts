// The error an HTTP route or hook answers with: a registered code (error-statuses.ts), the
// status that code has, and a detail safe to show the client. The rules throw DomainError
// (a code alone); error-handler.ts answers both.
import { ERRORS, type ErrorCode } from './error-statuses.js';

/** An error with a registered code. `detail` is safe to show to the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, detail: string, extra?: Record<string, unknown>) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.extra = extra;
  }
}
