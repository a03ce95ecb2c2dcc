// First start: deploy the token (`deploy+mint` of the whole supply to the mint address,
// cosign-locked) from a coin of the funding key, record it in the index, and keep the rest of
// the coin as the funding pool's reserve. On the embedded devnet the coin is its genesis and the
// deploy is mined at once; on a real ledger (ARC) the operator names the coin, and the deploy is
// tracked to MINED by a ticket like any transfer. Built deterministically, so a restart after a
// crash sends the same transaction again.
//
// Several instances may start at once on an empty PostgreSQL database: deploy-or-load runs in
// one transaction that first takes an advisory lock, so exactly one instance broadcasts and
// records the deploy and the others, once it commits, find the token it recorded.
import { Transaction } from '@bsv/sdk';
import { hash160 } from '../../crypto/hash.js';
import { lockingScriptOf } from '../../crypto/script-objects.js';
import { publicKeyOf } from '../../crypto/secp256k1.js';
import { pubKeyHashOf } from '../../domain/address.js';
import { networkFee } from '../../domain/network-fee.js';
import { bytesEqual, toHex } from '../../domain/script-chunks.js';
import { signP2pkhInputs } from '../../domain/sign-p2pkh.js';
import { buildP2pkhScript, buildTokenScript } from '../../domain/token-script.js';
import type { OperatorAddresses, OperatorKeys } from '../../keys/operator-keys.js';
import type { Devnet } from '../../ledger/devnet/devnet.js';
import type { Ledger } from '../../ledger/port.js';
import { holdTransactionLock } from '../../store/db/advisory-lock.js';
import type { Db, Queryable } from '../../store/db/db.js';
import { insertFeedRecord } from '../../store/feed/feed-records.js';
import { nextScores } from '../../store/feed/score.js';
import { addReserveOutputs } from '../../store/funding/funding-reserve.js';
import { readSetting, writeSetting } from '../../store/settings.js';
import { insertOwnTicket } from '../../store/tickets/ticket-writes.js';

export interface TokenSettings {
  readonly tokenId: string;
  readonly approver: string;
  readonly mintAddress: string;
  readonly feeAddress: string;
  readonly burnAddress: string;
  readonly fundingAddress: string;
  readonly supply: string;
  readonly symbol: string;
  readonly icon: string;
  readonly decimals: number;
}

export const TOKEN_SETTING = 'token';

/** Advisory lock key held while a start deploys or loads the token (unique to this use). */
export const DEPLOY_LOCK_KEY = 7_364_821_003;

export interface TokenDefinition {
  readonly supply: bigint;
  readonly symbol: string;
  readonly icon: string;
  readonly decimals: number;
}

export function loadTokenSettings(db: Db): Promise<TokenSettings | null> {
  return readSetting<TokenSettings>(db, TOKEN_SETTING);
}

export interface FundingCoin {
  readonly txid: string;
  readonly vout: number;
  readonly satoshis: bigint;
}

export interface DeployDeps {
  readonly db: Db;
  readonly ledger: Ledger;
  readonly keys: OperatorKeys;
  readonly addresses: OperatorAddresses;
  readonly feeRate: bigint;
  readonly now: () => Date;
  readonly newId: () => string;
}

/** The devnet's biggest coin of the funding key (its genesis output). */
export function devnetFundingCoin(devnet: Devnet, fundingKey: Uint8Array): FundingCoin {
  const fundingScript = buildP2pkhScript(hash160(publicKeyOf(fundingKey)));
  const coin = devnet
    .utxos()
    .filter((u) => bytesEqual(u.lockingScript, fundingScript))
    .sort((a, b) => (a.satoshis > b.satoshis ? -1 : 1))[0];
  if (coin === undefined)
    throw new Error('the devnet holds no coin of the funding key to deploy the token with');
  return coin;
}

export interface LoadedToken {
  readonly settings: TokenSettings;
  /** True when this call deployed it (false: it was recorded already, by this or another instance). */
  readonly deployed: boolean;
}

/**
 * The recorded token, or, when none is recorded yet, the token deployed now from `coinOf()`
 * (asked for only then). Under the deploy lock, so concurrent starts deploy it once.
 */
export function loadOrDeployToken(
  deps: DeployDeps,
  token: TokenDefinition,
  coinOf: () => FundingCoin,
): Promise<LoadedToken> {
  return deps.db.transaction(async (q) => {
    await holdTransactionLock(q, DEPLOY_LOCK_KEY);
    const found = await readSetting<TokenSettings>(q, TOKEN_SETTING);
    if (found !== null) return { settings: found, deployed: false };
    return { settings: await deployToken(q, deps, token, coinOf()), deployed: true };
  });
}

/** Broadcasts the deploy and records it through `q` (a transaction holding the deploy lock). */
async function deployToken(
  q: Queryable,
  deps: DeployDeps,
  token: TokenDefinition,
  coin: FundingCoin,
): Promise<TokenSettings> {
  const { keys, addresses } = deps;
  const fundingScript = buildP2pkhScript(hash160(publicKeyOf(keys.funding)));
  const mintPkh = pubKeyHashOf(addresses.mintAddress)!;
  const tokenScript = buildTokenScript({
    inscription: {
      op: 'deploy+mint',
      amt: token.supply,
      dec: token.decimals,
      sym: token.symbol,
      icon: token.icon,
    },
    ownerPkh: mintPkh,
    approver: addresses.approverPublicKey,
  });
  const tx = new Transaction(1, [], [], 0);
  tx.addInput({ sourceTXID: coin.txid, sourceOutputIndex: coin.vout, sequence: 0xffffffff });
  tx.addOutput({ satoshis: 1, lockingScript: lockingScriptOf(tokenScript) });
  const reserve = coin.satoshis - 1n - networkFee(tokenScript.length + 250, deps.feeRate);
  if (reserve < 1000n)
    throw new Error(`the funding coin holds ${coin.satoshis} satoshis: too little to deploy and fund`);
  tx.addOutput({ satoshis: Number(reserve), lockingScript: lockingScriptOf(fundingScript) });
  signP2pkhInputs(tx, [{ lockingScript: fundingScript, satoshis: coin.satoshis }], keys.funding);

  const raw = tx.toUint8Array();
  const result = await deps.ledger.broadcast(raw);
  if (!result.ok) throw new Error(`the ledger refused the token deploy: ${result.reason}`);
  const txid = tx.id('hex');
  const settings: TokenSettings = {
    tokenId: `${txid}_0`,
    approver: toHex(addresses.approverPublicKey),
    mintAddress: addresses.mintAddress,
    feeAddress: addresses.feeAddress,
    burnAddress: addresses.burnAddress,
    fundingAddress: addresses.fundingAddress,
    supply: token.supply.toString(),
    symbol: token.symbol,
    icon: token.icon,
    decimals: token.decimals,
  };
  const now = deps.now();
  await writeSetting(q, TOKEN_SETTING, settings, now);
  await addReserveOutputs(q, [{ txid, vout: 1, satoshis: reserve }], 'deploy', now);
  // A ticket follows the deploy to MINED (and records its block), as for any transfer.
  await insertOwnTicket(q, { id: deps.newId(), txid, rawTx: raw, now });
  const [score] = await nextScores(q, 1);
  await insertFeedRecord(q, {
    txid,
    rawTx: raw,
    senders: [],
    receivers: [addresses.mintAddress],
    outputs: [
      {
        vout: 0,
        owner: addresses.mintAddress,
        amount: token.supply,
        op: 'deploy+mint',
        script: tokenScript,
        satoshis: 1n,
      },
    ],
    state: 'unconfirmed',
    score: score!,
    now,
  });
  return settings;
}
