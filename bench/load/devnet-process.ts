// The network's stand-in for the multi-process benchmarks: `tokenproxy devnet` in a process of its
// own, behind its ARC API, mining every second while its mempool holds anything, its genesis
// paying the operator's funding key. Returns the child and the flags a `tokenproxy start` (or the
// setup's composeParts) needs to use it: the database, the ARC URL, the genesis coin to deploy
// from, and the operator's keys. BENCH_DEVNET_PROFILE=<dir> writes the devnet's CPU profile there.
import { hash160 } from '../../src/crypto/hash.js';
import { p2pkhAddress } from '../../src/domain/address.js';
import { type Operator, operatorKeyFlags } from '../../test/support/operator-world.js';
import { type Child, startChild } from './processes.js';

const ENTRY = 'src/cli/entry.ts';
const PROFILE = process.env.BENCH_DEVNET_PROFILE;

export async function startDevnetProcess(
  operator: Operator,
  databaseUrl: string,
  genesisSatoshis: bigint,
): Promise<{ readonly devnet: Child; readonly serviceFlags: string[] }> {
  const fundingAddress = p2pkhAddress(hash160(operator.funding.publicKey));
  const devnet = await startChild(
    'devnet',
    ENTRY,
    [
      'devnet',
      '--port',
      '0',
      '--block-interval',
      '1000',
      '--genesis',
      `${fundingAddress}:${genesisSatoshis}`,
    ],
    /ARC API on http:\/\/\S+ .*genesis coinbase [0-9a-f]{64}/,
    undefined,
    PROFILE === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROFILE],
  );
  const coinbase = /genesis coinbase ([0-9a-f]{64})/.exec(devnet.announced)?.[1];
  if (coinbase === undefined) throw new Error('the devnet did not name its genesis coinbase');
  return {
    devnet,
    serviceFlags: [
      '--database-url',
      databaseUrl,
      '--arc-url',
      /(http:\/\/\S+)/.exec(devnet.announced)![1]!,
      '--genesis-funding',
      `${coinbase}_0:${genesisSatoshis}`,
      ...operatorKeyFlags(operator),
    ],
  };
}
