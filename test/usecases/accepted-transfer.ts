// A transfer the ledger accepted, on a running test service: tokens minted to a holder of
// `label`, mined, then one transfer of them submitted over HTTP and awaited until its ticket is
// SUCCESS. For the suites that then make the service or the ledger change their mind about it.
import { apiContextOf } from '../../src/compose.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { http, ticketIdOf, transferOf, utxosOf } from '../e2e/e2e-http.js';
import { eventually, type TestService } from '../e2e/support.js';
import { party } from '../support/token-world.js';

/**
 * Returns the ticket ID and the transaction's txid once the ticket is SUCCESS; `extra` joins
 * the transfer's body (a `callback_url`, say).
 */
export async function acceptedTransfer(
  t: TestService,
  label: string,
  extra: Readonly<Record<string, string>> = {},
): Promise<{ ticket: string; txid: string }> {
  const { parts } = t.service;
  const holder = party(label);
  const { key } = await createApiKey(parts.db, parts.masterKey, { name: 'w', scopes: ['read', 'submit'] });
  await mintTokens(apiContextOf(parts), parts.keys.mint, { to: holder.address, amount: 50_000n });
  await parts.devnet!.mine(1);
  const [output] = await eventually(async () => {
    const found = await utxosOf(t.url, key, holder.address);
    return found.length === 1 ? found : undefined;
  }, 'the minted output');
  const rawtx = transferOf(parts.ctx.token, {
    from: holder,
    inputs: [output!],
    to: party(`${label} recipient`),
    amount: 1_000n,
    fee: 100n,
  });
  const answer = await http(t.url, 'POST', '/v2/transfer', { key, body: { ...extra, rawtx } });
  const ticket = ticketIdOf(answer);
  const row = await eventually(async () => {
    const [r] = await parts.db.query<{ txid: string; status: string }>(
      'SELECT txid, status FROM tickets WHERE id = $1',
      [ticket],
    );
    return r?.status === 'SUCCESS' ? r : undefined;
  }, 'the ledger took it');
  return { ticket, txid: row.txid };
}
