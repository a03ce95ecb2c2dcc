// How column values come back from both adapters (see db.ts): one table of type parsers,
// so PGlite and pg agree value for value. Only types whose defaults differ are listed.
//
//             pg default            PGlite default          both adapters return
// int8        decimal string        number or bigint        decimal string
// numeric     decimal string        decimal string          decimal string
// numeric[]   number[] (lossy)      string[]                string[]
// bytea       Buffer                Uint8Array              Uint8Array (plain, not Buffer)
// date        Date (local midnight) Date (UTC midnight)     'YYYY-MM-DD' string
// interval    object                string                  string
// timestamptz Date                  Date                    Date
// jsonb/json  parsed                parsed                  parsed

export const PgOid = {
  BYTEA: 17,
  INT8: 20,
  BYTEA_ARRAY: 1001,
  INT8_ARRAY: 1016,
  DATE: 1082,
  DATE_ARRAY: 1182,
  INTERVAL: 1186,
  INTERVAL_ARRAY: 1187,
  NUMERIC: 1700,
  NUMERIC_ARRAY: 1231,
} as const;

export type TextParser = (text: string) => unknown;

const asText: TextParser = (text) => text;

/** Parsers for PGlite: its array parsers look element parsers up by OID, so arrays follow. */
export const pgliteParsers: Record<number, TextParser> = {
  [PgOid.INT8]: asText,
  [PgOid.DATE]: asText,
};

/** Turns a Buffer (pg's bytea) into a plain Uint8Array with its own memory. */
export function toPlainBytes(buffer: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(buffer.byteLength);
  bytes.set(buffer);
  return bytes;
}

/**
 * Parsers for pg, given pg's own lookup (pg.types.getTypeParser) for the element types
 * reused here: text[] for string arrays, bytea and bytea[] wrapped to return plain bytes.
 */
export function pgParserOverrides(base: (oid: number) => TextParser): Record<number, TextParser> {
  const textArray = base(1009);
  const bytea = base(PgOid.BYTEA);
  const byteaArray = base(PgOid.BYTEA_ARRAY);
  return {
    [PgOid.INT8]: asText,
    [PgOid.INT8_ARRAY]: textArray,
    [PgOid.NUMERIC]: asText,
    [PgOid.NUMERIC_ARRAY]: textArray,
    [PgOid.DATE]: asText,
    [PgOid.DATE_ARRAY]: textArray,
    [PgOid.INTERVAL]: asText,
    [PgOid.INTERVAL_ARRAY]: textArray,
    [PgOid.BYTEA]: (text) => toPlainBytes(bytea(text) as Uint8Array),
    [PgOid.BYTEA_ARRAY]: (text) =>
      (byteaArray(text) as (Uint8Array | null)[]).map((b) => (b === null ? null : toPlainBytes(b))),
  };
}
