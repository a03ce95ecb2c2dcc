// What the Go client (github.com/mnee-xyz/go-mnee-1sat-sdk) does on the wire, taken from its
// source: its requests, replayed byte for byte as net/http sends them, and a decoder that
// reads an answer the way encoding/json would into the SDK's structs (types.go). Used by
// test/e2e/17_go_client_wire.test.ts; the Go client itself cannot run on this machine.
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { checkAnswer } from '../e2e/openapi-answers.js';

// ---------------------------------------------------------------------------------------
// Go types, as far as the SDK's structs use them.

export type GoType =
  | { readonly kind: 'string' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly name: 'uint8' | 'uint16' | 'uint64' | 'int64' | 'int' }
  | { readonly kind: 'float64' }
  | { readonly kind: 'time' }
  | { readonly kind: 'any' }
  | { readonly kind: 'ptr'; readonly elem: GoType }
  | { readonly kind: 'slice'; readonly elem: GoType }
  | { readonly kind: 'map'; readonly elem: GoType }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, GoType>> };

export const str: GoType = { kind: 'string' };
export const f64: GoType = { kind: 'float64' };
export const u8: GoType = { kind: 'int', name: 'uint8' };
export const u16: GoType = { kind: 'int', name: 'uint16' };
export const u64: GoType = { kind: 'int', name: 'uint64' };
export const time: GoType = { kind: 'time' };
export const any: GoType = { kind: 'any' };
export const ptr = (elem: GoType): GoType => ({ kind: 'ptr', elem });
export const slice = (elem: GoType): GoType => ({ kind: 'slice', elem });
export const map = (elem: GoType): GoType => ({ kind: 'map', elem });
/** A struct: keys are the json tag names (`json:"name,omitempty"` gives `name`). */
export const struct = (name: string, fields: Record<string, GoType>): GoType => ({
  kind: 'struct',
  name,
  fields,
});

const INT_RANGE: Record<string, readonly [bigint, bigint]> = {
  uint8: [0n, 255n],
  uint16: [0n, 65_535n],
  uint64: [0n, 2n ** 64n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int: [-(2n ** 63n), 2n ** 63n - 1n],
};

// ---------------------------------------------------------------------------------------
// The SDK's structs (types.go at the newest stored version; tags copied verbatim).

/** types.go `Fee` ({MinAmt uint64 "min", MaxAmt uint64 "max", Fee uint64 "fee"}). */
export const GoFee = struct('Fee', { min: u64, max: u64, fee: u64 });

/** types.go `SystemConfig`, decoded by config.go GetConfig (and every transfer through it). */
export const GoSystemConfig = struct('SystemConfig', {
  decimals: u8,
  approver: ptr(str),
  feeAddress: ptr(str),
  burnAddress: ptr(str),
  mintAddress: ptr(str),
  tokenId: ptr(str),
  fees: slice(GoFee),
});

/** types.go `BalanceDataDTO`; balance.go GetBalances decodes `[]BalanceDataDTO`. */
export const GoBalanceDataDTO = struct('BalanceDataDTO', { amt: f64, precised: f64, address: ptr(str) });

/** types.go `BsvData` (MneeTxo.Data.Bsv21). */
export const GoBsvData = struct('BsvData', {
  dec: u8,
  amt: u64,
  id: ptr(str),
  op: ptr(str),
  sym: ptr(str),
  icon: ptr(str),
});

/** types.go `CosignData` (MneeTxo.Data.Cosign). */
export const GoCosignData = struct('CosignData', { address: ptr(str), cosigner: ptr(str) });

/** types.go `Data`. */
export const GoData = struct('Data', { bsv21: ptr(GoBsvData), cosign: ptr(GoCosignData) });

/** types.go `MneeTxo`; txos.go GetUnspentTxos / GetPaginatedUnspentTxos decode `[]MneeTxo`, GetTxo one. */
export const GoMneeTxo = struct('MneeTxo', {
  satoshis: u16,
  height: u64,
  idx: u64,
  score: u64,
  vout: u64,
  outpoint: ptr(str),
  script: ptr(str),
  txid: ptr(str),
  data: ptr(GoData),
  owners: slice(str),
  senders: slice(str),
});

/** types.go `TransactionHistoryDTO`; history.go GetSpecificTransactionHistory decodes a slice. */
export const GoTransactionHistoryDTO = struct('TransactionHistoryDTO', {
  height: u64,
  idx: u64,
  score: u64,
  rawtx: ptr(str),
  txid: ptr(str),
  outs: slice(u64),
  senders: slice(str),
  receivers: slice(str),
});

/** types.go `Ticket`; poll.go PollTicket decodes it. `errors` is `[]string` there. */
export const GoTicket = struct('Ticket', {
  id: ptr(str),
  tx_id: ptr(str),
  tx_hex: ptr(str),
  action_requested: ptr(str),
  callback_url: ptr(str),
  callback_secret: ptr(str),
  status: str,
  createdAt: ptr(time),
  updatedAt: ptr(time),
  errors: slice(str),
});

/** rawtx.go SubmitRawTxSync / transfer.go SynchronousTransfer: `struct{ Rawtx *string "rawtx,omitempty" }`. */
export const GoTransferResponseBody = struct('transferResponseBody', { rawtx: ptr(str) });

/** hex.go GetMNEETxHex: `struct{ RawTx *string "rawtx" }` (nil means "record not found"). */
export const GoMneeHexBody = struct('mneeHexBody', { rawtx: ptr(str) });

/** Every error path: `var errorResponse map[string]any`, then `errorResponse["message"].(string)`. */
export const GoErrorResponse = map(any);

// ---------------------------------------------------------------------------------------
// A JSON reader that keeps number literals as written (encoding/json decodes an integer
// field from the literal's text: `1e3` or `5.0` into a uint64 is an error).

export type JsonNode =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'num'; readonly text: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'arr'; readonly items: readonly JsonNode[] }
  | { readonly t: 'obj'; readonly entries: readonly (readonly [string, JsonNode])[] };

/** Reads the first JSON value of `text` (json.Decoder.Decode reads one value). */
export function readJson(text: string): JsonNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at ${i}: ${what}`);
  };
  const value = (): JsonNode => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: [string, JsonNode][] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'obj', entries };
      }
      for (;;) {
        ws();
        const key = value();
        if (key.t !== 'str') fail('object key');
        ws();
        if (text[i++] !== ':') fail('colon');
        entries.push([(key as { v: string }).v, value()]);
        ws();
        const next = text[i++];
        if (next === '}') return { t: 'obj', entries };
        if (next !== ',') fail('comma in object');
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'arr', items };
      }
      for (;;) {
        items.push(value());
        ws();
        const next = text[i++];
        if (next === ']') return { t: 'arr', items };
        if (next !== ',') fail('comma in array');
      }
    }
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return fail('string');
      const literal = text.slice(i, end + 1);
      i = end + 1;
      try {
        return { t: 'str', v: JSON.parse(literal) as string }; // refuses control characters, bad escapes
      } catch {
        return fail('string');
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (m !== null) {
      i += m[0].length;
      return { t: 'num', text: m[0] };
    }
    for (const [word, node] of [
      ['null', { t: 'null' }],
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return node;
      }
    }
    return fail('value');
  };
  return value();
}

// ---------------------------------------------------------------------------------------
// encoding/json's Unmarshal rules, for the types above.

export interface GoDecoded {
  /** What the Go program would hold (zero values where JSON had nothing or null). */
  readonly value: unknown;
  /** encoding/json errors (UnmarshalTypeError and the like); empty when Decode returned nil. */
  readonly errors: readonly string[];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function zeroOf(type: GoType): unknown {
  switch (type.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int':
      return 0n;
    case 'float64':
      return 0;
    case 'struct':
      return Object.fromEntries(Object.entries(type.fields).map(([k, t]) => [k, zeroOf(t)]));
    default:
      return null; // pointers, slices, maps, interfaces; time.Time shown as null (its zero)
  }
}

function goName(type: GoType): string {
  switch (type.kind) {
    case 'int':
      return type.name;
    case 'ptr':
      return `*${goName(type.elem)}`;
    case 'slice':
      return `[]${goName(type.elem)}`;
    case 'map':
      return `map[string]${goName(type.elem)}`;
    case 'struct':
      return type.name;
    case 'time':
      return 'time.Time';
    case 'any':
      return 'interface {}';
    default:
      return type.kind;
  }
}

function plain(node: JsonNode): unknown {
  switch (node.t) {
    case 'null':
      return null;
    case 'num':
      return Number(node.text);
    case 'arr':
      return node.items.map(plain);
    case 'obj':
      return Object.fromEntries(node.entries.map(([k, v]) => [k, plain(v)]));
    default:
      return node.v;
  }
}

/** Decodes `text` into a value of `type` as `json.NewDecoder(body).Decode(&v)` would. */
export function goDecode(type: GoType, text: string): GoDecoded {
  let root: JsonNode;
  try {
    root = readJson(text);
  } catch (err) {
    return { value: zeroOf(type), errors: [(err as Error).message] };
  }
  const errors: string[] = [];
  const into = (t: GoType, node: JsonNode, path: string, current: unknown): unknown => {
    const mismatch = (what: string) => {
      // encoding/json's UnmarshalTypeError wording: the struct field path without indices.
      const field = path.replace(/\[\d+\]/g, '');
      const target = field.includes('.') ? `Go struct field ${field}` : 'Go value';
      errors.push(`json: cannot unmarshal ${what} into ${target} of type ${goName(t)}`);
      return current;
    };
    if (t.kind === 'any') return plain(node);
    if (node.t === 'null') return t.kind === 'ptr' || t.kind === 'slice' || t.kind === 'map' ? null : current;
    switch (t.kind) {
      case 'ptr':
        return into(t.elem, node, path, zeroOf(t.elem));
      case 'string':
        return node.t === 'str' ? node.v : mismatch(kindOf(node));
      case 'bool':
        return node.t === 'bool' ? node.v : mismatch(kindOf(node));
      case 'float64': {
        if (node.t !== 'num') return mismatch(kindOf(node));
        const n = Number(node.text);
        return Number.isFinite(n) ? n : mismatch(`number ${node.text}`);
      }
      case 'int': {
        if (node.t !== 'num') return mismatch(kindOf(node));
        if (!/^-?\d+$/.test(node.text)) return mismatch(`number ${node.text}`);
        const n = BigInt(node.text);
        const [lo, hi] = INT_RANGE[t.name]!;
        return n < lo || n > hi ? mismatch(`number ${node.text}`) : n;
      }
      case 'time':
        if (node.t !== 'str') return mismatch(kindOf(node));
        if (!RFC3339.test(node.v) || Number.isNaN(Date.parse(node.v))) {
          errors.push(`parsing time ${JSON.stringify(node.v)} as RFC 3339 at ${path}`);
          return current;
        }
        return node.v;
      case 'slice':
        if (node.t !== 'arr') return mismatch(kindOf(node));
        return node.items.map((item, k) => into(t.elem, item, `${path}[${k}]`, zeroOf(t.elem)));
      case 'map':
        if (node.t !== 'obj') return mismatch(kindOf(node));
        return Object.fromEntries(node.entries.map(([k, v]) => [k, into(t.elem, v, `${path}.${k}`, null)]));
      case 'struct': {
        if (node.t !== 'obj') return mismatch(kindOf(node));
        const out = { ...(current as Record<string, unknown>) };
        const names = Object.keys(t.fields);
        for (const [key, child] of node.entries) {
          // An exact tag match wins; else the first case-insensitive match; else ignored.
          const field =
            names.find((n) => n === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
          if (field === undefined) continue;
          out[field] = into(t.fields[field]!, child, `${t.name}.${field}`, out[field]);
        }
        return out;
      }
    }
  };
  const value = into(type, root, goName(type), zeroOf(type));
  return { value, errors };
}

function kindOf(node: JsonNode): string {
  return { null: 'null', bool: 'bool', num: 'number', str: 'string', arr: 'array', obj: 'object' }[node.t];
}

/**
 * The error a Go SDK method returns for a non-success answer (txos.go, poll.go, rawtx.go...):
 * 403 is ErrForbidden without reading the body; otherwise the body's `message` string, or a
 * "status received" error when there is none, or the decode error itself.
 */
export function goErrorOf(status: number, body: string): string {
  if (status === 403) return 'forbidden access to cosigner';
  const decoded = goDecode(GoErrorResponse, body);
  if (decoded.errors.length > 0) return decoded.errors[0]!;
  const message = (decoded.value as Record<string, unknown> | null)?.message;
  return typeof message === 'string' ? message : `status received from mnee-cosigner -> ${status}`;
}

// ---------------------------------------------------------------------------------------
// Requests as Go's net/http sends them with the SDK's client (DisableKeepAlives: true, so
// `Connection: close`; no Accept header; `Accept-Encoding: gzip` added by the transport;
// Content-Type only where the SDK sets it).

export interface GoRequest {
  readonly method: 'GET' | 'POST';
  /** Path and query exactly as the SDK concatenates them. */
  readonly path: string;
  /** The body bytes the SDK writes (json.Marshal output or its fmt.Appendf template). */
  readonly body?: string;
  /** Only the headers the SDK sets itself (`Header.Set`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface GoAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export function goHttp(baseUrl: string, req: GoRequest): Promise<GoAnswer> {
  const url = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
  const headers: Record<string, string> = {
    Host: url.host,
    'User-Agent': 'Go-http-client/1.1',
    ...(body !== undefined && { 'Content-Length': String(body.length) }),
    ...req.headers,
    Connection: 'close',
    'Accept-Encoding': 'gzip',
  };
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          // Go's transport asked for gzip itself, so it decodes gzip transparently (and drops
          // Content-Encoding and Content-Length); it cannot decode anything else.
          const encoding = res.headers['content-encoding'];
          if (encoding !== undefined && encoding !== 'gzip') {
            reject(new Error(`answer is ${encoding}-encoded; Go's transport cannot decode it`));
            return;
          }
          const raw = Buffer.concat(chunks);
          const headers = { ...res.headers };
          if (encoding === 'gzip') {
            delete headers['content-encoding'];
            delete headers['content-length'];
          }
          const answer = {
            status: res.statusCode ?? 0,
            headers,
            body: (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'),
          };
          const type = typeof headers['content-type'] === 'string' ? headers['content-type'] : null;
          checkAnswer(baseUrl, req.method, req.path, answer.status, type, answer.body).then(
            () => resolve(answer),
            reject,
          );
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    if (body !== undefined) r.write(body);
    r.end();
  });
}

/** json.Marshal of a []string (what every address-list call sends). */
export const marshalAddresses = (addresses: readonly string[]): string => JSON.stringify(addresses);

/**
 * json.Marshal(&TransferRequestDTO{...}) (types.go: rawtx omitempty, callback_url and
 * callback_secret *string omitempty): field order as declared. Go escapes <, > and & in
 * strings as \u003c, \u003e, \u0026 (HTML-safe by default).
 */
export function marshalTransferRequest(rawtx: string, callbackUrl?: string, callbackSecret?: string): string {
  const goString = (s: string) =>
    JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  const parts: string[] = [];
  if (rawtx !== '') parts.push(`"rawtx":${goString(rawtx)}`);
  if (callbackUrl !== undefined) parts.push(`"callback_url":${goString(callbackUrl)}`);
  if (callbackSecret !== undefined) parts.push(`"callback_secret":${goString(callbackSecret)}`);
  return `{${parts.join(',')}}`;
}
