// SPV for wallets (docs/clients.md, "Proofs a wallet can check"): a transaction as Atomic BEEF
// (BRC-95) with its unproven ancestors back to mined ones, a mined transaction's merkle path
// (BUMP, BRC-74), the BEEF of many unspent outputs in one request, and the block headers the
// service has seen (for a chain tracker; a careful wallet checks roots against headers of its own).
import { Type } from 'typebox';
import { isValidAddress } from '../../domain/address.js';
import { currentHeaders } from '../../store/proofs/merkle-proofs.js';
import { tokenOutputsByOutpoint, unspentOutputs } from '../../store/wallets/wallet-queries.js';
import { atomicBeefOf, proofOf, SpvError } from '../../usecases/spv/spv-proofs.js';
import type { AppInstance } from '../app.js';
import { AppError } from '../app-error.js';
import { authTokenQuery, problemResponses } from '../schemas/common.js';
import type { RouteDeps } from './route-deps.js';

/** Outputs answered by one POST /v2/beef. */
export const MAX_BEEF_OUTPUTS = 100;
const TXID = /^[0-9a-fA-F]{64}$/;
const EXAMPLE_TXID = 'a3f1c2d4e5b6a7980123456789abcdef0123456789abcdef0123456789abcdef';
const read = { scope: 'read' as const };
const query = Type.Object(authTokenQuery);
const TxidParams = Type.Object({ txid: Type.String({ description: 'Transaction ID (64 hex digits)' }) });

const Beef = Type.String({
  pattern: '^[0-9a-f]+$',
  description: 'Atomic BEEF (BRC-95), hex: read it with Transaction.fromAtomicBEEF (@bsv/sdk)',
});
const BeefAnswer = Type.Object(
  { txid: Type.String(), beef: Beef },
  { examples: [{ txid: EXAMPLE_TXID, beef: '01010101a3f1…0200beef01fe…' }] },
);
const ProofAnswer = Type.Object(
  {
    txid: Type.String(),
    blockHash: Type.String(),
    height: Type.Integer(),
    merklePath: Type.String({ description: 'BUMP (BRC-74), hex' }),
    merkleRoot: Type.String({ description: 'The root the path computes (the block header holds it)' }),
  },
  {
    examples: [
      { txid: EXAMPLE_TXID, blockHash: '00ab…', height: 812, merklePath: 'fe2c0300…', merkleRoot: '5e1f…' },
    ],
  },
);
const BeefBody = Type.Object(
  {
    outpoints: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9a-fA-F]{64}_[0-9]{1,6}$' }), {
        minItems: 1,
        maxItems: MAX_BEEF_OUTPUTS,
        description: 'Outpoints as <txid>_<vout>',
      }),
    ),
    address: Type.Optional(
      Type.String({ description: 'An address: its unspent token outputs (the first 100 by score)' }),
    ),
  },
  { additionalProperties: false, examples: [{ address: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT' }] },
);
const BeefListAnswer = Type.Object(
  {
    outputs: Type.Array(
      Type.Object({ outpoint: Type.String(), txid: Type.String(), vout: Type.Integer(), beef: Beef }),
    ),
  },
  {
    examples: [
      { outputs: [{ outpoint: `${EXAMPLE_TXID}_0`, txid: EXAMPLE_TXID, vout: 0, beef: '01010101…' }] },
    ],
  },
);
const HeadersAnswer = Type.Object(
  {
    tip: Type.Object({ height: Type.Integer(), hash: Type.String() }),
    headers: Type.Array(
      Type.Object({ height: Type.Integer(), hash: Type.String(), merkleRoot: Type.String() }),
    ),
  },
  {
    examples: [
      { tip: { height: 815, hash: '00cd…' }, headers: [{ height: 812, hash: '00ab…', merkleRoot: '5e1f…' }] },
    ],
  },
);

export function spvRoutes(deps: RouteDeps) {
  const { ctx } = deps;
  const beefOf = async (txid: string) => {
    try {
      return await atomicBeefOf(ctx, txid);
    } catch (err) {
      if (err instanceof SpvError && err.kind === 'not-found') throw new AppError('NOT_FOUND', err.message);
      if (err instanceof SpvError && err.kind === 'failed') throw new AppError('TX_FAILED', err.message);
      if (err instanceof SpvError) throw new AppError('BEEF_TOO_DEEP', err.message);
      throw err;
    }
  };
  const txidOf = (txid: string) => {
    if (!TXID.test(txid)) throw new AppError('INVALID_TXID', `invalid transaction ID: ${txid}`);
    return txid.toLowerCase();
  };

  return (app: AppInstance) => {
    app.get(
      '/v2/tx/:txid/beef',
      {
        config: read,
        schema: {
          summary: 'A transaction as Atomic BEEF, its ancestors back to mined ones',
          params: TxidParams,
          querystring: query,
          response: { 200: BeefAnswer, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const txid = txidOf(request.params.txid);
        return { txid, beef: await beefOf(txid) };
      },
    );

    app.get(
      '/v2/tx/:txid/proof',
      {
        config: read,
        schema: {
          summary: "A mined transaction's merkle path (BUMP)",
          params: TxidParams,
          querystring: query,
          response: { 200: ProofAnswer, ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const txid = txidOf(request.params.txid);
        const proof = await proofOf(ctx, txid);
        if (proof === null) throw new AppError('NOT_FOUND', `transaction ${txid} is not mined`);
        return proof;
      },
    );

    app.post(
      '/v2/beef',
      {
        config: read,
        schema: {
          summary: 'Atomic BEEF of many unspent outputs: a list of outpoints, or an address',
          body: BeefBody,
          querystring: query,
          response: { 200: BeefListAnswer, ...problemResponses(400, 404, 422) },
        },
      },
      async (request) => {
        const { outpoints, address } = request.body;
        if ((outpoints === undefined) === (address === undefined))
          throw new AppError('INVALID_PARAMETER', 'give either outpoints or an address');
        let wanted: { txid: string; vout: number }[];
        if (address !== undefined) {
          if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
          const outputs = await unspentOutputs(ctx.db, {
            addresses: [address],
            page: 1,
            size: MAX_BEEF_OUTPUTS,
            order: 'asc',
          });
          wanted = outputs.map((o) => ({ txid: o.txid, vout: o.vout }));
        } else {
          wanted = outpoints!.map((o) => {
            const [txid, vout] = o.split('_');
            return { txid: txid!.toLowerCase(), vout: Number(vout) };
          });
          // A BEEF proves a transaction; the outpoint it is answered for must be one of the token's.
          const known = await tokenOutputsByOutpoint(
            ctx.db,
            wanted.map((w) => `${w.txid}_${w.vout}`),
          );
          const unknown = wanted.find((w) => !known.has(`${w.txid}_${w.vout}`));
          if (unknown !== undefined)
            throw new AppError('NOT_FOUND', `${unknown.txid}_${unknown.vout} is no output of this token`);
        }
        const byTx = new Map<string, Promise<string>>();
        const outputs = [];
        for (const w of wanted) {
          if (!byTx.has(w.txid)) byTx.set(w.txid, beefOf(w.txid));
          outputs.push({
            outpoint: `${w.txid}_${w.vout}`,
            txid: w.txid,
            vout: w.vout,
            beef: await byTx.get(w.txid)!,
          });
        }
        return { outputs };
      },
    );

    app.get(
      '/v2/headers',
      {
        config: read,
        schema: {
          summary: 'Block headers the service has seen (heights, hashes, merkle roots)',
          querystring: Type.Object({
            ...authTokenQuery,
            from: Type.Optional(
              // Heights are kept as int4: a larger one is a bad request, not a database error.
              Type.Integer({
                minimum: 0,
                maximum: 2_147_483_647,
                description: 'Lowest height answered',
                examples: [0],
              }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
          }),
          response: { 200: HeadersAnswer, ...problemResponses(400) },
        },
      },
      async (request) => {
        const { from = 0, limit = 100 } = request.query;
        const [tip, headers] = await Promise.all([ctx.ledger.tip(), currentHeaders(ctx.db, from, limit)]);
        return { tip: { height: tip.height, hash: tip.hash }, headers };
      },
    );
  };
}
