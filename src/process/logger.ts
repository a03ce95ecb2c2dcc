// The service's logger: JSON records, one per line, on stdout (for jq, a log shipper, journald);
// on a terminal the same records printed for a person by pino-pretty. Nothing else is written
// to stdout by `tokenproxy start`, so `tokenproxy start | jq` always parses. Records are written
// synchronously: with pino's asynchronous destination a busy pipe (EAGAIN) let a later record
// overtake an earlier one, and the fatal record of a failed start came out before the first.
// `Logger` is the port use cases and callbacks write to (pino's logger is one).
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import pretty from 'pino-pretty';

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

export function createLogger(options: LoggerOptions): PinoLogger {
  if (!options.pretty)
    return pino({ level: options.level }, options.destination ?? pino.destination({ dest: 1, sync: true }));
  return pino(
    { level: options.level },
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
