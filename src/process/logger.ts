// The service's logger: JSON records, one per line, on stdout (for jq, a log shipper, journald);
// on a terminal the same records printed for a person by pino-pretty. Nothing else is written
// to stdout by `tokenproxy start`, so `tokenproxy start | jq` always parses.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export interface LoggerOptions {
  readonly level: string;
  /** Human-readable lines (colour, local time) instead of JSON. */
  readonly pretty: boolean;
  /** Where records go (default: stdout). */
  readonly destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  if (!options.pretty) return pino({ level: options.level }, options.destination ?? pino.destination(1));
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
