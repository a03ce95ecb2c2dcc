// The chain tip as `status` and the console's Chain panel answer it: asked of the ledger each
// time (the devnet's own, ARC's through a Block Headers Service), never a block this process
// happened to see. When the ledger cannot tell, the answer still comes, with `tip: null` and
// why in `tipProblem` (the rest of a status page does not wait on the ledger).
import { Type } from 'typebox';
import { type Ledger, LedgerUnavailableError } from '../../ledger/port.js';

export const TipJson = Type.Union(
  [
    Type.Object({
      height: Type.Integer(),
      hash: Type.String(),
      time: Type.Integer({ description: 'Block time, Unix seconds (0 when the source gives none)' }),
    }),
    Type.Null(),
  ],
  { description: "The ledger's chain tip; null when the ledger could not tell (tipProblem says why)" },
);
export const TipProblemJson = Type.Optional(
  Type.String({ description: 'Why the tip is null: what the ledger answered, and what to set' }),
);

export interface AskedTip {
  readonly tip: { readonly height: number; readonly hash: string; readonly time: number } | null;
  readonly tipProblem?: string;
}

export async function askTip(ledger: Pick<Ledger, 'tip'>): Promise<AskedTip> {
  try {
    const tip = await ledger.tip();
    return { tip: { height: tip.height, hash: tip.hash, time: tip.time } };
  } catch (err) {
    if (!(err instanceof LedgerUnavailableError)) throw err;
    return { tip: null, tipProblem: err.message };
  }
}
