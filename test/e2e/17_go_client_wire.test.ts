// The Go client (github.com/mnee-xyz/go-mnee-1sat-sdk) on the wire against a real tokenproxy:
// every HTTP call its source makes, replayed as net/http sends it (method, path and query as
// the SDK concatenates them, only the headers it sets, the body bytes it marshals), each
// answer decoded by test/support/go-client-shapes.ts the way encoding/json decodes it into
// the SDK's structs, and each error path read as the SDK reads it (403, else `message`).
// The Go client cannot run here (no Go 1.24.5 toolchain, no module proxy): see docs/clients.md.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Transaction } from '@bsv/sdk';
import { signingKeyOf, webhookSignature } from '../../src/callbacks/signer.js';
import { apiContextOf } from '../../src/compose.js';
import type { KnownTokenOutput } from '../../src/domain/validate-transfer.js';
import { createApiKey } from '../../src/store/access/api-keys-store.js';
import { mintTokens } from '../../src/usecases/supply/mint-tokens.js';
import { applyLedgerStatus } from '../../src/usecases/track/apply-ledger-status.js';
import {
  f64,
  type GoAnswer,
  GoBalanceDataDTO,
  GoMneeHexBody,
  GoMneeTxo,
  GoSystemConfig,
  GoTicket,
  GoTransactionHistoryDTO,
  GoTransferResponseBody,
  type GoType,
  goDecode,
  goErrorOf,
  goHttp,
  marshalAddresses,
  marshalTransferRequest,
  ptr,
  slice,
  str,
  struct,
  time,
  u8,
  u64,
} from '../support/go-client-shapes.js';
import { party } from '../support/token-world.js';
import { type TokenFacts, transferOf } from './e2e-http.js';
import { eventually, startTestService, type TestService } from './support.js';

const JSON_CT = { 'Content-Type': 'application/json' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Fee {
  min: bigint;
  max: bigint;
  fee: bigint;
}
interface Config {
  decimals: bigint;
  approver: string | null;
  feeAddress: string | null;
  tokenId: string | null;
  fees: Fee[] | null;
}
interface Txo {
  satoshis: bigint;
  vout: bigint;
  score: bigint;
  txid: string | null;
  script: string | null;
  outpoint: string | null;
  owners: string[] | null;
  data: { bsv21: { amt: bigint; dec: bigint; id: string | null } | null } | null;
}
interface History {
  score: bigint;
  txid: string | null;
  rawtx: string | null;
  outs: bigint[] | null;
  senders: string[] | null;
  receivers: string[] | null;
}
interface Ticket {
  id: string | null;
  tx_id: string | null;
  tx_hex: string | null;
  status: string;
  createdAt: string | null;
  errors: string[] | null;
}

/** The Go SDK's success path: exactly 200, then Decode into `type` must return nil. */
function decoded<T>(answer: GoAnswer, type: GoType, what: string): T {
  assert.equal(answer.status, 200, `${what}: the SDK wants 200, got ${answer.status}: ${answer.body}`);
  const result = goDecode(type, answer.body);
  assert.deepEqual(result.errors, [], `${what}: encoding/json would fail on ${answer.body}`);
  return result.value as T;
}

/** The SDK's error path: this status, and the error it returns is the problem's `message`. */
function goError(answer: GoAnswer, status: number, message: RegExp | string): string {
  assert.equal(answer.status, status, answer.body);
  const error = goErrorOf(answer.status, answer.body);
  assert.doesNotMatch(
    error,
    /^json: |^invalid JSON|^status received/,
    `the SDK would not see a message: ${error}`,
  );
  if (typeof message === 'string') assert.equal(error, message);
  else assert.match(error, message);
  return error;
}

describe('Go client wire conformance (go-mnee-1sat-sdk, replayed from its source)', () => {
  let t: TestService;
  let key: string;
  let readOnly: string;
  let receiver: Server;
  const delivered: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  const alice = party('go alice');
  const bob = party('go bob');
  const carol = party('go carol');
  const q = (path: string) => `${path}${path.includes('?') ? '&' : '?'}auth_token=${key}`;
  const go = (method: 'GET' | 'POST', path: string, body?: string, headers?: Record<string, string>) =>
    goHttp(t.url, { method, path, ...(body !== undefined && { body }), ...(headers && { headers }) });

  /** transfer.go: GetConfig, then GetUnspentTxos, then inputs in order until amount + fee is covered. */
  async function goTransfer(from: typeof alice, to: typeof bob, amount: bigint): Promise<string> {
    const config = decoded<Config>(await go('GET', q('/v1/config')), GoSystemConfig, 'GetConfig');
    const txos = decoded<Txo[]>(
      await go('POST', q('/v1/utxos'), marshalAddresses([from.address]), JSON_CT),
      slice(GoMneeTxo),
      'GetUnspentTxos',
    );
    const fee = config.fees!.find((f) => amount >= f.min && amount <= f.max)!.fee;
    const inputs: KnownTokenOutput[] = [];
    let total = 0n;
    for (const txo of txos) {
      if (txo.data?.bsv21 == null || txo.txid === null || txo.script === null) continue;
      if (txo.data.bsv21.amt === 0n || txo.owners === null || txo.owners[0] !== from.address) continue;
      inputs.push({
        txid: txo.txid,
        vout: Number(txo.vout),
        owner: txo.owners[0],
        amount: txo.data.bsv21.amt,
        op: 'transfer',
        lockingScript: new Uint8Array(Buffer.from(txo.script, 'base64')),
        satoshis: txo.satoshis,
        state: 'unspent',
      });
      total += txo.data.bsv21.amt;
      if (total >= amount + fee) break;
    }
    assert.ok(total >= amount + fee, 'insufficient mnee balance');
    const token: TokenFacts = {
      tokenId: config.tokenId!,
      approver: new Uint8Array(Buffer.from(config.approver!, 'hex')),
      feeAddress: config.feeAddress!,
    };
    return transferOf(token, { from, inputs, to, amount, fee });
  }

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        delivered.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    t = await startTestService(['--callback-allow', '127.0.0.1']);
    key = t.adminKey;
    const { parts } = t.service;
    readOnly = (await createApiKey(parts.db, parts.masterKey, { name: 'go reader', scopes: ['read'] })).key;
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 5_000_000n });
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: alice.address, amount: 2_500_000n });
    await mintTokens(apiContextOf(parts), parts.keys.mint, { to: carol.address, amount: 3_000_000n });
    await parts.devnet!.mine(1);
  });

  after(async () => {
    await t?.stop();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  it('GetConfig (config.go): GET /v1/config decodes into SystemConfig with what transfers need', async () => {
    const config = decoded<Config>(await go('GET', q('/v1/config')), GoSystemConfig, 'GetConfig');
    const { token } = t.service.parts;
    assert.equal(config.decimals, 5n);
    assert.equal(config.tokenId, token.tokenId);
    assert.equal(config.approver, token.approver);
    assert.equal(config.feeAddress, token.feeAddress);
    assert.ok(config.fees !== null && config.fees.length > 0, 'Fees nil: the SDK returns ErrInvalidConfig');
    for (const f of config.fees) assert.ok(f.min <= f.max);
    goError(await go('GET', '/v1/config?auth_token=not-a-key'), 401, /.+/);
  });

  it('GetBalances (balance.go): POST /v2/balance decodes into []BalanceDataDTO', async () => {
    const body = marshalAddresses([alice.address, bob.address]);
    const balances = decoded<{ amt: number; precised: number; address: string | null }[]>(
      await go('POST', q('/v2/balance'), body, JSON_CT),
      slice(GoBalanceDataDTO),
      'GetBalances',
    );
    assert.deepEqual(balances, [
      { address: alice.address, amt: 7_500_000, precised: 75 },
      { address: bob.address, amt: 0, precised: 0 },
    ]);
    goError(
      await go('POST', q('/v2/balance'), marshalAddresses(['1NotAnAddress']), JSON_CT),
      400,
      /1NotAnAddress/,
    );
  });

  it('GetUnspentTxos (txos.go): POST /v1/utxos decodes into []MneeTxo usable as inputs', async () => {
    const txos = decoded<Txo[]>(
      await go('POST', q('/v1/utxos'), marshalAddresses([alice.address]), JSON_CT),
      slice(GoMneeTxo),
      'GetUnspentTxos',
    );
    assert.equal(txos.length, 2);
    for (const txo of txos) {
      assert.ok(
        txo.data?.bsv21 && txo.txid && txo.script,
        'the SDK skips a txo without data.bsv21/txid/script',
      );
      assert.deepEqual(txo.owners, [alice.address], 'the SDK signs with the key of owners[0]');
      assert.equal(txo.satoshis, 1n);
      assert.equal(txo.data.bsv21.dec, 5n);
      assert.equal(txo.data.bsv21.id, t.service.parts.token.tokenId);
      assert.equal(txo.outpoint, `${txo.txid}_${txo.vout}`);
      assert.equal(Buffer.from(txo.script, 'base64').toString('base64'), txo.script, 'StdEncoding base64');
    }
    assert.deepEqual(
      txos.map((x) => x.data?.bsv21?.amt),
      [5_000_000n, 2_500_000n],
    );
    goError(
      await go('POST', q('/v1/utxos'), marshalAddresses(['1NotAnAddress']), JSON_CT),
      400,
      /1NotAnAddress/,
    );
  });

  it('GetPaginatedUnspentTxos (txos.go): POST /v2/utxos?page=&size=&auth_token= pages like the SDK asks', async () => {
    const page = async (n: number) =>
      decoded<Txo[]>(
        await go(
          'POST',
          `/v2/utxos?page=${n}&size=1&auth_token=${key}`,
          marshalAddresses([alice.address]),
          JSON_CT,
        ),
        slice(GoMneeTxo),
        `page ${n}`,
      );
    assert.deepEqual(
      [...(await page(1)), ...(await page(2))].map((x) => x.data?.bsv21?.amt),
      [5_000_000n, 2_500_000n],
    );
    assert.deepEqual(await page(3), []);
    const tooBig = await go(
      'POST',
      `/v2/utxos?page=1&size=1001&auth_token=${key}`,
      marshalAddresses([alice.address]),
      JSON_CT,
    );
    goError(tooBig, 400, /size/);
  });

  it('GetTxo (txos.go): GET /v2/txos/<txid>_<vout> decodes into one MneeTxo', async () => {
    const [first] = decoded<Txo[]>(
      await go('POST', q('/v1/utxos'), marshalAddresses([carol.address]), JSON_CT),
      slice(GoMneeTxo),
      'GetUnspentTxos',
    );
    const txo = decoded<Txo>(await go('GET', q(`/v2/txos/${first!.outpoint}`)), GoMneeTxo, 'GetTxo');
    assert.equal(txo.outpoint, first!.outpoint);
    assert.equal(txo.data?.bsv21?.amt, 3_000_000n);
    assert.deepEqual(txo.owners, [carol.address]);
    goError(await go('GET', q(`/v2/txos/${'ab'.repeat(32)}_0`)), 404, 'record not found');
    goError(await go('GET', q('/v2/txos/not-an-outpoint')), 400, /outpoint/);
    goError(await go('GET', q(`/v2/txos/${'ab'.repeat(32)}_4294967296`)), 400, /outpoint/);
  });

  it('GetSpecificTransactionHistory (history.go): POST /v1/sync with no Content-Type decodes into []TransactionHistoryDTO', async () => {
    const history = decoded<History[]>(
      await go('POST', `/v1/sync?auth_token=${key}&from=0&limit=10`, marshalAddresses([alice.address])),
      slice(GoTransactionHistoryDTO),
      'GetSpecificTransactionHistory',
    );
    assert.equal(history.length, 2);
    for (const h of history) {
      assert.ok(h.receivers?.includes(alice.address), `receivers ${h.receivers}`);
      assert.ok(h.outs !== null && h.outs.length > 0);
      assert.ok(h.rawtx !== null && h.txid !== null);
      assert.equal(Transaction.fromBinary([...Buffer.from(h.rawtx, 'base64')]).id('hex'), h.txid);
    }
    assert.ok(history[0]!.score < history[1]!.score);
    const limited = await go(
      'POST',
      `/v1/sync?auth_token=${key}&from=0&limit=1`,
      marshalAddresses([alice.address]),
    );
    assert.equal(decoded<History[]>(limited, slice(GoTransactionHistoryDTO), 'limit=1').length, 1);
    goError(
      await go('POST', `/v1/sync?auth_token=${key}&from=0&limit=10`, marshalAddresses(['1NotAnAddress'])),
      400,
      /1NotAnAddress/,
    );
  });

  it('SynchronousTransfer / SubmitRawTxSync (transfer.go, rawtx.go): POST /v1/transfer, fmt.Appendf body, no Content-Type', async () => {
    const rawtx = await goTransfer(alice, bob, 1_250_000n);
    const rival = await goTransfer(alice, bob, 1_000_000n); // the same inputs, another transaction
    const answer = await go('POST', q('/v1/transfer'), `{"rawtx":"${rawtx}"}`);
    const body = decoded<{ rawtx: string | null }>(answer, GoTransferResponseBody, 'SynchronousTransfer');
    assert.ok(body.rawtx !== null, 'a nil rawtx gives the caller a TransferResponseDTO of nils');
    // The SDK parses it (NewTransactionFromBytes) and hands back its txid and hex: the
    // cosigned form of what it sent (its inputs and outputs first, the service's funding
    // input and change after them).
    const final = Transaction.fromBinary([...Buffer.from(body.rawtx, 'base64')]);
    const sent = Transaction.fromBinary([...Buffer.from(rawtx, 'base64')]);
    const inputs = (tx: Transaction) => tx.inputs.map((i) => `${i.sourceTXID}_${i.sourceOutputIndex}`);
    const outputs = (tx: Transaction) => tx.outputs.map((o) => `${o.satoshis}:${o.lockingScript.toHex()}`);
    assert.deepEqual(inputs(final).slice(0, sent.inputs.length), inputs(sent));
    assert.deepEqual(outputs(final).slice(0, sent.outputs.length), outputs(sent));
    assert.notEqual(final.id('hex'), sent.id('hex'), 'cosigned');
    // The same transaction again is the same answer (idempotent by txid); another one
    // spending the same inputs is a 400 whose message the SDK returns (newer clients match it).
    const again = decoded<{ rawtx: string | null }>(
      await go('POST', q('/v1/transfer'), `{"rawtx":"${rawtx}"}`),
      GoTransferResponseBody,
      'the same transfer again',
    );
    assert.equal(again.rawtx, body.rawtx);
    goError(await go('POST', q('/v1/transfer'), `{"rawtx":"${rival}"}`), 400, /already spent|locked/);
    goError(await go('POST', q('/v1/transfer'), '{"rawtx":"!!"}'), 400, /base64/);
  });

  it('AsynchronousTransfer / SubmitRawTxAsync with callback_url and callback_secret, then PollTicket', async () => {
    const rawtx = await goTransfer(carol, bob, 100_000n);
    const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?a=1&b=2`;
    const secret = 'go <client> & its secret';
    const answer = await go('POST', q('/v2/transfer'), marshalTransferRequest(rawtx, callbackUrl, secret));
    assert.equal(answer.status, 200, `the SDK wants exactly 200: ${answer.body}`);
    const ticketId = answer.body; // io.ReadAll: the whole body is the ticket ID
    assert.match(ticketId, UUID);

    const poll = () => go('GET', `/v2/ticket?auth_token=${key}&ticketID=${ticketId}`);
    const ticket = await eventually(async () => {
      const tk = decoded<Ticket>(await poll(), GoTicket, 'PollTicket');
      return tk.status === 'SUCCESS' ? tk : undefined;
    }, 'SUCCESS');
    assert.equal(ticket.id, ticketId);
    assert.equal(ticket.errors, null);
    assert.ok(ticket.createdAt !== null);
    assert.equal(
      Transaction.fromHex(ticket.tx_hex!).id('hex'),
      ticket.tx_id,
      'tx_hex is the transaction of tx_id',
    );

    // The callback of that ticket is signed with the secret the Go client sent, and its
    // body is a Ticket the Go side decodes.
    const hook = await eventually(async () => delivered.find((d) => d.body.includes(ticketId)), 'a callback');
    const decodedHook = goDecode(GoTicket, hook.body);
    assert.deepEqual(decodedHook.errors, []);
    const expected = webhookSignature(
      signingKeyOf(secret),
      String(hook.headers['webhook-id']),
      Number(hook.headers['webhook-timestamp']),
      hook.body,
    );
    assert.equal(hook.headers['webhook-signature'], expected);

    // Error paths of PollTicket: "record not found" makes it sleep and poll again; any
    // other message is returned.
    goError(
      await go('GET', `/v2/ticket?auth_token=${key}&ticketID=018f0000-0000-7000-8000-000000000000`),
      404,
      'record not found',
    );
    goError(await go('GET', `/v2/ticket?auth_token=${key}&ticketID=nope`), 400, /nope/);
    // The same transfer again is the same ticket (idempotent by txid).
    const again = await go('POST', q('/v2/transfer'), marshalTransferRequest(rawtx, callbackUrl, secret));
    assert.equal(again.body, ticketId);
  });

  it('every submitting call with a read-only key: 403, which the SDK maps to ErrForbidden', async () => {
    const rawtx = await goTransfer(alice, carol, 100_000n);
    for (const path of ['/v1/transfer', '/v2/transfer']) {
      const answer = await go('POST', `${path}?auth_token=${readOnly}`, marshalTransferRequest(rawtx));
      assert.equal(answer.status, 403, answer.body);
      assert.equal(goErrorOf(answer.status, answer.body), 'forbidden access to cosigner');
    }
  });

  it('GetMNEETxHex (hex.go): GET /v1/tx/<txid> with a Content-Type and no body', async () => {
    const [h] = decoded<History[]>(
      await go('POST', `/v1/sync?auth_token=${key}&from=0&limit=1`, marshalAddresses([bob.address])),
      slice(GoTransactionHistoryDTO),
      'history',
    );
    const body = decoded<{ rawtx: string | null }>(
      await go('GET', q(`/v1/tx/${h!.txid}`), undefined, JSON_CT),
      GoMneeHexBody,
      'GetMNEETxHex',
    );
    assert.equal(body.rawtx, h!.rawtx, 'a nil rawtx is "record not found" to the SDK');
    goError(await go('GET', q(`/v1/tx/${'cd'.repeat(32)}`), undefined, JSON_CT), 404, /not found/);
    goError(await go('GET', q('/v1/tx/xyz'), undefined, JSON_CT), 400, /xyz/);
  });

  it("known divergence: a FAILED ticket carries `errors` as the spec's string, which Ticket.Errors ([]string) cannot take", async () => {
    const { parts } = t.service;
    const { ticketId, txid } = await mintTokens(apiContextOf(parts), parts.keys.mint, {
      to: bob.address,
      amount: 7n,
    });
    await applyLedgerStatus(parts.ctx, txid, { status: { kind: 'rejected', reason: 'test: refused' } });
    const answer = await go('GET', `/v2/ticket?auth_token=${key}&ticketID=${ticketId}`);
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as { errors: unknown }).errors, 'test: refused');
    // This is what PollTicket returns today for a FAILED ticket (docs/clients.md): if the
    // service or the SDK changes, this line says so.
    assert.deepEqual(goDecode(GoTicket, answer.body).errors, [
      'json: cannot unmarshal string into Go struct field Ticket.errors of type []string',
    ]);
  });
});

describe('the Go decoder of this suite refuses what encoding/json refuses', () => {
  const T = struct('T', { n: u64, b: u8, s: str, p: ptr(str), f: f64, at: ptr(time), list: slice(str) });
  const errorsOf = (json: string) => goDecode(T, json).errors;

  it('integers: a string, a fraction, an exponent, or out of range is an error', () => {
    assert.deepEqual(errorsOf('{"n":18446744073709551615,"b":255}'), []);
    for (const bad of [
      '{"n":"5"}',
      '{"n":5.0}',
      '{"n":1e3}',
      '{"n":-1}',
      '{"n":18446744073709551616}',
      '{"b":256}',
    ]) {
      assert.equal(errorsOf(bad).length, 1, bad);
    }
  });

  it('strings, floats, times and slices take only their own JSON kinds', () => {
    assert.deepEqual(errorsOf('{"s":"x","f":1e3,"at":"2026-11-22T03:55:21.123Z","list":["a"]}'), []);
    for (const bad of [
      '{"s":5}',
      '{"f":"1"}',
      '{"at":1763783721}',
      '{"at":"22/11/2026"}',
      '{"list":"a"}',
      '{"p":true}',
    ]) {
      assert.equal(errorsOf(bad).length, 1, bad);
    }
  });

  it('null leaves the zero value, unknown fields are ignored, names match case-insensitively', () => {
    const { value, errors } = goDecode(
      T,
      '{"n":null,"s":null,"p":null,"list":null,"extra":{"x":1},"S":"upper"}',
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(value, { n: 0n, b: 0n, s: 'upper', p: null, f: 0, at: null, list: null });
  });

  it('an error body without a string `message` gives the SDK only the status', () => {
    assert.equal(goErrorOf(400, '{"message":"bad"}'), 'bad');
    assert.equal(goErrorOf(400, '{"detail":"bad"}'), 'status received from mnee-cosigner -> 400');
    assert.equal(goErrorOf(403, 'not json'), 'forbidden access to cosigner');
  });
});
