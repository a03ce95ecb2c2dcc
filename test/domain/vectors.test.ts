// The real transactions of the token this API was first built for: our strict reading of
// token outputs agrees with the reference client's own reading of the same scripts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import Mnee from '@mnee/ts-sdk';
import { p2pkhAddress } from '../../src/domain/address.js';
import { toHex } from '../../src/domain/script-chunks.js';
import { parseTokenScript } from '../../src/domain/token-script.js';

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/mnee-real-transactions.json', import.meta.url), 'utf8'),
) as Record<string, string | string[]>;
const all = Object.entries(vectors)
  .filter(([k]) => !['source', 'note'].includes(k))
  .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((hex, i) => ({ name: `${k}[${i}]`, hex })));

describe('real transaction vectors', () => {
  const client = offlineClient();

  for (const { name, hex } of all) {
    it(`${name}: token outputs read the same as the client reads them`, () => {
      const tx = Transaction.fromHex(hex);
      for (const [vout, output] of tx.outputs.entries()) {
        const ours = parseTokenScript(output.lockingScript.toUint8Array());
        const script = client.parseCosignerScripts([output.lockingScript as never])[0];
        const inscription = client.parseInscription(output.lockingScript as never);
        const json = inscription?.file?.content
          ? JSON.parse(Buffer.from(inscription.file.content).toString('utf8'))
          : null;
        const clientSeesCosignedToken =
          json?.p === 'bsv-20' && script !== undefined && script.cosigner !== '';
        assert.equal(ours !== null, clientSeesCosignedToken, `${name} output ${vout}`);
        if (ours === null || script === undefined) continue;
        assert.equal(p2pkhAddress(ours.ownerPkh), script.address);
        assert.equal(toHex(ours.approver), script.cosigner);
        assert.equal(ours.inscription.op, json.op);
        assert.equal(ours.inscription.amt, BigInt(json.amt));
      }
    });
  }

  it('recognises the complete cosigned transfer and the burn', () => {
    const transfer = Transaction.fromHex((vectors.clientValid as string[])[1]!);
    const amounts = transfer.outputs.map(
      (o) => parseTokenScript(o.lockingScript.toUint8Array())?.inscription.amt,
    );
    assert.deepEqual(amounts, [50000n, 100000n, 25000n, 10000n, 100n, 272775n]);
    const burn = Transaction.fromHex(vectors.sandboxBurn as string);
    assert.equal(parseTokenScript(burn.outputs[0]!.lockingScript.toUint8Array())?.inscription.op, 'burn');
  });
});

/** The client fetches its config when constructed: answer that one call locally. */
function offlineClient(): Mnee {
  const original = globalThis.fetch;
  globalThis.fetch = async () => new Response('{}', { status: 503 });
  try {
    return new Mnee({ environment: 'sandbox', apiKey: 'offline' });
  } finally {
    globalThis.fetch = original;
  }
}
