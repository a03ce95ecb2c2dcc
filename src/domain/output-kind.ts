// Classifies a transfer's output against the token's rules (token-rules.md, rule 4).

import { p2pkhAddress } from './address.js';
import { parseCanonicalAmount } from './amount.js';
import { bytesEqual, OP, readChunks } from './script-chunks.js';
import type { TokenConfig } from './token-config.js';
import { parseTokenScript } from './token-script.js';

export type OutputKind =
  | {
      readonly kind: 'token';
      readonly op: 'transfer' | 'burn';
      readonly owner: string;
      readonly amount: bigint;
    }
  | { readonly kind: 'data'; readonly bytes: number }
  | {
      readonly kind: 'refused';
      readonly code:
        | 'FOREIGN_OUTPUT'
        | 'WRONG_TOKEN'
        | 'WRONG_APPROVER'
        | 'INVALID_AMOUNT'
        | 'LIMIT_EXCEEDED';
      readonly detail: string;
    };

export function classifyOutput(
  script: Uint8Array,
  satoshis: bigint,
  vout: number,
  config: TokenConfig,
): OutputKind {
  const token = parseTokenScript(script);
  if (token !== null) {
    const { inscription } = token;
    if (inscription.op === 'deploy+mint') return refused('FOREIGN_OUTPUT', vout, 'is a deploy+mint');
    if (inscription.id !== config.tokenId)
      return refused('WRONG_TOKEN', vout, `carries token ${inscription.id}`);
    if (!bytesEqual(token.approver, config.approver))
      return refused('WRONG_APPROVER', vout, 'has another approver');
    if (satoshis !== 1n)
      return refused('FOREIGN_OUTPUT', vout, `holds ${satoshis} satoshis (token outputs hold 1)`);
    return {
      kind: 'token',
      op: inscription.op,
      owner: p2pkhAddress(token.ownerPkh),
      amount: inscription.amt,
    };
  }
  const data = dataOutputBytes(script);
  if (data !== null) {
    if (satoshis !== 0n) return refused('FOREIGN_OUTPUT', vout, 'is a data output holding satoshis');
    if (data > config.limits.maxDataBytes) {
      return refused(
        'LIMIT_EXCEEDED',
        vout,
        `carries ${data} bytes of data (at most ${config.limits.maxDataBytes})`,
      );
    }
    return { kind: 'data', bytes: data };
  }
  if (looksLikeBadAmount(script))
    return refused('INVALID_AMOUNT', vout, 'has an amt that is not a canonical positive integer');
  return refused(
    'FOREIGN_OUTPUT',
    vout,
    'is neither a token output of this token nor an OP_0 OP_RETURN data output',
  );
}

function refused(
  code: Extract<OutputKind, { kind: 'refused' }>['code'],
  vout: number,
  what: string,
): OutputKind {
  return { kind: 'refused', code, detail: `output ${vout} ${what}` };
}

/** Bytes pushed by an `OP_0 OP_RETURN <push>...` script, else null. */
function dataOutputBytes(script: Uint8Array): number | null {
  if (script[0] !== OP.OP_0 || script[1] !== OP.OP_RETURN) return null;
  const chunks = readChunks(script.subarray(2));
  if (chunks === null) return null;
  let bytes = 0;
  for (const chunk of chunks) {
    if (chunk.data === undefined) return null;
    bytes += chunk.data.length;
  }
  return bytes;
}

/** A bsv-20 envelope whose JSON is fine but for its `amt`. */
function looksLikeBadAmount(script: Uint8Array): boolean {
  const chunks = readChunks(script);
  const body = chunks?.[6]?.data;
  if (body === undefined) return false;
  try {
    const json = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>;
    return json.p === 'bsv-20' && (typeof json.amt !== 'string' || parseCanonicalAmount(json.amt) === null);
  } catch {
    return false;
  }
}
