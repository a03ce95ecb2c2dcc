// Raw HTTP against a running tokenproxy for the end-to-end tests: requests over a real
// socket, problem-body checks, a holder's UTXOs as the token core sees them, and hand-built
// transfers of those UTXOs (test/support/build-transfer.ts).
import assert from 'node:assert/strict';
import { pubKeyHashOf } from '../../src/domain/address.js';
import type { KnownTokenOutput } from '../../src/domain/validate-transfer.js';
import { buildTransfer, type OutputSpec, tokenOutput } from '../support/build-transfer.js';
import type { Party } from '../support/token-world.js';
import { checkAnswer } from './openapi-answers.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface RequestOptions {
  /** A value sent as JSON, or a string sent as it is. */
  readonly body?: unknown;
  readonly key?: string;
  readonly headers?: Record<string, string>;
}

/**
 * One request; a 500 is never acceptable, so it fails the test wherever it happens, and so does
 * an answer the OpenAPI document does not describe (openapi-answers.ts).
 */
export async function http(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  assert.notEqual(res.status, 500, `${method} ${path} answered 500: ${text}`);
  await checkAnswer(baseUrl, method, path, res.status, res.headers.get('content-type'), text);
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * The ticket ID a 200 of POST /v2/transfer carries: `{"ticketId"}` as JSON, or the bare ID as
 * text (to callers that send their key as `auth_token`, or ask for text/plain).
 */
export function ticketIdOf(answer: Pick<HttpAnswer, 'status' | 'text' | 'json'>): string {
  assert.equal(answer.status, 200, answer.text);
  const ticketId = (answer.json as { ticketId?: unknown } | undefined)?.ticketId;
  return typeof ticketId === 'string' ? ticketId : answer.text;
}

/** Asserts an RFC 9457 problem of this status and code; returns its detail. */
export function assertProblem(
  answer: HttpAnswer,
  status: number,
  code: string,
  detail?: RegExp | string,
): string {
  assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status}: ${answer.text}`);
  assert.equal(answer.headers.get('content-type'), 'application/problem+json');
  const problem = answer.json as Record<string, unknown>;
  assert.equal(typeof problem, 'object');
  assert.equal(problem.code, code, answer.text);
  assert.equal(problem.status, status);
  assert.equal(problem.type, `https://tokenproxy.dev/errors/${code}`);
  assert.equal(typeof problem.title, 'string');
  assert.ok((problem.title as string).length > 0);
  assert.equal(typeof problem.detail, 'string');
  assert.equal(problem.message, problem.detail, 'message repeats detail');
  if (typeof detail === 'string') assert.equal(problem.detail, detail);
  else if (detail !== undefined) assert.match(problem.detail as string, detail);
  return problem.detail as string;
}

interface WireUtxo {
  txid: string;
  vout: number;
  script: string;
  satoshis: number;
  owners: string[];
  data: { bsv21: { amt: number; op: string } };
}

/** A holder's spendable token outputs as the service lists them (POST /v2/utxos), oldest first. */
export async function utxosOf(baseUrl: string, key: string, address: string): Promise<KnownTokenOutput[]> {
  const answer = await http(baseUrl, 'POST', '/v2/utxos?size=1000', { key, body: [address] });
  assert.equal(answer.status, 200, answer.text);
  return (answer.json as WireUtxo[]).map((u) => ({
    txid: u.txid,
    vout: u.vout,
    owner: address,
    amount: BigInt(u.data.bsv21.amt),
    op: u.data.bsv21.op as KnownTokenOutput['op'],
    lockingScript: new Uint8Array(Buffer.from(u.script, 'base64')),
    satoshis: BigInt(u.satoshis),
    state: 'unspent',
  }));
}

export interface TokenFacts {
  readonly tokenId: string;
  readonly approver: Uint8Array;
  readonly feeAddress: string;
}

export interface TransferPlan {
  readonly from: Party;
  readonly inputs: readonly KnownTokenOutput[];
  readonly to: Party;
  readonly amount: bigint;
  readonly fee: bigint;
  /** Added to the change output (non-zero: tokens not conserved). */
  readonly changeSkew?: bigint;
  readonly signer?: Party;
  readonly lockTime?: number;
  /** Outputs appended after the token outputs. */
  readonly extraOutputs?: readonly OutputSpec[];
}

/** A signed transfer of `amount` to `to`, `fee` to the fee address and the change back, base64. */
export function transferOf(token: TokenFacts, plan: TransferPlan): string {
  const feePkh = addressPkh(token.feeAddress);
  const total = plan.inputs.reduce((sum, o) => sum + o.amount, 0n);
  const change = total - plan.amount - plan.fee + (plan.changeSkew ?? 0n);
  const out = (owner: Party | Uint8Array, amt: bigint) =>
    tokenOutput(owner, amt, token.tokenId, token.approver);
  const outputs: OutputSpec[] = [out(plan.to, plan.amount), out(feePkh, plan.fee)];
  if (change > 0n) outputs.push(out(plan.from, change));
  outputs.push(...(plan.extraOutputs ?? []));
  const raw = buildTransfer({
    inputs: plan.inputs,
    outputs,
    signer: plan.signer ?? plan.from,
    ...(plan.lockTime !== undefined && { lockTime: plan.lockTime }),
  });
  return Buffer.from(raw).toString('base64');
}

function addressPkh(address: string): Uint8Array {
  const pkh = pubKeyHashOf(address);
  if (pkh === null) throw new Error(`not a P2PKH address: ${address}`);
  return pkh;
}
