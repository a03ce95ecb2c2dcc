// The service's logger: JSON records, one per line, on stdout (for jq, a log shipper, journald);
// on a terminal the same records printed for a person by pino-pretty. Nothing else is written
// to stdout by `tokenproxy start`, so `tokenproxy start | jq` always parses. Records are written
// synchronously: with pino's asynchronous destination a busy pipe (EAGAIN) let a later record
// overtake an earlier one, and the fatal record of a failed start came out before the first.
// `Logger` is the port use cases and callbacks write to (pino's logger is one).
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';
import { escapeControls, redactKeyShaped } from './log-safety.js';

/** What use cases and callbacks log through: a record object, then a message. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface LoggerOptions {
  readonly level: string;
  /** Human-readable lines (colour, local time) instead of JSON. */
  readonly pretty: boolean;
  /** Where records go (default: stdout). */
  readonly destination?: DestinationStream;
}

/**
 * Every message, of this logger and its children, without control characters (a terminal would
 * act on them: a newline printed a forged record on pino-pretty) or key-shaped strings in clear.
 */
const hooks = {
  logMethod(this: PinoLogger, args: unknown[], method: (...a: unknown[]) => void) {
    method.apply(
      this,
      args.map((a) => (typeof a === 'string' ? escapeControls(redactKeyShaped(a)) : a)),
    );
  },
};

/** A record's string fields escaped for a terminal (JSON escapes them itself). `err` keeps its stack. */
function escapedFields(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record))
    out[key] = typeof value === 'string' && key !== 'err' ? escapeControls(value) : value;
  return out;
}

export function createLogger(options: LoggerOptions): PinoLogger {
  if (!options.pretty)
    return pino(
      { level: options.level, hooks },
      options.destination ?? pino.destination({ dest: 1, sync: true }),
    );
  return pino(
    { level: options.level, hooks, formatters: { log: escapedFields } },
    pretty({
      colorize: options.destination === undefined,
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
      ...(options.destination !== undefined && { destination: options.destination }),
    }),
  );
}
