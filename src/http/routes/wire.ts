// The wire shapes of the spec's resources (section 2), made from the store's records.
// Amounts leave as JSON numbers here and only here, checked to be exact.
import { toJsonNumber } from '../../domain/amount.js';
import { toHex } from '../../domain/script-chunks.js';
import type { TokenConfig } from '../../domain/token-config.js';
import type { SyncRecord } from '../../store/feed/feed-queries.js';
import type { UnspentOutput } from '../../store/wallets/wallet-queries.js';

const base64 = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export function syncRecordJson(r: SyncRecord) {
  return {
    blkHash: r.blkHash,
    blkTime: r.blkTime,
    height: r.height,
    idx: r.idx,
    outs: [...r.outs],
    rawtx: base64(r.rawTx),
    receivers: [...r.receivers],
    score: toJsonNumber(r.score),
    senders: [...r.senders],
    txid: r.txid,
  };
}

export function utxoJson(o: UnspentOutput, token: TokenConfig) {
  return {
    data: {
      bsv21: {
        amt: toJsonNumber(o.amount),
        dec: token.decimals,
        icon: token.icon,
        id: token.tokenId,
        op: o.op,
        sym: token.symbol,
        p: 'bsv-20',
      },
      cosign: { address: o.owner, cosigner: toHex(token.approver) },
    },
    height: o.height,
    idx: o.idx,
    outpoint: `${o.txid}_${o.vout}`,
    owners: [o.owner],
    satoshis: toJsonNumber(o.satoshis),
    score: toJsonNumber(o.score),
    script: base64(o.script),
    txid: o.txid,
    vout: o.vout,
  };
}

export function configJson(token: TokenConfig) {
  const capped = (n: bigint) =>
    toJsonNumber(n > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : n);
  return {
    approver: toHex(token.approver),
    decimals: token.decimals,
    feeAddress: token.feeAddress,
    burnAddress: token.burnAddress,
    mintAddress: token.mintAddress,
    fees: token.feeTiers.map((t) => ({ fee: capped(t.fee), min: capped(t.min), max: capped(t.max) })),
    tokenId: token.tokenId,
  };
}

export { base64 };
