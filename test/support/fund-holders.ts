// Tokens for test wallets on a running service: mints to each holder, mines a block and waits
// until every holder's outputs are listed (read with `key`).
import { apiContextOf } from '../../src/compose.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { utxosOf } from '../e2e/e2e-http.js';
import { eventually, type TestService } from '../e2e/support.js';
import type { Party } from './token-world.js';

export async function fundHolders(
  t: TestService,
  key: string,
  holders: readonly Party[],
  amount: bigint,
): Promise<void> {
  const { parts } = t.service;
  for (const h of holders) await mintTokens(apiContextOf(parts), parts.keys.mint, { to: h.address, amount });
  await parts.devnet!.mine(1);
  for (const h of holders)
    await eventually(
      async () => ((await utxosOf(t.url, key, h.address)).length > 0 ? true : undefined),
      'minted',
    );
}
