// The reference client's `processMneeValidation(tx, config)` (no request list), the first half
// of the Parse response's `isValid`, mirrored exactly. Its quirks matter for agreement:
// - owners are read with the COMPACTED `$` list indexed by output index, so an output the
//   client does not recognise (an OP_RETURN, say) leaves a later output with an undefined
//   cosigner, which counts as "another cosigner": the transaction is then invalid;
// - every failure, including the client's own TypeErrors, answers false. Pure.
import {
  CLIENT_BUILTIN_MINT_ADDRESSES,
  type ClientTokenConfig,
  clientCosigns,
  clientInscriptionContent,
  clientParseInt,
  clientUtf8,
  jsonField,
  truthy,
} from './client-script-reading.js';
import type { ClientTransaction } from './client-transaction.js';

interface ReadOutput {
  readonly address: string | undefined;
  readonly cosigner: string | undefined;
  readonly inscription: unknown;
}

class Invalid extends Error {}

/** True where the client's processMneeValidation answers true for this transaction. */
export function validateLikeClient(tx: ClientTransaction, config: ClientTokenConfig): boolean {
  try {
    return checkLikeClient(tx, config);
  } catch {
    return false;
  }
}

function checkLikeClient(tx: ClientTransaction, config: ClientTokenConfig): boolean {
  const isGenesis = tx.txid === config.tokenId.split('_')[0];
  const scripts = tx.outputs.map((o) => o.lockingScript);
  const cosigns = clientCosigns(scripts);
  const outputs: ReadOutput[] = scripts.map((script, r) => {
    const cosign = cosigns[r];
    const content = clientInscriptionContent(script);
    let inscription: unknown = null;
    if (content) {
      try {
        const text = clientUtf8(content);
        if (text) inscription = JSON.parse(text);
      } catch {
        // the client ignores unparsable inscription JSON here
      }
    }
    return { address: cosign?.address, cosigner: cosign?.cosigner, inscription };
  });
  const cosigned = outputs.some((o) => o.cosigner === config.approver);
  if (outputs.some((o) => o.cosigner !== '' && o.cosigner !== config.approver)) throw new Invalid();
  const tokenOutputs = outputs.filter((o) => {
    if (!truthy(o.inscription)) return false;
    if (jsonField(o.inscription, 'p') !== 'bsv-20') return false;
    if (!isGenesis && jsonField(o.inscription, 'id') !== config.tokenId) throw new Invalid();
    const amount = clientParseInt(jsonField(o.inscription, 'amt'), 10);
    if (amount === null || amount <= 0n) throw new Invalid();
    return true;
  });
  if (tokenOutputs.length === 0) throw new Invalid();
  const ops = new Set(tokenOutputs.map((o) => jsonField(o.inscription, 'op')));
  const redeem = tokenOutputs.some(
    (o) =>
      jsonField(o.inscription, 'op') === 'transfer' &&
      jsonField(jsonField(o.inscription, 'metadata'), 'action') === 'redeem',
  );
  const redeemToMint =
    redeem &&
    outputs.some((o) => o.address !== undefined && CLIENT_BUILTIN_MINT_ADDRESSES.includes(o.address));
  if (((ops.has('transfer') && !redeem) || ops.has('burn') || (redeem && !redeemToMint)) && !cosigned) {
    throw new Invalid();
  }
  return true;
}
