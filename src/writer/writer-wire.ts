// What api processes and the writer say to each other (docs/adr/0007-one-writer-per-deployment.md),
// as JSON: submissions (bytes as hex, amounts and satoshis as decimal strings, times as ISO
// strings), their verdicts, and ledger updates. The writer trusts only authenticated callers,
// and still decodes every field strictly: a malformed body is refused whole, never half written.
import type { TxStatus } from '../ledger/port.js';
import {
  CONFLICT_CODES,
  type ConflictCode,
  type NewTokenOutput,
  type Outpoint,
  type Submission,
  type SubmissionVerdict,
} from '../store/submissions/submission-writes.js';
import type { LedgerUpdate } from '../usecases/track/apply-ledger-status.js';

/** A body the writer cannot read: answered 400, nothing written. */
export class WireError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export function encodeSubmission(s: Submission): Json {
  return {
    ticketId: s.ticketId,
    txid: s.txid,
    submittedTxid: s.submittedTxid,
    rawTx: hexOf(s.rawTx),
    inputs: s.inputs.map((i) => ({ txid: i.txid, vout: i.vout })),
    funding: { txid: s.funding.txid, vout: s.funding.vout },
    leaseOwner: s.leaseOwner,
    outputs: s.outputs.map((o) => ({
      vout: o.vout,
      owner: o.owner,
      amount: o.amount.toString(),
      op: o.op,
      script: hexOf(o.script),
      satoshis: o.satoshis.toString(),
    })),
    senders: [...s.senders],
    receivers: [...s.receivers],
    callbackUrl: s.callbackUrl,
    callbackSecretEnc: s.callbackSecretEnc === null ? null : hexOf(s.callbackSecretEnc),
    apiKeyId: s.apiKeyId,
    ...(s.requestId != null && { requestId: s.requestId }),
    now: s.now.toISOString(),
    firstCheckAt: s.firstCheckAt.toISOString(),
  };
}

const OPS: readonly NewTokenOutput['op'][] = ['deploy+mint', 'transfer', 'burn'];
const HEX = /^(?:[0-9a-f]{2})*$/;
const DECIMAL = /^(?:0|[1-9][0-9]{0,29})$/;

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new WireError(`${what}: not an object`);
  return value as Record<string, unknown>;
}
function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new WireError(`${what}: not a string`);
  return value;
}
function textOrNull(value: unknown, what: string): string | null {
  return value === null ? null : text(value, what);
}
function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new WireError(`${what}: not an array`);
  return value;
}
function index(value: unknown, what: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new WireError(`${what}: not an index`);
  return value as number;
}
function bytes(value: unknown, what: string): Uint8Array {
  const hex = text(value, what);
  if (!HEX.test(hex)) throw new WireError(`${what}: not hex`);
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
function amount(value: unknown, what: string): bigint {
  const digits = text(value, what);
  if (!DECIMAL.test(digits)) throw new WireError(`${what}: not a decimal amount`);
  return BigInt(digits);
}
function time(value: unknown, what: string): Date {
  const at = new Date(text(value, what));
  if (Number.isNaN(at.getTime())) throw new WireError(`${what}: not a time`);
  return at;
}
function outpoint(value: unknown, what: string): Outpoint {
  const o = record(value, what);
  return { txid: text(o.txid, `${what}.txid`), vout: index(o.vout, `${what}.vout`) };
}
function texts(value: unknown, what: string): string[] {
  return list(value, what).map((v, i) => text(v, `${what}[${i}]`));
}

export function decodeSubmission(value: unknown): Submission {
  const s = record(value, 'submission');
  return {
    ticketId: text(s.ticketId, 'ticketId'),
    txid: text(s.txid, 'txid'),
    submittedTxid: text(s.submittedTxid, 'submittedTxid'),
    rawTx: bytes(s.rawTx, 'rawTx'),
    inputs: list(s.inputs, 'inputs').map((i, n) => outpoint(i, `inputs[${n}]`)),
    funding: outpoint(s.funding, 'funding'),
    leaseOwner: text(s.leaseOwner, 'leaseOwner'),
    outputs: list(s.outputs, 'outputs').map((v, n) => {
      const o = record(v, `outputs[${n}]`);
      const op = text(o.op, `outputs[${n}].op`) as NewTokenOutput['op'];
      if (!OPS.includes(op)) throw new WireError(`outputs[${n}].op: unknown`);
      return {
        vout: index(o.vout, `outputs[${n}].vout`),
        owner: text(o.owner, `outputs[${n}].owner`),
        amount: amount(o.amount, `outputs[${n}].amount`),
        op,
        script: bytes(o.script, `outputs[${n}].script`),
        satoshis: amount(o.satoshis, `outputs[${n}].satoshis`),
      };
    }),
    senders: texts(s.senders, 'senders'),
    receivers: texts(s.receivers, 'receivers'),
    callbackUrl: textOrNull(s.callbackUrl, 'callbackUrl'),
    callbackSecretEnc: s.callbackSecretEnc === null ? null : bytes(s.callbackSecretEnc, 'callbackSecretEnc'),
    apiKeyId: textOrNull(s.apiKeyId, 'apiKeyId'),
    // Absent when the submission has none (and from an api process older than the writer).
    ...(s.requestId != null && { requestId: text(s.requestId, 'requestId') }),
    now: time(s.now, 'now'),
    firstCheckAt: time(s.firstCheckAt, 'firstCheckAt'),
  };
}

const VERDICT_KINDS = ['created', 'duplicate', 'conflict', 'funding-lost'] as const;

/** A verdict as the writer answered it (plain JSON already; checked on the way in). */
export function decodeVerdict(value: unknown): SubmissionVerdict {
  const v = record(value, 'verdict');
  switch (v.kind as (typeof VERDICT_KINDS)[number]) {
    case 'created':
      return { kind: 'created' };
    case 'funding-lost':
      return { kind: 'funding-lost' };
    case 'duplicate':
      return { kind: 'duplicate', ticketId: text(v.ticketId, 'verdict.ticketId') };
    case 'conflict': {
      const code = text(v.code, 'verdict.code');
      if (!(CONFLICT_CODES as readonly string[]).includes(code)) throw new WireError('verdict.code: unknown');
      return { kind: 'conflict', code: code as ConflictCode, detail: text(v.detail, 'verdict.detail') };
    }
    default:
      throw new WireError('verdict.kind: unknown');
  }
}

const STATUS_KINDS: readonly TxStatus['kind'][] = ['unknown', 'mempool', 'mined', 'rejected', 'double-spend'];

/** A ledger update (plain JSON both ways): its status kind checked, the rest as TxStatus has it. */
export function decodeLedgerUpdate(value: unknown): LedgerUpdate {
  const u = record(value, 'update');
  const view = record(u.view, 'update.view');
  const status = record(view.status, 'update.view.status');
  if (!STATUS_KINDS.includes(status.kind as TxStatus['kind']))
    throw new WireError('update.view.status.kind: unknown');
  if (status.kind === 'mined') {
    text(status.blockHash, 'status.blockHash');
    index(status.height, 'status.height');
    index(status.index, 'status.index');
    index(status.blockTime, 'status.blockTime');
    text(status.merklePath, 'status.merklePath');
  }
  if (status.kind === 'rejected') text(status.reason, 'status.reason');
  if (status.kind === 'double-spend') texts(status.competingTxids, 'status.competingTxids');
  if (view.tipHeight !== undefined) index(view.tipHeight, 'update.view.tipHeight');
  return {
    txid: text(u.txid, 'update.txid'),
    view: {
      status: status as unknown as TxStatus,
      ...(view.tipHeight !== undefined && { tipHeight: view.tipHeight as number }),
      ...(view.fromBroadcast === true && { fromBroadcast: true }),
    },
  };
}
