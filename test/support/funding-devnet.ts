// A devnet whose genesis pays one coin of 50,000,000 satoshis to the funding key's script, at a
// fee rate of 100 satoshis a kB, mining on demand: opened before the calling suite's tests and
// closed after them; and one refill of the pool on it. For tests of the funding key's own
// transactions (the pool's splits).
import { after, before } from 'node:test';
import { createDevnet, type Devnet } from '../../src/ledger/devnet/devnet.js';
import type { Ledger } from '../../src/ledger/port.js';
import type { Db } from '../../src/store/db/db.js';
import { refillFundingPool } from '../../src/usecases/funding/pool-refill.js';

/** Registers the suite's hooks; answers the devnet (once the suite's `before` hooks ran). */
export function fundingDevnet(fundingScript: Uint8Array): () => Devnet {
  let devnet: Devnet | undefined;
  before(async () => {
    devnet = await createDevnet({
      genesis: [{ lockingScript: fundingScript, satoshis: 50_000_000n }],
      blockIntervalMs: 0,
      feeRateSatPerKb: 100n,
    });
  });
  after(async () => {
    await devnet?.close();
  });
  return () => {
    if (devnet === undefined) throw new Error('the funding devnet is opened in a before hook');
    return devnet;
  };
}

/** One refill of the pool by `fundingKey` at 100 satoshis a kB, into `outputs` pool outputs: the split's txid, or null. */
export function splitOnce(
  db: Db,
  ledger: Ledger,
  fundingKey: Uint8Array,
  outputs = 100,
): Promise<string | null> {
  return refillFundingPool(
    {
      db,
      ledger,
      fundingKey,
      feeRate: async () => 100n,
      now: () => new Date(),
      log: { info() {}, warn() {}, error() {} },
    },
    outputs,
  );
}
