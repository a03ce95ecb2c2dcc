// The client's loose script reading, mirrored: checked against the reference client's own
// functions (`$` = parseCosignerScripts, `T` = parseInscription) and its @bsv/sdk 1.3.30
// (chunking, re-encoding, toUTF8) on random and mutated scripts, and against JS parseInt.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Mnee from '@mnee/ts-sdk';
import {
  ClientReadingError,
  clientChunks,
  clientCosign,
  clientCosigns,
  clientInscriptionContent,
  clientParseInt,
  clientScriptBytes,
  clientUtf8,
} from '../../src/domain/client-script-reading.js';
import { concatBytes, OP, pushData } from '../../src/domain/script-chunks.js';
import {
  cosignLock,
  envelope,
  FakeMneeApi,
  holder,
  p2pkhLock,
  prng,
  SANDBOX_APPROVER,
  SANDBOX_TOKEN_ID,
  tokenJson,
} from '../support/client-fixtures.js';

interface Sdk13Script {
  chunks: { op: number; data?: number[] }[];
  toBinary(): number[];
}
interface Sdk13 {
  Script: { fromBinary(bin: number[]): Sdk13Script };
  Utils: { toUTF8(bytes: number[]): string };
}
const SDK13_PATH = '../../node_modules/@mnee/ts-sdk/node_modules/@bsv/sdk/dist/esm/mod.js';
const sdk13 = (await import(new URL(SDK13_PATH, import.meta.url).href)) as Sdk13;

const alice = holder('alice');
const client = await offlineClient();
type ClientCosignFn = (scripts: Sdk13Script[]) => { cosigner: string; address: string }[];
const clientDollar = (client.parseCosignerScripts as unknown as ClientCosignFn).bind(client);
const clientT = client.parseInscription.bind(client) as unknown as (
  s: Sdk13Script,
) => { file?: { content?: number[] } } | undefined;

const PIECES: (() => Uint8Array)[] = [
  () => Uint8Array.of(OP.OP_DUP),
  () => Uint8Array.of(OP.OP_HASH160),
  () => pushData(alice.pkh),
  () => Uint8Array.of(OP.OP_EQUALVERIFY),
  () => Uint8Array.of(OP.OP_CHECKSIGVERIFY),
  () => pushData(Buffer.from(SANDBOX_APPROVER, 'hex')),
  () => Uint8Array.of(OP.OP_CHECKSIG),
  () => Uint8Array.of(OP.OP_0),
  () => Uint8Array.of(OP.OP_IF),
  () => pushData(Buffer.from('ord')),
  () => Uint8Array.of(OP.OP_1),
  () => Uint8Array.of(0x52),
  () => Uint8Array.of(0x4f),
  () => Uint8Array.of(0x50),
  () => pushData(Buffer.from('application/bsv-20')),
  () => pushData(Buffer.from(tokenJson(SANDBOX_TOKEN_ID, '100'))),
  () => Uint8Array.of(OP.OP_ENDIF),
  () => Uint8Array.of(OP.OP_RETURN),
  () => Uint8Array.of(OP.OP_PUSHDATA1, 0),
  () => Uint8Array.of(OP.OP_PUSHDATA2, 3, 0, 1, 2, 3),
  () => Uint8Array.of(0x01, 0x01),
];

function mutated(rand: () => number): Uint8Array {
  const int = (n: number) => Math.floor(rand() * n);
  const templates = [
    () =>
      concatBytes([envelope(tokenJson(SANDBOX_TOKEN_ID, '5000')), cosignLock(alice.pkh, SANDBOX_APPROVER)]),
    () => concatBytes([envelope(tokenJson(SANDBOX_TOKEN_ID, '5000')), p2pkhLock(alice.pkh)]),
    () => cosignLock(alice.pkh, SANDBOX_APPROVER),
    () => p2pkhLock(alice.pkh),
    () => concatBytes(Array.from({ length: int(12) }, () => PIECES[int(PIECES.length)]!())),
  ];
  let bytes = templates[int(templates.length)]!();
  for (let m = int(4); m > 0; m--) {
    const at = int(bytes.length + 1);
    const kind = int(4);
    if (kind === 0)
      bytes = bytes.slice(0, at); // truncate (pushes may run past the end)
    else if (kind === 1)
      bytes = concatBytes([bytes.slice(0, at), PIECES[int(PIECES.length)]!(), bytes.slice(at)]);
    else if (kind === 2 && bytes.length > 0) bytes[Math.min(at, bytes.length - 1)] = int(256);
    else bytes = concatBytes([PIECES[int(PIECES.length)]!(), bytes]);
  }
  return bytes;
}

function outcome<T>(fn: () => T): { value: T } | { threw: true } {
  try {
    return { value: fn() };
  } catch {
    return { threw: true };
  }
}

describe('client script reading', () => {
  it('chunks and re-encodes scripts as @bsv/sdk 1.3.30 does', () => {
    const rand = prng(11);
    for (let i = 0; i < 3000; i++) {
      const bytes = mutated(rand);
      const theirs = sdk13.Script.fromBinary([...bytes]);
      const ours = clientChunks(bytes);
      assert.deepEqual(
        ours.map((c) => ({ op: c.op, data: c.data && [...c.data] })),
        theirs.chunks.map((c) => ({ op: c.op, data: c.data && [...c.data] })),
        Buffer.from(bytes).toString('hex'),
      );
      assert.deepEqual([...clientScriptBytes(ours)], theirs.toBinary());
    }
  });

  it('finds owners and cosigners as the client`s $ does, throwing where it throws', () => {
    const rand = prng(12);
    let found = 0;
    let threw = 0;
    for (let i = 0; i < 3000; i++) {
      const scripts = [mutated(rand), mutated(rand), mutated(rand)];
      const theirs = outcome(() => clientDollar(scripts.map((s) => sdk13.Script.fromBinary([...s]))));
      const ours = outcome(() => clientCosigns(scripts.map(clientChunks)));
      assert.deepEqual(ours, theirs, scripts.map((s) => Buffer.from(s).toString('hex')).join(' '));
      if ('threw' in ours) threw++;
      else found += ours.value.length;
      const single = outcome(() => clientCosign(clientChunks(scripts[0]!)));
      const singleTheirs = outcome(() => clientDollar([sdk13.Script.fromBinary([...scripts[0]!])])[0]);
      assert.deepEqual(single, singleTheirs);
    }
    assert.ok(found > 1000 && threw > 0, `found ${found}, threw ${threw}`);
  });

  it('throws a ClientReadingError on a script ending in the first four P2PKH opcodes', () => {
    const cut = p2pkhLock(alice.pkh).slice(0, -1);
    assert.throws(() => clientCosign(clientChunks(cut)), ClientReadingError);
  });

  it('reads inscription content as the client`s T does, throwing where it throws', () => {
    const rand = prng(13);
    let contents = 0;
    let threw = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = mutated(rand);
      const theirs = outcome(() => {
        const t = clientT(sdk13.Script.fromBinary([...bytes]));
        return t === undefined ? null : t.file?.content === undefined ? undefined : [...t.file.content];
      });
      const ours = outcome(() => {
        const c = clientInscriptionContent(clientChunks(bytes));
        return c === null || c === undefined ? c : [...c];
      });
      assert.deepEqual(ours, theirs, Buffer.from(bytes).toString('hex'));
      if ('threw' in ours) threw++;
      else if (ours.value) contents++;
    }
    assert.ok(contents > 500 && threw > 0, `contents ${contents}, threw ${threw}`);
  });

  it('decodes UTF-8 as @bsv/sdk 1.3.30 toUTF8 does, invalid sequences included', () => {
    const rand = prng(14);
    for (let i = 0; i < 3000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rand() * 12) }, () => Math.floor(rand() * 256));
      assert.equal(clientUtf8(bytes), sdk13.Utils.toUTF8([...bytes]));
    }
    assert.equal(clientUtf8(Buffer.from('{"amt":"5€"}')), '{"amt":"5€"}');
  });

  it('parses integers as JS parseInt does, exactly beyond 2^53', () => {
    const rand = prng(15);
    const alphabet = ['0', '1', '9', 'x', 'X', 'a', 'f', 'g', '-', '+', ' ', '\n', '\u00a0', '.', 'e'];
    for (let i = 0; i < 5000; i++) {
      const text = Array.from(
        { length: Math.floor(rand() * 8) },
        () => alphabet[Math.floor(rand() * alphabet.length)],
      ).join('');
      for (const radix of [undefined, 10] as const) {
        const js = parseInt(text, radix);
        const ours = clientParseInt(text, radix);
        if (Number.isNaN(js)) assert.equal(ours, null, JSON.stringify(text));
        else assert.equal(Number(ours), js === 0 ? 0 : js, JSON.stringify(text));
      }
    }
    for (const value of [
      5,
      2.5,
      1e21,
      -0,
      true,
      null,
      undefined,
      ['12', '3'],
      { a: 1 },
      '18446744073709551617',
    ]) {
      const js = parseInt(value as string, 10);
      const ours = clientParseInt(value, 10);
      assert.equal(ours === null ? Number.NaN : Number(ours), js === 0 ? 0 : js, String(value));
    }
    assert.equal(clientParseInt('18446744073709551617', 10), 18446744073709551617n);
    assert.throws(() => clientParseInt(JSON.parse('{"toString":1}')), TypeError);
  });
});

/** A client constructed with its config call answered locally (it fetches on construction). */
async function offlineClient(): Promise<Mnee> {
  const api = new FakeMneeApi({
    approver: SANDBOX_APPROVER,
    feeAddress: alice.address,
    burnAddress: alice.address,
    mintAddress: alice.address,
    fees: [],
    decimals: 5,
    tokenId: SANDBOX_TOKEN_ID,
  });
  const original = globalThis.fetch;
  globalThis.fetch = api.fetch;
  try {
    const made = new Mnee({ environment: 'sandbox', apiKey: 'offline' });
    await made.config();
    return made;
  } finally {
    globalThis.fetch = original;
  }
}
