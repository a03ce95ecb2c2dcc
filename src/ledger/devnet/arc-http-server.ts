// The devnet's ARC API over HTTP (node:http, 127.0.0.1 by default), so anything that speaks
// ARC (the arc adapter, @bsv/sdk's ARC broadcaster, curl) can use the devnet. Routes:
//   POST /v1/tx      raw hex / EF / BEEF as text/plain, {"rawTx": hex} as JSON, or bytes
//   POST /v1/txs     hex lines, [{"rawTx": hex}, ...], or concatenated raw bytes; answers an array,
//                    one status (or problem) per transaction, in the order given
//   GET  /v1/tx/:id  status (404 when unknown)      GET /v1/policy      GET /v1/health
//   GET  /v1/devnet/counts  signatures made and verified by this process (not ARC; benchmarks)
//   POST /devnet/mine?blocks=N                       GET /devnet/tip    GET /devnet/blocks/:height
//   GET  /api/v1/chain/tip/longest                   the tip as a Block Headers Service answers it
//   POST /devnet/reorg?depth=N[&drop=txid,txid]      (JSON body {drop?, include?: [hex]} also taken)
// Bearer auth on every route when an API key is set. See src/ledger/devnet/README.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerMatches } from '../../crypto/same-secret.js';
import { signatureCounts } from '../../crypto/secp256k1.js';
import { ByteCursor } from '../../domain/byte-cursor.js';
import { walkTransaction } from '../../domain/tx-shape.js';
import { readBodyWithin } from '../../process/request-body.js';
import { type BroadcastResult, LedgerUnavailableError } from '../port.js';
import { ArcCallbackSender, type CallbackSenderOptions, type CallbackTarget } from './arc-callback-sender.js';
import { healthBody, policyBody, problem, statusBody, submitBody } from './arc-responses.js';
import type { Devnet } from './devnet.js';
import { TXID_PATTERN } from './hashing.js';
import { hexToBytes } from './tx-format.js';

export interface ArcServerOptions {
  readonly devnet: Devnet;
  /** Default 0: any free port. */
  readonly port?: number;
  readonly host?: string;
  /** When set, every request needs `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  readonly callbacks?: CallbackSenderOptions;
  readonly now?: () => number;
  readonly maxBodyBytes?: number;
}

export interface ArcServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface Reply {
  readonly code: number;
  readonly body: unknown;
}

class BadRequest extends Error {}

export async function startArcServer(opts: ArcServerOptions): Promise<ArcServer> {
  const { devnet } = opts;
  const now = () => new Date((opts.now ?? Date.now)());
  const maxBody = opts.maxBodyBytes ?? 32 * 1024 * 1024;
  const sender = new ArcCallbackSender(opts.callbacks);
  const unsubscribe = devnet.subscribeChanges((change) => {
    // Most changes are of transactions nobody registered yet (a broadcast's own answer tells
    // its first status): no body to build for them.
    if (!sender.hasTargets(change.txid)) return;
    const body = statusBody(change.txid, change.status, change.staleBlock, now());
    if (body !== null) sender.notify(body);
  });

  const statusReply = async (txid: string): Promise<Reply> => {
    const body = statusBody(txid, await devnet.status(txid), devnet.isInStaleBlock(txid), now());
    return body === null
      ? { code: 404, body: problem(404, `transaction ${txid} not found`, txid) }
      : { code: 200, body };
  };

  const notHex = (): Reply => ({ code: 463, body: problem(463, 'transaction is not hex of whole bytes') });

  /** The answer to one submitted transaction, as POST /v1/tx gives it (and each item of /v1/txs). */
  const answer = async (result: BroadcastResult, callback: CallbackTarget | null): Promise<Reply> => {
    const status = await devnet.status(result.txid);
    const current = statusBody(result.txid, status, devnet.isInStaleBlock(result.txid), now());
    if (callback !== null && status.kind !== 'unknown') {
      sender.register(result.txid, callback);
      if (current !== null) sender.notify(current, callback);
    }
    if (!result.ok) {
      const body = problem(result.arcCode, result.reason, result.txid);
      return {
        code: result.arcCode,
        body: status.kind === 'double-spend' ? { ...body, competingTxs: status.competingTxids } : body,
      };
    }
    return { code: 200, body: submitBody(current!) };
  };

  const route = async (req: IncomingMessage, url: URL): Promise<Reply> => {
    const path = url.pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/v1/health') return { code: 200, body: healthBody() };
    // Not ARC: the devnet's own signature work, for benchmarks (bench/api-processes.ts).
    if (method === 'GET' && path === '/v1/devnet/counts') return { code: 200, body: signatureCounts() };
    if (method === 'GET' && path === '/v1/policy') {
      return {
        code: 200,
        body: policyBody(devnet.policy.feeRateSatPerKb, devnet.policy.maxTxSizeBytes, now()),
      };
    }
    if (method === 'GET' && path.startsWith('/v1/tx/')) {
      const txid = path.slice('/v1/tx/'.length).toLowerCase();
      if (!TXID_PATTERN.test(txid)) return { code: 400, body: problem(400, 'not a transaction id') };
      return statusReply(txid);
    }
    if (method === 'POST' && path === '/v1/tx') {
      const bytes = submittedTx(req, await readBody(req, maxBody));
      const callback = callbackOf(req);
      return bytes === null ? notHex() : answer(await devnet.broadcast(bytes), callback);
    }
    if (method === 'POST' && path === '/v1/txs') {
      // All at once (one journal sync), in the order given; each item answered as POST /v1/tx
      // answers it (a refusal is an item of the array, the HTTP status stays 200).
      const txs = submittedTxs(req, await readBody(req, maxBody));
      const callback = callbackOf(req);
      const valid = txs.filter((bytes): bytes is Uint8Array => bytes !== null);
      const results = await devnet.broadcastMany(valid);
      const replies: unknown[] = [];
      let next = 0;
      for (const bytes of txs) {
        replies.push((bytes === null ? notHex() : await answer(results[next++]!, callback)).body);
      }
      return { code: 200, body: replies };
    }
    if (method === 'GET' && path === '/devnet/tip') return { code: 200, body: await devnet.tip() };
    // The chain tip as a Block Headers Service answers it (ARC's own API has none; the arc
    // adapter asks this path, at the ARC URL by default).
    if (method === 'GET' && path === '/api/v1/chain/tip/longest') {
      const tip = await devnet.tip();
      const header = { hash: tip.hash, creationTimestamp: tip.time };
      return { code: 200, body: { header, state: 'LONGEST_CHAIN', height: tip.height } };
    }
    if (method === 'GET' && path.startsWith('/devnet/blocks/')) {
      const block = devnet.block(Number(path.slice('/devnet/blocks/'.length)));
      return block === undefined
        ? { code: 404, body: problem(404, 'no block at that height') }
        : { code: 200, body: block };
    }
    if (method === 'POST' && path === '/devnet/mine') {
      const blocks = integerParam(url, 'blocks', 1);
      return { code: 200, body: { blocks: await devnet.mine(blocks) } };
    }
    if (method === 'POST' && path === '/devnet/reorg') {
      const depth = integerParam(url, 'depth', 1);
      const text = (await readBody(req, maxBody)).toString('utf8');
      const json = text.trim() === '' ? {} : parseJson(text);
      const drop = [
        ...(url.searchParams.get('drop')?.split(',').filter(Boolean) ?? []),
        ...stringList(json.drop, 'drop'),
      ];
      const include = stringList(json.include, 'include').map((hex) => {
        const bytes = hexToBytes(hex);
        if (bytes === null) throw new BadRequest('include holds something that is not hex');
        return bytes;
      });
      const result = await devnet.reorg(depth, { drop, include });
      return { code: 200, body: result };
    }
    return { code: 404, body: problem(404, `no route ${method} ${path}`) };
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://devnet');
    const reply: Promise<Reply> =
      opts.apiKey !== undefined && !bearerMatches(req.headers.authorization, opts.apiKey)
        ? Promise.resolve({ code: 401, body: problem(401) })
        : route(req, url).catch((err: unknown) => errorReply(err));
    void reply.then((r) => send(res, r));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    async close() {
      unsubscribe();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await sender.close();
    },
  };
}

function errorReply(err: unknown): Reply {
  if (err instanceof BadRequest || err instanceof RangeError)
    return { code: 400, body: problem(400, err.message) };
  if (err instanceof LedgerUnavailableError)
    return { code: 503, body: { ...problem(409, err.message), status: 503 } };
  return { code: 409, body: problem(409, err instanceof Error ? err.message : String(err)) };
}

function send(res: ServerResponse, reply: Reply): void {
  const payload = JSON.stringify(reply.body, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(reply.code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

function callbackOf(req: IncomingMessage): CallbackTarget | null {
  const url = headerOf(req, 'x-callbackurl');
  if (url === undefined) return null;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new BadRequest('X-CallbackUrl is not an http(s) URL');
  const token = headerOf(req, 'x-callbacktoken');
  return {
    url,
    ...(token !== undefined && { token }),
    fullStatusUpdates: headerOf(req, 'x-fullstatusupdates')?.toLowerCase() === 'true',
    batch: headerOf(req, 'x-callbackbatch')?.toLowerCase() === 'true',
  };
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function kindOf(req: IncomingMessage): 'json' | 'bytes' | 'text' {
  const type = (req.headers['content-type'] ?? 'text/plain').toLowerCase();
  if (type.includes('application/json')) return 'json';
  if (type.includes('application/octet-stream')) return 'bytes';
  return 'text';
}

function submittedTx(req: IncomingMessage, body: Buffer): Uint8Array | null {
  switch (kindOf(req)) {
    case 'json': {
      const json = parseJson(body.toString('utf8'));
      if (typeof json.rawTx !== 'string') throw new BadRequest('the JSON body needs a rawTx string');
      return hexToBytes(json.rawTx);
    }
    case 'bytes':
      return new Uint8Array(body);
    case 'text':
      return hexToBytes(body.toString('utf8'));
  }
}

function submittedTxs(req: IncomingMessage, body: Buffer): Array<Uint8Array | null> {
  switch (kindOf(req)) {
    case 'json': {
      const json = parseJsonValue(body.toString('utf8'));
      if (!Array.isArray(json)) throw new BadRequest('the JSON body must be an array of {rawTx}');
      return json.map((item) => (typeof item?.rawTx === 'string' ? hexToBytes(item.rawTx) : null));
    }
    case 'bytes':
      return splitRawTransactions(new Uint8Array(body));
    case 'text':
      return body
        .toString('utf8')
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .map(hexToBytes);
  }
}

/**
 * Concatenated raw transactions (standard serialization), one after the other; a piece that is no
 * whole transaction ends the list as null. Each is found by walking its layout, which builds
 * nothing: the sdk's parser trusts counts, and a body announcing 16 million inputs in 9 bytes
 * would make it allocate until the process dies. The devnet parses each piece (guarded) itself.
 */
function splitRawTransactions(bytes: Uint8Array): Array<Uint8Array | null> {
  const out: Array<Uint8Array | null> = [];
  const cursor = new ByteCursor(bytes);
  while (cursor.remaining > 0) {
    const start = cursor.pos;
    if (!walkTransaction(cursor).ok) {
      out.push(null);
      break;
    }
    out.push(bytes.slice(start, cursor.pos));
  }
  return out;
}

function parseJsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest('the body is not JSON');
  }
}

function parseJson(text: string): Record<string, unknown> {
  const json = parseJsonValue(text);
  if (typeof json === 'object' && json !== null && !Array.isArray(json))
    return json as Record<string, unknown>;
  throw new BadRequest('the body is not a JSON object');
}

function stringList(value: unknown, name: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new BadRequest(`${name} must be an array of strings`);
  }
  return value;
}

function integerParam(url: URL, name: string, fallback: number): number {
  const text = url.searchParams.get(name);
  if (text === null) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new BadRequest(`${name} must be a positive integer`);
  return n;
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const body = await readBodyWithin(req, limit);
  if (body === null) throw new BadRequest(`body larger than ${limit} bytes`);
  return body;
}
