// BSV-21 inscriptions: the JSON carried in a token output's ordinal envelope
// (`OP_0 OP_IF "ord" OP_1 "application/bsv-20" OP_0 <json> OP_ENDIF`). Pure.
import { parseCanonicalAmount } from './amount.js';

export type Bsv21Op = 'deploy+mint' | 'transfer' | 'burn';

export const BSV20_CONTENT_TYPE = 'application/bsv-20';

export type Bsv21Inscription =
  | { readonly op: 'transfer' | 'burn'; readonly id: string; readonly amt: bigint }
  | {
      readonly op: 'deploy+mint';
      readonly amt: bigint;
      readonly dec: number;
      readonly sym?: string;
      readonly icon?: string;
    };

const TOKEN_ID = /^[0-9a-f]{64}_\d+$/;
const MAX_DECIMALS = 18;

/** Parses inscription JSON text; null unless it is a well-formed bsv-20 token operation. */
export function parseBsv21Json(text: string): Bsv21Inscription | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const json = value as Record<string, unknown>;
  if (json.p !== 'bsv-20' || typeof json.amt !== 'string') return null;
  const amt = parseCanonicalAmount(json.amt);
  if (amt === null) return null;
  if (json.op === 'transfer' || json.op === 'burn') {
    if (typeof json.id !== 'string' || !TOKEN_ID.test(json.id)) return null;
    return { op: json.op, id: json.id, amt };
  }
  if (json.op === 'deploy+mint') {
    const dec = parseDecimals(json.dec);
    if (dec === null) return null;
    const sym = typeof json.sym === 'string' ? json.sym : undefined;
    const icon = typeof json.icon === 'string' ? json.icon : undefined;
    return {
      op: 'deploy+mint',
      amt,
      dec,
      ...(sym !== undefined && { sym }),
      ...(icon !== undefined && { icon }),
    };
  }
  return null;
}

function parseDecimals(dec: unknown): number | null {
  if (dec === undefined) return 0;
  const n = typeof dec === 'string' && /^(0|[1-9]\d?)$/.test(dec) ? Number(dec) : dec;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_DECIMALS ? n : null;
}

/** Inscription JSON in the reference client's key order (`createInscription`). */
export function bsv21Json(inscription: Bsv21Inscription): string {
  if (inscription.op === 'deploy+mint') {
    const { amt, dec, sym, icon } = inscription;
    return JSON.stringify({
      p: 'bsv-20',
      op: 'deploy+mint',
      sym,
      icon,
      amt: amt.toString(),
      dec: String(dec),
    });
  }
  return JSON.stringify({
    p: 'bsv-20',
    op: inscription.op,
    id: inscription.id,
    amt: inscription.amt.toString(),
  });
}
