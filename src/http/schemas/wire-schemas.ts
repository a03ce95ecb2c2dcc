// The answers of the spec's resources (src/http/routes/wire.ts makes them) as TypeBox schemas,
// for the OpenAPI document: what a generated client types its results with. The frame
// serializes answers with JSON.stringify (app.ts), so these describe and never filter: the
// end-to-end suites validate every answer against them (test/e2e/openapi-answers.ts).
import { Type } from 'typebox';
import { TICKET_STATUSES } from '../../domain/ticket-state.js';

const Hex = (description: string) => Type.String({ pattern: '^[0-9a-f]*$', description });
const Base64 = (description: string) => Type.String({ description: `${description}, base64` });
const Atomic = (description = 'Atomic units') => Type.Integer({ minimum: 0, description });
const Time = Type.String({ format: 'date-time' });

export const TokenConfigSchema = Type.Object(
  {
    approver: Hex('Compressed public key of the cosigner (hex)'),
    decimals: Type.Integer({ minimum: 0 }),
    feeAddress: Type.String(),
    burnAddress: Type.String(),
    mintAddress: Type.String(),
    fees: Type.Array(
      Type.Object({
        fee: Atomic('Fee of a transfer of min..max atomic units'),
        min: Atomic(),
        max: Atomic(),
      }),
      { description: 'Fee tiers by amount sent' },
    ),
    tokenId: Type.String({ description: '<deploy txid>_<vout>' }),
    paused: Type.Optional(
      Type.Boolean({
        description:
          'True while the issuer has paused transfers (403 TRANSFERS_PAUSED); up to a second stale. The reference client ignores it',
      }),
    ),
  },
  {
    $id: 'TokenConfig',
    description: 'The token configuration (spec 2.1)',
    examples: [
      {
        approver: '02bed35e894cc41cc9879b4002ad03d33533b615c1b476068c8dd6822a09f93f6c',
        decimals: 5,
        feeAddress: '1FeeAddressxxxxxxxxxxxxxxxxxxxxxxx',
        burnAddress: '1BurnAddressxxxxxxxxxxxxxxxxxxxxxx',
        mintAddress: '1AZNdbFYBDFTAEgzZMfPzANxyNrpGJZAUY',
        fees: [{ fee: 1000, min: 0, max: 1000000 }],
        tokenId: '833a7720966a2a435db28d967385e8aa7284b6150ebb39482cc5228b73e1703f_0',
      },
    ],
  },
);

export const SyncRecordSchema = Type.Object(
  {
    blkHash: Type.String({ description: "Block hash; '' when unmined" }),
    blkTime: Type.Integer({ description: 'Block time (s); 0 when unmined' }),
    height: Type.Integer({ description: 'Block height; 0 when unmined' }),
    idx: Type.Integer({ description: 'Index in the block' }),
    outs: Type.Array(Type.Integer(), { description: 'Token output indexes' }),
    rawtx: Base64('The transaction'),
    receivers: Type.Array(Type.String()),
    score: Type.Integer({ minimum: 0, description: 'Change-feed score: page on it' }),
    senders: Type.Array(Type.String()),
    txid: Type.String(),
  },
  {
    $id: 'SyncRecord',
    description: 'A change-feed record (spec 2.2)',
    examples: [
      {
        blkHash: '000000000000000004f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d',
        blkTime: 1763900000,
        height: 912345,
        idx: 3,
        outs: [0, 1, 2],
        rawtx: 'AQAAAAG...',
        receivers: ['1BobxxxxxxxxxxxxxxxxxxxxxxxxxxxxxX', '1FeeAddressxxxxxxxxxxxxxxxxxxxxxxx'],
        score: 1042,
        senders: ['1AlicexxxxxxxxxxxxxxxxxxxxxxxxxxxX'],
        txid: '5f2a1c3e4b6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708',
      },
    ],
  },
);

export const UtxoSchema = Type.Object(
  {
    data: Type.Object({
      bsv21: Type.Object({
        amt: Atomic(),
        dec: Type.Integer(),
        icon: Type.String(),
        id: Type.String({ description: 'Token ID' }),
        op: Type.String({ description: 'deploy+mint or transfer' }),
        sym: Type.String(),
        p: Type.Literal('bsv-20'),
      }),
      cosign: Type.Object({ address: Type.String(), cosigner: Hex('Cosigner public key') }),
    }),
    height: Type.Integer(),
    idx: Type.Integer(),
    outpoint: Type.String({ description: '<txid>_<vout>' }),
    owners: Type.Array(Type.String()),
    satoshis: Atomic('Satoshis of the output'),
    score: Type.Integer({ minimum: 0 }),
    script: Base64('Locking script'),
    txid: Type.String(),
    vout: Type.Integer({ minimum: 0 }),
  },
  {
    $id: 'Utxo',
    description: 'An unspent token output (spec 2.3)',
    examples: [
      {
        data: {
          bsv21: {
            amt: 1250000,
            dec: 5,
            icon: '',
            id: '833a7720966a2a435db28d967385e8aa7284b6150ebb39482cc5228b73e1703f_0',
            op: 'transfer',
            sym: 'TPX',
            p: 'bsv-20',
          },
          cosign: {
            address: '1AlicexxxxxxxxxxxxxxxxxxxxxxxxxxxX',
            cosigner: '02bed35e894cc41cc9879b4002ad03d33533b615c1b476068c8dd6822a09f93f6c',
          },
        },
        height: 912345,
        idx: 3,
        outpoint: `${'5f2a1c3e4b6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708'}_0`,
        owners: ['1AlicexxxxxxxxxxxxxxxxxxxxxxxxxxxX'],
        satoshis: 1,
        score: 1042,
        script: 'AGMDb3JkURJ...',
        txid: '5f2a1c3e4b6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708',
        vout: 0,
      },
    ],
  },
);

export const RawTxSchema = Type.Object(
  { rawtx: Base64('The transaction') },
  { $id: 'RawTx', description: 'A raw transaction' },
);

export const TicketIdSchema = Type.Object(
  { ticketId: Type.String({ format: 'uuid' }) },
  { $id: 'TicketId', examples: [{ ticketId: '3f1c7a0e-8a52-4c8e-9d0b-6f1e2a3b4c5d' }] },
);

export const TicketSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    tx_id: Type.String(),
    tx_hex: Hex('The cosigned transaction'),
    action_requested: Type.Literal('transfer'),
    status: Type.Enum([...TICKET_STATUSES]),
    callback_url: Type.Optional(Type.String({ description: 'Callback URL; empty when none' })),
    createdAt: Time,
    updatedAt: Time,
    errors: Type.Union([Type.String(), Type.Null()]),
    merklePath: Type.Optional(
      Type.String({ description: 'MINED only: the merkle path of tx_id in its block, BUMP (BRC-74) hex' }),
    ),
  },
  {
    $id: 'Ticket',
    description: 'A ticket (spec 2.5)',
    examples: [
      {
        id: '3f1c7a0e-8a52-4c8e-9d0b-6f1e2a3b4c5d',
        tx_id: '5f2a1c3e4b6d7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708',
        tx_hex: '0100000002...',
        action_requested: 'transfer',
        status: 'MINED',
        callback_url: '',
        createdAt: '2026-11-23T10:00:00.000Z',
        updatedAt: '2026-11-23T10:00:12.000Z',
        errors: null,
      },
    ],
  },
);

/** Registered once by buildApp (`app.addSchema`); routes refer to them by `$id` (Type.Ref). */
export const WIRE_SCHEMAS = [
  TokenConfigSchema,
  SyncRecordSchema,
  UtxoSchema,
  RawTxSchema,
  TicketIdSchema,
  TicketSchema,
];
